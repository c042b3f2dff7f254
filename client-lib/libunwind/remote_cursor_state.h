/*
 * remote_cursor_state.h - what a remote cursor holds (an unw_cursor_t
 * of libehelf-unwind's remote spaces): shared by the cursor's calls
 * (remote_cursor.h) and the side libunwind's steps and queries on it
 * (remote_delegate.h).
 */
#ifndef EHELF_LIBUNWIND_REMOTE_CURSOR_STATE_H
#define EHELF_LIBUNWIND_REMOTE_CURSOR_STATE_H

#include <libunwind.h>
#include <stdbool.h>
#include <stdint.h>

#include "../include/ehelf.h"
#include "../step_cache.h"
#include "remote_space.h"

enum { REMOTE_CURSOR_MAGIC = 0x6568726d /* "ehrm" */ };

typedef struct remote_cursor {
	uint32_t magic;
	bool exact;      /* the pc is looked up as is (frame 0, after a
			  * signal frame), not at pc - 1 */
	bool signal;     /* unw_is_signal_frame: the frame stepped from last
			  * was a signal frame */
	bool first;      /* no step yet */
	remote_space *rs;
	void *arg;       /* the caller's, for its accessors */
	bool replayable; /* the frame is DEPTH steps from FRAME0 (no register
			  * set, no register state applied since) */
	bool ended;      /* the last step returned 0 */
	bool anchor_exact, anchor_first; /* EXACT, FIRST at ANCHOR's frame */
	unsigned depth;
	uint32_t pending; /* registers of frame 0 not read yet through the
			   * caller's access_reg (all but rip, rsp and rbp
			   * until something needs them); only while every
			   * step so far was ehelf's */
	unsigned lean;   /* steps since ANCHOR's frame by the step cache
			  * alone (unwind_step_lean): rbx and r12-r15 of REGS
			  * are not the frame's then */
	bool rbp_at;     /* after lean steps: REGS' rbp is the address in the
			  * space unwound of the slot that holds the frame's
			  * rbp, not read yet (unwind_step_lean's *RBP_AT) */
	step_trace trace; /* the walk's place in the step cache's trace lines
			   * (step_cache.h) from lean step to lean step, zero
			   * after anything else; in TRACE_SPACE's cache */
	const void *trace_space;
	ehelf_regs regs; /* the frame's registers (valid: which are known;
			  * rip and rsp always the frame's, rbp too
			  * unless RBP_AT) */
	ehelf_regs frame0; /* frame 0's */
	ehelf_regs anchor; /* those of the frame LEAN steps below */
} remote_cursor;

_Static_assert(sizeof(remote_cursor) <= sizeof(unw_cursor_t),
	       "the remote cursor fits in libunwind's");

/* C as a remote cursor, or NULL. */
static inline remote_cursor *remote_cursor_of(unw_cursor_t *c)
{
	remote_cursor *k = (remote_cursor *)c;
	return k->magic == REMOTE_CURSOR_MAGIC ? k : NULL;
}

#endif
