/*
 * cursor.c - the local cursor (cursor.h): unw_init_local(2),
 * unw_init_remote on the local space, unw_step, the registers
 * (get/set_reg, get/set_fpreg, get_save_loc), unw_is_signal_frame.
 * The step is ehelf's: an eh_elf, or the fallback for modules without one.
 */
#define _GNU_SOURCE
#include "cursor.h"

#include <string.h>
#include <ucontext.h>

#include "../cached_step.h"
#include "../space.h"
#include "../unwind.h"
#include "addr_space.h"
#include "side_api.h"

/*
 * The process space, built when the library is loaded (before main, or
 * inside dlopen; never in a signal handler) rather than by the first
 * unwind: a profiler's first unwind is in its signal handler, where a
 * build (which allocates, walks the loader's list and maps eh_elfs) could
 * wait for ever on a lock the interrupted code holds, or corrupt the heap,
 * while libunwind, which allocates nothing there, would have unwound.
 */
__attribute__((constructor)) static void compat_space_init(void)
{
	if (!process_space_built())
		ehelf_backtrace_init();
}

void cursor_load_all(compat_cursor *k)
{
	cached_step_load(&k->regs, &k->lazy);
}

void cursor_init(compat_cursor *k, unw_context_t *uc, bool exact)
{
	memset(k, 0, sizeof *k);
	k->magic = CURSOR_MAGIC;
	k->exact = exact;
	k->uc = uc;
	ehelf_regs_from_ucontext(&k->regs, uc);
}

void cursor_init_regs(compat_cursor *k, const ehelf_regs *r, bool exact)
{
	memset(k, 0, sizeof *k);
	k->magic = CURSOR_MAGIC;
	k->exact = exact;
	k->regs = *r;
	k->regs.valid &= EHELF_VALID_REGS;
}

static int init_checked(unw_cursor_t *c, unw_context_t *uc, bool exact)
{
	cursor_init((compat_cursor *)c, uc, exact);
	const ehelf_space *s = process_space_pin();
	process_space_unpin();
	return s ? 0 : -UNW_ENOMEM;
}

/* as libunwind: frame 0's pc is a return address (unw_getcontext's),
 * looked up as pc - 1, unless UNW_INIT_SIGNAL_FRAME says it is exact */
COMPAT int _ULx86_64_init_local(unw_cursor_t *c, unw_context_t *uc)
{
	return init_checked(c, uc, false);
}

COMPAT int _ULx86_64_init_local2(unw_cursor_t *c, unw_context_t *uc, int flag)
{
	if (flag != 0 && flag != UNW_INIT_SIGNAL_FRAME)
		return -UNW_EINVAL;
	return init_checked(c, uc, flag == UNW_INIT_SIGNAL_FRAME);
}

/* the local space only (ARG a ucontext, its pc exact, as libunwind's
 * unw_init_remote); other spaces are the remote API's */
COMPAT int _ULx86_64_init_remote(unw_cursor_t *c, unw_addr_space_t as, void *arg)
{
	if (!addr_space_is_local(as) || !arg)
		return -UNW_EINVAL;
	return init_checked(c, arg, true);
}

/* The caller's registers of K's frame into OUT; EHELF_STEP or a code. */
static int peek(const compat_cursor *k, ehelf_regs *out)
{
	const ehelf_space *s = process_space_pin();
	int st = EHELF_E_NOT_COVERED;
	if (s) {
		reader rd = local_reader(k->regs.r[EHELF_RSP]);
		uint32_t path, lazy = k->lazy;
		*out = k->regs;
		cached_step_load(out, &lazy);
		st = unwind_step(s, out, k->exact, &rd, 0, &path, NULL, NULL);
	}
	process_space_unpin();
	return st;
}

/* One step of K by the side libunwind, for a pc in no module of the
 * process space: a library loaded since the space was built, code
 * registered with _U_dyn_register, or no code at all (a call through a
 * bad pointer: libunwind takes the return address at rsp).  libunwind
 * finds modules with dl_iterate_phdr and allocates nothing: the space is
 * not rebuilt inside a step (unw_flush_cache rebuilds it). */
static int side_step(compat_cursor *k)
{
	unw_cursor_t sc;
	unw_context_t uc;
	uint64_t sp = k->regs.r[EHELF_RSP];
	int rc = side_api.step ? cursor_side(k, &sc, &uc) : -UNW_EUNSPEC;
	if (rc < 0)
		return rc;
	rc = side_api.step(&sc);
	if (rc > 0) {
		cursor_from_side(k, &sc);
		k->sigctx = k->signal ? sp : 0;
		k->frame++;
	}
	return rc;
}

COMPAT int _ULx86_64_step(unw_cursor_t *c)
{
	compat_cursor *k = compat_of(c);
	if (!k)
		return SIDE_CURSOR_CALL(step, c);
	int st = EHELF_E_NOT_COVERED;
	bool unknown = false;
	uint64_t sp = k->regs.r[EHELF_RSP];
	const ehelf_space *s = process_space_pin();
	if (s) {
		reader rd = local_reader(k->regs.r[EHELF_RSP]);
		uint32_t path;
		if (k->trace_cache != space_cache(s)) { /* another space */
			k->trace = (step_trace){ NULL, false, 0 };
			k->trace_cache = space_cache(s);
		}
		st = unwind_step(s, &k->regs, k->exact, &rd, 0, &path,
				 &k->trace, &k->lazy);
		unknown = st == EHELF_E_NOT_COVERED &&
			  !space_find(s, k->regs.r[EHELF_RIP] - !k->exact);
	}
	process_space_unpin();
	if (unknown)
		return side_step(k);
	if (st == EHELF_OUTERMOST || st == EHELF_E_NOT_COVERED)
		return 0;        /* no caller: the end of the chain */
	if (st != EHELF_STEP)
		return -UNW_EBADFRAME;
	k->signal = k->regs.valid & EHELF_SIGNAL_FRAME;
	k->exact = k->signal;
	/* a signal frame's rsp is its ucontext_t (the handler returned to
	 * the restorer's code, popping it: rt_sigframe) */
	k->sigctx = k->signal ? sp : 0;
	k->regs.valid &= EHELF_VALID_REGS;
	k->frame++;
	return 1;
}

COMPAT int _ULx86_64_get_reg(unw_cursor_t *c, unw_regnum_t reg, unw_word_t *v)
{
	compat_cursor *k = compat_of(c);
	if (!k)
		return SIDE_CURSOR_CALL(get_reg, c, reg, v);
	if (reg >= 0 && reg < EHELF_NREGS) { /* libunwind uses DWARF order */
		if (!((k->regs.valid >> reg) & 1))
			return -UNW_EBADREG;
		if ((k->lazy >> reg) & 1) {
			memcpy(&k->regs.r[reg],
			       (const void *)(uintptr_t)k->regs.r[reg], 8);
			k->lazy &= ~(1u << reg);
		}
		*v = k->regs.r[reg];
		return 0;
	}
	if (reg == UNW_X86_64_CFA) { /* the caller's stack pointer */
		ehelf_regs out;
		if (peek(k, &out) != EHELF_STEP)
			return -UNW_ENOINFO;
		*v = out.r[EHELF_RSP];
		return 0;
	}
	return -UNW_EBADREG;
}

COMPAT int _ULx86_64_set_reg(unw_cursor_t *c, unw_regnum_t reg, unw_word_t v)
{
	compat_cursor *k = compat_of(c);
	if (!k)
		return SIDE_CURSOR_CALL(set_reg, c, reg, v);
	if (reg < 0 || reg >= EHELF_NREGS)
		return -UNW_EBADREG;
	k->regs.r[reg] = v;
	k->regs.valid |= 1u << reg;
	k->lazy &= ~(1u << reg);
	return 0;
}

/* x86_64 libunwind has no floating-point registers in its numbering
 * (unw_is_fpreg is 0 for all): its tdep_access_fpreg refuses them all */
COMPAT int _ULx86_64_get_fpreg(unw_cursor_t *c, unw_regnum_t reg, unw_fpreg_t *v)
{
	return compat_of(c) ? -UNW_EINVAL : SIDE_CURSOR_CALL(get_fpreg, c, reg, v);
}

COMPAT int _ULx86_64_set_fpreg(unw_cursor_t *c, unw_regnum_t reg, unw_fpreg_t v)
{
	return compat_of(c) ? -UNW_EINVAL : SIDE_CURSOR_CALL(set_fpreg, c, reg, v);
}

/* greg index (<sys/ucontext.h>) of each DWARF register */
static const int greg_of[EHELF_NREGS] = {
	REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
	REG_RIP,
};

/* Where a register's value is, as libunwind says: frame 0's in the
 * context the cursor was made from; later, the stack slot a register was
 * restored from when the cursor still holds it as a location, and a
 * caller's pc in its return-address slot below the stack pointer;
 * anything else computed (UNW_SLT_NONE). */
COMPAT int _ULx86_64_get_save_loc(unw_cursor_t *c, int reg, unw_save_loc_t *sl)
{
	compat_cursor *k = compat_of(c);
	if (!k)
		return SIDE_CURSOR_CALL(get_save_loc, c, reg, sl);
	memset(sl, 0, sizeof *sl);
	if (reg < 0 || reg >= EHELF_NREGS) {
		sl->type = UNW_SLT_NONE;
		return 0;
	}
	if (k->frame == 0 && k->uc && reg != EHELF_RSP) {
		ucontext_t *uc = (ucontext_t *)k->uc;
		sl->type = UNW_SLT_MEMORY;
		sl->u.addr = (unw_word_t)(uintptr_t)&uc->uc_mcontext.gregs[greg_of[reg]];
	} else if ((k->lazy >> reg) & 1) {
		sl->type = UNW_SLT_MEMORY;
		sl->u.addr = k->regs.r[reg];
	} else if (k->frame > 0 && reg == EHELF_RIP && !k->signal) {
		sl->type = UNW_SLT_MEMORY;
		sl->u.addr = k->regs.r[EHELF_RSP] - 8;
	} else {
		sl->type = UNW_SLT_NONE;
	}
	return 0;
}

COMPAT int _ULx86_64_is_signal_frame(unw_cursor_t *c)
{
	compat_cursor *k = compat_of(c);
	return k ? k->signal : SIDE_CURSOR_CALL(is_signal_frame, c);
}

int cursor_side(compat_cursor *k, unw_cursor_t *sc, unw_context_t *uc)
{
	if (!side_api.init_local2)
		return -UNW_EUNSPEC;
	cursor_load_all(k);
	memset(uc, 0, sizeof *uc);
	ucontext_t *u = (ucontext_t *)uc;
	for (int i = 0; i < EHELF_NREGS; i++)
		u->uc_mcontext.gregs[greg_of[i]] = (greg_t)k->regs.r[i];
	/* libunwind's context points at its own floating-point state */
	u->uc_mcontext.fpregs = &u->__fpregs_mem;
	return side_api.init_local2(sc, uc, k->exact ? UNW_INIT_SIGNAL_FRAME : 0);
}

void cursor_from_side(compat_cursor *k, unw_cursor_t *sc)
{
	for (int i = 0; i < EHELF_NREGS; i++) {
		unw_word_t v;
		if (side_api.get_reg(sc, i, &v) == 0) {
			k->regs.r[i] = v;
			k->regs.valid |= 1u << i;
		} else {
			k->regs.valid &= ~(1u << i);
		}
	}
	k->lazy = 0;
	k->signal = side_api.is_signal_frame(sc) > 0;
	k->exact = k->signal;
	k->trace = (step_trace){ NULL, false, 0 };
}
