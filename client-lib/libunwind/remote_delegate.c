/* remote_delegate.c - see remote_delegate.h. */
#define _GNU_SOURCE
#include "remote_delegate.h"

#include <string.h>

#include "remote_side.h"

/* The frame the side is working on in this thread: set around each side
 * call (a side cursor never outlives it). */
typedef struct side_frame {
	remote_space *rs;
	const ehelf_regs *regs;
	bool exact;
	bool *asked; /* set when a register not valid is asked for, or NULL */
} side_frame;

static __thread const side_frame *current;

remote_space *remote_delegating_for(unw_addr_space_t as)
{
	return current && current->rs->twin == as ? current->rs : NULL;
}

/* The twin's access_reg: the frame's registers (its pc at pc - 1 for a
 * return address, see remote_delegate.h); writes and other registers go
 * to the caller's access_reg. */
static int twin_access_reg(unw_addr_space_t as, unw_regnum_t reg,
			   unw_word_t *v, int write, void *arg)
{
	const side_frame *f = current;
	if (!f)
		return -UNW_EINVAL;
	if (!write && reg >= 0 && reg < EHELF_NREGS) {
		if (!((f->regs->valid >> reg) & 1)) {
			if (f->asked)
				*f->asked = true;
			return -UNW_EBADREG;
		}
		*v = f->regs->r[reg] - (reg == EHELF_RIP && !f->exact);
		return 0;
	}
	(void)as;
	return f->rs->acc.access_reg((unw_addr_space_t)f->rs, reg, v, write, arg);
}

void remote_twin_accessors(const remote_space *rs, unw_accessors_t *out)
{
	*out = rs->acc;
	out->access_reg = twin_access_reg;
}

/* Initialise SIDE at the frame of registers R (EXACT: its pc as is) of
 * K's space with the frame set (ASKED: see side_frame): 0 or libunwind's
 * code. */
static int side_on(remote_cursor *k, const ehelf_regs *r, bool exact,
		   unw_cursor_t *side, side_frame *f, bool *asked)
{
	if (!side_generic.init_remote || !k->rs->twin)
		return -UNW_EUNSPEC;
	*f = (side_frame){ k->rs, r, exact, asked };
	current = f;
	int rc = side_generic.init_remote(side, k->rs->twin, k->arg);
	if (rc < 0)
		current = NULL;
	return rc;
}

/* SIDE at K's frame. */
static int side_at(remote_cursor *k, unw_cursor_t *side, side_frame *f,
		   bool *asked)
{
	return side_on(k, &k->regs, k->exact, side, f, asked);
}

/* K's registers from SIDE's (those libunwind can give). */
static void take_regs(remote_cursor *k, unw_cursor_t *side)
{
	ehelf_regs r = { .valid = 0 };
	for (int i = 0; i < EHELF_NREGS; i++) {
		unw_word_t v;
		if (side_generic.get_reg(side, i, &v) == 0) {
			r.r[i] = v;
			r.valid |= 1u << i;
		}
	}
	k->regs = r;
}

int delegate_step(remote_cursor *k)
{
	return delegate_step_known(k, NULL);
}

int delegate_step_known(remote_cursor *k, bool *asked)
{
	unw_cursor_t side;
	side_frame f;
	if (asked)
		*asked = false;
	int rc = side_at(k, &side, &f, asked);
	if (rc < 0)
		return rc;
	rc = side_generic.step(&side);
	f.asked = NULL; /* take_regs asks for every register */
	if (rc >= 0) {
		bool signal = rc > 0 && side_generic.is_signal_frame(&side) > 0;
		take_regs(k, &side);
		k->signal = signal;
		k->exact = signal;
	}
	current = NULL;
	return rc;
}

/* FN at K's frame; K takes the side's registers after it when TAKE. */
static int delegate(remote_cursor *k, delegate_fn *fn, void *arg, bool take)
{
	unw_cursor_t side;
	side_frame f;
	int rc = side_at(k, &side, &f, NULL);
	if (rc < 0)
		return rc;
	rc = fn(&side, arg);
	if (rc >= 0 && take)
		take_regs(k, &side);
	current = NULL;
	return rc;
}

int delegate_query(remote_cursor *k, delegate_fn *fn, void *arg)
{
	return delegate(k, fn, arg, false);
}

int delegate_update(remote_cursor *k, delegate_fn *fn, void *arg)
{
	return delegate(k, fn, arg, true);
}

int delegate_replay(remote_cursor *k, delegate_fn *fn, void *arg)
{
	if (!k->replayable || !k->depth)
		return delegate_query(k, fn, arg);
	unw_cursor_t side;
	side_frame f;
	int rc = side_on(k, &k->frame0, true, &side, &f, NULL);
	if (rc < 0)
		return rc;
	for (unsigned i = 0; i < k->depth && rc >= 0; i++)
		if ((rc = side_generic.step(&side)) == 0)
			rc = -UNW_EBADFRAME; /* the side ended before: not the same walk */
	if (rc >= 0)
		rc = fn(&side, arg);
	current = NULL;
	return rc;
}
