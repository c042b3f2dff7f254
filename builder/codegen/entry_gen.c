/* entry_gen.c - see entry_gen.h. */
#include "entry_gen.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/err.h"
#include "body_gen.h"

/* Labels of the data tables the entry code refers to. */
typedef struct tables {
	int page_first, off, rule, bodies_local, bodies_remote;
	int rule_width;         /* 1 or 2 bytes */
} tables;

enum { REGS_COPY_BYTES = 128 }; /* r[0..15] by SSE, then r[16] and valid */

/* out = in, with only the register bits of valid kept. */
static void emit_copy(x86_asm *a, int in, int out)
{
	for (int k = 0; k < REGS_COPY_BYTES; k += 16) {
		x86_movdqu_load(a, 0, M(in, k));
		x86_movdqu_store(a, M(out, k), 0);
	}
	x86_mov_load(a, RCX, M(in, 8 * EHELF_RIP));
	x86_mov_store(a, M(out, 8 * EHELF_RIP), RCX);
	x86_mov_load32(a, RCX, M(in, GEN_REGS_VALID));
	x86_alu32_ri(a, ALU_AND, RCX, (int32_t)EHELF_VALID_REGS);
	x86_mov_store32(a, M(out, GEN_REGS_VALID), RCX);
}

/*
 * pc in RAX -> rule-set index in RCX (>= 1), or a jump to NOT_COVERED.
 * Clobbers RAX, RCX, RDX, RBX, R10, R11.  Branch-free binary search over
 * the page's 16-bit offsets (see lookup_table.h for the layout).
 */
static void emit_lookup(x86_asm *a, const lookup_table *t, const tables *tb,
			int not_covered)
{
	int l_loop = x86_label(a), l_last = x86_label(a);
	int l_empty = x86_label(a), l_found = x86_label(a);
	if (t->base) {
		x86_mov_ri(a, R10, t->base);
		x86_alu_rr(a, ALU_SUB, RAX, R10);
	}
	x86_mov_ri(a, R10, (uint64_t)t->npages << t->page_bits);
	x86_alu_rr(a, ALU_CMP, RAX, R10);
	x86_jcc(a, CC_AE, not_covered);
	x86_mov_rr(a, RDX, RAX);
	x86_shift_ri(a, SH_SHR, RDX, (uint8_t)t->page_bits);
	x86_alu32_ri(a, ALU_AND, RAX, (int32_t)((1u << t->page_bits) - 1));
	x86_lea(a, R10, MRIP(tb->page_first));
	x86_mov_load32(a, RCX, MI(R10, RDX, 4, 0));
	x86_mov_load32(a, RDX, MI(R10, RDX, 4, 4));
	x86_lea(a, R10, MRIP(tb->off));
	x86_alu32_rr(a, ALU_SUB, RDX, RCX);   /* n = entries in the page */
	x86_jcc(a, CC_E, l_empty);
	x86_bind(a, l_loop);
	x86_alu32_ri(a, ALU_CMP, RDX, 1);
	x86_jcc(a, CC_BE, l_last);
	x86_mov_rr(a, R11, RDX);
	x86_shift32_ri(a, SH_SHR, R11, 1);    /* half */
	x86_lea(a, RBX, MI(RCX, R11, 1, 0));
	x86_movzx_load16(a, RBX, MI(R10, RBX, 2, 0));
	x86_alu32_rr(a, ALU_CMP, RBX, RAX);
	x86_lea(a, RBX, MI(RCX, R11, 1, 0));
	x86_cmov(a, CC_BE, RCX, RBX);         /* off[probe] <= o: base = probe */
	x86_alu32_rr(a, ALU_SUB, RDX, R11);
	x86_jmp(a, l_loop);
	x86_bind(a, l_last);
	x86_movzx_load16(a, RBX, MI(R10, RCX, 2, 0));
	x86_alu32_rr(a, ALU_CMP, RBX, RAX);
	x86_jcc(a, CC_BE, l_found);
	x86_bind(a, l_empty);
	x86_alu32_ri(a, ALU_SUB, RCX, 1);     /* the entry before */
	x86_jcc(a, CC_B, not_covered);
	x86_bind(a, l_found);
	x86_lea(a, R10, MRIP(tb->rule));
	if (tb->rule_width == 1)
		x86_movzx_load8(a, RCX, MI(R10, RCX, 1, 0));
	else
		x86_movzx_load16(a, RCX, MI(R10, RCX, 2, 0));
	x86_alu32_rr(a, ALU_OR, RCX, RCX);
	x86_jcc(a, CC_E, not_covered);
}

/* rule-set index in RCX -> jump to its body through TABLE. */
static void emit_dispatch(x86_asm *a, int table)
{
	x86_lea(a, R10, MRIP(table));
	x86_movsxd_load(a, RCX, MI(R10, RCX, 4, 0));
	x86_alu_rr(a, ALU_ADD, RCX, R10);
	x86_jmp_r(a, RCX);
}

static void emit_exit(x86_asm *a, int label, int status, int done)
{
	x86_bind(a, label);
	x86_mov_ri(a, RAX, (uint64_t)(uint32_t)status);
	x86_jmp(a, done);
}

enum { REMOTE_FRAME = 8 * GEN_MAX_STACK + 8 };

/* ehelf_step_local(pc=rdi, in=rsi, out=rdx, stack_lo=rcx, stack_hi=r8) */
static void emit_local_entry(x86_asm *a, const lookup_table *t,
			     const tables *tb, gen_ctx *g)
{
	int l_bounds_ok = x86_label(a), l_nc = x86_label(a);
	x86_push(a, RBX);
	x86_mov_rr(a, RAX, RDI);
	x86_mov_rr(a, RDI, RDX);
	x86_mov_rr(a, R9, R8);
	x86_mov_rr(a, R8, RCX);
	x86_alu_ri(a, ALU_SUB, R9, 8);
	x86_jcc(a, CC_AE, l_bounds_ok);
	x86_mov_ri(a, R8, UINT64_MAX);         /* hi < 8: nothing readable */
	x86_alu32_rr(a, ALU_XOR, R9, R9);
	x86_bind(a, l_bounds_ok);
	emit_copy(a, RSI, RDI);
	emit_lookup(a, t, tb, l_nc);
	emit_dispatch(a, tb->bodies_local);
	emit_exit(a, l_nc, EHELF_E_NOT_COVERED, g->l_done);
	emit_exit(a, g->l_badreg, EHELF_E_BADREG, g->l_done);
	emit_exit(a, g->l_bounds, EHELF_E_BOUNDS, g->l_done);
	emit_exit(a, g->l_expr, EHELF_E_EXPR, g->l_done);
	x86_bind(a, g->l_done);
	x86_pop(a, RBX);
	x86_ret(a);
}

/* ehelf_step_remote(pc=rdi, in=rsi, out=rdx, read=rcx, arg=r8) */
static void emit_remote_entry(x86_asm *a, const lookup_table *t,
			      const tables *tb, gen_ctx *g)
{
	static const int saved[] = { RBP, RBX, R12, R13, R14, R15 };
	int l_nc = x86_label(a), l_read_fail = x86_label(a);
	for (int i = 0; i < 6; i++)
		x86_push(a, saved[i]);
	/* 6 pushes leave rsp = 8 (mod 16); the frame realigns it */
	x86_alu_ri(a, ALU_SUB, RSP, REMOTE_FRAME);
	x86_mov_rr(a, RBP, RSP);
	x86_mov_rr(a, R12, RSI);
	x86_mov_rr(a, R13, RDX);
	x86_mov_rr(a, R14, RCX);
	x86_mov_rr(a, R15, R8);
	x86_mov_rr(a, RAX, RDI);
	emit_copy(a, R12, R13);
	emit_lookup(a, t, tb, l_nc);
	emit_dispatch(a, tb->bodies_remote);
	emit_exit(a, l_nc, EHELF_E_NOT_COVERED, g->l_done);
	emit_exit(a, g->l_badreg, EHELF_E_BADREG, g->l_done);
	emit_exit(a, g->l_bounds, EHELF_E_BOUNDS, g->l_done);
	emit_exit(a, g->l_expr, EHELF_E_EXPR, g->l_done);
	emit_exit(a, l_read_fail, EHELF_E_READ, g->l_done);
	x86_bind(a, g->l_done);
	x86_mov_rr(a, RSP, RBP);
	x86_alu_ri(a, ALU_ADD, RSP, REMOTE_FRAME);
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

static gen_ctx make_ctx(x86_asm *a, gen_mode mode)
{
	gen_ctx g = { .a = a, .mode = mode };
	if (mode == GEN_LOCAL) {
		g.in = RSI;
		g.out = RDI;
		g.cfa = R11;
		g.lo = R8;
		g.him8 = R9;
	} else {
		g.in = R12;
		g.out = R13;
		g.cfa = RBX;
		g.lo = g.him8 = XNONE;
	}
	g.l_done = x86_label(a);
	g.l_badreg = x86_label(a);
	g.l_bounds = x86_label(a);
	g.l_expr = x86_label(a);
	g.l_read = x86_label(a);
	return g;
}

/* Bodies of every rule set in one mode; their labels in LABELS. */
static int emit_bodies(gen_blob *b, gen_ctx *g, const ruleset_table *rs,
		       int *labels, bool record)
{
	x86_asm *a = g->a;
	char why[120];
	for (size_t i = 1; i < rs->n; i++) {
		labels[i] = x86_label(a);
		x86_bind(a, labels[i]);
		int rc = body_emit(g, &rs->v[i], why, sizeof why);
		if (rc == ERR_NOMEM)
			return rc;
		if (rc == ERR_UNSUPPORTED) {
			body_emit_status(g, EHELF_E_UNSUPPORTED);
			if (record) {
				gen_unsupported *u = realloc(b->unsup,
					(b->nunsup + 1) * sizeof *u);
				if (!u)
					return ERR_NOMEM;
				b->unsup = u;
				u[b->nunsup].ruleset = (uint32_t)i;
				memcpy(u[b->nunsup].why, why, sizeof why);
				b->nunsup++;
			}
		}
	}
	return a->failed ? ERR_NOMEM : 0;
}

static void put_u32(x86_asm *a, uint32_t v) { x86_u32(a, v); }

int gen_blob_build(gen_blob *b, const lookup_table *t,
		   const ruleset_table *rs, struct ehelf_info *info)
{
	memset(b, 0, sizeof *b);
	x86_asm *a = &b->a;
	x86_init(a);
	tables tb = {
		.page_first = x86_label(a), .off = x86_label(a),
		.rule = x86_label(a), .bodies_local = x86_label(a),
		.bodies_remote = x86_label(a),
		.rule_width = rs->n <= 256 ? 1 : 2,
	};
	if (rs->n > 65536)
		return ERR_UNSUPPORTED;
	gen_ctx gl = make_ctx(a, GEN_LOCAL);
	gen_ctx gr = make_ctx(a, GEN_REMOTE);
	int l_local = x86_label(a), l_remote = x86_label(a);
	x86_bind(a, l_local);
	emit_local_entry(a, t, &tb, &gl);
	x86_align(a, 16, 0xcc);
	x86_bind(a, l_remote);
	emit_remote_entry(a, t, &tb, &gr);
	int *lab_local = calloc(rs->n, sizeof(int));
	int *lab_remote = calloc(rs->n, sizeof(int));
	int rc = lab_local && lab_remote ? 0 : ERR_NOMEM;
	if (rc == 0)
		rc = emit_bodies(b, &gl, rs, lab_local, true);
	if (rc == 0)
		rc = emit_bodies(b, &gr, rs, lab_remote, false);
	if (rc < 0)
		goto out;
	b->code_size = a->n;
	b->off_local = (size_t)x86_label_offset(a, l_local);
	b->off_remote = (size_t)x86_label_offset(a, l_remote);

	/* data: ehelf_info, page index, body tables, offsets, rule indexes */
	x86_align(a, 8, 0);
	b->off_info = a->n;
	info->entries = (uint32_t)t->nentries;
	info->rulesets = (uint32_t)rs->n;
	info->unsupported = (uint32_t)b->nunsup;
	info->page_bits = t->page_bits;
	x86_bytes(a, info, sizeof *info);
	x86_align(a, 4, 0);
	x86_bind(a, tb.page_first);
	for (uint32_t p = 0; p <= t->npages; p++)
		put_u32(a, t->page_first[p]);
	const int *labs[2] = { lab_local, lab_remote };
	int tabs[2] = { tb.bodies_local, tb.bodies_remote };
	for (int m = 0; m < 2; m++) {
		x86_bind(a, tabs[m]);
		int64_t base = (int64_t)a->n;
		put_u32(a, 0); /* rule set 0 is never dispatched */
		for (size_t i = 1; i < rs->n; i++)
			put_u32(a, (uint32_t)(int32_t)(x86_label_offset(a, labs[m][i]) - base));
	}
	x86_bind(a, tb.off);
	x86_bytes(a, t->off, t->nentries * sizeof *t->off);
	x86_bind(a, tb.rule);
	for (size_t i = 0; i < t->nentries; i++) {
		if (tb.rule_width == 1)
			x86_u8(a, (uint8_t)t->rule[i]);
		else
			x86_bytes(a, &(uint16_t){ (uint16_t)t->rule[i] }, 2);
	}
	x86_align(a, 8, 0);
	if (!x86_finish(a))
		rc = a->failed ? ERR_NOMEM : ERR_FORMAT;
out:
	free(lab_local);
	free(lab_remote);
	if (rc < 0)
		gen_blob_free(b);
	return rc;
}

void gen_blob_free(gen_blob *b)
{
	x86_free(&b->a);
	free(b->unsup);
	memset(b, 0, sizeof *b);
}
