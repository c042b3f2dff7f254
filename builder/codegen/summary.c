/* summary.c - see summary.h. */
#include "summary.h"

#include "../../client-lib/include/ehelf_abi.h"

/* The 7-bit slot value for "saved at CFA + OFF", or -1 if out of range. */
static int slot_value(int64_t off)
{
	if (off % 8 != 0 || off < -504 || off > 504)
		return -1;
	return (int)((off / 8) & 0x7f);
}

uint64_t ruleset_summary(const ruleset *rs)
{
	const uw_rules *r = &rs->r;
	if (rs->signal_frame || r->cfa.kind != UW_CFA_REG_OFF ||
	    (r->cfa.reg != UW_RSP && r->cfa.reg != UW_RBP) || r->cfa.off % 8 != 0 ||
	    r->cfa.off < -16384 || r->cfa.off > 16376)
		return 0;
	uint64_t sum = EHELF_SUM_OK;
	if (r->cfa.reg == UW_RBP)
		sum |= EHELF_SUM_CFA_RBP;
	sum |= (uint64_t)((r->cfa.off / 8) & ((1 << EHELF_SUM_CFA_BITS) - 1))
	       << EHELF_SUM_CFA_SHIFT;
	static const int slot_regs[EHELF_SUM_SLOTS] = EHELF_SUM_SLOT_REGS;
	bool in_slot[UW_NCOLS] = { false };
	for (int k = 0; k < EHELF_SUM_SLOTS; k++) {
		int reg = slot_regs[k];
		in_slot[reg] = true;
		const uw_rule *rule = &r->reg[reg];
		int v;
		if (rule->kind == UW_OFFSET) {
			if ((v = slot_value(rule->off)) < 0)
				return 0;
		} else if (reg != EHELF_RIP && (rule->kind == UW_UNSET ||
						rule->kind == UW_SAME_VALUE)) {
			v = EHELF_SUM_KEEP;
		} else {
			return 0; /* the return address must be saved */
		}
		sum |= (uint64_t)v << (EHELF_SUM_SLOT_SHIFT + EHELF_SUM_SLOT_BITS * k);
	}
	if (r->reg[UW_RSP].kind != UW_UNSET)
		return 0; /* rsp is not simply the CFA */
	for (int c = 0; c < UW_NCOLS; c++)
		if (!in_slot[c] && r->reg[c].kind != UW_UNSET &&
		    r->reg[c].kind != UW_SAME_VALUE)
			return 0; /* a scratch register saved, say */
	return sum;
}
