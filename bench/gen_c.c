/*
 * gen-c - the "generated C through gcc" alternative to ehelf's direct code
 * emission, kept only to measure it (bench/run-backends.sh): it writes, for
 * one ELF, C source with the same lookup data (entries sorted by address,
 * searched by binary search) and one function per rule set and entry mode,
 * with the same semantics as an eh_elf's entry points.  DWARF expressions
 * become a C stack machine with gotos.  The output is compiled with gcc -O2
 * and assembled with as to time those routes against ehelf-compile.
 *
 * Usage: gen-c FILE > out.c
 */
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../builder/cfi/cfi_reader.h"
#include "../builder/cfi/dwarf_op.h"
#include "../builder/codegen/lookup_table.h"
#include "../builder/codegen/ruleset.h"

static void emit_expr(const uint8_t *e, uint32_t len, bool push_cfa,
		      const char *dst, int mode, int id)
{
	printf("\t{ uint64_t s[64]; int sp = 0; uint64_t t;\n");
	if (push_cfa)
		printf("\ts[sp++] = cfa;\n");
	cursor c = cursor_make(e, len);
	dwop op;
	while (dwop_next(&c, e, &op) > 0) {
		uint8_t o = op.op;
		printf("L%d_%u: ", id, op.offset);
		if (o >= DW_OP_lit0 && o <= DW_OP_lit31)
			printf("s[sp++] = %u;\n", o - DW_OP_lit0);
		else if (o >= DW_OP_breg0 && o <= DW_OP_breg16)
			printf("s[sp++] = in->r[%u] + %" PRId64 "ull;\n",
			       o - DW_OP_breg0, (int64_t)op.n1);
		else switch (o) {
		case DW_OP_bregx:
			printf("s[sp++] = in->r[%" PRIu64 "] + %" PRId64 "ull;\n",
			       op.n1, (int64_t)op.n2);
			break;
		case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
		case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
		case DW_OP_consts:
			printf("s[sp++] = %" PRIu64 "ull;\n", op.n1);
			break;
		case DW_OP_call_frame_cfa: printf("s[sp++] = cfa;\n"); break;
		case DW_OP_dup: printf("s[sp] = s[sp-1]; sp++;\n"); break;
		case DW_OP_drop: printf("sp--;\n"); break;
		case DW_OP_over: printf("s[sp] = s[sp-2]; sp++;\n"); break;
		case DW_OP_pick: printf("s[sp] = s[sp-1-%" PRIu64 "]; sp++;\n", op.n1); break;
		case DW_OP_swap: printf("t = s[sp-1]; s[sp-1] = s[sp-2]; s[sp-2] = t;\n"); break;
		case DW_OP_rot: printf("t = s[sp-1]; s[sp-1] = s[sp-2]; s[sp-2] = s[sp-3]; s[sp-3] = t;\n"); break;
		case DW_OP_deref:
			printf("if (%s(s[sp-1], &t)) return -2; s[sp-1] = t;\n",
			       mode ? "RREAD" : "LREAD");
			break;
		case DW_OP_plus_uconst: printf("s[sp-1] += %" PRIu64 "ull;\n", op.n1); break;
		case DW_OP_plus: printf("s[sp-2] += s[sp-1]; sp--;\n"); break;
		case DW_OP_minus: printf("s[sp-2] -= s[sp-1]; sp--;\n"); break;
		case DW_OP_and: printf("s[sp-2] &= s[sp-1]; sp--;\n"); break;
		case DW_OP_or: printf("s[sp-2] |= s[sp-1]; sp--;\n"); break;
		case DW_OP_xor: printf("s[sp-2] ^= s[sp-1]; sp--;\n"); break;
		case DW_OP_mul: printf("s[sp-2] *= s[sp-1]; sp--;\n"); break;
		case DW_OP_shl: printf("s[sp-2] <<= (s[sp-1] & 63); sp--;\n"); break;
		case DW_OP_shr: printf("s[sp-2] >>= (s[sp-1] & 63); sp--;\n"); break;
		case DW_OP_ge: printf("s[sp-2] = (int64_t)s[sp-2] >= (int64_t)s[sp-1]; sp--;\n"); break;
		case DW_OP_lt: printf("s[sp-2] = (int64_t)s[sp-2] < (int64_t)s[sp-1]; sp--;\n"); break;
		case DW_OP_eq: printf("s[sp-2] = s[sp-2] == s[sp-1]; sp--;\n"); break;
		case DW_OP_ne: printf("s[sp-2] = s[sp-2] != s[sp-1]; sp--;\n"); break;
		case DW_OP_bra:
			printf("if (s[--sp]) goto L%d_%" PRId64 ";\n", id,
			       (int64_t)op.offset + 3 + (int64_t)op.n1);
			break;
		case DW_OP_skip:
			printf("goto L%d_%" PRId64 ";\n", id,
			       (int64_t)op.offset + 3 + (int64_t)op.n1);
			break;
		default: printf("return -3;\n"); break;
		}
	}
	printf("L%d_%u: %s = s[sp-1]; }\n", id, len, dst);
}

static void emit_body(const ruleset *rs, size_t i, int mode)
{
	const uw_rules *r = &rs->r;
	static int expr_id;
	printf("static int rs%zu_%c(const struct regs *in, struct regs *out, %s)\n{\n",
	       i, mode ? 'r' : 'l', mode ? "rd read, void *arg" : "uint64_t lo, uint64_t hi");
	printf("\tuint64_t cfa, v; (void)v;\n");
	if (r->reg[UW_RA].kind == UW_UNDEFINED) {
		printf("\treturn 1;\n}\n");
		return;
	}
	if (r->cfa.kind == UW_CFA_REG_OFF)
		printf("\tcfa = in->r[%u] + %" PRId64 "ull;\n", r->cfa.reg, r->cfa.off);
	else if (r->cfa.kind == UW_CFA_EXPR)
		emit_expr(r->cfa.expr, r->cfa.expr_len, false, "cfa", mode, expr_id++);
	uint32_t set = 0, clear = 0;
	for (int c = 0; c < UW_NCOLS; c++) {
		const uw_rule *x = &r->reg[c];
		switch (x->kind) {
		case UW_UNSET:
			if (c == UW_RSP) {
				printf("\tout->r[7] = cfa;\n");
				set |= 1u << 7;
			}
			break;
		case UW_UNDEFINED: clear |= 1u << c; break;
		case UW_OFFSET:
			printf("\tif (%s(cfa + %" PRId64 "ull, &v)) return %d; out->r[%d] = v;\n",
			       mode ? "RREAD" : "LREAD", x->off, mode ? -2 : -6, c);
			set |= 1u << c;
			break;
		case UW_VAL_OFFSET:
			printf("\tout->r[%d] = cfa + %" PRId64 "ull;\n", c, x->off);
			set |= 1u << c;
			break;
		case UW_REGISTER:
			printf("\tout->r[%d] = in->r[%u];\n", c, x->reg);
			set |= 1u << c;
			break;
		case UW_EXPR:
		case UW_VAL_EXPR:
			emit_expr(x->expr, x->expr_len, true, "v", mode, expr_id++);
			if (x->kind == UW_EXPR)
				printf("\tif (%s(v, &v)) return -2;\n", mode ? "RREAD" : "LREAD");
			printf("\tout->r[%d] = v;\n", c);
			set |= 1u << c;
			break;
		}
	}
	if (rs->signal_frame)
		set |= 1u << 31;
	printf("\tout->valid = (out->valid & ~0x%xu) | 0x%xu;\n\treturn 0;\n}\n",
	       clear, set);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen-c FILE > out.c\n");
		return 2;
	}
	elf_file f;
	ehelf_err err;
	if (elf_file_open(&f, argv[1], &err) < 0) {
		fprintf(stderr, "gen-c: %s\n", err.msg);
		return 1;
	}
	cfi_reader *r = cfi_reader_new();
	cfi_reader_add_elf(r, &f, &err);
	ruleset_table rs;
	ruleset_table_init(&rs);
	lt_interval *iv = NULL;
	size_t n = 0, cap = 0;
	uw_fde fde;
	while (cfi_reader_next(r, &fde, &err) > 0)
		for (size_t i = 0; i < fde.nrows; i++) {
			if (n == cap) {
				cap = cap ? 2 * cap : 4096;
				iv = realloc(iv, cap * sizeof *iv);
			}
			int64_t k = ruleset_intern(&rs, &fde.rows[i].r, fde.signal_frame);
			iv[n] = (lt_interval){ fde.rows[i].lo, fde.rows[i].hi,
					       (uint32_t)k, (uint32_t)n };
			n++;
		}
	lookup_table t;
	lt_build(&t, iv, n);
	printf("#include <stdint.h>\n#include <string.h>\n"
	       "struct regs { uint64_t r[17]; uint32_t valid; };\n"
	       "typedef int (*rd)(void *, uint64_t, uint64_t *);\n"
	       "#define RREAD(a, p) read(arg, (a), (p))\n"
	       "#define LREAD(a, p) ((a) < lo || (a) > hi - 8 ? 1 : (memcpy((p), (void *)(uintptr_t)(a), 8), 0))\n");
	for (size_t i = 1; i < rs.n; i++) {
		emit_body(&rs.v[i], i, 0);
		emit_body(&rs.v[i], i, 1);
	}
	/* entries: absolute start addresses and rule sets */
	printf("static const uint64_t start[] = {");
	uint64_t psize = 1ull << t.page_bits;
	size_t k = 0;
	for (uint32_t p = 0; p < t.npages; p++)
		for (; k < t.page_first[p + 1]; k++) {
			uint64_t sub = 0;
			const uint16_t *cn = &t.cnt[(size_t)p * (t.subpages + 1)];
			for (unsigned s = 0; s < t.subpages; s++)
				if (k - t.page_first[p] >= cn[s])
					sub = (uint64_t)s;
			printf("%s0x%" PRIx64, k ? "," : "", t.base + p * psize +
			       (sub << LT_SUB_BITS) + t.off[k]);
		}
	printf("};\nstatic const uint16_t rule[] = {");
	for (size_t i = 0; i < t.nentries; i++)
		printf("%s%u", i ? "," : "", t.rule[i]);
	printf("};\n");
	for (int mode = 0; mode < 2; mode++) {
		printf("static int (*const tab_%c[])(const struct regs *, struct regs *, %s) = { 0",
		       mode ? 'r' : 'l', mode ? "rd, void *" : "uint64_t, uint64_t");
		for (size_t i = 1; i < rs.n; i++)
			printf(", rs%zu_%c", i, mode ? 'r' : 'l');
		printf(" };\n");
	}
	printf("static unsigned find(uint64_t pc)\n{\n"
	       "\tsize_t lo = 0, hi = sizeof start / sizeof start[0];\n"
	       "\twhile (lo < hi) { size_t mid = (lo + hi) / 2;\n"
	       "\t\tif (start[mid] <= pc) lo = mid + 1; else hi = mid; }\n"
	       "\treturn lo ? rule[lo - 1] : 0;\n}\n"
	       "int ehelf_step_local(uint64_t pc, const struct regs *in, struct regs *out, uint64_t lo, uint64_t hi)\n"
	       "{ *out = *in; out->valid &= 0x1ffff; unsigned r = find(pc); return r ? tab_l[r](in, out, lo, hi) : -1; }\n"
	       "int ehelf_step_remote(uint64_t pc, const struct regs *in, struct regs *out, rd read, void *arg)\n"
	       "{ *out = *in; out->valid &= 0x1ffff; unsigned r = find(pc); return r ? tab_r[r](in, out, read, arg) : -1; }\n");
	lt_free(&t);
	free(iv);
	ruleset_table_free(&rs);
	cfi_reader_free(r);
	elf_file_close(&f);
	return 0;
}
