/* lenient_step.c - see lenient_step.h. */
#include "lenient_step.h"

#include <stdbool.h>

/* A reader that never fails: what the wrapped one cannot read is FILL. */
typedef struct filled_reader {
	ehelf_read_fn read;
	void *arg;
	uint64_t fill;
	bool missed; /* some word was filled */
} filled_reader;

static int filled_read(void *arg, uint64_t addr, uint64_t *value)
{
	filled_reader *f = arg;
	if (f->read(f->arg, addr, value) == 0)
		return 0;
	f->missed = true;
	*value = f->fill;
	return 0;
}

/* The fills: 0, all ones, and a pattern of neither's bits nor sign, so
 * that a result that only compares or masks what it read (0 < 5 and -1 <
 * 5 alike) still differs in one of them. */
static const uint64_t fills[] = { 0, ~(uint64_t)0, 0x5a5a5a5a5a5a5a5aull };
enum { NFILLS = sizeof fills / sizeof *fills };

int lenient_object_step(const ehelf_object *o, uint64_t pc,
			const ehelf_regs *in, ehelf_regs *out,
			ehelf_read_fn read, void *arg)
{
	int first = EHELF_E_READ;
	uint32_t lost = 0;
	for (int k = 0; k < NFILLS; k++) {
		filled_reader f = { read, arg, fills[k], false };
		ehelf_regs other;
		ehelf_regs *to = k ? &other : out; /* the first run's is OUT */
		int st = ehelf_object_step(o, pc, in, to, filled_read, &f);
		if (!f.missed || (st != EHELF_STEP && st != EHELF_OUTERMOST) ||
		    (k && st != first))
			return EHELF_E_READ;
		if (!k) {
			first = st;
			continue;
		}
		if (st == EHELF_OUTERMOST)
			continue;
		if (out->r[EHELF_RIP] != other.r[EHELF_RIP] ||
		    out->r[EHELF_RSP] != other.r[EHELF_RSP] ||
		    out->valid != other.valid)
			return EHELF_E_READ;
		for (int i = 0; i < EHELF_NREGS; i++)
			if (out->r[i] != other.r[i])
				lost |= 1u << i;
	}
	out->valid &= ~lost;
	return first;
}
