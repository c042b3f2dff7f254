/* remote_cursor.c - see remote_cursor.h. */
#define _GNU_SOURCE
#include "remote_cursor.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../space.h"
#include "../unwind.h"
#include "remote_delegate.h"
#include "remote_side.h"

/* the registers a step always needs: read at unw_init_remote, the
 * others when something needs them (complete()) */
#define EAGER_REGS ((1u << EHELF_RIP) | (1u << EHELF_RSP) | (1u << EHELF_RBP))
/* those of REGS a lean step leaves as they were */
#define LEAN_STALE_REGS                                                         \
	((1u << EHELF_RBX) | (1u << EHELF_R12) | (1u << EHELF_R13) |           \
	 (1u << EHELF_R14) | (1u << EHELF_R15))

/* Read the registers of MASK through the caller's access_reg into R;
 * rip's or rsp's error code, else 0 (others that fail stay unknown). */
static int read_regs(remote_space *rs, void *arg, uint32_t mask, ehelf_regs *r)
{
	for (uint32_t m = mask; m; m &= m - 1) {
		int i = __builtin_ctz(m);
		unw_word_t v;
		int rc = rs->acc.access_reg((unw_addr_space_t)rs, i, &v, 0, arg);
		if (rc < 0 && (i == EHELF_RIP || i == EHELF_RSP))
			return rc; /* libunwind's init fails on those alone */
		if (rc >= 0) {
			r->r[i] = v;
			r->valid |= 1u << i;
		}
	}
	return 0;
}

int remote_init(unw_cursor_t *c, remote_space *rs, void *arg)
{
	remote_cursor *k = (remote_cursor *)c;
	memset(k, 0, sizeof *k);
	remote_space_pickup(rs);
	/* every register the caller's access_reg gives (rip, rsp and rbp
	 * now, the others on demand): those without a rule keep frame 0's
	 * value from frame to frame, as in libunwind */
	int rc = read_regs(rs, arg, EAGER_REGS, &k->regs);
	if (rc < 0)
		return rc;
	k->pending = EHELF_VALID_REGS & ~EAGER_REGS;
	k->magic = REMOTE_CURSOR_MAGIC;
	k->frame0 = k->regs;
	k->anchor = k->regs;
	k->replayable = true;
	k->exact = k->anchor_exact = true;
	k->first = k->anchor_first = true;
	k->rs = rs;
	k->arg = arg;
	return 0;
}

/* ehelf_read_fn over the space's access_mem */
typedef struct remote_mem {
	remote_space *rs;
	void *arg;
} remote_mem;

static int remote_read(void *arg, uint64_t addr, uint64_t *value)
{
	const remote_mem *m = arg;
	unw_word_t w;
	if (m->rs->acc.access_mem((unw_addr_space_t)m->rs, addr, &w, 0, m->arg) < 0)
		return -1;
	*value = w;
	return 0;
}

/* The module of K's frame with an eh_elf (learning it if needed), or
 * NULL: the side steps the frame. */
static const module *step_module(remote_cursor *k)
{
	uint64_t pc = k->regs.r[EHELF_RIP] - !k->exact;
	const module *m = space_find(k->rs->space, pc);
	if (!m && remote_space_learn_pc(k->rs, pc, k->arg))
		m = space_find(k->rs->space, pc);
	return m && module_object(m) ? m : NULL;
}

/* The complete step by K's module's eh_elf, from registers that are the
 * frame's (no lean step since): 1 (K the caller), 0 (the outermost
 * frame), or -1 when ehelf cannot step it (no module, no eh_elf, a pc its
 * eh_elf does not cover, a read that failed, a stack pointer that went
 * down, a caller at pc 0): the side then does, with libunwind's own
 * outcome. */
static int full_step(remote_cursor *k)
{
	remote_space *rs = k->rs;
	uint64_t pc = k->regs.r[EHELF_RIP] - !k->exact;
	const module *m = step_module(k);
	if (!m)
		return -1;
	remote_mem mem = { rs, k->arg };
	reader rd = { .local = false, .read = remote_read, .arg = &mem };
	ehelf_regs r = k->regs;
	uint32_t path = 0;
	unsigned flags = EHELF_UNWIND_NO_FALLBACK | (k->first ? UNWIND_FIRST_STEP : 0);
	int st = unwind_step(rs->space, &r, k->exact, &rd, flags, &path, NULL, NULL);
	if (st == EHELF_OUTERMOST) {
		/* the end, unless the caller's pc was read as 0 (below) */
		ehelf_regs out;
		if (ehelf_object_step(module_object(m), pc - m->bias, &k->regs, &out,
				      remote_read, &mem) != EHELF_STEP ||
		    !((out.valid >> EHELF_RIP) & 1) || out.r[EHELF_RIP] != 0)
			return 0;
		return -1;
	}
	if (st != EHELF_STEP || path != EHELF_PATH_EHELF)
		return -1;
	/* a caller at pc 0: what libunwind makes of it depends on how the
	 * 0 was read (perf's access_mem answers 0 with a positive return for
	 * memory it does not have, which libunwind takes for a frame at pc
	 * 0, perf's "ffffffffffffffff [unknown]"): the side decides */
	if (r.r[EHELF_RIP] == 0)
		return -1;
	k->signal = r.valid & EHELF_SIGNAL_FRAME;
	k->exact = k->signal;
	r.valid &= EHELF_VALID_REGS;
	k->regs = r;
	return 1;
}

/* K's registers set by anything but a lean step: its lean steps look
 * their entries up afresh. */
static void forget_trace(remote_cursor *k)
{
	k->trace = (step_trace){ NULL, false, 0, false };
}

/* K at its ANCHOR again, LEAN 0. */
static void set_anchor(remote_cursor *k)
{
	k->anchor = k->regs;
	k->anchor_exact = k->exact;
	k->anchor_first = k->first;
	k->lean = 0;
}

/* From registers FROM (EXACT, FIRST as there), N complete steps again,
 * each of which succeeded before, as lean or complete steps: 0, or -1 if
 * one did not now.  A frame whose complete step fails (a saved rbp that
 * cannot be read, which the lean step left unread; a frame lean_side_step
 * gave the side) is stepped by the side, as remote_step would have. */
static int redo(remote_cursor *k, const ehelf_regs *from, bool exact,
		bool first, unsigned n)
{
	k->regs = *from;
	k->rbp_at = false;
	k->exact = exact;
	k->first = first;
	k->signal = false;
	for (unsigned i = 0; i < n; i++) {
		int rc = full_step(k);
		if (rc < 0)
			rc = delegate_step(k);
		if (rc == 0 && i + 1 == n && k->ended)
			break; /* the end, as the side found it (lean_side_step) */
		if (rc <= 0)
			return -1;
		k->first = false;
	}
	return 0;
}

/* K's rbp read from the slot the lean steps left it in (RBP_AT): 0, or
 * the caller's access_mem's error code (as libunwind's unw_get_reg gives
 * for a saved register it cannot read). */
static int read_rbp(remote_cursor *k)
{
	unw_word_t w;
	int rc = k->rs->acc.access_mem((unw_addr_space_t)k->rs,
				       k->regs.r[EHELF_RBP], &w, 0, k->arg);
	if (rc < 0)
		return rc;
	k->regs.r[EHELF_RBP] = w;
	k->rbp_at = false;
	return 0;
}

/* Make K's registers all the frame's: the registers of frame 0 not read
 * yet read now and the walk stepped again from frame 0, or, after lean
 * steps, stepped again from the anchor, completely.  Reads and may learn
 * modules (as its steps did): not from a step's inside. */
static void complete(remote_cursor *k)
{
	if (!k->pending && !k->lean)
		return;
	bool signal = k->signal, first = k->first;
	int rc;
	if (k->pending) {
		read_regs(k->rs, k->arg, k->pending, &k->frame0);
		k->pending = 0;
		rc = redo(k, &k->frame0, true, true, k->depth);
	} else {
		rc = redo(k, &k->anchor, k->anchor_exact, k->anchor_first,
			  k->lean);
	}
	if (rc < 0) /* not the same walk (cannot happen): what is known */
		k->regs.valid &= ~LEAN_STALE_REGS;
	k->signal = signal;
	k->first = first;
	if (k->ended)
		k->regs.r[EHELF_RIP] = 0;
	set_anchor(k);
}

/* what lean_step() returns for a frame whose return address could not
 * be read or reads as 0 (unwind_step_lean's UNWIND_NO_RA) */
enum { LEAN_NO_RA = -2 };

/* The step by the step cache alone, lean (unwind_step_lean): 1 (K the
 * caller), 0 (the outermost frame), LEAN_NO_RA, or -1 (the complete step
 * must do it). */
static int lean_step(remote_cursor *k)
{
	remote_mem mem = { k->rs, k->arg };
	reader rd = { .local = false, .read = remote_read, .arg = &mem };
	if (k->trace_space != k->rs->space) { /* a flush since */
		forget_trace(k);
		k->trace_space = k->rs->space;
	}
	int st = unwind_step_lean(k->rs->space, &k->regs, k->exact, &rd,
				  &k->rbp_at, &k->trace);
	if (st == EHELF_OUTERMOST)
		return 0;
	if (st == UNWIND_NO_RA)
		return LEAN_NO_RA;
	if (st != EHELF_STEP)
		return -1;
	k->regs.valid &= EHELF_VALID_REGS;
	k->signal = false;
	k->exact = false;
	k->lean++;
	return 1;
}

/* steps by eh_elfs and by the side, for EHELF_VERBOSE's line at exit:
 * counted without a locked instruction (a load and a store, relaxed), so
 * walks in several threads at once may lose a few */
static atomic_ulong steps_ehelf, steps_side;

static void count_step(atomic_ulong *n)
{
	atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

__attribute__((destructor)) static void remote_report(void)
{
	const char *v = secure_getenv("EHELF_VERBOSE");
	unsigned long e = atomic_load(&steps_ehelf), d = atomic_load(&steps_side);
	if (v && *v && strcmp(v, "0") != 0 && e + d)
		fprintf(stderr, "libehelf-unwind: remote unwinding: %lu steps by "
			"eh_elfs, %lu by libunwind\n", e, d);
}

/*
 * After lean steps, the step of a frame that goes to the side (its
 * module has no eh_elf, or its return address could not be read or reads
 * as 0, past the end of a stack copy: what libunwind makes of it is the
 * side's to say), from the registers the lean steps know (rip, rsp, rbp),
 * those they do not know hidden from it, without the walk being stepped
 * again completely first.  When the side never asked for a hidden one,
 * its result is what it would be from the complete registers: true with
 * *RC the side's result, counted as a lean step when not an error (what
 * the side could not know, rbx and r12-r15 that the frame does not save,
 * complete() steps again from the anchor, that frame by the side again:
 * redo).  False (K as it was, rbp read) when it asked: the complete way.
 */
static bool lean_side_step(remote_cursor *k, int *rc)
{
	if (k->rbp_at && read_rbp(k) < 0)
		return false;
	ehelf_regs known = k->regs;
	bool signal = k->signal, exact = k->exact, asked;
	k->regs.valid &= ~(LEAN_STALE_REGS | k->pending);
	int st = delegate_step_known(k, &asked);
	if (asked || st < 0) { /* K's registers as they were */
		k->regs = known;
		k->signal = signal;
		k->exact = exact;
	}
	if (asked)
		return false;
	if (st >= 0)
		k->lean++;
	*rc = st;
	return true;
}

int remote_step(remote_cursor *k)
{
	int rc = lean_step(k);
	if (rc < 0 && k->lean && (rc == LEAN_NO_RA || !step_module(k)) &&
	    lean_side_step(k, &rc)) {
		forget_trace(k);
		count_step(&steps_side);
		k->first = false;
	} else if (rc < 0) {
		forget_trace(k);
		/* from the frame's own registers: after lean steps, the
		 * anchor's stepped again; those of frame 0 not read yet are
		 * read when the step cannot do without them */
		if (k->lean)
			complete(k);
		rc = full_step(k);
		if (rc < 0 && k->pending) {
			complete(k);
			rc = full_step(k);
		}
		if (rc < 0) {
			complete(k);
			rc = delegate_step(k);
			count_step(&steps_side);
		} else {
			count_step(&steps_ehelf);
		}
		k->first = false;
		if (rc > 0)
			set_anchor(k);
	} else {
		count_step(&steps_ehelf);
		k->first = false;
	}
	if (rc > 0)
		k->depth++;
	if (rc == 0) { /* as libunwind leaves it at the end */
		k->regs.r[EHELF_RIP] = 0;
		k->ended = true;
	}
	return rc;
}

int remote_get_reg(remote_cursor *k, int reg, unw_word_t *v)
{
	if (reg == UNW_X86_64_CFA) /* libunwind's cfa: the frame's rsp */
		reg = EHELF_RSP;
	if (reg < 0 || reg >= EHELF_NREGS)
		return -UNW_EBADREG;
	if (!((EAGER_REGS >> reg) & 1))
		complete(k);
	if (reg == EHELF_RBP && k->rbp_at) {
		int rc = read_rbp(k);
		if (rc < 0)
			return rc;
	}
	if (!((k->regs.valid >> reg) & 1))
		return -UNW_EBADREG;
	*v = k->regs.r[reg];
	return 0;
}

int remote_set_reg(remote_cursor *k, int reg, unw_word_t v)
{
	if (reg == UNW_X86_64_CFA || reg == EHELF_RSP)
		return -UNW_EREADONLYREG;
	if (reg < 0 || reg >= EHELF_NREGS)
		return -UNW_EBADREG;
	complete(k);
	forget_trace(k);
	k->regs.r[reg] = v;
	k->regs.valid |= 1u << reg;
	k->replayable = false;
	set_anchor(k);
	return 0;
}

/* ---- queries delegated to the side ------------------------------------- */

typedef struct reg_arg {
	int reg;
	void *out;
	unw_fpreg_t fp;
} reg_arg;

static int q_get_fpreg(unw_cursor_t *s, void *a)
{
	reg_arg *r = a;
	return side_generic.get_fpreg(s, r->reg, r->out);
}

static int q_set_fpreg(unw_cursor_t *s, void *a)
{
	reg_arg *r = a;
	return side_generic.set_fpreg(s, r->reg, r->fp);
}

static int q_save_loc(unw_cursor_t *s, void *a)
{
	reg_arg *r = a;
	return side_generic.get_save_loc(s, r->reg, r->out);
}

static int q_proc_info(unw_cursor_t *s, void *a)
{
	return side_generic.get_proc_info(s, a);
}

typedef struct name_arg {
	char *buf;
	size_t len;
	unw_word_t *off;
} name_arg;

static int q_proc_name(unw_cursor_t *s, void *a)
{
	name_arg *n = a;
	return side_generic.get_proc_name(s, n->buf, n->len, n->off);
}

typedef struct iterate_arg {
	unw_reg_states_callback cb;
	void *token;
} iterate_arg;

static int q_iterate(unw_cursor_t *s, void *a)
{
	iterate_arg *i = a;
	return side_generic.reg_states_iterate(s, i->cb, i->token);
}

static int q_apply(unw_cursor_t *s, void *a)
{
	return side_generic.apply_reg_state(s, a);
}

int remote_get_fpreg(remote_cursor *k, int reg, unw_fpreg_t *v)
{
	reg_arg a = { reg, v, 0 };
	complete(k);
	return delegate_replay(k, q_get_fpreg, &a);
}

int remote_set_fpreg(remote_cursor *k, int reg, unw_fpreg_t v)
{
	reg_arg a = { reg, NULL, v };
	complete(k);
	return delegate_replay(k, q_set_fpreg, &a);
}

int remote_get_save_loc(remote_cursor *k, int reg, unw_save_loc_t *loc)
{
	reg_arg a = { reg, loc, 0 };
	complete(k);
	return delegate_replay(k, q_save_loc, &a);
}

int remote_get_proc_info(remote_cursor *k, unw_proc_info_t *pi)
{
	complete(k);
	return delegate_query(k, q_proc_info, pi);
}

int remote_get_proc_name(remote_cursor *k, char *buf, size_t len,
			 unw_word_t *off)
{
	name_arg a = { buf, len, off };
	complete(k);
	int rc = delegate_query(k, q_proc_name, &a);
	/* the side was at pc - 1: libunwind's offset is from pc */
	if (rc == 0 && off && !k->exact)
		++*off;
	return rc;
}

int remote_reg_states_iterate(remote_cursor *k, unw_reg_states_callback cb,
			      void *token)
{
	iterate_arg a = { cb, token };
	complete(k);
	return delegate_query(k, q_iterate, &a);
}

int remote_apply_reg_state(remote_cursor *k, void *reg_states_data)
{
	complete(k);
	int rc = delegate_update(k, q_apply, reg_states_data);
	forget_trace(k);
	if (rc >= 0) {
		k->exact = false; /* a caller's frame, as after a step */
		k->first = false;
		k->replayable = false;
		set_anchor(k);
	}
	return rc;
}

int remote_resume(remote_cursor *k)
{
	if (!k->rs->acc.resume)
		return -UNW_EINVAL;
	complete(k);
	return k->rs->acc.resume((unw_addr_space_t)k->rs, (unw_cursor_t *)k,
				 k->arg);
}
