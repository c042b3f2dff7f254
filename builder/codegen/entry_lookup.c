/*
 * entry_lookup.c - the pc's lookup in an eh_elf's code: pc -> rule-set
 * index, inlined in each entry point of the full form, a subroutine of
 * compact files (a counting loop, or the inlined search for more
 * entries), and the escape routine of files of more than 255 rule sets.
 * Reads the tables of lookup_table.h; layout in entry_layout.h.
 */
#include "entry_lookup.h"

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

void emit_lookup_small(x86_asm *a, const lookup_table *t, const tables *tb)
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

void emit_lookup_vec(x86_asm *a, const lookup_table *t, const tables *tb)
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

void emit_lookup(x86_asm *a, const lookup_table *t, const tables *tb,
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

void emit_esc_find(x86_asm *a, const tables *tb)
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

void emit_esc_stub(x86_asm *a, const tables *tb, int keep, int again)
{
	x86_mov_rr(a, RAX, keep);
	x86_call(a, tb->esc_find);
	x86_jmp(a, again);
}
