/* step_cache.c - see step_cache.h. */
#include "step_cache.h"

#include "include/ehelf_abi.h"

/* The low BITS of V as a signed number. */
static int64_t sext(uint64_t v, int bits)
{
	uint64_t m = 1ull << (bits - 1);
	v &= (m << 1) - 1;
	return (int64_t)((v ^ m) - m);
}

void step_cache_fill(step_cache_entry *e, uint64_t pc, uint64_t sum)
{
	int64_t cfa = sext(sum >> EHELF_SUM_CFA_SHIFT, EHELF_SUM_CFA_BITS) * 8;
	uint64_t b = STEP_CACHE_SET | ((sum & EHELF_SUM_CFA_RBP) ? STEP_CACHE_CFA_RBP : 0);
	int64_t ra = 0, lowest = INT64_MAX, highest = INT64_MIN;
	for (int k = 0; k < EHELF_SUM_SLOTS; k++) {
		uint64_t s = (sum >> (EHELF_SUM_SLOT_SHIFT + EHELF_SUM_SLOT_BITS * k)) &
			     ((1u << EHELF_SUM_SLOT_BITS) - 1);
		if (s == EHELF_SUM_KEEP) { /* never for the return address */
			b |= (uint64_t)STEP_CACHE_KEPT << (8 * k);
			continue;
		}
		int64_t words = sext(s, EHELF_SUM_SLOT_BITS); /* -63..63 */
		int64_t at = cfa + words * 8;
		lowest = at < lowest ? at : lowest;
		highest = at > highest ? at : highest;
		if (k == 0)
			ra = at;
		else
			b |= (uint64_t)(uint8_t)(int8_t)words << (8 * k);
	}
	/* |cfa| <= 16384 and |slots| <= 504: all fit in int16 */
	uint64_t a = (uint64_t)(uint16_t)cfa | (uint64_t)(uint16_t)ra << 16 |
		     (uint64_t)(uint16_t)lowest << 32 | (uint64_t)(uint16_t)highest << 48;
	__atomic_store_n(&e->a, a, __ATOMIC_RELAXED);
	__atomic_store_n(&e->b, b, __ATOMIC_RELAXED);
	__atomic_store_n(&e->key, pc ^ a ^ b, __ATOMIC_RELAXED);
}
