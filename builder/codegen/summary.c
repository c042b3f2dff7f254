/* summary.c - see summary.h. */
#include "summary.h"

#include "../../abi/ehelf_abi.h"

/* What the summary word's fields (ehelf_abi.h) hold: the CFA offset and the
 * slots' "saved at CFA + N" offsets in units of 8 bytes, as signed fields of
 * EHELF_SUM_CFA_BITS and EHELF_SUM_SLOT_BITS bits; the slot field's most
 * negative value is EHELF_SUM_KEEP ("kept"), so offsets stop one short. */
enum {
	SUM_CFA_MIN = -8 * (1 << (EHELF_SUM_CFA_BITS - 1)),
	SUM_CFA_MAX = 8 * ((1 << (EHELF_SUM_CFA_BITS - 1)) - 1),
	SUM_SLOT_MAX = 8 * ((1 << (EHELF_SUM_SLOT_BITS - 1)) - 1),
	SUM_SLOT_MASK = (1 << EHELF_SUM_SLOT_BITS) - 1,
};
_Static_assert(SUM_CFA_MIN == -16384 && SUM_CFA_MAX == 16376 && SUM_SLOT_MAX == 504 &&
	       SUM_SLOT_MASK == 0x7f, "the summary's field widths (ehelf_abi.h)");
_Static_assert(EHELF_SUM_KEEP == 1 << (EHELF_SUM_SLOT_BITS - 1),
	       "EHELF_SUM_KEEP is the slot field's most negative value");
_Static_assert(EHELF_SUM_CFA_SHIFT + EHELF_SUM_CFA_BITS == EHELF_SUM_SLOT_SHIFT &&
	       EHELF_SUM_SLOT_SHIFT + EHELF_SUM_SLOT_BITS * EHELF_SUM_SLOTS <= 64,
	       "the summary's fields fit in its 64 bits without overlapping");

/* The slot value for "saved at CFA + OFF", or -1 if out of range. */
static int slot_value(int64_t off)
{
	if (off % 8 != 0 || off < -SUM_SLOT_MAX || off > SUM_SLOT_MAX)
		return -1;
	return (int)((off / 8) & SUM_SLOT_MASK);
}

uint64_t ruleset_summary(const ruleset *rs)
{
	const uw_rules *r = &rs->r;
	if (rs->signal_frame || r->cfa.kind != UW_CFA_REG_OFF ||
	    (r->cfa.reg != UW_RSP && r->cfa.reg != UW_RBP) || r->cfa.off % 8 != 0 ||
	    r->cfa.off < SUM_CFA_MIN || r->cfa.off > SUM_CFA_MAX)
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
