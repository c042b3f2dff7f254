/*
 * backtrace.c - unw_backtrace and backtrace() (its weak alias), entered in
 * getcontext_unw.S: the walk from their caller's frame with ehelf's
 * unwinder, the one ehelf_backtrace does.
 */
#include "../space.h"
#include "../unwind.h"
#include "cursor.h"

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
	/* the caller of unw_backtrace first, as libunwind does */
	walk_info walk = { false, EHELF_STEP };
	int n = backtrace_from(caller, buf, size, 0, &walk);
	/* ended at a pc in no module: a library loaded since the space was
	 * built (a Python extension module, say), which libunwind, looking
	 * modules up with dl_iterate_phdr, would find, or code registered
	 * with _U_dyn_register: the walk goes on with unw_step from that last
	 * frame, whose registers are in *CALLER (its pc a return address
	 * unless the frame before was a signal frame), which steps there with
	 * the side libunwind and again with eh_elfs once back in known code;
	 * nothing is rebuilt (that allocates) */
	if (n > 0 && walk.stop == EHELF_E_NOT_COVERED &&
	    in_no_module((uint64_t)(uintptr_t)buf[n - 1])) {
		unw_cursor_t c;
		compat_cursor *k = (compat_cursor *)&c;
		cursor_init_regs(k, caller, walk.signal_seen &&
				 (caller->valid & EHELF_SIGNAL_FRAME));
		while (n < size && _ULx86_64_step(&c) > 0)
			buf[n++] = (void *)(uintptr_t)k->regs.r[EHELF_RIP];
	}
	return n;
}
