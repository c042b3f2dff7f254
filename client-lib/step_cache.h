/*
 * step_cache.h - the step cache of an address space: for the pcs met
 * while unwinding, the eh_elf's row summary (ehelf_describe), pre-decoded
 * so that a frame is stepped with one cache load, two additions and the
 * stack loads, without finding the module or calling the eh_elf.
 *
 * Two-way set-associative: a hash of the frame's rip picks a set of two
 * entries in one cache line; entries are keyed by the pc the row was
 * looked up at (rip, or rip - 1 for a return address).  Way 0 holds the
 * last pc filled: a fill of that pc (as a summary or an outermost marker)
 * takes way 0 again, any other moves way 0 to way 1 first; a set keeps the
 * last two pcs filled, never one pc twice.  Threads
 * unwinding with the same space share it without locks: an entry's words
 * are each stored and loaded atomically, and its key is stored as
 * pc ^ a ^ b, so that a torn entry (two threads filling it at once) fails
 * the key check instead of giving a wrong step.  The space clears the cache
 * when its modules change.
 */
#ifndef EHELF_CLIENT_STEP_CACHE_H
#define EHELF_CLIENT_STEP_CACHE_H

#include <stdbool.h>
#include <stdint.h>

/* 16384 entries (8192 sets), 512 KiB of address space that costs only
 * what is touched (space.c maps it).  Sized for large programs: a cc1plus
 * profile of 104k frames over some 9,700 distinct pcs, unwound again,
 * missed on 4.8% of its frames with 16384 direct-mapped entries (pcs of
 * the same slot evicting each other), 3.3% with these two-way sets. */
enum { STEP_CACHE_BITS = 14, STEP_CACHE_SIZE = 1 << STEP_CACHE_BITS,
       STEP_CACHE_SETS = STEP_CACHE_SIZE / 2 };

typedef struct step_cache_entry {
	uint64_t key;  /* pc ^ a ^ b; b is never 0 in a filled entry */
	/* four int16, offsets from the CFA's base register (rsp or rbp):
	 * bits 0..15 the CFA, 16..31 the return address, 32..47 the lowest
	 * and 48..63 the highest address loaded (so that one check tells
	 * whether every load is inside the known stack) */
	uint64_t a;
	/* byte 0: STEP_CACHE_SET | STEP_CACHE_CFA_RBP; bytes 1..6: where rbx,
	 * rbp, r12, r13, r14, r15 are saved, CFA + 8 * (int8_t)byte, or
	 * STEP_CACHE_KEPT */
	uint64_t b;
	uint64_t pad_; /* 32 bytes: two entries per cache line */
} step_cache_entry;

#define STEP_CACHE_SET 1u
#define STEP_CACHE_CFA_RBP 2u
#define STEP_CACHE_KEPT 0x80u

/* The offsets of A (see above). */
#define STEP_CACHE_CFA(a) ((int64_t)(int16_t)(a))
#define STEP_CACHE_RA(a) ((int64_t)(int16_t)((a) >> 16))
#define STEP_CACHE_LOWEST(a) ((int64_t)(int16_t)((a) >> 32))
#define STEP_CACHE_HIGHEST(a) ((int64_t)(int16_t)((a) >> 48))

/* The set (two entries) for a frame whose rip is RIP. */
static inline step_cache_entry *step_cache_slot(step_cache_entry *cache,
						uint64_t rip)
{
	/* a cheap hash: the low bits of the return address, mixed with the
	 * next ones so that code a page apart does not collide (it is on the
	 * critical path of every cached step) */
	return &cache[2 * ((rip ^ (rip >> STEP_CACHE_BITS)) &
			   (STEP_CACHE_SETS - 1))];
}

/* The entry of SET to fill for lookup pc PC (see above). */
step_cache_entry *step_cache_victim(step_cache_entry *set, uint64_t pc);

/* Fill SET for lookup pc PC from the summary SUM (nonzero). */
void step_cache_fill(step_cache_entry *set, uint64_t pc, uint64_t sum);

/*
 * Outermost frames (the return address undefined at PC: _start, clone,
 * thread entry points) have no summary but end every stack: E remembers
 * them with a marker whose key is salted so that cached_step()'s check
 * fails on it (no cost on the hot path): it would pass only for a lookup
 * pc of PC ^ SALT, a kernel address no user frame has.  The slow path asks
 * step_cache_is_outermost() before looking the row up.
 */
#define STEP_CACHE_OUTERMOST_B 0x4u
#define STEP_CACHE_OUTERMOST_SALT 0xfff0000000000000ull

static inline void step_cache_fill_outermost(step_cache_entry *set,
					     uint64_t pc)
{
	step_cache_entry *e = step_cache_victim(set, pc ^ STEP_CACHE_OUTERMOST_SALT);
	__atomic_store_n(&e->a, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->b, STEP_CACHE_OUTERMOST_B, __ATOMIC_RELAXED);
	__atomic_store_n(&e->key, pc ^ STEP_CACHE_OUTERMOST_B ^
			 STEP_CACHE_OUTERMOST_SALT, __ATOMIC_RELAXED);
}

static inline bool step_cache_is_outermost(const step_cache_entry *set,
					   uint64_t pc)
{
	for (int w = 0; w < 2; w++) {
		const step_cache_entry *e = &set[w];
		uint64_t a = __atomic_load_n(&e->a, __ATOMIC_RELAXED);
		uint64_t b = __atomic_load_n(&e->b, __ATOMIC_RELAXED);
		uint64_t key = __atomic_load_n(&e->key, __ATOMIC_RELAXED);
		if (b == STEP_CACHE_OUTERMOST_B &&
		    (key ^ a ^ b ^ STEP_CACHE_OUTERMOST_SALT) == pc)
			return true;
	}
	return false;
}

#endif
