/*
 * unwind.h - libehelf's unwinder, inside (unwind.c; the public calls are
 * in include/ehelf.h): how memory is read during an unwind (a thread's
 * own stack, a snapshot of another's; the types: reader.h), one step from
 * a frame, the walk behind ehelf_backtrace, and the process-wide address
 * space it unwinds in.  The spaces and modules themselves: space.h.
 */
#ifndef EHELF_CLIENT_UNWIND_H
#define EHELF_CLIENT_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "include/ehelf.h"
#include "reader.h"
#include "space.h"

/* ehelf_read_fn over a snapshot: inside it from the copy, else through
 * its read function. */
int snapshot_read(void *arg, uint64_t addr, uint64_t *value);

/* A reader for this process, anchored at stack pointer SP. */
reader local_reader(uint64_t sp);

/* One step from the frame in *R (EXACT: look its pc up as is, not pc - 1),
 * in place.  Returns EHELF_STEP with *R the caller's registers (with
 * EHELF_SIGNAL_FRAME in valid after a signal frame) and *PATH filled,
 * EHELF_OUTERMOST, or a negative code (EHELF_E_BADREG also for a stack
 * pointer that did not move up); *R is unchanged unless EHELF_STEP.
 * TRACE (may be NULL): the walk's place in the step cache's trace lines
 * (step_cache.h), kept from step to step of one walk.  LAZY (may be NULL:
 * none): the registers of *R held as the address of their value (local
 * unwinding: see cached_step()), in and out; all of them are loaded
 * (*LAZY 0) unless the step is EHELF_STEP. */
int unwind_step(const ehelf_space *s, ehelf_regs *r, bool exact,
		const reader *rd, unsigned flags, uint32_t *path,
		step_trace *trace, uint32_t *lazy);

/* One step of the frame in *R from the step cache alone, lean (cached_step's
 * TRACK false): EHELF_STEP with rip, rsp, rbp and valid of *R the caller's
 * and rbx and r12-r15 left as they were (not the caller's: a caller that
 * needs them steps again from registers it knows, with unwind_step);
 * EHELF_OUTERMOST when the cache marks the frame's row as the outermost
 * (no register needed); else UNWIND_DECLINED, *R unchanged: unwind_step
 * must do the step, from the frame's complete registers.  For readers
 * that are not local (remote spaces).  *RBP_AT, in and out: whether
 * r->r[EHELF_RBP] is not rbp's value but the address in the space unwound
 * of the slot that holds it (cached_step_deferred: a frame's saved rbp is
 * read only for a CFA computed from it; the caller reads it through RD's
 * space for anything else).  *TRACE: the walk's place in the step cache's
 * trace lines, zero at a walk's first lean step and after a step that
 * was not EHELF_STEP, kept from one lean step to the next (a walk along
 * a recorded line then finds each frame's entry beside the last).
 * UNWIND_NO_RA instead of UNWIND_DECLINED when the frame's row is cached
 * but its return address could not be read or reads as 0 (*R unchanged):
 * what comes next depends on how the caller's reader failed. */
enum { UNWIND_DECLINED = 2, /* beside EHELF_STEP (0), EHELF_OUTERMOST (1) */
       UNWIND_NO_RA = 3 };
int unwind_step_lean(const ehelf_space *s, ehelf_regs *r, bool exact,
		     const reader *rd, bool *rbp_at, step_trace *trace);

/* Internal unwinding flag, beside the public EHELF_UNWIND_* (cleared
 * from callers' flags): the step from the first frame of a remote or
 * snapshot unwind, whose caller may have the same stack pointer. */
#define UNWIND_FIRST_STEP 0x80000000u

/* How a walk went: whether it crossed a signal frame, and why it stopped
 * (EHELF_STEP when it filled the buffer or met its limit, else the last
 * step's status; set by the unwinding loop, zeroed by the caller). */
typedef struct walk_info {
	bool signal_seen;
	int stop;
} walk_info;

/* ehelf_backtrace with unwinding FLAGS from CALLER, the registers of a
 * frame whose pc is a return address (as the assembly entries of
 * ehelf_backtrace and unw_backtrace store them): its pc first into IPS;
 * WALK (may be NULL) says how the walk went.  The walk works in *CALLER
 * (never NULL, as the compiler is told: the walk then never needs a copy
 * of its own, three stack lines of its frame when sampling, whatever
 * the order of the statements before it):
 * when it stopped on a complete step that failed (WALK's stop
 * EHELF_E_NOT_COVERED, say), *CALLER holds the registers of the last
 * frame, whose pc is the last in IPS; after any other stop (the outermost
 * frame, the frame limit, a return address that could not be read) its
 * contents are unspecified: a lean walk (unwind.c) leaves there the
 * registers of an earlier frame. */
int backtrace_from(ehelf_regs *caller, void **ips, int max, unsigned flags,
		   walk_info *walk) __attribute__((nonnull(1)));

/* The process-wide space of ehelf_backtrace and the libunwind API, built
 * on first use, pinned while in use: every process_space_pin() (NULL if it
 * could not be built) needs its process_space_unpin().  Async-signal-safe
 * once built. */
const ehelf_space *process_space_pin(void);
void process_space_unpin(void);

/* Whether the process-wide space has been built (by a first unwind or
 * ehelf_backtrace_init). */
bool process_space_built(void);

/* eh_elfs have been fetched into the cache: rebuild the process-wide
 * space if it is built, and make a build under way now build again, so
 * that unwinds from then on find them.  Takes the dynamic loader's lock,
 * and a rebuild allocates and dlopens: not async-signal-safe. */
void process_space_pickup(void);

#endif
