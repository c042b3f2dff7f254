/* unwind_ir.c - see unwind_ir.h. */
#include "unwind_ir.h"

#include <stdio.h>
#include <string.h>

bool uw_rule_eq(const uw_rule *a, const uw_rule *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case UW_OFFSET:
	case UW_VAL_OFFSET:
		return a->off == b->off;
	case UW_REGISTER:
		return a->reg == b->reg;
	case UW_EXPR:
	case UW_VAL_EXPR:
		return a->expr_len == b->expr_len &&
		       memcmp(a->expr, b->expr, a->expr_len) == 0;
	}
	return true;
}

bool uw_cfa_eq(const uw_cfa *a, const uw_cfa *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case UW_CFA_REG_OFF:
		return a->reg == b->reg && a->off == b->off;
	case UW_CFA_EXPR:
		return a->expr_len == b->expr_len &&
		       memcmp(a->expr, b->expr, a->expr_len) == 0;
	}
	return true;
}

bool uw_rules_eq(const uw_rules *a, const uw_rules *b)
{
	if (!uw_cfa_eq(&a->cfa, &b->cfa))
		return false;
	for (int i = 0; i < UW_NCOLS; i++)
		if (!uw_rule_eq(&a->reg[i], &b->reg[i]))
			return false;
	return true;
}

const char *uw_reg_name(unsigned reg, char buf[16])
{
	static const char *const gpr[] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rip",
	};
	static const char *const seg[] = { "es", "cs", "ss", "ds", "fs", "gs" };
	if (reg < 17)
		return gpr[reg];
	if (reg <= 32)
		snprintf(buf, 16, "xmm%u", reg - 17);
	else if (reg <= 40)
		snprintf(buf, 16, "st%u", reg - 33);
	else if (reg <= 48)
		snprintf(buf, 16, "mm%u", reg - 41);
	else if (reg == 49)
		return "rflags";
	else if (reg >= 50 && reg <= 55)
		return seg[reg - 50];
	else if (reg == 58)
		return "fs.base";
	else if (reg == 59)
		return "gs.base";
	else
		snprintf(buf, 16, "r%u", reg);
	return buf;
}
