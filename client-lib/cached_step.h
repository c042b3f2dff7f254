/*
 * cached_step.h - stepping a frame through its address space's step cache
 * (step_cache.h): the hot path of local and remote unwinding, inlined into
 * the unwinding loop (unwind.c) so that rip, rsp, rbp and valid stay in
 * machine registers from frame to frame.
 */
#ifndef EHELF_CLIENT_CACHED_STEP_H
#define EHELF_CLIENT_CACHED_STEP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "include/ehelf.h"
#include "local_read.h"
#include "reader.h"
#include "space.h"
#include "step_cache.h"

/*
 * Where a step may load directly: the addresses [lo, lo + span8] of the
 * 8-byte words it may read with a plain load, at address + delta.  For
 * local unwinding, the thread's known stack (delta 0); for a snapshot, its
 * copy of the stack (delta = copy - address).  Otherwise, or when too
 * short, a single harmless word of our own that no step computes.
 */
typedef struct window {
	uint64_t lo, span8, delta;
} window;

extern const uint64_t ehelf_no_window; /* unwind.c */

static inline window reader_window(const reader *rd)
{
	if (rd->local) {
		const local_range *k = rd->arg;
		if (k->hi >= k->lo + 8)
			return (window){ k->lo, k->hi - k->lo - 8, 0 };
	} else if (rd->snap && rd->snap->size >= 8) {
		return (window){ rd->snap->addr, rd->snap->size - 8,
				 (uint64_t)(uintptr_t)rd->snap->data - rd->snap->addr };
	}
	return (window){ (uint64_t)(uintptr_t)&ehelf_no_window, 0, 0 };
}

/* Load the registers of R that cached_step() (or the unwinding loop, for
 * a signal frame) left as addresses (LAZY's bits, never rip's nor rsp's);
 * *LAZY becomes 0. */
static inline void cached_step_load(ehelf_regs *r, uint32_t *lazy)
{
	for (uint32_t lz = *lazy; lz; lz &= lz - 1) {
		int i = __builtin_ctz(lz);
		memcpy(&r->r[i], (const void *)(uintptr_t)r->r[i], 8);
	}
	*lazy = 0;
}

/* The slots of a step cache entry's p: byte K for register REG (rbp, byte
 * 3, is handled apart: it is one of the loop's locals). */
#define CACHE_SLOTS(X)                                                          \
	X(2, EHELF_RBX) X(4, EHELF_R12) X(5, EHELF_R13) X(6, EHELF_R14)        \
	X(7, EHELF_R15)
#define RBP_SLOT(p) ((int8_t)(uint8_t)((p) >> 24))

enum { READ_DONE, READ_DECLINE, READ_LOST };

/* In a lazy set beside the registers' bits (cached_step_deferred()
 * only): rbp (*RBP) is not rbp's value but the address, in the space
 * unwound, of the slot that holds it, read through the reader when a CFA
 * needs it (or the caller does). */
#define CACHED_RBP_AT (1u << 31)

/*
 * cached_step()'s loads through the reader RD (a load outside the window):
 * the return address at CFA - 8 into *NRIP, rbp's slot (P's) into *NRBP,
 * and with TRACK the other saved registers into R (their bits set in
 * *VALID, cleared in *LAZY), everything read before anything is written,
 * since a read may fail.  READ_DONE; READ_LOST when the return address
 * cannot be read; READ_DECLINE when another load fails, or the frame is
 * not for the cache (a zero return address, a CFA not above RSP).  Apart
 * and not inlined: local walks never come here, and its buffer would
 * otherwise take 64 bytes of every walk's frame (cold stack lines when
 * sampling).
 */
static __attribute__((noinline, cold, unused)) int
cached_step_read(const reader *rd, uint64_t p, uint64_t cfa, uint64_t rsp,
		 ehelf_regs *r, uint32_t *valid, uint32_t *lazy, uint64_t *nrip,
		 uint64_t *nrbp, bool track)
{
	uint64_t got[8];
	if (rd->read(rd->arg, cfa - 8, &got[0]) != 0)
		return READ_LOST;
	if (got[0] == 0 || cfa <= rsp)
		return READ_DECLINE;
#define READ(K, REG)                                                            \
	{                                                                       \
		int8_t w_ = (int8_t)(uint8_t)(p >> (8 * (K)));                  \
		if ((uint8_t)w_ != STEP_CACHE_KEPT &&                           \
		    rd->read(rd->arg, cfa + (uint64_t)(int64_t)w_ * 8,          \
			     &got[K]) != 0)                                     \
			return READ_DECLINE;                                    \
	}
	if (track) {
		CACHE_SLOTS(READ)
	}
	READ(3, EHELF_RBP)
#undef READ
	uint32_t v = *valid, lz = *lazy;
#define COMMIT(K, REG)                                                          \
	if ((uint8_t)(p >> (8 * (K))) != STEP_CACHE_KEPT) {                     \
		r->r[REG] = got[K];                                             \
		v |= 1u << (REG);                                               \
		lz &= ~(1u << (REG));                                           \
	}
	if (track) {
		CACHE_SLOTS(COMMIT)
	}
#undef COMMIT
	*nrip = got[0];
	if ((uint8_t)RBP_SLOT(p) != STEP_CACHE_KEPT) {
		*nrbp = got[3];
		v |= 1u << EHELF_RBP;
		lz &= ~(1u << EHELF_RBP);
	}
	*valid = v;
	*lazy = lz;
	return READ_DONE;
}

/*
 * cached_step() (below, DEFER false; DEFER: cached_step_deferred()).
 * One step of the frame in *R through the step cache, in place: true, or
 * false (*R unchanged) when the frame's row is not cached or anything is
 * unusual (a register missing, a load that fails, the outermost frame, a
 * stack going down): unwind_step then does it the complete way and tells
 * why.  Every load lies within the entry's [lowest, highest] span, so two
 * checks tell whether they are all inside the window W (reader_window()),
 * and are read directly; otherwise they go through the reader (remote
 * unwinding) or the complete way (local: it grows the known range).
 *
 * The entry comes from the walk's trace line *T when it goes on with this
 * frame's pc, else from this pc's own trace line, else from the sets (and
 * is recorded into a trace line: step_cache.h).  Declining, it leaves in
 * *T the trace line entry for this frame (see step_trace), if any.
 *
 * Only rip, rsp, rbp and valid take part from frame to frame; the loop
 * keeps them in locals (machine registers), the other registers in R.
 * Those loaded directly are not loaded yet: r->r[REG] (*RBP for rbp) is
 * where the value is (a host address, inside the window), and bit REG of
 * *LAZY is set (only rbx, rbp and r12-r15): a walk that only wants the
 * pcs does not wait for (nor miss the cache on) stack lines that hold
 * nothing else; rbp is loaded for a CFA computed from it, the others by
 * cached_step_load() when needed (the caller stores *RBP into R first).
 *
 * With TRACK false (a constant: each caller gets its own copy), R is not
 * touched at all: rbx and r12-r15 are neither loaded nor located, and
 * *VALID gains no bit for them.  The step is the same (a cached row's CFA
 * comes from rsp or rbp, and its return address from the CFA); only the
 * registers the frame leaves for the next are not known, which a walk
 * that only wants pcs and stack pointers never asks for until a frame
 * needs the complete step (the unwinding loop then steps again from where
 * R was last known, tracking: unwind.c).
 */
static inline __attribute__((always_inline)) bool
cached_step_body(const ehelf_space *s, uint64_t *rip, uint64_t *rsp,
		 uint64_t *rbp, uint32_t *valid, ehelf_regs *r, bool exact,
		 window w, const reader *rd, step_trace *t, uint32_t *lazy,
		 bool track, bool defer)
{
	uint64_t want = *rip - !exact;
	uint64_t p, x;
	step_cache_entry *slot = t->slot;
	t->ra_lost = false;
	if (slot && !t->record && step_cache_match(slot, want, &p, &x)) {
		slot++; /* the trace goes on: no other line to wait for */
	} else {
		if (slot && !t->record && step_cache_marked(p, x, want))
			goto marker;
		/* recorded at the trace's next entry when a recording goes
		 * on, else into this pc's own trace line; unless, outside a
		 * recording, that line starts with this pc: it goes on from
		 * there */
		step_cache_entry *to = slot;
		if (!slot || !t->record) {
			step_cache_entry *own = step_trace_line(space_cache(s), want);
			if (step_cache_match(own, want, &p, &x)) {
				t->record = false;
				slot = own + 1;
				goto found;
			}
			if (step_cache_marked(p, x, want)) {
				slot = own;
				goto marker;
			}
			/* a trace left for another path: recorded from this
			 * pc's own line on, the trace left as it is (a
			 * recursion of varying depth would otherwise
			 * overwrite its own line at every walk) */
			to = own;
		}
		/* from the sets; the ways in order (way 0 holds the last pc
		 * filled) */
		const step_cache_entry *e = step_cache_set(space_cache(s), *rip);
		for (int k = 0;; k++) {
			if (step_cache_match(&e[k], want, &p, &x))
				break;
			if (k == STEP_CACHE_WAYS - 1) {
				/* the slow step records what it finds there */
				t->slot = to;
				t->record = true;
				t->marker = 0;
				return false;
			}
		}
		__atomic_store_n(&to->p, p, __ATOMIC_RELAXED);
		__atomic_store_n(&to->key, x ^ p * STEP_CACHE_MIX, __ATOMIC_RELAXED);
		t->record = true;
		slot = to + 1;
	}
	if (0) {
marker: /* the slow step takes it from the marker, without the sets */
		t->slot = slot;
		t->record = false;
		t->marker = p;
		return false;
	}
found:;
	step_cache_entry *next = step_trace_end(slot) ? NULL : slot;
	bool from_rbp = p & STEP_CACHE_CFA_RBP;
	if (from_rbp && !((*valid >> EHELF_RBP) & 1))
		goto decline;
	uint64_t base = *rsp, rbp_now = *rbp;
	uint32_t lz = *lazy;
	if (from_rbp) {
		base = rbp_now;
		if ((lz >> EHELF_RBP) & 1) { /* where it is, inside the window */
			memcpy(&base, (const void *)(uintptr_t)base, 8);
		} else if (defer && (lz & CACHED_RBP_AT)) {
			/* where it is in the space unwound: read now */
			if (rd->read(rd->arg, base, &base) != 0)
				goto decline;
			rbp_now = base;
			lz &= ~CACHED_RBP_AT;
		}
	}
	uint64_t cfa = base + (uint64_t)STEP_CACHE_CFA(p);
	uint32_t v = *valid | (1u << EHELF_RSP) | (1u << EHELF_RIP);
	uint64_t first = cfa + (uint64_t)STEP_CACHE_LOWEST(x);
	uint64_t last = cfa + (uint64_t)STEP_CACHE_HIGHEST(x);
	uint64_t nrip, nrbp = rbp_now;
	if (first - w.lo <= w.span8 && last - w.lo <= w.span8) {
		memcpy(&nrip, (const void *)(uintptr_t)(cfa - 8 + w.delta), 8);
		if (nrip == 0 || cfa <= *rsp)
			goto decline;
#define DIRECT(K, REG)                                                          \
		{                                                               \
			int8_t w_ = (int8_t)(uint8_t)(p >> (8 * (K)));          \
			if ((uint8_t)w_ != STEP_CACHE_KEPT) {                   \
				r->r[REG] = cfa + (uint64_t)(int64_t)w_ * 8 +   \
					    w.delta;                            \
				v |= 1u << (REG);                               \
				lz |= 1u << (REG);                              \
			}                                                       \
		}
		if (track) {
			CACHE_SLOTS(DIRECT)
		}
#undef DIRECT
		if ((uint8_t)RBP_SLOT(p) != STEP_CACHE_KEPT) {
			nrbp = cfa + (uint64_t)(int64_t)RBP_SLOT(p) * 8 + w.delta;
			v |= 1u << EHELF_RBP;
			lz = (lz | 1u << EHELF_RBP) & ~CACHED_RBP_AT;
		}
	} else if (defer) {
		/* the return address alone, rbp's slot located (CACHED_RBP_AT):
		 * no other load, inline (every remote lean step comes here) */
		if (rd->read(rd->arg, cfa - 8, &nrip) != 0)
			goto lost;
		if (cfa <= *rsp)
			goto decline;
		if (nrip == 0)
			goto lost;
		if ((uint8_t)RBP_SLOT(p) != STEP_CACHE_KEPT) {
			nrbp = cfa + (uint64_t)(int64_t)RBP_SLOT(p) * 8;
			v |= 1u << EHELF_RBP;
			lz = (lz & ~(1u << EHELF_RBP)) | CACHED_RBP_AT;
		}
	} else if (!rd->local) {
		switch (cached_step_read(rd, p, cfa, *rsp, r, &v, &lz, &nrip,
					 &nrbp, track)) {
		case READ_LOST:
			goto lost;
		case READ_DECLINE:
			goto decline;
		}
	} else {
		goto decline;
	}
	*rip = nrip;
	*rsp = cfa;
	*rbp = nrbp;
	*valid = v;
	*lazy = lz;
	t->slot = next;
	return true;
lost: /* the return address cannot be read (DEFER: or reads as 0) */
	t->slot = NULL;
	t->marker = 0;
	t->ra_lost = true;
	return false;
decline: /* the frame's row is known, the step is not for the cache */
	t->slot = NULL;
	t->marker = 0;
	return false;
}

static inline __attribute__((always_inline)) bool
cached_step(const ehelf_space *s, uint64_t *rip, uint64_t *rsp, uint64_t *rbp,
	    uint32_t *valid, ehelf_regs *r, bool exact, window w,
	    const reader *rd, step_trace *t, uint32_t *lazy, bool track)
{
	return cached_step_body(s, rip, rsp, rbp, valid, r, exact, w, rd, t,
				lazy, track, false);
}

/*
 * cached_step() lean (TRACK false) for a reader that is not local, with
 * rbp deferred: a frame's rbp slot is not read, its address is kept in
 * *RBP (CACHED_RBP_AT set in *LAZY), and read through RD only when a
 * CFA is computed from rbp (a step that then declines leaves *RBP and
 * *LAZY as they were).  A walk that never needs rbp makes one read per
 * frame, the return address.  T->ra_lost is set also for a return
 * address that reads as 0 (the end of a stack copy, as perf answers).
 */
static inline __attribute__((always_inline)) bool
cached_step_deferred(const ehelf_space *s, uint64_t *rip, uint64_t *rsp,
		     uint64_t *rbp, uint32_t *valid, ehelf_regs *r, bool exact,
		     window w, const reader *rd, step_trace *t, uint32_t *lazy)
{
	return cached_step_body(s, rip, rsp, rbp, valid, r, exact, w, rd, t,
				lazy, false, true);
}

#endif
