/* summary_step.c - see summary_step.h. */
#include "summary_step.h"

#include <stdbool.h>
#include <string.h>

static const int slot_regs[EHELF_SUM_SLOTS] = EHELF_SUM_SLOT_REGS;

/* The low BITS of V as a signed number. */
static inline int64_t sext(uint64_t v, int bits)
{
	uint64_t m = 1ull << (bits - 1);
	v &= (m << 1) - 1;
	return (int64_t)((v ^ m) - m);
}

int summary_step(uint64_t sum, const ehelf_regs *in, ehelf_regs *out,
		 uint64_t lo, uint64_t hi, ehelf_read_fn read, void *arg)
{
	int base = (sum & EHELF_SUM_CFA_RBP) ? EHELF_RBP : EHELF_RSP;
	if (!((in->valid >> base) & 1))
		return EHELF_E_BADREG;
	uint64_t cfa = in->r[base] +
		       (uint64_t)(sext(sum >> EHELF_SUM_CFA_SHIFT, EHELF_SUM_CFA_BITS) * 8);
	/* the addresses first: all of them inside [lo, hi - 8] or not */
	uint64_t addr[EHELF_SUM_SLOTS];
	uint32_t saved = 0;
	bool direct = hi >= 8;
	uint64_t slots = sum >> EHELF_SUM_SLOT_SHIFT;
	for (int k = 0; k < EHELF_SUM_SLOTS; k++, slots >>= EHELF_SUM_SLOT_BITS) {
		uint64_t s = slots & ((1u << EHELF_SUM_SLOT_BITS) - 1);
		if (s == EHELF_SUM_KEEP)
			continue;
		addr[k] = cfa + (uint64_t)(sext(s, EHELF_SUM_SLOT_BITS) * 8);
		saved |= 1u << k;
		direct &= addr[k] >= lo && addr[k] <= hi - 8;
	}
	uint64_t val[EHELF_SUM_SLOTS];
	if (!direct) {
		/* through READ, all before anything is written */
		if (!read)
			return EHELF_E_BOUNDS;
		for (int k = 0; k < EHELF_SUM_SLOTS; k++)
			if (((saved >> k) & 1) && read(arg, addr[k], &val[k]) != 0)
				return EHELF_E_READ;
	}
	if (out != in)
		*out = *in;
	uint32_t valid = (out->valid & EHELF_VALID_REGS) | (1u << EHELF_RSP);
	for (int k = 0; k < EHELF_SUM_SLOTS; k++) {
		if (!((saved >> k) & 1))
			continue;
		uint64_t v;
		if (direct)
			memcpy(&v, (const void *)(uintptr_t)addr[k], 8);
		else
			v = val[k];
		out->r[slot_regs[k]] = v;
		valid |= 1u << slot_regs[k];
	}
	out->r[EHELF_RSP] = cfa;
	out->valid = valid;
	return EHELF_STEP;
}

int summary_step_lenient(uint64_t sum, const ehelf_regs *in, ehelf_regs *out,
			 ehelf_read_fn read, void *arg)
{
	int base = (sum & EHELF_SUM_CFA_RBP) ? EHELF_RBP : EHELF_RSP;
	if (!((in->valid >> base) & 1))
		return EHELF_E_BADREG;
	uint64_t cfa = in->r[base] +
		       (uint64_t)(sext(sum >> EHELF_SUM_CFA_SHIFT, EHELF_SUM_CFA_BITS) * 8);
	uint64_t val[EHELF_SUM_SLOTS];
	uint32_t saved = 0, lost = 0;
	uint64_t slots = sum >> EHELF_SUM_SLOT_SHIFT;
	for (int k = 0; k < EHELF_SUM_SLOTS; k++, slots >>= EHELF_SUM_SLOT_BITS) {
		uint64_t s = slots & ((1u << EHELF_SUM_SLOT_BITS) - 1);
		if (s == EHELF_SUM_KEEP)
			continue;
		uint64_t addr = cfa + (uint64_t)(sext(s, EHELF_SUM_SLOT_BITS) * 8);
		if (read(arg, addr, &val[k]) == 0)
			saved |= 1u << k;
		else if (k == 0)
			return EHELF_E_READ; /* the return address */
		else
			lost |= 1u << k;
	}
	if (out != in)
		*out = *in;
	uint32_t valid = (out->valid & EHELF_VALID_REGS) | (1u << EHELF_RSP);
	for (int k = 0; k < EHELF_SUM_SLOTS; k++) {
		if ((saved >> k) & 1) {
			out->r[slot_regs[k]] = val[k];
			valid |= 1u << slot_regs[k];
		} else if ((lost >> k) & 1) {
			valid &= ~(1u << slot_regs[k]);
		}
	}
	out->r[EHELF_RSP] = cfa;
	out->valid = valid;
	return EHELF_STEP;
}
