/*
 * test_ruleset_fp.c - the identity of a rule set across ELFs (ruleset_fp.h):
 * its fingerprint is the documented FNV-1a 64 of the documented encoding
 * (checked against an independent encoder), depends on what the rules
 * mean (offsets, expression bytes, the signal flag) and not on where
 * expressions lie or on fields the rules ignore, and its shape forgets the
 * parametric offsets; its text is readelf's notation.  The SFrame estimate
 * (sframe_est.h) of hand-built FDEs equals the sizes worked out by hand;
 * ehelf_compile_reader's detail (compile.h) of a hand-built .eh_frame
 * equals what that table is made of.
 */
#include <dwarf.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../builder/codegen/body_gen.h"
#include "../../builder/codegen/compile.h"
#include "../../builder/codegen/ruleset_fp.h"
#include "../../builder/codegen/sframe_est.h"
#include "cfi_build.h"
#include "unit.h"

/* ---- rule sets ------------------------------------------------------------ */

static ruleset rs_make(int64_t cfa_off, bool signal)
{
	ruleset rs = { .signal_frame = signal };
	rs.r.cfa = (uw_cfa){ .kind = UW_CFA_REG_OFF, .reg = UW_RSP, .off = cfa_off };
	rs.r.reg[UW_RA] = (uw_rule){ .kind = UW_OFFSET, .off = -8 };
	return rs;
}

static void set_offset(ruleset *rs, int col, int64_t off)
{
	rs->r.reg[col] = (uw_rule){ .kind = UW_OFFSET, .off = off };
}

static void set_expr(uw_rule *x, uint8_t kind, const uint8_t *e, uint32_t len)
{
	*x = (uw_rule){ .kind = kind, .expr_len = len };
	x->expr = e;
}

/* An encoder written from the header's description, independently. */
typedef struct enc {
	uint8_t b[1024];
	size_t n;
} enc;

static void put(enc *e, uint64_t v, int nbytes)
{
	for (int i = 0; i < nbytes; i++)
		e->b[e->n++] = (uint8_t)(v >> (8 * i));
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

static void test_encoding(void)
{
	/* cfa=rsp+16 rbx=c-16 ra=c-8, rbp=exp (DW_OP_breg7 0), a signal frame */
	static const uint8_t ex[] = { DW_OP_breg7, 0 };
	ruleset rs = rs_make(16, true);
	set_offset(&rs, 3, -16);
	set_expr(&rs.r.reg[UW_RBP], UW_EXPR, ex, sizeof ex);
	enc e = { .n = 0 };
	put(&e, 1, 1);                      /* signal */
	put(&e, 1, 1);                      /* CFA register+offset */
	put(&e, 7, 2);
	put(&e, 16, 8);
	for (int c = 0; c < UW_NCOLS; c++) {
		if (c == 3) {
			put(&e, UW_OFFSET, 1);
			put(&e, (uint64_t)-16, 8);
		} else if (c == UW_RBP) {
			put(&e, UW_EXPR, 1);
			put(&e, 2, 4);
			put(&e, DW_OP_breg7, 1);
			put(&e, 0, 1);
		} else if (c == UW_RA) {
			put(&e, UW_OFFSET, 1);
			put(&e, (uint64_t)-8, 8);
		} else {
			put(&e, UW_UNSET, 1);
		}
	}
	CHECK_U64(ruleset_fp(&rs), fnv1a(e.b, e.n));
	CHECK_U64(ruleset_fp_rules(&rs.r, true), ruleset_fp(&rs));
	/* FNV-1a 64 itself: its published value for "a" */
	CHECK_U64(fnv1a((const uint8_t *)"a", 1), 0xaf63dc4c8601ec8cull);
}

static void test_identity(void)
{
	ruleset a = rs_make(16, false), b = rs_make(16, false);
	set_offset(&a, 3, -16);
	set_offset(&b, 3, -16);
	CHECK_U64(ruleset_fp(&a), ruleset_fp(&b));

	/* the same expression bytes at two addresses: the same fingerprint */
	uint8_t *e1 = malloc(3), *e2 = malloc(3);
	static const uint8_t ex[] = { DW_OP_breg6, 0x10, DW_OP_deref };
	memcpy(e1, ex, 3);
	memcpy(e2, ex, 3);
	set_expr(&a.r.reg[12], UW_VAL_EXPR, e1, 3);
	set_expr(&b.r.reg[12], UW_VAL_EXPR, e2, 3);
	CHECK(e1 != e2);
	CHECK_U64(ruleset_fp(&a), ruleset_fp(&b));
	/* other expression bytes (same length): another one */
	e2[1] = 0x18;
	CHECK(ruleset_fp(&a) != ruleset_fp(&b));
	CHECK(ruleset_shape_fp(&a) != ruleset_shape_fp(&b));
	e2[1] = 0x10;
	/* expression vs val_expression of the same bytes */
	b.r.reg[12].kind = UW_EXPR;
	CHECK(ruleset_fp(&a) != ruleset_fp(&b));
	b.r.reg[12].kind = UW_VAL_EXPR;
	CHECK_U64(ruleset_fp(&a), ruleset_fp(&b));
	/* a CFA expression at two addresses */
	a.r.cfa = (uw_cfa){ .kind = UW_CFA_EXPR, .expr_len = 3, .expr = e1 };
	b.r.cfa = (uw_cfa){ .kind = UW_CFA_EXPR, .expr_len = 3, .expr = e2,
			    .reg = 6, .off = 99 }; /* left over: ignored */
	CHECK_U64(ruleset_fp(&a), ruleset_fp(&b));
	free(e1);
	free(e2);

	/* another offset: another fingerprint, the same shape */
	ruleset c = rs_make(16, false), d = rs_make(24, false);
	set_offset(&c, 3, -16);
	set_offset(&d, 3, -24);
	CHECK(ruleset_fp(&c) != ruleset_fp(&d));
	CHECK_U64(ruleset_shape_fp(&c), ruleset_shape_fp(&d));
	ruleset shape;
	body_shape(&c, &shape);
	CHECK_U64(ruleset_shape_fp(&c), ruleset_fp(&shape));
	/* another register saved: another shape */
	ruleset f = rs_make(16, false);
	set_offset(&f, 12, -16);
	CHECK(ruleset_shape_fp(&c) != ruleset_shape_fp(&f));
	/* offset vs val_offset of one value */
	ruleset g = c;
	g.r.reg[3].kind = UW_VAL_OFFSET;
	CHECK(ruleset_fp(&c) != ruleset_fp(&g));
	/* register rule: the register matters */
	ruleset h = c, i = c;
	h.r.reg[3] = (uw_rule){ .kind = UW_REGISTER, .reg = 12 };
	i.r.reg[3] = (uw_rule){ .kind = UW_REGISTER, .reg = 13 };
	CHECK(ruleset_fp(&h) != ruleset_fp(&i));

	/* the signal flag matters, to the shape too */
	ruleset s = c;
	s.signal_frame = true;
	CHECK(ruleset_fp(&s) != ruleset_fp(&c));
	CHECK(ruleset_shape_fp(&s) != ruleset_shape_fp(&c));

	/* fields a rule ignores do not count: an unset CFA's leftovers, an
	 * offset kept by a same-value rule */
	ruleset u1 = { .signal_frame = false }, u2 = u1;
	u2.r.cfa.reg = 7;
	u2.r.cfa.off = 8;
	CHECK_U64(ruleset_fp(&u1), ruleset_fp(&u2));
	ruleset v1 = c, v2 = c;
	v1.r.reg[13] = (uw_rule){ .kind = UW_SAME_VALUE };
	v2.r.reg[13] = (uw_rule){ .kind = UW_SAME_VALUE, .off = 1234, .reg = 5 };
	CHECK_U64(ruleset_fp(&v1), ruleset_fp(&v2));
	CHECK(ruleset_fp(&v1) != ruleset_fp(&c)); /* same value != no rule */
}

static void test_text(void)
{
	char t[RULESET_TEXT_MAX];
	ruleset rs = rs_make(16, false);
	set_offset(&rs, 3, -16);
	CHECK_U64(ruleset_text(&rs, t, sizeof t), strlen("cfa=rsp+16 rbx=c-16 ra=c-8"));
	CHECK_STR(t, "cfa=rsp+16 rbx=c-16 ra=c-8");
	rs.signal_frame = true;
	rs.r.cfa.reg = UW_RBP;
	rs.r.reg[12] = (uw_rule){ .kind = UW_UNDEFINED };
	rs.r.reg[13] = (uw_rule){ .kind = UW_REGISTER, .reg = 0 };
	static const uint8_t ex[] = { DW_OP_lit0 };
	set_expr(&rs.r.reg[14], UW_VAL_EXPR, ex, 1);
	ruleset_text(&rs, t, sizeof t);
	CHECK_STR(t, "cfa=rbp+16 rbx=c-16 r12=u r13=rax r14=vexp ra=c-8 signal");
	ruleset none = { .signal_frame = false };
	ruleset_text(&none, t, sizeof t);
	CHECK_STR(t, "cfa=u");
	/* the longest text fits */
	ruleset big = rs_make(INT64_MIN, true);
	for (int c = 0; c < UW_NCOLS; c++)
		set_offset(&big, c, INT64_MIN);
	size_t n = ruleset_text(&big, t, sizeof t);
	CHECK(n < sizeof t - 1);
	CHECK(strstr(t, " signal") != NULL);
	/* a short buffer: cut, NUL-terminated */
	char small[12];
	CHECK_U64(ruleset_text(&rs, small, sizeof small), 11);
	CHECK_STR(small, "cfa=rbp+16 ");
}

/* ---- the SFrame estimate -------------------------------------------------- */

static uw_row row_make(int cfa_reg, int64_t cfa_off)
{
	uw_row r = { .lo = 0, .hi = 0 };
	r.r.cfa = (uw_cfa){ .kind = UW_CFA_REG_OFF, .reg = (uint16_t)cfa_reg,
			    .off = cfa_off };
	r.r.reg[UW_RA] = (uw_rule){ .kind = UW_OFFSET, .off = -8 };
	return r;
}

static uw_fde fde_make(uint64_t lo, uint64_t size, const uw_row *rows,
		       size_t n)
{
	return (uw_fde){ .lo = lo, .hi = lo + size, .section = ".eh_frame",
			 .rows = rows, .nrows = n };
}

static void test_sframe(void)
{
	sframe_est e = { 0 };
	/* A: 64 bytes of code, 1-byte start addresses */
	uw_row a[5] = { row_make(UW_RSP, 8), row_make(UW_RSP, 16),
			row_make(UW_RBP, 16), row_make(UW_RBP, 16),
			row_make(UW_RSP, 8) };
	a[1].r.reg[UW_RBP] = (uw_rule){ .kind = UW_OFFSET, .off = -16 }; /* FP */
	a[2].r.reg[UW_RBP] = (uw_rule){ .kind = UW_OFFSET, .off = -16 };
	a[2].r.reg[3] = (uw_rule){ .kind = UW_OFFSET, .off = -24 };
	a[3] = a[2];
	a[3].r.reg[12] = (uw_rule){ .kind = UW_OFFSET, .off = -32 }; /* ignored */
	a[4].r.reg[UW_RBP] = (uw_rule){ .kind = UW_SAME_VALUE }; /* no FP */
	uw_fde f = fde_make(0x1000, 64, a, 5);
	sframe_est_fde(&e, &f);
	/* (rsp 8) 1+1+1, (rsp 16 fp -16) 1+1+2, (rbp 16 fp -16) 1+1+2, merged,
	 * (rsp 8) 1+1+1 */
	CHECK_U64(e.fdes, 1);
	CHECK_U64(e.fres, 4);
	CHECK_U64(e.fre_bytes, 3 + 4 + 4 + 3);

	/* B: 300 bytes, 2-byte addresses; offsets of 2 bytes */
	uw_row b[3] = { row_make(UW_RSP, 8), row_make(UW_RSP, 200),
			row_make(UW_RSP, 200) };
	b[2].r.reg[UW_RBP] = (uw_rule){ .kind = UW_OFFSET, .off = -16 };
	f = fde_make(0x2000, 300, b, 3);
	sframe_est_fde(&e, &f);
	/* 2+1+1, 2+1+2, 2+1+2*2 (-16 fits in 1 byte, 200 does not) */
	CHECK_U64(e.fres, 4 + 3);
	CHECK_U64(e.fre_bytes, 14 + 4 + 5 + 7);

	/* C: 70000 bytes, 4-byte addresses, a 4-byte offset; D: exactly 256
	 * bytes, 2-byte addresses, offset -128 in 1 byte */
	uw_row c[1] = { row_make(UW_RSP, 40000) };
	f = fde_make(0x3000, 70000, c, 1);
	sframe_est_fde(&e, &f);
	uw_row d[1] = { row_make(UW_RBP, 16) };
	d[0].r.reg[UW_RBP] = (uw_rule){ .kind = UW_OFFSET, .off = -128 };
	f = fde_make(0x20000, 256, d, 1);
	sframe_est_fde(&e, &f);
	CHECK_U64(e.fdes, 4);
	CHECK_U64(e.fres, 9);
	CHECK_U64(e.fre_bytes, 30 + (4 + 1 + 4) + (2 + 1 + 2 * 1));

	/* skipped: a CFA expression in the 2nd row; the return address at
	 * CFA-16; rbp in a register; the CFA on another register; rbp
	 * undefined */
	static const uint8_t ex[] = { DW_OP_breg7, 8 };
	uw_row s1[2] = { row_make(UW_RSP, 8), row_make(UW_RSP, 8) };
	s1[1].r.cfa = (uw_cfa){ .kind = UW_CFA_EXPR, .expr = ex, .expr_len = 2 };
	uw_row s2[1] = { row_make(UW_RSP, 16) };
	s2[0].r.reg[UW_RA].off = -16;
	uw_row s3[1] = { row_make(UW_RSP, 16) };
	s3[0].r.reg[UW_RBP] = (uw_rule){ .kind = UW_REGISTER, .reg = 3 };
	uw_row s4[1] = { row_make(10, 16) };
	uw_row s5[1] = { row_make(UW_RSP, 16) };
	s5[0].r.reg[UW_RBP] = (uw_rule){ .kind = UW_UNDEFINED };
	const uw_row *skipped[] = { s1, s2, s3, s4, s5 };
	const size_t nskipped[] = { 2, 1, 1, 1, 1 };
	for (int i = 0; i < 5; i++) {
		f = fde_make(0x40000 + 0x100 * (uint64_t)i, 0x10, skipped[i],
			     nskipped[i]);
		sframe_est_fde(&e, &f);
	}
	CHECK_U64(e.skipped_fdes, 5);
	CHECK_U64(e.skipped_rows, 6);
	/* an FDE without rows: represented, no FRE */
	f = fde_make(0x50000, 0x10, NULL, 0);
	sframe_est_fde(&e, &f);
	CHECK_U64(e.fdes, 5);
	CHECK_U64(e.fres, 9);
	CHECK_U64(e.fre_bytes, 44);
	CHECK_U64(sframe_est_bytes(&e), 28 + 20 * 5 + 44);
	sframe_est empty = { 0 };
	CHECK_U64(sframe_est_bytes(&empty), 28);
}

/* ---- ehelf_compile_reader's detail ---------------------------------------- */

enum { VADDR = 0x400000 };

static size_t fde_begin(bbuf *b, size_t cie_at, uint64_t lo, uint64_t len)
{
	size_t at = b_begin32(b);
	b_u32(b, (uint32_t)(b->n - cie_at));
	b_u32(b, (uint32_t)(int32_t)(lo - (VADDR + b->n)));
	b_u32(b, (uint32_t)len);
	b_uleb(b, 0);
	return at;
}

static void test_detail(void)
{
	static bbuf b;
	b.n = 0;
	size_t cie = b_begin32(&b);
	b_u32(&b, 0); b_u8(&b, 1); b_str(&b, "zR");
	b_uleb(&b, 1); b_sleb(&b, -8); b_u8(&b, 16);
	b_uleb(&b, 1); b_u8(&b, DW_EH_PE_pcrel | DW_EH_PE_sdata4);
	b_u8(&b, DW_CFA_def_cfa); b_uleb(&b, 7); b_uleb(&b, 8);
	b_u8(&b, DW_CFA_offset | 16); b_uleb(&b, 1);
	b_pad(&b, cie);
	b_end32(&b, cie);
	/* rsp+8; rsp+16 rbx at c-16; rsp+8 rbx at c-16 */
	size_t f1 = fde_begin(&b, cie, 0x1000, 0x10);
	b_u8(&b, DW_CFA_advance_loc | 1);
	b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 16);
	b_u8(&b, DW_CFA_offset | 3); b_uleb(&b, 2);
	b_u8(&b, DW_CFA_advance_loc | 3);
	b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 8);
	b_pad(&b, f1);
	b_end32(&b, f1);
	size_t f2 = fde_begin(&b, cie, 0x2000, 0x10); /* rsp+8; rsp+24 */
	b_u8(&b, DW_CFA_advance_loc | 1);
	b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 24);
	b_pad(&b, f2);
	b_end32(&b, f2);
	size_t size1 = f2 - f1, size2 = b.n - f2;
	b_u32(&b, 0);

	/* .debug_frame: one FDE of 3 rows (rsp+8; rsp+16; rbp+16) */
	static bbuf g;
	g.n = 0;
	size_t gcie = b_begin32(&g);
	b_u32(&g, 0xffffffff); b_u8(&g, 1); b_str(&g, "");
	b_uleb(&g, 1); b_sleb(&g, -8); b_u8(&g, 16);
	b_u8(&g, DW_CFA_def_cfa); b_uleb(&g, 7); b_uleb(&g, 8);
	b_u8(&g, DW_CFA_offset | 16); b_uleb(&g, 1);
	b_end32(&g, gcie);
	size_t g1 = b_begin32(&g);
	b_u32(&g, (uint32_t)gcie); b_u64(&g, 0x3000); b_u64(&g, 0x400);
	b_u8(&g, DW_CFA_advance_loc | 1);
	b_u8(&g, DW_CFA_def_cfa_offset); b_uleb(&g, 16);
	b_u8(&g, DW_CFA_advance_loc | 4);
	b_u8(&g, DW_CFA_def_cfa_register); b_uleb(&g, 6);
	b_end32(&g, g1);
	size_t size3 = g.n - g1;

	cfi_section s = { .file = "synthetic", .name = ".eh_frame", .is_eh = true,
			  .data = b.d, .size = b.n, .vaddr = VADDR };
	cfi_section sd = { .file = "synthetic", .name = ".debug_frame",
			   .data = g.d, .size = g.n };
	cfi_reader *r = cfi_reader_new();
	cfi_reader_add_section(r, &s);
	cfi_reader_add_section(r, &sd);
	ehelf_compile_detail d;
	memset(&d, 0xff, sizeof d); /* zeroed by the compile */
	ehelf_compile_opts opts = { .detail = &d };
	uint8_t *image = NULL;
	size_t len = 0;
	ehelf_compile_stats st;
	ehelf_err err = { 0 };
	int rc = ehelf_compile_reader(r, "synthetic", &opts, &image, &len, &st,
				      &err);
	cfi_reader_free(r);
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "compile: %s\n", err.msg);
		return;
	}
	CHECK_U64(st.rows, 8);
	CHECK_U64(d.nrulesets, st.rulesets - 1);
	CHECK_U64(d.nrulesets, 6);
	static const char *const want_text[] = {
		"cfa=rsp+8 ra=c-8", "cfa=rsp+16 rbx=c-16 ra=c-8",
		"cfa=rsp+8 rbx=c-16 ra=c-8", "cfa=rsp+24 ra=c-8",
		"cfa=rsp+16 ra=c-8", "cfa=rbp+16 ra=c-8",
	};
	static const uint64_t want_rows[] = { 3, 1, 1, 1, 1, 1 };
	for (size_t i = 0; i < d.nrulesets && i < 6; i++) {
		const ehelf_ruleset_stat *x = &d.rulesets[i];
		CHECK_STR(x->text, want_text[i]);
		CHECK_U64(x->rows, want_rows[i]);
		CHECK(x->summarised && x->supported);
		CHECK_U64(x->cfa_base, i == 5 ? EHELF_CFA_RBP : EHELF_CFA_RSP);
		CHECK_U64(x->cfa_reg, i == 5 ? UW_RBP : UW_RSP);
		CHECK_U64(x->saved_regs, i == 1 || i == 2 ? 1 : 0);
	}
	CHECK_STR(ehelf_cfa_base_name(d.rulesets[5].cfa_base), "rbp");
	CHECK_U64(d.rulesets[0].cfa_offset, 8);
	CHECK_U64(d.rulesets[3].cfa_offset, 24);
	CHECK_U64(d.rulesets[0].shape, d.rulesets[3].shape);
	CHECK_U64(d.rulesets[1].shape, d.rulesets[2].shape);
	CHECK(d.rulesets[0].fingerprint != d.rulesets[3].fingerprint);
	CHECK_STR(ehelf_cfa_base_name(d.rulesets[0].cfa_base), "rsp");
	CHECK_U64(d.shapes, 3);
	CHECK_U64(d.summarised_rows, 8);
	CHECK_U64(d.eh_frame_fdes, 2);
	CHECK_U64(d.eh_frame_rows, 5);
	CHECK_U64(d.debug_frame_fdes, 1);
	CHECK_U64(d.debug_frame_rows, 3);
	uint64_t fdes = 0, bytes = 0;
	for (int k = 0; k < EHELF_FDE_SIZE_BUCKETS; k++) {
		fdes += d.fde_size_fdes[k];
		bytes += d.fde_size_bytes[k];
		if (d.fde_size_fdes[k])
			CHECK(d.fde_size_bytes[k] >= d.fde_size_fdes[k] << k &&
			      d.fde_size_bytes[k] < d.fde_size_fdes[k] << (k + 1));
	}
	CHECK_U64(fdes, 3);
	CHECK_U64(bytes, size1 + size2 + size3);
	CHECK_U64(size3, 4 + 4 + 16 + 6); /* 6 bytes of instructions */
	/* 1-byte addresses; rsp+8, rsp+16, rsp+8 and rsp+8, rsp+24: 3 bytes
	 * each; 2-byte addresses (0x400 bytes): rsp+8, rsp+16, rbp+16: 4 each */
	CHECK_U64(d.sframe.fdes, 3);
	CHECK_U64(d.sframe.fres, 8);
	CHECK_U64(sframe_est_bytes(&d.sframe), 28 + 3 * 20 + 5 * 3 + 3 * 4);
	CHECK(d.read_ms >= 0 && d.rules_ms >= 0 && d.codegen_ms >= 0 &&
	      d.image_ms >= 0 && d.read_ms < 1e4);
	ehelf_compile_detail_free(&d);
	CHECK(d.rulesets == NULL && d.texts == NULL && d.nrulesets == 0);
	ehelf_compile_detail_free(&d); /* again: harmless */
	ehelf_compile_stats_free(&st);
	free(image);
}

int main(void)
{
	test_encoding();
	test_identity();
	test_text();
	test_sframe();
	test_detail();
	UNIT_DONE("test_ruleset_fp");
}
