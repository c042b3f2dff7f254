/*
 * backtrace.c - unw_backtrace and backtrace() (its weak alias), entered in
 * getcontext_unw.S: the walk from their caller's frame with ehelf's
 * unwinder, the one ehelf_backtrace does.
 */
#include "../space.h"
#include "../unwind.h"

/* Whether return address RA lies in no module of the process space. */
static bool in_no_module(uint64_t ra)
{
	const ehelf_space *s = process_space_pin();
	bool none = s && !space_find(s, ra - 1);
	process_space_unpin();
	return none;
}

/* unw_backtrace is entered in getcontext_unw.S, which stores its caller's
 * registers (see backtrace_from) and calls this */
int compat_backtrace_from(void **buf, int size, ehelf_regs *caller);
int compat_backtrace_from(void **buf, int size, ehelf_regs *caller)
{
	/* the caller of unw_backtrace first, as libunwind does; modules
	 * without an eh_elf through libdw */
	walk_info walk = { false, EHELF_STEP };
	int n = backtrace_from(caller, buf, size, 0, &walk);
	/* ended at a pc in no module: perhaps in a library loaded since (a
	 * Python extension module, say), which libunwind, looking modules
	 * up with dl_iterate_phdr, would find: look again, as unw_step does;
	 * not past a signal frame, where this is probably a signal handler
	 * (a rebuild allocates, reads and maps eh_elfs).  The walk goes on
	 * from that last frame, whose registers are in *CALLER (its pc a
	 * return address: no signal frame was crossed), as a walk from the
	 * start would have gone with the new space */
	if (n > 0 && walk.stop == EHELF_E_NOT_COVERED && !walk.signal_seen &&
	    in_no_module((uint64_t)(uintptr_t)buf[n - 1]) && process_space_refresh())
		n = n - 1 + backtrace_from(caller, buf + n - 1, size - (n - 1), 0,
					   NULL);
	return n;
}
