/*
 * remote_delegate.h - the side libunwind (remote_side.h) on a remote
 * cursor's state: a side cursor made at the cursor's frame, on the twin
 * space of its remote space, whose access_reg answers the frame's
 * registers.  A frame whose pc is a return address is given the side at
 * pc - 1 as an exact pc: libunwind looks up a caller's frame at pc - 1
 * (its use_prev_instr) and runs its CFI to the row of pc - 1, which is
 * what an exact pc - 1 gives; unw_get_proc_name's offset is then one
 * more, as libunwind reports it from pc.
 */
#ifndef EHELF_LIBUNWIND_REMOTE_DELEGATE_H
#define EHELF_LIBUNWIND_REMOTE_DELEGATE_H

#include <libunwind.h>

#include "remote_cursor_state.h"

/* The accessors of RS's twin: the caller's, but access_reg. */
void remote_twin_accessors(const remote_space *rs, unw_accessors_t *out);

/* The remote space being worked for by the side in this thread (a side
 * call through delegate_*), when AS is its twin; else NULL. */
remote_space *remote_delegating_for(unw_addr_space_t as);

/* One step of K by the side: libunwind's return (1, 0 at the end, or a
 * negative code); on 1, K holds the caller's registers as libunwind has
 * them, and whether the frame left was a signal frame. */
int delegate_step(remote_cursor *k);

/* delegate_step, telling in *ASKED whether the side asked for one of K's
 * registers that are not valid while it initialised and stepped (its
 * result then depends on what K does not know); K is as delegate_step
 * leaves it either way. */
int delegate_step_known(remote_cursor *k, bool *asked);

/* A query of the side at K's frame: FN(side cursor, ARG) with the side
 * cursor initialised there (or the side's error). */
typedef int delegate_fn(unw_cursor_t *side, void *arg);
int delegate_query(remote_cursor *k, delegate_fn *fn, void *arg);

/* Like delegate_query, but the side cursor walks to K's frame from
 * frame 0 (K's depth in steps), when K is replayable, so that what
 * depends on the walk (save locations) is libunwind's; else as
 * delegate_query. */
int delegate_replay(remote_cursor *k, delegate_fn *fn, void *arg);

/* Like delegate_query, then K takes the side cursor's registers (after
 * unw_apply_reg_state: the caller's). */
int delegate_update(remote_cursor *k, delegate_fn *fn, void *arg);

#endif
