/*
 * entry_summary.c - summary words (ehelf_abi.h) in an eh_elf's code: the
 * remote entry applies a rule set's word instead of a body, ehelf_describe
 * returns it, and compact files may store 4-byte words (sum32) that
 * describe expands.  Layout in entry_layout.h.
 */
#include "entry_summary.h"
#include "entry_lookup.h"

void emit_word(x86_asm *a, int summaries, int l_record)
{
	x86_lea(a, R10, MRIP(summaries));
	x86_mov_load(a, RAX, MI(R10, RCX, 8, 0));
	x86_mov_rr(a, RCX, RAX);
	x86_shift_ri(a, SH_SHR, RCX, 1);
	x86_test32_ri(a, RAX, (uint32_t)EHELF_SUM_OK);
	x86_jcc(a, CC_E, l_record);
}

/* Summary word in RAX -> the CFA into CFA (and out->rsp, whose valid bit
 * is the caller's to set), or a jump to the BADREG exit when its register
 * is not valid.  Clobbers RCX, RDX, R10. */
static void emit_sum_cfa(gen_ctx *g, int cfa)
{
	x86_asm *a = g->a;
	_Static_assert(EHELF_SUM_CFA_RBP == 2 && EHELF_RBP + 1 == EHELF_RSP,
		       "the CFA register is rsp - the RBP bit");
	x86_mov_rr(a, RCX, RAX);
	x86_shift32_ri(a, SH_SHR, RCX, 1);
	x86_alu32_ri(a, ALU_AND, RCX, 1);              /* 1: rbp */
	x86_mov_ri(a, RDX, 1u << EHELF_RSP);
	x86_shift_cl(a, SH_SHR, RDX);                   /* its valid bit */
	x86_mov_load32(a, R10, M(g->in, GEN_REGS_VALID));
	x86_test_rr(a, R10, RDX);
	x86_jcc(a, CC_E, g->l_badreg);
	x86_neg(a, RCX);
	x86_mov_load(a, cfa, MI(g->in, RCX, 8, GEN_REG_SIZE * EHELF_RSP));
	x86_mov_rr(a, RDX, RAX);
	x86_shift_ri(a, SH_SHL, RDX,
		     64 - EHELF_SUM_CFA_SHIFT - EHELF_SUM_CFA_BITS);
	x86_shift_ri(a, SH_SAR, RDX, 64 - EHELF_SUM_CFA_BITS);
	x86_lea(a, cfa, MI(cfa, RDX, 8, 0));
	x86_mov_store(a, M(g->out, GEN_REG_SIZE * EHELF_RSP), cfa);
}

void emit_sum_slot(gen_ctx *g, x86_mem word, int src, int k, int skip)
{
	x86_asm *a = g->a;
	if (src != XNONE)
		x86_mov_rr(a, RDX, src);
	else
		x86_mov_load(a, RDX, word);
	x86_shift_ri(a, SH_SHL, RDX, (uint8_t)(64 - EHELF_SUM_SLOT_SHIFT -
					       EHELF_SUM_SLOT_BITS * (k + 1)));
	x86_shift_ri(a, SH_SAR, RDX, 64 - EHELF_SUM_SLOT_BITS);
	if (k)
		x86_alu_ri(a, ALU_CMP, RDX, -EHELF_SUM_KEEP);
	if (k)
		x86_jcc8(a, CC_E, skip);
}

void emit_sum_remote(gen_ctx *g)
{
	x86_asm *a = g->a;
	x86_mem word = gen_slot(g, 0);
	x86_mov_store(a, word, RAX);
	emit_sum_cfa(g, g->cfa);
	x86_alu_mi32(a, ALU_OR, M(g->out, GEN_REGS_VALID), 1 << EHELF_RSP);
	for (int k = 0; k < EHELF_SUM_SLOTS; k++) {
		int skip = x86_label(a), reg = sum_slot_regs[k];
		emit_sum_slot(g, word, XNONE, k, skip);
		x86_lea(a, RSI, MI(g->cfa, RDX, 8, 0));
		x86_call(a, g->l_read);
		x86_mov_store(a, M(g->out, GEN_REG_SIZE * reg), RAX);
		x86_alu_mi32(a, ALU_OR, M(g->out, GEN_REGS_VALID), (int32_t)(1u << reg));
		x86_bind(a, skip);
	}
	x86_alu32_rr(a, ALU_XOR, RAX, RAX);
	gen_return(g);
}

void emit_describe_entry(x86_asm *a, const lookup_table *t, const tables *tb)
{
	int l_none = x86_label(a);
	if (!tb->compact) { /* the inlined lookup clobbers it */
		x86_push(a, RBX);
		x86_mov_rr(a, RAX, RDI);
	}
	emit_lookup(a, t, tb, l_none, RDX);
	if (tb->escapes) {
		int l_direct = x86_label(a);
		x86_alu32_ri(a, ALU_CMP, RCX, LT_ESCAPE);
		x86_jcc8(a, CC_NE, l_direct);
		x86_mov_rr(a, RAX, RDX);
		x86_call(a, tb->esc_find);
		x86_bind(a, l_direct);
	}
	x86_lea(a, R10, MRIP(tb->summaries));
	x86_mov_load(a, RAX, MI(R10, RCX, 8, 0));
	x86_mov_rr(a, RCX, RAX);
	x86_alu32_ri(a, ALU_AND, RCX, (int32_t)EHELF_SUM_OK);
	x86_neg(a, RCX);
	x86_alu_rr(a, ALU_AND, RAX, RCX);               /* 0 unless a summary */
	if (!tb->compact)
		x86_pop(a, RBX);
	x86_ret(a);
	x86_bind(a, l_none);
	x86_alu32_rr(a, ALU_XOR, RAX, RAX);
	if (!tb->compact)
		x86_pop(a, RBX);
	x86_ret(a);
}

static uint64_t sum_slot(uint64_t w, int k)
{
	return w >> (EHELF_SUM_SLOT_SHIFT + EHELF_SUM_SLOT_BITS * k) &
	       ((1u << EHELF_SUM_SLOT_BITS) - 1);
}

bool sum32_fits(uint64_t w)
{
	if (sum_slot(w, 0) != (1u << EHELF_SUM_SLOT_BITS) - 1) /* -1 */
		return false;
	for (int k = 1; k < EHELF_SUM_SLOTS; k++) {
		uint64_t v = sum_slot(w, k);
		if (v != EHELF_SUM_KEEP &&
		    (v < (1u << EHELF_SUM_SLOT_BITS) - 7 ||
		     v > (1u << EHELF_SUM_SLOT_BITS) - 1))
			return false;
	}
	return true;
}

uint32_t sum32(uint64_t w)
{
	uint32_t x = (uint32_t)(w & ((1u << EHELF_SUM_SLOT_SHIFT) - 1));
	for (int k = 1; k < EHELF_SUM_SLOTS; k++) {
		uint64_t v = sum_slot(w, k);
		uint32_t f = v == EHELF_SUM_KEEP ? 0 :
			     (uint32_t)((1u << EHELF_SUM_SLOT_BITS) - v);
		x |= f << (SUM32_SHIFT + SUM32_BITS * (k - 1));
	}
	return x;
}

void emit_describe_word32(x86_asm *a, const lookup_table *t, const tables *tb)
{
	int l_none = x86_label(a), l_slot = x86_label(a);
	emit_lookup(a, t, tb, l_none, RDX);
	x86_lea(a, R10, MRIP(tb->summaries));
	x86_mov_load32(a, RAX, MI(R10, RCX, 4, 0));
	x86_test8_ri(a, RAX, (uint8_t)EHELF_SUM_OK);
	x86_jcc8(a, CC_E, l_none);
	/* CFA as it is, slot 0 (-1), then each field through the table */
	x86_mov_rr(a, RDX, RAX);
	x86_alu32_ri(a, ALU_AND, RDX, (1 << EHELF_SUM_SLOT_SHIFT) - 1);
	x86_alu32_ri(a, ALU_OR, RDX, ((1 << EHELF_SUM_SLOT_BITS) - 1) << EHELF_SUM_SLOT_SHIFT);
	x86_shift32_ri(a, SH_SHR, RAX, SUM32_SHIFT);
	x86_mov_ri(a, RCX, EHELF_SUM_SLOT_SHIFT + EHELF_SUM_SLOT_BITS);
	x86_lea(a, R10, MRIP(tb->expand));
	x86_bind(a, l_slot);
	x86_mov_rr(a, R11, RAX);
	x86_alu32_ri(a, ALU_AND, R11, (1 << SUM32_BITS) - 1);
	x86_movzx_load8(a, R11, MI(R10, R11, 1, 0));
	x86_shift_cl(a, SH_SHL, R11);
	x86_alu_rr(a, ALU_OR, RDX, R11);
	x86_shift32_ri(a, SH_SHR, RAX, SUM32_BITS);
	x86_alu32_ri(a, ALU_ADD, RCX, EHELF_SUM_SLOT_BITS);
	x86_alu32_ri(a, ALU_CMP, RCX, EHELF_SUM_SLOT_SHIFT + EHELF_SUM_SLOT_BITS * EHELF_SUM_SLOTS);
	x86_jcc8(a, CC_B, l_slot);
	x86_mov_rr(a, RAX, RDX);
	x86_ret(a);
	x86_bind(a, l_none);
	x86_alu32_rr(a, ALU_XOR, RAX, RAX);
	x86_ret(a);
}
