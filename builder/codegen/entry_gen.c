/* entry_gen.c - see entry_gen.h. */
#include "entry_gen.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/err.h"
#include "body_gen.h"
#include "summary.h"

/*
 * Blob layout: [local entry][remote entry][read helper][describe]
 * [escape routine and stubs?][bodies, local then remote] [ehelf_info][constants (escapes only)][page records][rule-set
 * words][rule records][params][entry offsets][entry rule bytes][escape
 * ranks and indexes]; compact files (emit_compact, never escapes):
 * [entries, core, exits, helpers, summary][describe][lookup][bodies]
 * [ehelf_info][page records][words][body references][describe's
 * table?][params?][entry offsets][entry rule indexes].
 *
 * Rule record (12 bytes): int32 local body - record, int32 remote body -
 * record, uint32 params - params base.  Parameters are int16, int32 for
 * the shapes with an offset beyond 16 bits (gen_ctx.params16), in both
 * forms.
 */
typedef struct tables {
	/* labels of the blob's tables */
	int pages, entry_offsets, entry_rules, records, params, summaries;
	/* the escape routine's byte counts (emit_count_zero_bytes) */
	int byte_ones;          /* 0x0101010101010101: each byte 1 */
	int byte_top_bits;      /* 0x8080808080808080: each byte's top bit */
	int byte_low_bits;      /* 0x7f7f7f7f7f7f7f7f: the others */
	unsigned page_stride;   /* lookup_table.stride */
	unsigned cnt_width;     /* 1 or 2 */
	bool escapes;           /* more than 255 rule sets: entries of rule
				 * sets numbered 255 and up are escaped */
	int esc_rank, esc_rules, esc_find;  /* their tables and routine */
	int again[2];           /* local, remote: dispatch of index RCX */
	bool compact;           /* small files: one core for both step
				 * entry points (emit_compact) */
	bool shared_lookup;     /* one lookup subroutine (with compact) */
	int lookup_fn;
	int bodies;             /* compact: the first body */
	bool word32;            /* compact: 4-byte words (sum32_fits) */
	int bodyrefs, expand;   /* word32: body references, describe's table */
	bool no_params;         /* compact: no body reads parameters */
	bool vec_lookup;       /* compact: emit_lookup_vec, not _small */
	int stub[2];            /* local, remote escape stubs */
} tables;

/* a rule record's fields */
enum { RECORD_LOCAL_BODY = 0, RECORD_REMOTE_BODY = 4, RECORD_PARAMS = 8,
       RECORD_SIZE = 12 };

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

/*
 * pc in RAX -> rule-set index in RCX (>= 1), or a jump to NOT_COVERED;
 * with escapes, KEEP receives the entry's number for the escape stub,
 * which index LT_ESCAPE dispatches to (see emit_esc_find).
 * Clobbers RAX, RCX, RDX, RBX, R10, R11, XMM0, XMM1.  Inlined in each
 * entry point: a shared subroutine saves 480 bytes but its call and
 * return cost about 1 ns a step (measured), so only small files have one
 * (emit_lookup).  See lookup_table.h: the page record gives the subpage's
 * n entries from i0; their 8-bit offsets (stored ^ 0x80, so that SSE2's
 * signed byte compare is the unsigned one) are compared with the pc's o,
 * LT_VEC at a time.  The offsets are sorted, so the first one above o is
 * the number of entries at or before the pc: tzcnt of the compare's mask
 * with bit n set (tzcnt runs as bsf where BMI1 is missing, the same on a
 * non-zero input; no popcnt, which x86-64 may lack).  No data-dependent
 * branch for n <= LT_VEC (60% of the entries of large files); the others
 * take a short loop.  That branch, taken or not, also feeds the indirect
 * predictor of the dispatch that follows: without it, a warm step of
 * libstdc++ was measured at twice the time (32 entries at once, no loop).
 */
static void emit_lookup_inline(x86_asm *a, const lookup_table *t,
			       const tables *tb, int not_covered, int keep)
{
	int l_cmp = x86_label(a), l_slow = x86_label(a), l_scan = x86_label(a);
	int l_found = x86_label(a);
	if (t->base) {
		x86_mov_ri(a, R10, t->base);
		x86_alu_rr(a, ALU_SUB, RAX, R10);
	}
	x86_mov_ri(a, R10, (uint64_t)t->npages << t->page_bits);
	x86_alu_rr(a, ALU_CMP, RAX, R10);
	x86_jcc(a, CC_AE, not_covered);
	x86_mov_rr(a, RDX, RAX);
	x86_shift_ri(a, SH_SHR, RDX, (uint8_t)t->page_bits);
	x86_imul_ri(a, RDX, RDX, (int32_t)tb->page_stride);
	x86_lea(a, R10, MRIP(tb->pages));
	x86_alu_rr(a, ALU_ADD, R10, RDX);               /* page record */
	x86_mov_rr(a, RCX, RAX);
	x86_shift32_ri(a, SH_SHR, RCX, LT_SUB_BITS);
	x86_alu32_ri(a, ALU_AND, RCX, (int32_t)t->subpages - 1); /* subpage s */
	if (tb->cnt_width == 1) {
		x86_movzx_load8(a, RDX, MI(R10, RCX, 1, 3));
		x86_movzx_load8(a, R11, MI(R10, RCX, 1, 4));
	} else {
		x86_movzx_load16(a, RDX, MI(R10, RCX, 2, 4));
		x86_movzx_load16(a, R11, MI(R10, RCX, 2, 6));
	}
	x86_alu32_rr(a, ALU_SUB, R11, RDX);             /* n */
	x86_mov_load32(a, RBX, M(R10, 0));
	x86_alu32_rr(a, ALU_ADD, RDX, RBX);             /* i0 */
	x86_movzx8_rr(a, RAX, RAX);
	x86_alu32_ri(a, ALU_XOR, RAX, 0x80);
	x86_imul_ri(a, RAX, RAX, 0x01010101);
	x86_movd_xr(a, 1, RAX);
	x86_pshufd(a, 1, 1, 0);                         /* o ^ 0x80, each byte */
	x86_lea(a, R10, MRIP(tb->entry_offsets));
	x86_bind(a, l_cmp);
	x86_movdqu_load(a, 0, MI(R10, RDX, 1, 0));
	x86_pcmpgtb(a, 0, 1);
	x86_pmovmskb(a, RCX, 0);                        /* offsets > o */
	x86_alu32_ri(a, ALU_CMP, R11, LT_VEC);
	x86_jcc8(a, CC_A, l_slow);
	x86_bts_rr(a, RCX, R11);                        /* at most n */
	x86_bind(a, l_scan);
	x86_tzcnt_rr(a, RCX, RCX);                      /* entries <= o */
	x86_alu_rr(a, ALU_ADD, RCX, RDX);
	x86_jcc(a, CC_E, not_covered);                 /* none at all */
	x86_lea(a, R10, MRIP(tb->entry_rules));
	if (tb->escapes && keep != XNONE)
		x86_mov_rr(a, keep, RCX);               /* for the escape stub */
	x86_movzx_load8(a, RCX, MI(R10, RCX, 1, -1));
	x86_alu32_rr(a, ALU_OR, RCX, RCX);
	x86_jcc(a, CC_E, not_covered);
	x86_jmp8(a, l_found);
	/* n > LT_VEC (dense code): the answer is among these offsets unless
	 * none is above o; else the next ones */
	x86_bind(a, l_slow);
	x86_test_rr(a, RCX, RCX);
	x86_jcc8(a, CC_NE, l_scan);
	x86_alu32_ri(a, ALU_ADD, RDX, LT_VEC);
	x86_alu32_ri(a, ALU_SUB, R11, LT_VEC);
	x86_jmp8(a, l_cmp);
	x86_bind(a, l_found);
}

/* The lookup subroutine of compact files (tables.lookup_fn): the same
 * search as emit_lookup_inline, but the subpage's entries are counted one
 * at a time (a short loop: a subpage usually has under 8), in about half
 * the code.  pc in RDI -> rule index in RCX, 0 (and ZF set) when no row
 * covers the pc.  Callers assume the union of both variants' clobbers:
 * RAX, RDX, RDI, R9, R10, R11, XMM0, XMM1 (never RBX: ehelf_describe
 * saves nothing). */
static void emit_lookup_small(x86_asm *a, const lookup_table *t,
			      const tables *tb)
{
	int l_none = x86_label(a), l_loop = x86_label(a), l_done = x86_label(a);
	uint64_t limit = (uint64_t)t->npages << t->page_bits;
	if (t->base && t->base <= INT32_MAX) {
		x86_alu_ri(a, ALU_SUB, RDI, (int32_t)t->base);
	} else if (t->base) {
		x86_mov_ri(a, R10, t->base);
		x86_alu_rr(a, ALU_SUB, RDI, R10);
	}
	if (limit <= INT32_MAX) {
		x86_alu_ri(a, ALU_CMP, RDI, (int32_t)limit);
	} else {
		x86_mov_ri(a, R10, limit);
		x86_alu_rr(a, ALU_CMP, RDI, R10);
	}
	x86_jcc(a, CC_AE, l_none);
	x86_mov_rr(a, RDX, RDI);
	x86_shift_ri(a, SH_SHR, RDX, (uint8_t)t->page_bits);
	x86_imul_ri(a, RDX, RDX, (int32_t)tb->page_stride);
	x86_lea(a, R10, MRIP(tb->pages));
	x86_alu_rr(a, ALU_ADD, R10, RDX);               /* page record */
	x86_mov_rr(a, RCX, RDI);
	x86_shift32_ri(a, SH_SHR, RCX, LT_SUB_BITS);
	x86_alu32_ri(a, ALU_AND, RCX, (int32_t)t->subpages - 1); /* subpage */
	if (tb->cnt_width == 1) { /* cnt[0] is first's top byte */
		x86_movzx_load8(a, RDX, MI(R10, RCX, 1, 3));
		x86_movzx_load8(a, R11, MI(R10, RCX, 1, 4));
	} else {
		x86_movzx_load16(a, RDX, MI(R10, RCX, 2, 4));
		x86_movzx_load16(a, R11, MI(R10, RCX, 2, 6));
	}
	x86_mov_load32(a, R9, M(R10, 0));
	x86_alu32_rr(a, ALU_ADD, RDX, R9);              /* the subpage's first */
	x86_alu32_rr(a, ALU_ADD, R11, R9);              /* and end */
	/* offsets are stored ^ 0x80: the unsigned offset <= o is the
	 * signed stored offset <= o ^ 0x80 */
	x86_alu32_ri(a, ALU_AND, RDI, (1 << LT_SUB_BITS) - 1);
	x86_alu32_ri(a, ALU_XOR, RDI, 0x80);
	x86_lea(a, R10, MRIP(tb->entry_offsets));
	x86_bind(a, l_loop);                            /* entries <= o */
	x86_alu32_rr(a, ALU_CMP, RDX, R11);
	x86_jcc8(a, CC_AE, l_done);
	x86_cmp8_rm(a, RDI, MI(R10, RDX, 1, 0));
	x86_jcc8(a, CC_L, l_done);
	x86_inc32(a, RDX);
	x86_jmp8(a, l_loop);
	x86_bind(a, l_done);
	x86_test_rr(a, RDX, RDX);
	x86_jcc8(a, CC_E, l_none);                      /* none at all */
	x86_lea(a, R10, MRIP(tb->entry_rules));
	x86_movzx_load8(a, RCX, MI(R10, RDX, 1, -1));
	x86_test_rr32(a, RCX, RCX);                     /* ZF: none */
	x86_ret(a);
	x86_bind(a, l_none);
	x86_alu32_rr(a, ALU_XOR, RCX, RCX);
	x86_ret(a);
}

/* emit_lookup_small's contract with emit_lookup_inline's search, for
 * compact files of more entries (tables.vec_lookup): a few ns faster
 * a step than counting one entry at a time, and longer. */
static void emit_lookup_vec(x86_asm *a, const lookup_table *t,
			     const tables *tb)
{
	int l_none = x86_label(a);
	x86_push(a, RBX);
	x86_mov_rr(a, RAX, RDI);
	emit_lookup_inline(a, t, tb, l_none, XNONE);
	x86_pop(a, RBX);
	x86_test_rr32(a, RCX, RCX);
	x86_ret(a);
	x86_bind(a, l_none);
	x86_pop(a, RBX);
	x86_alu32_rr(a, ALU_XOR, RCX, RCX);
	x86_ret(a);
}

static void emit_lookup(x86_asm *a, const lookup_table *t, const tables *tb,
			int not_covered, int keep)
{
	if (!tb->shared_lookup) {
		emit_lookup_inline(a, t, tb, not_covered, keep);
		return;
	}
	x86_call(a, tb->lookup_fn);                     /* pc in RDI */
	x86_jcc(a, CC_E, not_covered);
}

/*
 * Escapes: with more than 255 rule sets, rule sets are numbered by use
 * (gen_blob_build) and an entry of one numbered above 255 has rule byte
 * LT_ESCAPE.  Index LT_ESCAPE has a rule record whose bodies are the
 * escape stubs: they find the entry's index and dispatch again, so the
 * lookup itself tests nothing.  The routine: entry number (1-based) in
 * RAX -> its rule-set index in RCX; clobbers RAX, RDX, RBX, R10, R11.
 * Escaped entries are ranked: esc_rank[b] counts those before entry
 * LT_ESC_BLOCK * b, the block's bytes before this entry add the rest, and
 * esc_rules holds their indexes in entry order.  Entries of the 255 most
 * used rule sets are not escaped: 99% of them on this machine's
 * libraries, so the routine's cost (a count over up to 127 bytes, eight
 * at a time) is rare.
 */
/* RBX += the number of zero bytes of R11 (clobbers RCX): with x = R11,
 * a byte's top bit of ~(((x & 0x7f..) + 0x7f..) | x) is set exactly when
 * the byte is 0; those bits summed by a multiplication. */
static void emit_count_zero_bytes(x86_asm *a, const tables *tb)
{
	x86_mov_rr(a, RCX, R11);
	x86_alu_rm(a, ALU_AND, RCX, MRIP(tb->byte_low_bits));
	x86_alu_rm(a, ALU_ADD, RCX, MRIP(tb->byte_low_bits));
	x86_alu_rr(a, ALU_OR, RCX, R11);
	x86_not(a, RCX);
	x86_alu_rm(a, ALU_AND, RCX, MRIP(tb->byte_top_bits));
	x86_shift_ri(a, SH_SHR, RCX, 7);
	x86_imul_rm(a, RCX, MRIP(tb->byte_ones));
	x86_shift_ri(a, SH_SHR, RCX, 56);
	x86_alu_rr(a, ALU_ADD, RBX, RCX);
}

static void emit_esc_find(x86_asm *a, const tables *tb)
{
	int l_loop = x86_label(a), l_tail = x86_label(a), l_done = x86_label(a);
	x86_lea(a, RDX, M(RAX, -1));                    /* the entry */
	x86_mov_rr(a, RAX, RDX);
	x86_shift_ri(a, SH_SHR, RAX, LT_ESC_BLOCK_BITS);
	x86_lea(a, R11, MRIP(tb->esc_rank));
	x86_mov_load32(a, RBX, MI(R11, RAX, 4, 0));     /* escapes before block */
	x86_shift_ri(a, SH_SHL, RAX, LT_ESC_BLOCK_BITS); /* its first entry */
	x86_lea(a, R10, MRIP(tb->entry_rules));
	/* LT_ESCAPE bytes before the entry, eight at a time (as zero bytes
	 * of their complement) */
	x86_bind(a, l_loop);
	x86_mov_rr(a, RCX, RDX);
	x86_alu_rr(a, ALU_SUB, RCX, RAX);
	x86_alu_ri(a, ALU_CMP, RCX, 8);
	x86_jcc8(a, CC_B, l_tail);
	x86_mov_load(a, R11, MI(R10, RAX, 1, 0));
	x86_not(a, R11);
	emit_count_zero_bytes(a, tb);
	x86_alu_ri(a, ALU_ADD, RAX, 8);
	x86_jmp8(a, l_loop);
	x86_bind(a, l_tail);                            /* RCX: 0..7 left */
	x86_test_rr(a, RCX, RCX);
	x86_jcc8(a, CC_E, l_done);
	x86_mov_load(a, R11, MI(R10, RAX, 1, 0));       /* padded: readable */
	x86_not(a, R11);
	x86_shift32_ri(a, SH_SHL, RCX, 3);
	x86_mov_ri(a, RAX, UINT64_MAX);
	x86_shift_cl(a, SH_SHL, RAX);
	x86_alu_rr(a, ALU_OR, R11, RAX);                /* bytes past it: not 0 */
	emit_count_zero_bytes(a, tb);
	x86_bind(a, l_done);
	x86_lea(a, R11, MRIP(tb->esc_rules));
	x86_movzx_load16(a, RCX, MI(R11, RBX, 2, 0));
	x86_ret(a);
}

/* An escape stub: the entry number from KEEP, its index, then to AGAIN
 * (the entry's dispatch) with it in RCX. */
static void emit_esc_stub(x86_asm *a, const tables *tb, int keep, int again)
{
	x86_mov_rr(a, RAX, keep);
	x86_call(a, tb->esc_find);
	x86_jmp(a, again);
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

/*
 * The remote entry applies the summary word (ehelf_abi.h) of the rule sets
 * ehelf_describe summarises itself: they have no remote body.  Each rule
 * set has one word; a word with EHELF_SUM_OK set is its summary, any
 * other is its rule index times 2 (ehelf_describe answers 0 for it).
 * The local entry still jumps to compiled bodies: interpreting the word
 * there was measured 3-4 ns (30%) slower per warm step (docs/eh_elf.md).
 *
 * rule index in RCX -> the word in RAX; to L_RECORD with the rule index
 * in RCX when it is not a summary.
 */
static void emit_word(x86_asm *a, int summaries, int l_record)
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

/* Slot K's offset / 8 (sign-extended) from the word in SRC into RDX; to
 * SKIP when the slot says "kept" (never for slot 0, the return address). */
static void emit_sum_slot(gen_ctx *g, x86_mem word, int src, int k, int skip)
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

static const int sum_slot_regs[EHELF_SUM_SLOTS] = EHELF_SUM_SLOT_REGS;

/* Remote mode: apply the summary word in RAX through the read helper,
 * and leave through the exits.  The word is kept in the frame's first
 * expression slot, the CFA in the mode's CFA register. */
static void emit_sum_remote(gen_ctx *g)
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

static void emit_exit(x86_asm *a, int label, int status, int done)
{
	x86_bind(a, label);
	x86_mov_ri(a, RAX, (uint64_t)(uint32_t)status);
	x86_jmp8(a, done);                /* the exits precede DONE closely */
}

/* ehelf_step_local(pc=rdi, in=rsi, out=rdx, stack_lo=rcx, stack_hi=r8) */
static void emit_local_entry(x86_asm *a, const lookup_table *t,
			     const tables *tb, gen_ctx *g)
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

/* ehelf_describe(pc=rdi) -> the row's summary word, or 0 */
static void emit_describe_entry(x86_asm *a, const lookup_table *t,
				const tables *tb)
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

/*
 * 4-byte words (tables.word32): compact files whose summaries all have the
 * return address at CFA - 8 and the other registers kept or at CFA - 8k,
 * k in 1..7 (every small file of this machine) store each summary in 32
 * bits: bits 0..13 as in the ABI's word, then a field of SUM32_BITS per
 * slot 1..6, 0 for "kept", else k.  ehelf_describe expands it.  A rule
 * set without a summary has the word 2j: its 8-byte word (emit_compact)
 * is the j-th of the body words.
 */
enum { SUM32_BITS = 3, SUM32_SHIFT = EHELF_SUM_SLOT_SHIFT };

static uint64_t sum_slot(uint64_t w, int k)
{
	return w >> (EHELF_SUM_SLOT_SHIFT + EHELF_SUM_SLOT_BITS * k) &
	       ((1u << EHELF_SUM_SLOT_BITS) - 1);
}

static bool sum32_fits(uint64_t w)
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

static uint32_t sum32(uint64_t w)
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

/* ehelf_describe of compact files with 4-byte words: the word expanded
 * (see sum32), or 0. */
static void emit_describe_word32(x86_asm *a, const lookup_table *t,
				 const tables *tb)
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

/* ehelf_step_remote(pc=rdi, in=rsi, out=rdx, read=rcx, arg=r8) */
static void emit_remote_entry(x86_asm *a, const lookup_table *t,
			      const tables *tb, gen_ctx *g)
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

/*
 * Compact eh_elfs (small files, tables.compact): the two step entry points
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
enum { CF_PARAMS = 0, CF_A = 8, CF_B = 16, CF_SAVED = 24 };

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

/* Both step entry points, their core, exits and read helpers; the local
 * entry at L_LOCAL, the remote one at L_REMOTE. */
static void emit_compact(x86_asm *a, const tables *tb, gen_ctx *g,
			 int l_local, int l_remote)
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

static gen_ctx make_ctx(x86_asm *a, gen_mode mode)
{
	gen_ctx g = { .a = a, .mode = mode, .read_reg = XNONE };
	if (mode == GEN_LOCAL) {
		g.in = RSI;
		g.out = RDI;
		g.cfa = R11;
		g.stack_lo = R8;
		g.stack_hi_minus_8 = R9;
		g.params_reg = RBX;
	} else {
		g.in = R12;
		g.out = R13;
		g.cfa = RBX;
		g.stack_lo = g.stack_hi_minus_8 = XNONE;
		g.params_reg = XNONE;
		g.params_slot = M(RBP, 8 * GEN_MAX_STACK);
	}
	g.l_done = x86_label(a);
	g.l_badreg = x86_label(a);
	g.l_bounds = x86_label(a);
	g.l_expr = x86_label(a);
	g.l_read = x86_label(a);
	return g;
}

/* The body of each rule set: a shape (shared) or its own. */
typedef struct rs_code {
	uint32_t shape;        /* index in the shape list */
	uint32_t params_at;    /* its first parameter's index in params[] */
	uint32_t nparams;
	uint32_t params_off;   /* its parameters' byte offset in the area */
	bool summarised;       /* no remote body: the remote entry applies
				* its summary */
} rs_code;

typedef struct shape {
	ruleset rs;            /* the shape itself, or an exact rule set */
	bool parametric;
	uint32_t first_rs;     /* a rule set using it (for messages) */
	int label[2];          /* local, remote bodies */
	bool remote;           /* a rule set without a summary uses it: it
				* needs a remote body */
	bool wide;             /* int32 parameters (the rule sets using it
				* have an offset beyond 16 bits: frames of 32
				* KiB and more), else int16 */
} shape;

static int emit_shape_bodies(gen_blob *b, gen_ctx *g, shape *sh, size_t nsh,
			     int mode, bool record)
{
	x86_asm *a = g->a;
	char why[120];
	for (size_t i = 0; i < nsh; i++) {
		if (mode == 1 && !sh[i].remote)
			continue;
		sh[i].label[mode] = x86_label(a);
		x86_bind(a, sh[i].label[mode]);
		g->params16 = !sh[i].wide;
		int rc = body_emit(g, &sh[i].rs, sh[i].parametric, why, sizeof why);
		if (rc == ERR_NOMEM)
			return rc;
		if (rc == ERR_UNSUPPORTED) {
			body_emit_status(g, EHELF_E_UNSUPPORTED);
			if (record) {
				gen_unsupported *u = realloc(b->unsupported,
					(b->nunsupported + 1) * sizeof *u);
				if (!u)
					return ERR_NOMEM;
				b->unsupported = u;
				u[b->nunsupported].ruleset = (uint32_t)i; /* fixed up below */
				memcpy(u[b->nunsupported].why, why, sizeof why);
				b->nunsupported++;
			}
		}
	}
	return a->failed ? ERR_NOMEM : 0;
}

/* Files of at most this many entries (about 16 KiB of .eh_frame) and 256
 * rule sets are compact (emit_compact): one core for both step entry
 * points, which interprets summaries, and one body per rule set without
 * a summary.  Larger files keep an inlined lookup and compiled bodies in
 * both modes, a few ns faster a step. */
enum { COMPACT_MAX_ENTRIES = 16384, COMPACT_MAX_RULESETS = 256,
       COMPACT_SMALL_LOOKUP_MAX = 2048 };

/* Parameters all in int16's range (NP < 0: none). */
static bool fits16(const int32_t *p, int np)
{
	for (int k = 0; k < np; k++)
		if (p[k] < INT16_MIN || p[k] > INT16_MAX)
			return false;
	return true;
}

typedef struct use {
	uint64_t count;        /* entries of the rule set */
	uint32_t index;
} use;

static int cmp_use(const void *pa, const void *pb)
{
	const use *x = pa, *y = pb;
	if ((x->index == 0) != (y->index == 0)) /* "not covered" stays first */
		return x->index == 0 ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index; /* reproducible */
}

#define NO_RULESET UINT32_MAX

/* The rule sets ordered by the entries using them, most first, 0 first;
 * with ESCAPES, index LT_ESCAPE is left out (NO_RULESET: the escape).
 * Returns ORDER (new -> old, *NSLOTS of them), *RENUM (old -> new); NULL
 * if out of memory. */
static uint32_t *number_by_use(const lookup_table *t, size_t n, bool escapes,
			       uint32_t **renum, size_t *nslots)
{
	*nslots = escapes ? n + 1 : n;
	use *u = calloc(n, sizeof *u);
	uint32_t *order = malloc(*nslots * sizeof *order);
	*renum = malloc(n * sizeof **renum);
	if (!u || !order || !*renum) {
		free(u);
		free(order);
		free(*renum);
		*renum = NULL;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		u[i].index = (uint32_t)i;
	for (size_t i = 0; i < t->nentries; i++)
		u[t->rule[i]].count++;
	qsort(u, n, sizeof *u, cmp_use);
	for (size_t k = 0, slot = 0; k < n; k++, slot++) {
		if (escapes && slot == LT_ESCAPE)
			order[slot++] = NO_RULESET;
		order[slot] = u[k].index;
		(*renum)[u[k].index] = (uint32_t)slot;
	}
	free(u);
	return order;
}

int gen_blob_build(gen_blob *b, const lookup_table *t,
		   const ruleset_table *rs, struct ehelf_info *info)
{
	return gen_blob_build_form(b, t, rs, info, GEN_FORM_AUTO);
}

int gen_blob_build_form(gen_blob *b, const lookup_table *t,
			const ruleset_table *rs, struct ehelf_info *info,
			gen_form form)
{
	memset(b, 0, sizeof *b);
	if (rs->n > 65535) /* escaped indexes are 16-bit */
		return ERR_UNSUPPORTED;
	x86_asm *a = &b->a;
	x86_init(a);
	tables tb = {
		.pages = x86_label(a), .entry_offsets = x86_label(a), .entry_rules = x86_label(a),
		.records = x86_label(a), .params = x86_label(a),
		.summaries = x86_label(a),
		.byte_ones = x86_label(a), .byte_top_bits = x86_label(a),
		.byte_low_bits = x86_label(a),
		.cnt_width = t->cnt_width,
		.page_stride = t->stride,
		.escapes = rs->n > 256,
		/* small files: see emit_compact (a few ns slower a step
		 * than compiled bodies, but most of a small eh_elf was the
		 * code of its entry points and bodies) */
		.compact = form == GEN_FORM_COMPACT_LARGE ? rs->n <= COMPACT_MAX_RULESETS :
			   form == GEN_FORM_AUTO && rs->n <= COMPACT_MAX_RULESETS &&
			   t->nentries <= COMPACT_MAX_ENTRIES,
		.lookup_fn = x86_label(a), .bodies = x86_label(a),
		.bodyrefs = x86_label(a), .expand = x86_label(a),
		.esc_rank = x86_label(a), .esc_rules = x86_label(a),
		.esc_find = x86_label(a),
		.again = { x86_label(a), x86_label(a) },
		.stub = { x86_label(a), x86_label(a) },
	};
	/* compact files: one lookup subroutine (480 bytes less, 1 ns more a
	 * step) */
	tb.shared_lookup = tb.compact;
	tb.vec_lookup = tb.compact && (t->nentries > COMPACT_SMALL_LOOKUP_MAX ||
					form == GEN_FORM_COMPACT_LARGE);
	/* shapes: rule sets that differ only in offsets share a body */
	rs_code *code = calloc(rs->n, sizeof *code);
	shape *sh = calloc(rs->n, sizeof *sh);
	int32_t *params = malloc(rs->n * BODY_MAX_PARAMS * sizeof *params);
	uint32_t *order = NULL, *renum = NULL;
	ruleset_table shapes;
	int rc = code && sh && params ? ruleset_table_init(&shapes) : ERR_NOMEM;
	if (rc < 0) {
		free(code);
		free(sh);
		free(params);
		return rc;
	}
	/* slot[2k], slot[2k + 1]: position in sh[] of interned shape k, with
	 * int16 and int32 parameters */
	uint32_t *slot = rc == 0 ? malloc(2 * rs->n * sizeof *slot) : NULL;
	if (rc == 0 && !slot)
		rc = ERR_NOMEM;
	size_t nsh = 0, nparams = 0;
	for (size_t i = 1; i < rs->n && rc == 0; i++) {
		code[i].summarised = ruleset_summary(&rs->v[i]) != 0;
		if (code[i].summarised && tb.compact)
			continue; /* no body, record or parameters at all */
		int32_t p[BODY_MAX_PARAMS];
		int np = body_params(&rs->v[i], p);
		size_t si = nsh;
		if (np >= 0) {
			ruleset key;
			body_shape(&rs->v[i], &key);
			int64_t k = ruleset_intern(&shapes, &key.r, key.signal_frame);
			if (k < 0) {
				rc = ERR_NOMEM;
				break;
			}
			if ((size_t)k == shapes.n - 1 && shapes.v[k].nrows == 0) {
				shapes.v[k].nrows = 1; /* new shape */
				slot[2 * k] = slot[2 * k + 1] = UINT32_MAX;
			}
			/* its int32 variant for offsets beyond 16 bits */
			bool wide = !fits16(p, np);
			uint32_t *at = &slot[2 * k + wide];
			if (*at == UINT32_MAX) {
				*at = (uint32_t)nsh;
				sh[nsh++] = (shape){ .rs = key, .parametric = true,
						     .first_rs = (uint32_t)i,
						     .wide = wide };
			}
			si = *at;
		} else {
			/* an offset beyond 32 bits: a body of its own */
			sh[nsh++] = (shape){ .rs = rs->v[i], .parametric = false,
					     .first_rs = (uint32_t)i };
		}
		code[i].shape = (uint32_t)si;
		sh[si].remote |= !code[i].summarised;
		code[i].params_at = (uint32_t)nparams;
		if (np > 0) {
			memcpy(params + nparams, p, (size_t)np * sizeof *p);
			nparams += (size_t)np;
			code[i].nparams = (uint32_t)np;
		}
	}
	/* the parameters' byte offsets, in the order they are written */
	uint32_t params_bytes = 0;
	for (size_t i = 1; i < rs->n && rc == 0; i++) {
		code[i].params_off = params_bytes;
		params_bytes += code[i].nparams * (sh[code[i].shape].wide ? 4 : 2);
	}
	free(slot);
	ruleset_table_free(&shapes);
	/* compact: a shape of one rule set gets that rule set's own body,
	 * with its offsets as immediates (shorter, and no parameters) */
	uint32_t *users = rc == 0 && tb.compact ? calloc(nsh + 1, sizeof *users) : NULL;
	if (rc == 0 && tb.compact && !users)
		rc = ERR_NOMEM;
	if (users) {
		for (size_t i = 1; i < rs->n; i++)
			if (!code[i].summarised)
				users[code[i].shape]++;
		for (size_t i = 1; i < rs->n; i++) {
			shape *x = &sh[code[i].shape];
			if (code[i].summarised || !x->parametric)
				continue;
			if (users[code[i].shape] == 1) {
				x->rs = rs->v[i];
				x->parametric = false;
			}
		}
		free(users);
		/* the rule sets that keep parameters: their byte offsets again,
		 * at their shape's width, in the order they are written */
		params_bytes = 0;
		nparams = 0;
		for (size_t i = 1; i < rs->n; i++) {
			if (code[i].summarised || !sh[code[i].shape].parametric)
				code[i].nparams = 0;
			code[i].params_off = params_bytes;
			params_bytes += code[i].nparams * (sh[code[i].shape].wide ? 4 : 2);
			nparams += code[i].nparams;
		}
	}
	if (tb.compact) {
		tb.no_params = nparams == 0;
		tb.word32 = true;
		for (size_t i = 1; i < rs->n; i++)
			if (code[i].summarised &&
			    !sum32_fits(ruleset_summary(&rs->v[i])))
				tb.word32 = false;
	}
	/* rule sets renumbered by use, most used first (0 stays "not
	 * covered"): with more than 255, the entries of the first 254 take
	 * one byte and only the others are escaped */
	size_t nslots = 0;
	if (rc == 0 && !(order = number_by_use(t, rs->n, tb.escapes, &renum,
						 &nslots)))
		rc = ERR_NOMEM;
	gen_ctx gl = make_ctx(a, GEN_LOCAL);
	gen_ctx gr = make_ctx(a, GEN_REMOTE);
	int l_local = x86_label(a), l_remote = x86_label(a);
	int l_describe = x86_label(a);
	if (rc == 0 && tb.compact) {
		gr.params_slot = M(RBP, CF_PARAMS);
		gr.read_reg = R14;
		gr.fold = true;
		emit_compact(a, &tb, &gr, l_local, l_remote);
		x86_bind(a, l_describe);
		if (tb.word32)
			emit_describe_word32(a, t, &tb);
		else
			emit_describe_entry(a, t, &tb);
		x86_bind(a, tb.lookup_fn);
		if (tb.vec_lookup)
			emit_lookup_vec(a, t, &tb);
		else
			emit_lookup_small(a, t, &tb);
		x86_bind(a, tb.bodies);
		rc = emit_shape_bodies(b, &gr, sh, nsh, 1, true);
		x86_relax(a, 0); /* two-byte jumps where they reach */
	} else if (rc == 0) {
		x86_bind(a, l_local);
		emit_local_entry(a, t, &tb, &gl);
		x86_align(a, 16, 0xcc);
		x86_bind(a, l_remote);
		emit_remote_entry(a, t, &tb, &gr);
		x86_align(a, 16, 0xcc);
		x86_bind(a, l_describe);
		emit_describe_entry(a, t, &tb);
		if (tb.escapes) {
			x86_align(a, 16, 0xcc);
			x86_bind(a, tb.esc_find);
			emit_esc_find(a, &tb);
			x86_bind(a, tb.stub[0]);
			emit_esc_stub(a, &tb, RDX, tb.again[0]);
			x86_bind(a, tb.stub[1]);
			emit_esc_stub(a, &tb, RBX, tb.again[1]);
		}
		rc = emit_shape_bodies(b, &gl, sh, nsh, 0, true);
		if (rc == 0)
			rc = emit_shape_bodies(b, &gr, sh, nsh, 1, false);
	}
	if (rc < 0)
		goto out;
	/* report unsupported rule sets, not shapes */
	{
		size_t nshapes_unsup = b->nunsupported;
		gen_unsupported *by_shape = b->unsupported;
		b->unsupported = NULL;
		b->nunsupported = 0;
		for (size_t i = 1; i < rs->n && rc == 0; i++)
			for (size_t k = 0; k < nshapes_unsup; k++) {
				if ((tb.compact && code[i].summarised) ||
				    by_shape[k].ruleset != code[i].shape)
					continue;
				gen_unsupported *u = realloc(b->unsupported,
					(b->nunsupported + 1) * sizeof *u);
				if (!u) {
					rc = ERR_NOMEM;
					break;
				}
				b->unsupported = u;
				u[b->nunsupported] = by_shape[k];
				u[b->nunsupported].ruleset = (uint32_t)i;
				b->nunsupported++;
			}
		free(by_shape);
		if (rc < 0)
			goto out;
	}
	b->code_size = a->n;
	b->code_align = tb.compact ? 8 : 64;
	b->off_local = (size_t)x86_label_offset(a, l_local);
	b->off_remote = (size_t)x86_label_offset(a, l_remote);
	b->off_describe = (size_t)x86_label_offset(a, l_describe);

	x86_align(a, 8, 0);
	b->off_info = a->n;
	info->entries = (uint32_t)t->nentries;
	info->rulesets = (uint32_t)rs->n;
	info->unsupported = (uint32_t)b->nunsupported;
	info->page_bits = t->page_bits;
	x86_bytes(a, info, sizeof *info);
	x86_align(a, 8, 0);
	if (tb.escapes) { /* the escape routine's byte counts */
		x86_bind(a, tb.byte_ones);
		x86_bytes(a, &(uint64_t){ 0x0101010101010101ull }, 8);
		x86_bind(a, tb.byte_top_bits);
		x86_bytes(a, &(uint64_t){ 0x8080808080808080ull }, 8);
		x86_bind(a, tb.byte_low_bits);
		x86_bytes(a, &(uint64_t){ 0x7f7f7f7f7f7f7f7full }, 8);
	}
	x86_bind(a, tb.pages);
	x86_bytes(a, t->rec, (size_t)t->npages * t->stride);
	x86_align(a, 8, 0);
	/* one word per rule set (in the new numbering): its summary, or its
	 * rule index * 2; compact: its body and parameters (emit_compact),
	 * and no rule records */
	/* word32: index 0 ("not covered", never read) is not stored */
	x86_bind_at(a, tb.summaries, a->n - (tb.word32 ? 4 : 0));
	uint32_t nbody = 0;
	for (size_t k = 0; k < nslots; k++) {
		uint32_t i = order[k];
		bool sum = i && i != NO_RULESET && code[i].summarised;
		uint64_t w = sum ? ruleset_summary(&rs->v[i]) : (uint64_t)k << 1;
		if (tb.compact && !sum)
			w = !i ? 0 : (uint64_t)(x86_label_offset(a, sh[code[i].shape].label[1]) -
						x86_label_offset(a, tb.bodies)) << 1 |
				     (uint64_t)code[i].params_off << 32;
		if (!tb.word32)
			x86_bytes(a, &w, 8);
		else if (sum)
			x86_u32(a, sum32(w));
		else if (i) /* the j-th body word: 2j */
			x86_u32(a, nbody++ * 2);
	}
	if (tb.word32) {
		x86_bind(a, tb.bodyrefs);
		int64_t base = (int64_t)a->n;
		for (size_t k = 0; k < nslots; k++) {
			uint32_t i = order[k];
			if (!i || code[i].summarised)
				continue;
			int64_t rel = x86_label_offset(a, sh[code[i].shape].label[1]) - base;
			x86_u32(a, (uint32_t)(int32_t)rel);
			if (!tb.no_params)
				x86_u32(a, code[i].params_off);
		}
		/* describe: a field (0..7) -> the slot's 7-bit value */
		x86_bind(a, tb.expand);
		x86_u8(a, EHELF_SUM_KEEP);
		for (unsigned f = 1; f < 1u << SUM32_BITS; f++)
			x86_u8(a, (uint8_t)((1u << EHELF_SUM_SLOT_BITS) - f));
	}
	x86_bind(a, tb.records);
	for (size_t k = 0; k < nslots && !tb.compact; k++) {
		uint32_t i = order[k];
		int64_t here = (int64_t)a->n;
		bool sum = i && i != NO_RULESET && code[i].summarised;
		if (i == 0) { /* "not covered" is never dispatched */
			x86_bytes(a, (uint8_t[RECORD_SIZE]){ 0 }, RECORD_SIZE);
			continue;
		}
		if (i == NO_RULESET) { /* the escape: its stubs */
			x86_u32(a, (uint32_t)(int32_t)(x86_label_offset(a, tb.stub[0]) - here));
			x86_u32(a, (uint32_t)(int32_t)(x86_label_offset(a, tb.stub[1]) - here));
			x86_u32(a, 0);
			continue;
		}
		const shape *s = &sh[code[i].shape];
		x86_u32(a, (uint32_t)(int32_t)(x86_label_offset(a, s->label[0]) - here));
		/* summarised: no remote body (the entry applies the summary) */
		x86_u32(a, sum ? 0 :
			(uint32_t)(int32_t)(x86_label_offset(a, s->label[1]) - here));
		x86_u32(a, code[i].params_off);
	}
	x86_bind(a, tb.params);
	for (size_t i = 1; i < rs->n; i++) {
		const int32_t *p = params + code[i].params_at;
		for (uint32_t k = 0; k < code[i].nparams; k++) {
			if (sh[code[i].shape].wide)
				x86_bytes(a, &p[k], 4);
			else
				x86_bytes(a, &(int16_t){ (int16_t)p[k] }, 2);
		}
	}
	x86_bind(a, tb.entry_offsets);
	/* LT_VEC read at a time, but one by emit_lookup_small */
	size_t noff = t->nentries + (tb.compact && !tb.vec_lookup ? 0 : LT_VEC);
	for (size_t i = 0; i < noff; i++)
		x86_u8(a, t->off[i] ^ 0x80);
	x86_bind(a, tb.entry_rules);
	for (size_t i = 0; i < t->nentries; i++) {
		uint32_t k = renum[t->rule[i]];
		x86_u8(a, (uint8_t)(k < LT_ESCAPE ? k : LT_ESCAPE));
	}
	if (tb.escapes) {
		/* escaped entries: ranks per block, then their indexes; the
		 * rule bytes are read eight at a time: padded */
		x86_bytes(a, (uint8_t[8]){ 0 }, 8);
		x86_align(a, 4, 0);
		x86_bind(a, tb.esc_rank);
		uint32_t before = 0;
		for (size_t i = 0; i < t->nentries; i++) {
			if (i % LT_ESC_BLOCK == 0)
				x86_u32(a, before);
			before += renum[t->rule[i]] >= LT_ESCAPE;
		}
		x86_bind(a, tb.esc_rules);
		for (size_t i = 0; i < t->nentries; i++) {
			uint32_t k = renum[t->rule[i]];
			if (k >= LT_ESCAPE)
				x86_bytes(a, &(uint16_t){ (uint16_t)k }, 2);
		}
	}
	x86_align(a, 8, 0);
	if (!x86_finish(a))
		rc = a->failed ? ERR_NOMEM : ERR_FORMAT;
out:
	free(code);
	free(sh);
	free(params);
	free(order);
	free(renum);
	if (rc < 0)
		gen_blob_free(b);
	return rc;
}

void gen_blob_free(gen_blob *b)
{
	x86_free(&b->a);
	free(b->unsupported);
	memset(b, 0, sizeof *b);
}
