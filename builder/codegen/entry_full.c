/*
 * entry_full.c - the full form's step entry points (files of more than
 * 16,384 entries or 256 rule sets): ehelf_step_local and
 * ehelf_step_remote each copy in to out, look the pc up, and jump through
 * the rule record to the rule set's compiled body; the remote entry
 * applies summary words itself and has the read helper.  The layout:
 * entry_layout.h.
 */
#include "entry_full.h"
#include "entry_lookup.h"
#include "entry_summary.h"

/* out = in, with only the register bits of valid kept.  Eight-byte moves,
 * not sixteen: IN usually is the previous step's OUT, whose registers were
 * just written one by one, and a 16-byte load spanning two 8-byte stores
 * cannot be forwarded from the store buffer (a stall of about 15 cycles
 * each, measured as the main cost of a step in a loop). */
static void emit_copy(x86_asm *a, int in, int out)
{
	for (int r = 0; r < EHELF_NREGS; r += 2) {
		x86_mov_load(a, RCX, M(in, GEN_REG_SIZE * r));
		if (r + 1 < EHELF_NREGS)
			x86_mov_load(a, RDX, M(in, GEN_REG_SIZE * (r + 1)));
		x86_mov_store(a, M(out, GEN_REG_SIZE * r), RCX);
		if (r + 1 < EHELF_NREGS)
			x86_mov_store(a, M(out, GEN_REG_SIZE * (r + 1)), RDX);
	}
	x86_mov_load32(a, RCX, M(in, GEN_REGS_VALID));
	x86_alu32_ri(a, ALU_AND, RCX, (int32_t)EHELF_VALID_REGS);
	x86_mov_store32(a, M(out, GEN_REGS_VALID), RCX);
}

/* rule index in RCX -> jump to its body (the record's int32 at
 * BODY_FIELD: RECORD_LOCAL_BODY or RECORD_REMOTE_BODY); the params pointer
 * into PARAMS_REG, or into PARAMS_SLOT when PARAMS_REG is XNONE (through
 * RDX). */
static void emit_dispatch(x86_asm *a, const tables *tb, int body_field,
			  int params_reg, x86_mem params_slot)
{
	x86_lea(a, R10, MRIP(tb->records));
	x86_lea(a, RCX, MI(RCX, RCX, 2, 0));
	x86_lea(a, R10, MI(R10, RCX, 4, 0));            /* record */
	int params = params_reg != XNONE ? params_reg : RDX;
	x86_mov_load32(a, params, M(R10, RECORD_PARAMS));
	x86_lea(a, R11, MRIP(tb->params));
	x86_alu_rr(a, ALU_ADD, params, R11);
	if (params_reg == XNONE)
		x86_mov_store(a, params_slot, RDX);
	x86_movsxd_load(a, RCX, M(R10, body_field));
	x86_alu_rr(a, ALU_ADD, RCX, R10);
	x86_jmp_r(a, RCX);
}

static void emit_exit(x86_asm *a, int label, int status, int done)
{
	x86_bind(a, label);
	x86_mov_ri(a, RAX, (uint64_t)(uint32_t)status);
	x86_jmp8(a, done);                /* the exits precede DONE closely */
}

void emit_local_entry(x86_asm *a, const lookup_table *t, const tables *tb,
		      gen_ctx *g)
{
	int l_bounds_ok = x86_label(a), l_not_covered = x86_label(a);
	x86_push(a, RBX);
	x86_mov_rr(a, RAX, RDI);
	x86_mov_rr(a, RDI, RDX);
	x86_mov_rr(a, R9, R8);
	x86_mov_rr(a, R8, RCX);
	x86_alu_ri(a, ALU_SUB, R9, 8);
	x86_jcc8(a, CC_AE, l_bounds_ok);
	x86_mov_ri(a, R8, UINT64_MAX);         /* hi < 8: nothing readable */
	x86_alu32_rr(a, ALU_XOR, R9, R9);
	x86_bind(a, l_bounds_ok);
	emit_copy(a, RSI, RDI);
	emit_lookup(a, t, tb, l_not_covered, RDX);
	x86_bind(a, tb->again[0]);
	emit_dispatch(a, tb, RECORD_LOCAL_BODY, g->params_reg, g->params_slot);
	emit_exit(a, l_not_covered, EHELF_E_NOT_COVERED, g->l_done);
	emit_exit(a, g->l_badreg, EHELF_E_BADREG, g->l_done);
	emit_exit(a, g->l_bounds, EHELF_E_BOUNDS, g->l_done);
	emit_exit(a, g->l_expr, EHELF_E_EXPR, g->l_done);
	x86_bind(a, g->l_done);
	gen_return(g);
}

void emit_remote_entry(x86_asm *a, const lookup_table *t, const tables *tb,
		       gen_ctx *g)
{
	static const int saved[] = { RBP, RBX, R12, R13, R14, R15 };
	int l_not_covered = x86_label(a), l_read_fail = x86_label(a);
	for (int i = 0; i < 6; i++)
		x86_push(a, saved[i]);
	/* 6 pushes leave rsp = 8 (mod 16); the frame realigns it */
	x86_alu_ri(a, ALU_SUB, RSP, GEN_REMOTE_FRAME);
	x86_mov_rr(a, RBP, RSP);
	x86_mov_rr(a, R12, RSI);
	x86_mov_rr(a, R13, RDX);
	x86_mov_rr(a, R14, RCX);
	x86_mov_rr(a, R15, R8);
	x86_mov_rr(a, RAX, RDI);
	emit_copy(a, R12, R13);
	emit_lookup(a, t, tb, l_not_covered, RBX);
	x86_bind(a, tb->again[1]);
	int l_record = x86_label(a);
	emit_word(a, tb->summaries, l_record);
	emit_sum_remote(g);
	x86_bind(a, l_record);
	emit_dispatch(a, tb, RECORD_REMOTE_BODY, g->params_reg, g->params_slot);
	emit_exit(a, l_not_covered, EHELF_E_NOT_COVERED, g->l_done);
	emit_exit(a, g->l_badreg, EHELF_E_BADREG, g->l_done);
	emit_exit(a, g->l_bounds, EHELF_E_BOUNDS, g->l_done);
	emit_exit(a, g->l_expr, EHELF_E_EXPR, g->l_done);
	emit_exit(a, l_read_fail, EHELF_E_READ, g->l_done);
	x86_bind(a, g->l_done);
	x86_mov_rr(a, RSP, RBP);
	x86_alu_ri(a, ALU_ADD, RSP, GEN_REMOTE_FRAME);
	for (int i = 5; i >= 0; i--)
		x86_pop(a, saved[i]);
	x86_ret(a);
	/* read helper: address in rsi -> value in rax; on failure leave
	 * through l_read_fail with the entry's frame restored */
	int l_fail = x86_label(a);
	x86_align(a, 16, 0xcc);
	x86_bind(a, g->l_read);
	x86_alu_ri(a, ALU_SUB, RSP, 24);
	x86_mov_rr(a, RDI, R15);
	x86_mov_rr(a, RDX, RSP);
	x86_call_r(a, R14);
	x86_test_rr(a, RAX, RAX);
	x86_jcc(a, CC_NE, l_fail);
	x86_mov_load(a, RAX, M(RSP, 0));
	x86_alu_ri(a, ALU_ADD, RSP, 24);
	x86_ret(a);
	x86_bind(a, l_fail);
	x86_mov_rr(a, RSP, RBP);
	x86_jmp(a, l_read_fail);
}
