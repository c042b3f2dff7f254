/*
 * step_cache.h - the step cache of an address space: for the pcs met
 * while unwinding, the eh_elf's row summary (ehelf_describe), pre-decoded
 * so that a frame is stepped with one cache-line load, two additions and
 * the stack loads, without finding the module or calling the eh_elf.
 *
 * Four-way set-associative, a set being one 64-byte line of four 16-byte
 * entries: a hash of the frame's rip picks the set; entries are keyed by
 * the pc the row was looked up at (rip, or rip - 1 for a return address).
 * A fill puts its pc in way 0 and moves the others one way down, dropping
 * way 3 or the way that held the same pc: a set keeps the last four pcs
 * filled, never one pc twice.
 *
 * Threads unwinding with the same space share it without locks: an
 * entry's two words are each stored and loaded atomically, and the key is
 * stored xor-ed with a multiple of the payload (step_cache_x()), so that a
 * torn entry (two threads filling it at once, or a fill moving entries
 * while a reader looks) fails the key check instead of giving a wrong
 * step: it passes only if its two payloads' multiples agree in 48 bits.
 * The space clears the cache when a module added meets another's range
 * (only pcs inside its modules are cached: one meeting none changes none).
 *
 * Only rows whose return address is saved at CFA - 8 (every x86-64 row an
 * eh_elf summarizes in practice) and pcs below 2^48 are cached; others
 * always take the slow path.
 */
#ifndef EHELF_CLIENT_STEP_CACHE_H
#define EHELF_CLIENT_STEP_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * 8192 sets of 4 entries: 512 KiB of address space that costs only what
 * is touched (space.c maps it).  Sized for large programs: a cc1plus
 * profile of 104k frames over some 9,700 distinct pcs, unwound again,
 * missed on 4.6% of its frames with 16,384 direct-mapped 32-byte entries,
 * 3.0% with 8,192 two-way sets of them, 0.27% with these (counted by
 * replaying its lookups).
 */
enum { STEP_CACHE_SET_BITS = 13, STEP_CACHE_WAYS = 4,
       STEP_CACHE_SETS = 1 << STEP_CACHE_SET_BITS,
       STEP_CACHE_SIZE = STEP_CACHE_SETS * STEP_CACHE_WAYS };

typedef struct step_cache_entry {
	/* X ^ p * STEP_CACHE_MIX, X = (pc << 16) | (uint8_t)lowest |
	 * (uint8_t)highest << 8, where
	 * lowest and highest are the lowest and highest address loaded, in
	 * 8-byte words from the CFA (int8): one check of each tells whether
	 * every load lies inside the known stack */
	uint64_t key;
	/* bits 0..15: the CFA's offset from its base register (rsp, or rbp
	 * with STEP_CACHE_CFA_RBP), an int16 multiple of 8 whose low bits
	 * hold STEP_CACHE_SET and STEP_CACHE_CFA_RBP; bytes 2..7: where rbx,
	 * rbp, r12, r13, r14, r15 are saved, CFA + 8 * (int8_t)byte, or
	 * STEP_CACHE_KEPT.  0 in an empty entry. */
	uint64_t p;
} step_cache_entry;

#define STEP_CACHE_SET 1u
#define STEP_CACHE_CFA_RBP 2u
#define STEP_CACHE_KEPT 0x80u

#define STEP_CACHE_MIX 0x9e3779b97f4a7c15ull /* odd: p -> p * MIX is 1:1 */

/* X (see key above) of the entry whose words are KEY and P. */
static inline uint64_t step_cache_x(uint64_t key, uint64_t p)
{
	return key ^ p * STEP_CACHE_MIX;
}

/* The fields of an entry, from P and X. */
#define STEP_CACHE_CFA(p) ((int64_t)(int16_t)(uint16_t)((p) & 0xfff8u))
#define STEP_CACHE_PC(x) ((x) >> 16)
#define STEP_CACHE_LOWEST(x) ((int64_t)(int8_t)(uint8_t)(x) * 8)
#define STEP_CACHE_HIGHEST(x) ((int64_t)(int8_t)(uint8_t)((x) >> 8) * 8)

/* The set (STEP_CACHE_WAYS entries) for a frame whose rip is RIP. */
static inline step_cache_entry *step_cache_set(step_cache_entry *cache,
					       uint64_t rip)
{
	/* a cheap hash: the low bits of the return address, mixed with the
	 * next ones so that code a page apart does not collide (it is on the
	 * critical path of every cached step) */
	return &cache[STEP_CACHE_WAYS *
		      ((rip ^ (rip >> (STEP_CACHE_SET_BITS + 1))) &
		       (STEP_CACHE_SETS - 1))];
}

/* Whether E is a summary entry for lookup pc WANT; its payload into *P,
 * its X (see key) into *X. */
static inline bool step_cache_match(const step_cache_entry *e, uint64_t want,
				    uint64_t *p, uint64_t *x)
{
	*p = __atomic_load_n(&e->p, __ATOMIC_RELAXED);
	*x = step_cache_x(__atomic_load_n(&e->key, __ATOMIC_RELAXED), *p);
	return (*p & STEP_CACHE_SET) && STEP_CACHE_PC(*x) == want;
}

/*
 * Traces: STEP_TRACE_LINES more lines of four entries, after the sets in
 * the same mapping (cleared with them).  A trace line holds the entries
 * of up to four frames in the order a walk last met them, callee first,
 * and is found by the first one's lookup pc (direct-mapped): a walk whose
 * frame starts a line takes the next frames' entries from that line while
 * their pcs match, so that a stack seen before costs one cache line per
 * four frames instead of one per frame (when sampling, each is a miss on
 * the critical path, the return address it checks decides the next).  A
 * frame whose pc starts no line starts recording one: its entry, from
 * the sets, into way 0 of its line, and the next frames' (from the sets)
 * into the following ways.  Entries are the sets' entries, copied whole
 * and checked the same way, so a line torn or stale is only a miss.
 */
enum { STEP_TRACE_BITS = 12, STEP_TRACE_LINES = 1 << STEP_TRACE_BITS,
       STEP_TRACE_LEN = 4 };

/* The bytes of a space's mapping: the sets, then the trace lines. */
#define STEP_CACHE_MAP_BYTES                                                   \
	((size_t)(STEP_CACHE_SIZE + STEP_TRACE_LINES * STEP_TRACE_LEN) *       \
	 sizeof(step_cache_entry))

/* The trace line (STEP_TRACE_LEN entries) starting with lookup pc PC. */
static inline step_cache_entry *step_trace_line(step_cache_entry *cache,
						uint64_t pc)
{
	return &cache[STEP_CACHE_SIZE +
		      STEP_TRACE_LEN * ((pc ^ (pc >> (STEP_TRACE_BITS + 1)) ^
					 (pc >> 2 * (STEP_TRACE_BITS + 1))) &
					(STEP_TRACE_LINES - 1))];
}

/* Whether AT, an entry of a trace line or just after one, is past its
 * line's end. */
static inline bool step_trace_end(const step_cache_entry *at)
{
	return !((uintptr_t)at % (STEP_TRACE_LEN * sizeof *at));
}

/* A walk's place in the trace lines: the next entry of its current line
 * (NULL: none, look the next frame's line up), to be compared with the
 * next frame's pc, or (RECORD) overwritten with its entry.  Zero to
 * start.  When cached_step() declines a frame, SLOT is the frame's own
 * entry in a trace line, if any: MARKER, the payload of the outermost or
 * signal marker (below) found there for the frame's pc, or (RECORD) where
 * the slow step records the frame's entry, set or marker, if it finds
 * one (step_trace_record()); the slow step leaves SLOT at the next entry,
 * or NULL. */
typedef struct step_trace {
	step_cache_entry *slot;
	bool record;
	uint64_t marker;
	/* set by cached_step() when it declined a frame whose cached row it
	 * had because the reader could not give the return address: the
	 * complete step, the same row from the same CFA, fails the same way
	 * (EHELF_E_READ) */
	bool ra_lost;
} step_trace;

/* The entry after AT in its trace line, or NULL at the line's end. */
static inline step_cache_entry *step_trace_next(step_cache_entry *at)
{
	at++;
	return step_trace_end(at) ? NULL : at;
}

/* Whether the entry of payload P and X (see key) is an outermost or a
 * signal marker (below) for lookup pc WANT. */
#define STEP_CACHE_OUTERMOST_P 0x4u
#define STEP_CACHE_SIGNAL_P 0x8u
static inline bool step_cache_marked(uint64_t p, uint64_t x, uint64_t want)
{
	return (p == STEP_CACHE_OUTERMOST_P || p == STEP_CACHE_SIGNAL_P) &&
	       STEP_CACHE_PC(x) == want;
}

/* After a slow step of the frame whose lookup pc is PC: copy SET's entry
 * for PC (of any kind), if it has one, to the trace line entry where *T
 * records (see step_trace), and go on recording after it; else leave the
 * trace line. */
static inline void step_trace_record(step_trace *t,
				     const step_cache_entry *set, uint64_t pc)
{
	step_cache_entry *to = t ? t->slot : NULL;
	if (!to || !t->record)
		return;
	t->slot = NULL;
	for (int w = 0; w < STEP_CACHE_WAYS; w++) {
		uint64_t p = __atomic_load_n(&set[w].p, __ATOMIC_RELAXED);
		uint64_t key = __atomic_load_n(&set[w].key, __ATOMIC_RELAXED);
		if (p && STEP_CACHE_PC(step_cache_x(key, p)) == pc) {
			__atomic_store_n(&to->p, p, __ATOMIC_RELAXED);
			__atomic_store_n(&to->key, key, __ATOMIC_RELAXED);
			t->slot = step_trace_next(to);
			return;
		}
	}
}

/* Fill SET for lookup pc PC from the summary SUM (nonzero); rows the
 * cache cannot hold (see above) are left out. */
void step_cache_fill(step_cache_entry *set, uint64_t pc, uint64_t sum);

/*
 * Outermost frames (the return address undefined at PC: _start, clone,
 * thread entry points) have no summary but end every stack: a set
 * remembers them with a marker (STEP_CACHE_OUTERMOST_P, above; trace lines
 * copy it as any entry) whose payload lacks STEP_CACHE_SET, so that
 * cached_step() never takes it (no cost on the hot path).  The slow path
 * asks step_cache_is_outermost() before looking the row up.
 */
void step_cache_fill_outermost(step_cache_entry *set, uint64_t pc);

static inline bool step_cache_is_outermost(const step_cache_entry *set,
					   uint64_t pc)
{
	for (int w = 0; w < STEP_CACHE_WAYS; w++) {
		const step_cache_entry *e = &set[w];
		uint64_t p = __atomic_load_n(&e->p, __ATOMIC_RELAXED);
		uint64_t key = __atomic_load_n(&e->key, __ATOMIC_RELAXED);
		if (p == STEP_CACHE_OUTERMOST_P &&
		    STEP_CACHE_PC(step_cache_x(key, p)) == pc)
			return true;
	}
	return false;
}

/*
 * Signal frames, likewise: a pc where the eh_elf's step once gave exactly
 * the registers of the kernel's ucontext at the frame's stack pointer (the
 * C library's sigreturn trampoline: every sample a profiler takes in its
 * signal handler crosses one) is remembered with a marker of its own, so
 * that the slow path reads the ucontext directly instead of looking the
 * module, the eh_elf's row and its code up (cold lines, when sampling).
 * (STEP_CACHE_SIGNAL_P, above.)
 */
void step_cache_fill_signal(step_cache_entry *set, uint64_t pc);

static inline bool step_cache_is_signal(const step_cache_entry *set,
					uint64_t pc)
{
	for (int w = 0; w < STEP_CACHE_WAYS; w++) {
		const step_cache_entry *e = &set[w];
		uint64_t p = __atomic_load_n(&e->p, __ATOMIC_RELAXED);
		uint64_t key = __atomic_load_n(&e->key, __ATOMIC_RELAXED);
		if (p == STEP_CACHE_SIGNAL_P &&
		    STEP_CACHE_PC(step_cache_x(key, p)) == pc)
			return true;
	}
	return false;
}

#endif
