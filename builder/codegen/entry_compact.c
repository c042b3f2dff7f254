/*
 * entry_compact.c - the compact form of small files (tables.compact; the
 * layout: entry_layout.h): the two step entry points
 * share one core and differ only by the read helper they give it in R14:
 * local, a load checked against [stack_lo, stack_hi); remote, the
 * caller's callback.  The core has the remote entry's registers (in R12,
 * out R13, CFA RBX) and this frame:
 *   [rbp - 128, rbp)  expression slots (rsp = rbp - 128)
 *   [rbp]             the rule set's parameters (CF_PARAMS)
 *   [rbp + 8]         stack_lo or read (CF_A), [rbp + 16] stack_hi or arg
 *   [rbp + 24]        the six saved registers, then the return address
 * It copies in to out in a loop, calls the lookup subroutine, and applies
 * a summary word in a loop over its slots, or jumps to the rule set's one
 * body (remote mode, reading through R14).  A rule set without a summary
 * has no rule record: its word is (its body - the first body) * 2 | its
 * parameters' offset << 32 (bit 0 clear: ehelf_describe answers 0).
 * The helpers take the address in RSI, return the value in RAX, keep RCX
 * and RDX (and every callee-saved register), and leave a failed read
 * straight through the exit, whose epilogue restores rsp from rbp.
 */
#include "entry_compact.h"
#include "entry_lookup.h"
#include "entry_summary.h"

static const int compact_saved[] = { RBP, RBX, R12, R13, R14, R15 };

/* Summary word in RAX (R15 too) -> applied, status 0 to DONE. */
static void emit_compact_sum(gen_ctx *g, bool word32, bool unroll)
{
	x86_asm *a = g->a;
	_Static_assert(EHELF_SUM_CFA_RBP == 2 && EHELF_RBP + 1 == EHELF_RSP,
		       "the CFA register is rsp - the RBP bit");
	/* CFA: its register (rsp or rbp) must be valid */
	x86_mov_load32(a, RDX, M(g->in, GEN_REGS_VALID));
	x86_mov_rr(a, RCX, RAX);
	x86_shift32_ri(a, SH_SHR, RCX, 1);
	x86_alu32_ri(a, ALU_AND, RCX, 1);              /* 1: rbp */
	x86_neg(a, RCX);
	x86_mov_load(a, RBX, MI(g->in, RCX, 8, GEN_REG_SIZE * EHELF_RSP));
	x86_alu32_ri(a, ALU_ADD, RCX, EHELF_RSP);
	x86_bt32_rr(a, RDX, RCX);
	x86_jcc(a, CC_AE, g->l_badreg);                /* CF clear */
	x86_mov_rr(a, RDX, RAX);
	x86_shift_ri(a, SH_SHL, RDX,
		     64 - EHELF_SUM_CFA_SHIFT - EHELF_SUM_CFA_BITS);
	x86_shift_ri(a, SH_SAR, RDX, 64 - EHELF_SUM_CFA_BITS);
	x86_lea(a, RBX, MI(RBX, RDX, 8, 0));
	x86_mov_store(a, M(g->out, GEN_REG_SIZE * EHELF_RSP), RBX);
	x86_alu8_mi(a, ALU_OR, M(g->out, GEN_REGS_VALID), 1 << EHELF_RSP);
	if (unroll) {
		/* larger files: one copy per slot (a branch of its own each:
		 * better predicted than the loop's) */
		for (int k = 0; k < EHELF_SUM_SLOTS; k++) {
			int l_skip = x86_label(a), reg = sum_slot_regs[k];
			if (word32 && k == 0) {
				x86_lea(a, RSI, M(RBX, -8));
			} else if (word32) {
				x86_mov_rr(a, RDX, R15);
				x86_shift_ri(a, SH_SHR, RDX, (uint8_t)(SUM32_SHIFT +
							SUM32_BITS * (k - 1)));
				x86_alu32_ri(a, ALU_AND, RDX, (1 << SUM32_BITS) - 1);
				x86_jcc8(a, CC_E, l_skip);       /* kept */
				x86_neg(a, RDX);
				x86_lea(a, RSI, MI(RBX, RDX, 8, 0));
			} else {
				emit_sum_slot(g, M(0, 0), R15, k, l_skip);
				x86_lea(a, RSI, MI(RBX, RDX, 8, 0));
			}
			x86_call_r(a, g->read_reg);
			x86_mov_store(a, M(g->out, GEN_REG_SIZE * reg), RAX);
			x86_alu_mi32(a, ALU_OR, M(g->out, GEN_REGS_VALID),
				     (int32_t)(1u << reg));
			x86_bind(a, l_skip);
		}
		x86_alu32_rr(a, ALU_XOR, RAX, RAX);
		x86_jmp(a, g->l_done);
		return;
	}
	/* the slots: R15 their fields, from slot 0 up; RCX the registers
	 * minus 1, four bits each, slot 0's lowest (none is 0: the end) */
	uint32_t regs = 0;
	for (int k = EHELF_SUM_SLOTS - 1; k >= 0; k--)
		regs = regs << 4 | (uint32_t)(sum_slot_regs[k] - 1);
	x86_shift_ri(a, SH_SHR, R15, EHELF_SUM_SLOT_SHIFT);
	if (word32) { /* slot 0, the return address, at CFA - 8 */
		x86_shift_ri(a, SH_SHL, R15, SUM32_BITS);
		x86_alu_ri(a, ALU_OR, R15, 1);
	}
	x86_mov_ri(a, RCX, regs);
	int l_slot = x86_label(a), l_next = x86_label(a);
	x86_bind(a, l_slot);
	if (word32) {
		x86_mov_rr(a, RDX, R15);
		x86_shift_ri(a, SH_SHR, R15, SUM32_BITS);
		x86_alu32_ri(a, ALU_AND, RDX, (1 << SUM32_BITS) - 1);
		x86_jcc8(a, CC_E, l_next);               /* kept */
		x86_neg(a, RDX);
	} else {
		x86_mov_rr(a, RDX, R15);
		x86_shift_ri(a, SH_SHL, RDX, 64 - EHELF_SUM_SLOT_BITS);
		x86_shift_ri(a, SH_SAR, RDX, 64 - EHELF_SUM_SLOT_BITS);
		x86_shift_ri(a, SH_SHR, R15, EHELF_SUM_SLOT_BITS);
		x86_alu_ri(a, ALU_CMP, RDX, -EHELF_SUM_KEEP);
		x86_jcc8(a, CC_E, l_next);
	}
	x86_lea(a, RSI, MI(RBX, RDX, 8, 0));
	x86_call_r(a, g->read_reg);
	x86_mov_rr(a, RDX, RCX);
	x86_alu32_ri(a, ALU_AND, RDX, 15);
	x86_mov_store(a, MI(g->out, RDX, 8, GEN_REG_SIZE), RAX);
	x86_inc32(a, RDX);
	x86_alu32_rr(a, ALU_XOR, RAX, RAX);
	x86_bts32_rr(a, RAX, RDX);
	x86_alu32_mr(a, ALU_OR, M(g->out, GEN_REGS_VALID), RAX);
	x86_bind(a, l_next);
	x86_shift32_ri(a, SH_SHR, RCX, 4);
	x86_jcc8(a, CC_NE, l_slot);
	x86_alu32_rr(a, ALU_XOR, RAX, RAX);
	x86_jmp(a, g->l_done);
}

void emit_compact(x86_asm *a, const tables *tb, gen_ctx *g, int l_local,
		  int l_remote)
{
	int l_core = x86_label(a), l_copy = x86_label(a);
	int l_not_covered = x86_label(a), l_read_fail = x86_label(a);
	int l_sum = x86_label(a);
	int h_local = x86_label(a), h_remote = x86_label(a);
	/* ehelf_step_local(pc=rdi, in=rsi, out=rdx, stack_lo=rcx,
	 * stack_hi=r8), ehelf_step_remote(pc=rdi, in=rsi, out=rdx,
	 * read=rcx, arg=r8) */
	x86_bind(a, l_local);
	x86_lea(a, RAX, MRIP(h_local));
	x86_jmp8(a, l_core);
	x86_bind(a, l_remote);
	x86_lea(a, RAX, MRIP(h_remote));
	x86_bind(a, l_core);
	for (int i = 0; i < 6; i++)
		x86_push(a, compact_saved[i]);
	x86_push(a, R8);                                /* CF_B */
	x86_push(a, RCX);                               /* CF_A */
	x86_push(a, RAX);                               /* CF_PARAMS */
	x86_mov_rr(a, RBP, RSP);
	/* 9 pushes leave rsp = 0 (mod 16) */
	x86_alu_ri(a, ALU_ADD, RSP, -8 * GEN_MAX_STACK);
	x86_mov_rr(a, g->in, RSI);
	x86_mov_rr(a, g->out, RDX);
	x86_mov_rr(a, g->read_reg, RAX);
	/* out = in, eight bytes at a time (see emit_copy): in a loop, or,
	 * in larger files, unrolled (3.5 ns faster a step, 144 bytes more) */
	if (tb->vec_lookup) {
		for (int r = 0; r < EHELF_NREGS; r++) {
			x86_mov_load(a, RAX, M(g->in, GEN_REG_SIZE * r));
			x86_mov_store(a, M(g->out, GEN_REG_SIZE * r), RAX);
		}
	} else {
		x86_mov_ri(a, RCX, EHELF_NREGS);
		x86_bind(a, l_copy);
		x86_mov_load(a, RAX, MI(g->in, RCX, 8, -GEN_REG_SIZE));
		x86_mov_store(a, MI(g->out, RCX, 8, -GEN_REG_SIZE), RAX);
		x86_dec32(a, RCX);
		x86_jcc8(a, CC_NE, l_copy);
	}
	x86_mov_load32(a, RAX, M(g->in, GEN_REGS_VALID));
	x86_alu32_ri(a, ALU_AND, RAX, (int32_t)EHELF_VALID_REGS);
	x86_mov_store32(a, M(g->out, GEN_REGS_VALID), RAX);
	emit_lookup(a, NULL, tb, l_not_covered, XNONE); /* pc in RDI */
	x86_lea(a, R10, MRIP(tb->summaries));
	if (tb->word32)
		x86_mov_load32(a, RAX, MI(R10, RCX, 4, 0));
	else
		x86_mov_load(a, RAX, MI(R10, RCX, 8, 0));
	x86_test8_ri(a, RAX, (uint8_t)EHELF_SUM_OK);
	x86_jcc(a, CC_NE, l_sum);
	/* the order (body dispatch, exits, helpers, summary) lets the
	 * jumps between them take two bytes */
	if (tb->word32) {
		/* word 2j: the j-th body reference, int32 body - table (and
		 * uint32 parameters, 8 bytes, unless tables.no_params) */
		x86_lea(a, R10, MRIP(tb->bodyrefs));
		if (!tb->no_params) {
			x86_mov_load32(a, RDX, MI(R10, RAX, 4, 4));
			x86_lea(a, R11, MRIP(tb->params));
			x86_alu_rr(a, ALU_ADD, RDX, R11);
			x86_mov_store(a, g->params_slot, RDX);
		}
		x86_movsxd_load(a, RAX, MI(R10, RAX, tb->no_params ? 2 : 4, 0));
		x86_alu_rr(a, ALU_ADD, RAX, R10);
		x86_jmp_r(a, RAX);
	} else {
		x86_mov_rr(a, RDX, RAX);
		x86_shift_ri(a, SH_SHR, RDX, 32);
		x86_lea(a, R10, MRIP(tb->params));
		x86_alu_rr(a, ALU_ADD, RDX, R10);
		x86_mov_store(a, g->params_slot, RDX);
		x86_shift32_ri(a, SH_SHR, RAX, 1);
		x86_lea(a, R10, MRIP(tb->bodies));
		x86_alu_rr(a, ALU_ADD, RAX, R10);
		x86_jmp_r(a, RAX);
	}
	/* the exits: the status by a push and a pop (3 bytes, not 5) */
	static const int status[] = { EHELF_E_NOT_COVERED, EHELF_E_BADREG,
		EHELF_E_BOUNDS, EHELF_E_EXPR, EHELF_E_READ };
	int exits[] = { l_not_covered, g->l_badreg, g->l_bounds, g->l_expr,
			l_read_fail };
	for (int i = 0; i < 5; i++) {
		x86_bind(a, exits[i]);
		x86_push_i8(a, (int8_t)status[i]);
		x86_pop(a, RAX);
		if (i < 4)
			x86_jmp8(a, g->l_done);
	}
	x86_bind(a, g->l_done);
	x86_lea(a, RSP, M(RBP, CF_SAVED));
	for (int i = 5; i >= 0; i--)
		x86_pop(a, compact_saved[i]);
	x86_ret(a);
	/* local read: [rsi, rsi + 8) within [stack_lo, stack_hi) */
	x86_bind(a, h_local);
	x86_alu_rm(a, ALU_CMP, RSI, M(RBP, CF_A));
	x86_jcc(a, CC_B, g->l_bounds);
	x86_mov_rr(a, RAX, RSI);
	x86_alu_ri(a, ALU_ADD, RAX, 8);
	x86_jcc(a, CC_B, g->l_bounds);                 /* carry: wrapped */
	x86_alu_rm(a, ALU_CMP, RAX, M(RBP, CF_B));
	x86_jcc(a, CC_A, g->l_bounds);
	x86_mov_load(a, RAX, M(RSI, 0));
	x86_ret(a);
	/* remote read: read(arg, rsi, &value) on a 16-byte aligned stack */
	x86_bind(a, h_remote);
	x86_push(a, RCX);
	x86_push(a, RDX);
	x86_push(a, RAX);                               /* the value */
	x86_mov_load(a, RDI, M(RBP, CF_B));
	x86_mov_rr(a, RDX, RSP);
	x86_mov_load(a, RAX, M(RBP, CF_A));
	x86_call_r(a, RAX);
	x86_alu32_rr(a, ALU_OR, RAX, RAX);
	x86_jcc(a, CC_NE, l_read_fail);
	x86_pop(a, RAX);
	x86_pop(a, RDX);
	x86_pop(a, RCX);
	x86_ret(a);
	x86_bind(a, l_sum);
	x86_mov_rr(a, R15, RAX);
	emit_compact_sum(g, tb->word32, tb->vec_lookup);
}
