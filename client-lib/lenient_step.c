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

int lenient_object_step(const ehelf_object *o, uint64_t pc,
			const ehelf_regs *in, ehelf_regs *out,
			ehelf_read_fn read, void *arg)
{
	filled_reader zeros = { read, arg, 0, false };
	filled_reader ones = { read, arg, ~(uint64_t)0, false };
	ehelf_regs other;
	int a = ehelf_object_step(o, pc, in, out, filled_read, &zeros);
	int b = ehelf_object_step(o, pc, in, &other, filled_read, &ones);
	if (a != b || (a != EHELF_STEP && a != EHELF_OUTERMOST) ||
	    !zeros.missed || !ones.missed)
		return EHELF_E_READ;
	if (a == EHELF_OUTERMOST)
		return a;
	if (out->r[EHELF_RIP] != other.r[EHELF_RIP] ||
	    out->r[EHELF_RSP] != other.r[EHELF_RSP] ||
	    out->valid != other.valid)
		return EHELF_E_READ;
	for (int i = 0; i < EHELF_NREGS; i++)
		if (out->r[i] != other.r[i])
			out->valid &= ~(1u << i);
	return EHELF_STEP;
}
