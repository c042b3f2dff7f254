/*
 * cursor.h - libehelf-unwind's local cursor: what an unw_cursor_t holds
 * after _ULx86_64_init_local (127 opaque words in libunwind's header), and
 * the bridge to the side libunwind (side.h) for the calls answered there.
 *
 * The cursor's first 32-bit word is CURSOR_MAGIC: the generic names
 * (generic.c) dispatch a cursor with it to the _ULx86_64_* functions.
 */
#ifndef EHELF_LIBUNWIND_CURSOR_H
#define EHELF_LIBUNWIND_CURSOR_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdbool.h>
#include <stdint.h>

#include "../include/ehelf.h"
#include "../step_cache.h"

#include "exported.h"

enum { CURSOR_MAGIC = 0x65686c66 };

typedef struct compat_cursor {
	uint32_t magic;
	bool exact;      /* look the pc up as is (not pc - 1): after
			  * unw_init_local2(UNW_INIT_SIGNAL_FRAME) or
			  * unw_init_remote, and after a signal frame, as
			  * libunwind's use_prev_instr */
	bool signal;     /* unw_is_signal_frame's answer: whether the FDE looked
			  * up last for this cursor (by unw_step, for the
			  * frame it left, or by unw_get_proc_info, for this
			  * one) is a signal frame, as in libunwind */
	ehelf_regs regs;
	step_trace trace; /* the walk's place in the step cache's traces, */
	const step_cache_entry *trace_cache; /* in this cache (the space may
					      * be rebuilt between steps) */
	uint32_t lazy;   /* registers whose regs.r[] is where their value is
			  * (in the stack, above the frames being walked), as
			  * libunwind keeps locations: loaded when asked for */
	uint64_t sigctx; /* after a step out of a signal frame: the address
			  * of that frame's ucontext_t (unw_resume returns
			  * there through rt_sigreturn), else 0 */
	unw_context_t *uc; /* the context the cursor was made from (frame 0's
			    * registers are there: unw_get_save_loc) */
	uint32_t frame;  /* steps made since unw_init_* */
} compat_cursor;

_Static_assert(sizeof(compat_cursor) <= sizeof(unw_cursor_t),
	       "the cursor fits in libunwind's");

/* C as a compat_cursor, or NULL if it is not one. */
static inline compat_cursor *compat_of(unw_cursor_t *c)
{
	compat_cursor *k = (compat_cursor *)c;
	return k && k->magic == CURSOR_MAGIC ? k : NULL;
}

/* Load every register of K held as its location (see lazy). */
void cursor_load_all(compat_cursor *k);

/* The cursor made by unw_init_local(2) from UC (EXACT: pc as is). */
void cursor_init(compat_cursor *k, unw_context_t *uc, bool exact);

/* A cursor at the frame whose registers are *R. */
void cursor_init_regs(compat_cursor *k, const ehelf_regs *r, bool exact);

/*
 * A side-libunwind cursor SC for K's frame: its registers written into
 * *UC (owned by the caller, alive as long as SC is used), SC made with
 * the side's unw_init_local2 (UNW_INIT_SIGNAL_FRAME when K's pc is exact),
 * so that the side answers for the same frame.  0 or a negative UNW_E*.
 */
int cursor_side(compat_cursor *k, unw_cursor_t *sc, unw_context_t *uc);

/* K's registers from side cursor SC's (after the side moved it). */
void cursor_from_side(compat_cursor *k, unw_cursor_t *sc);

#endif
