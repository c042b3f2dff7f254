/* test_uw_dump.c - the text notation of rules and FDEs. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "../../builder/cfi/uw_dump.h"
#include "unit.h"

static const char *rule(uw_rule r)
{
	static char buf[64];
	uw_format_rule(&r, buf, sizeof buf);
	return buf;
}

static const char *cfa(uw_cfa c)
{
	static char buf[64];
	uw_format_cfa(&c, buf, sizeof buf);
	return buf;
}

int main(void)
{
	static const uint8_t e[] = { 0x77, 0x10 };
	CHECK_STR(rule((uw_rule){ .kind = UW_UNSET }), "");
	CHECK_STR(rule((uw_rule){ .kind = UW_UNDEFINED }), "u");
	CHECK_STR(rule((uw_rule){ .kind = UW_SAME_VALUE }), "s");
	CHECK_STR(rule((uw_rule){ .kind = UW_OFFSET, .off = -16 }), "c-16");
	CHECK_STR(rule((uw_rule){ .kind = UW_OFFSET, .off = 0 }), "c+0");
	CHECK_STR(rule((uw_rule){ .kind = UW_VAL_OFFSET, .off = 8 }), "v+8");
	CHECK_STR(rule((uw_rule){ .kind = UW_REGISTER, .reg = 3 }), "rbx");
	CHECK_STR(rule((uw_rule){ .kind = UW_REGISTER, .reg = 16 }), "rip");
	CHECK_STR(rule((uw_rule){ .kind = UW_EXPR, .expr = e, .expr_len = 2 }),
		  "exp");
	CHECK_STR(rule((uw_rule){ .kind = UW_VAL_EXPR, .expr = e,
				  .expr_len = 2 }), "vexp");
	CHECK_STR(cfa((uw_cfa){ .kind = UW_CFA_REG_OFF, .reg = 7, .off = 8 }),
		  "rsp+8");
	CHECK_STR(cfa((uw_cfa){ .kind = UW_CFA_REG_OFF, .reg = 10, .off = 0 }),
		  "r10+0");
	CHECK_STR(cfa((uw_cfa){ .kind = UW_CFA_REG_OFF, .reg = 6,
				.off = -0x100000000ll }), "rbp-4294967296");
	CHECK_STR(cfa((uw_cfa){ .kind = UW_CFA_EXPR, .expr = e,
				.expr_len = 2 }), "exp");
	CHECK_STR(cfa((uw_cfa){ .kind = UW_CFA_UNSET }), "u");

	uw_row rows[2] = { 0 };
	rows[0] = (uw_row){ .lo = 0x10, .hi = 0x11 };
	rows[0].r.cfa = (uw_cfa){ .kind = UW_CFA_REG_OFF, .reg = 7, .off = 8 };
	rows[0].r.reg[16] = (uw_rule){ .kind = UW_OFFSET, .off = -8 };
	rows[1] = rows[0];
	rows[1].lo = 0x11;
	rows[1].hi = 0x20;
	rows[1].r.cfa = (uw_cfa){ .kind = UW_CFA_EXPR, .expr = e, .expr_len = 2 };
	rows[1].r.reg[3] = (uw_rule){ .kind = UW_VAL_EXPR, .expr = e,
				       .expr_len = 2 };
	uw_fde fde = { .lo = 0x10, .hi = 0x20, .offset = 0x18,
		       .section = ".eh_frame", .signal_frame = true,
		       .nrows = 2, .rows = rows };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	CHECK(uw_dump_fde(out, &fde, false) == 0);
	CHECK(uw_dump_fde(out, &fde, true) == 0);
	fclose(out);
	CHECK_STR(text,
		  "FDE pc=0000000000000010..0000000000000020\n"
		  "0000000000000010 cfa=rsp+8 ra=c-8\n"
		  "0000000000000011 cfa=exp rbx=vexp ra=c-8\n"
		  "FDE pc=0000000000000010..0000000000000020\n"
		  "  # .eh_frame+0x18 cie=0x0 signal-frame\n"
		  "0000000000000010 cfa=rsp+8 ra=c-8\n"
		  "0000000000000011 cfa=exp rbx=vexp ra=c-8\n"
		  "    cfa: DW_OP_breg7 (rsp): 16\n"
		  "    rbx: DW_OP_breg7 (rsp): 16\n");
	free(text);
	UNIT_DONE("test_uw_dump");
}
