/* uw_dump.c - see uw_dump.h. */
#include "uw_dump.h"

#include <inttypes.h>

#include "dwarf_op.h"

void uw_format_cfa(const uw_cfa *cfa, char *buf, size_t n)
{
	char rn[16];
	switch (cfa->kind) {
	case UW_CFA_REG_OFF:
		snprintf(buf, n, "%s%+" PRId64, uw_reg_name(cfa->reg, rn),
			 cfa->off);
		break;
	case UW_CFA_EXPR:
		snprintf(buf, n, "exp");
		break;
	default:
		snprintf(buf, n, "u");
		break;
	}
}

void uw_format_rule(const uw_rule *rule, char *buf, size_t n)
{
	char rn[16];
	switch (rule->kind) {
	case UW_UNDEFINED: snprintf(buf, n, "u"); break;
	case UW_SAME_VALUE: snprintf(buf, n, "s"); break;
	case UW_OFFSET: snprintf(buf, n, "c%+" PRId64, rule->off); break;
	case UW_VAL_OFFSET: snprintf(buf, n, "v%+" PRId64, rule->off); break;
	case UW_REGISTER:
		snprintf(buf, n, "%s", uw_reg_name(rule->reg, rn));
		break;
	case UW_EXPR: snprintf(buf, n, "exp"); break;
	case UW_VAL_EXPR: snprintf(buf, n, "vexp"); break;
	default: buf[0] = '\0'; break;
	}
}

static const char *col_name(int col, char rn[16])
{
	return col == UW_RA ? "ra" : uw_reg_name((unsigned)col, rn);
}

static void dump_expr(FILE *out, const char *what, const uint8_t *expr,
		      uint32_t len)
{
	fprintf(out, "    %s:", what);
	cursor c = cursor_make(expr, len);
	dwop op;
	int rc;
	const char *sep = " ";
	while ((rc = dwop_next(&c, expr, &op)) > 0) {
		char text[96];
		dwop_format(&op, text, sizeof text);
		fprintf(out, "%s%s", sep, text);
		sep = "; ";
	}
	if (rc < 0)
		fprintf(out, "%s<malformed at +%u>", sep, op.offset);
	fputc('\n', out);
}

int uw_dump_fde(FILE *out, const uw_fde *fde, bool verbose)
{
	char buf[64], rn[16];
	fprintf(out, "FDE pc=%016" PRIx64 "..%016" PRIx64 "\n", fde->lo,
		fde->hi);
	if (verbose)
		fprintf(out, "  # %s+0x%" PRIx64 " cie=0x%" PRIx64 "%s\n",
			fde->section, fde->offset, fde->cie_offset,
			fde->signal_frame ? " signal-frame" : "");
	for (size_t i = 0; i < fde->nrows; i++) {
		const uw_row *row = &fde->rows[i];
		uw_format_cfa(&row->r.cfa, buf, sizeof buf);
		fprintf(out, "%016" PRIx64 " cfa=%s", row->lo, buf);
		for (int col = 0; col < UW_NCOLS; col++) {
			if (row->r.reg[col].kind == UW_UNSET)
				continue;
			uw_format_rule(&row->r.reg[col], buf, sizeof buf);
			fprintf(out, " %s=%s", col_name(col, rn), buf);
		}
		fputc('\n', out);
		if (!verbose)
			continue;
		if (row->r.cfa.kind == UW_CFA_EXPR)
			dump_expr(out, "cfa", row->r.cfa.expr,
				  row->r.cfa.expr_len);
		for (int col = 0; col < UW_NCOLS; col++) {
			const uw_rule *r = &row->r.reg[col];
			if (r->kind == UW_EXPR || r->kind == UW_VAL_EXPR)
				dump_expr(out, col_name(col, rn), r->expr,
					  r->expr_len);
		}
	}
	return ferror(out) ? -1 : 0;
}
