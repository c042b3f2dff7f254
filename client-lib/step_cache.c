/* step_cache.c - see step_cache.h. */
#include "step_cache.h"

#include "../abi/ehelf_abi.h"

/* pcs at or above this are never cached: the key keeps 48 bits of them */
#define PC_LIMIT (1ull << 48)

/* The low BITS of V as a signed number. */
static int64_t sext(uint64_t v, int bits)
{
	uint64_t m = 1ull << (bits - 1);
	v &= (m << 1) - 1;
	return (int64_t)((v ^ m) - m);
}

/*
 * Put the entry (KEY, P) for PC in way 0 of SET.  The ways above the one
 * that held PC (or all but the last, if none did) move one way down
 * first, word by word: a reader meanwhile may see a torn entry, which
 * fails its key check.
 */
static void set_put(step_cache_entry *set, uint64_t pc, uint64_t key,
		    uint64_t p)
{
	int w = STEP_CACHE_WAYS - 1;
	for (int k = 0; k < STEP_CACHE_WAYS; k++) {
		uint64_t kp = __atomic_load_n(&set[k].p, __ATOMIC_RELAXED);
		uint64_t kk = __atomic_load_n(&set[k].key, __ATOMIC_RELAXED);
		if (kp && STEP_CACHE_PC(step_cache_x(kk, kp)) == pc) {
			w = k;
			break;
		}
	}
	for (; w > 0; w--) {
		uint64_t kp = __atomic_load_n(&set[w - 1].p, __ATOMIC_RELAXED);
		uint64_t kk = __atomic_load_n(&set[w - 1].key, __ATOMIC_RELAXED);
		__atomic_store_n(&set[w].p, kp, __ATOMIC_RELAXED);
		__atomic_store_n(&set[w].key, kk, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&set[0].p, p, __ATOMIC_RELAXED);
	__atomic_store_n(&set[0].key, key, __ATOMIC_RELAXED);
}

void step_cache_fill(step_cache_entry *set, uint64_t pc, uint64_t sum)
{
	if (pc >= PC_LIMIT)
		return;
	int64_t cfa = sext(sum >> EHELF_SUM_CFA_SHIFT, EHELF_SUM_CFA_BITS) * 8;
	uint64_t p = (uint16_t)cfa | STEP_CACHE_SET |
		     ((sum & EHELF_SUM_CFA_RBP) ? STEP_CACHE_CFA_RBP : 0);
	int64_t lowest = -1, highest = -1; /* the return address, CFA - 8 */
	for (int k = 0; k < EHELF_SUM_SLOTS; k++) {
		uint64_t s = (sum >> (EHELF_SUM_SLOT_SHIFT + EHELF_SUM_SLOT_BITS * k)) &
			     ((1u << EHELF_SUM_SLOT_BITS) - 1);
		int64_t words = sext(s, EHELF_SUM_SLOT_BITS); /* -63..63 */
		if (k == 0) { /* the return address: never kept */
			if (words != -1)
				return;
			continue;
		}
		if (s == EHELF_SUM_KEEP) {
			p |= (uint64_t)STEP_CACHE_KEPT << (8 * (k + 1));
			continue;
		}
		lowest = words < lowest ? words : lowest;
		highest = words > highest ? words : highest;
		p |= (uint64_t)(uint8_t)(int8_t)words << (8 * (k + 1));
	}
	uint64_t x = pc << 16 | (uint8_t)(int8_t)lowest |
		     (uint64_t)(uint8_t)(int8_t)highest << 8;
	set_put(set, pc, x ^ p * STEP_CACHE_MIX, p);
}

void step_cache_fill_outermost(step_cache_entry *set, uint64_t pc)
{
	if (pc < PC_LIMIT)
		set_put(set, pc, pc << 16 ^ STEP_CACHE_OUTERMOST_P * STEP_CACHE_MIX,
			STEP_CACHE_OUTERMOST_P);
}

void step_cache_fill_signal(step_cache_entry *set, uint64_t pc)
{
	if (pc < PC_LIMIT)
		set_put(set, pc, pc << 16 ^ STEP_CACHE_SIGNAL_P * STEP_CACHE_MIX,
			STEP_CACHE_SIGNAL_P);
}
