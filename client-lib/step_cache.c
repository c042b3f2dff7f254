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

/* The pc entry E is filled for, or 0 (empty or torn: take it). */
static uint64_t entry_pc(const step_cache_entry *e)
{
	uint64_t a = __atomic_load_n(&e->a, __ATOMIC_RELAXED);
	uint64_t b = __atomic_load_n(&e->b, __ATOMIC_RELAXED);
	uint64_t key = __atomic_load_n(&e->key, __ATOMIC_RELAXED);
	return b ? key ^ a ^ b : 0;
}

step_cache_entry *step_cache_victim(step_cache_entry *set, uint64_t pc)
{
	/* the way of the same pc, summary or outermost marker (whose pc
	 * is salted): a pc never has both */
	uint64_t p0 = entry_pc(&set[0]);
	uint64_t other = pc ^ STEP_CACHE_OUTERMOST_SALT;
	if (p0 == pc || p0 == other || p0 == 0)
		return &set[0];
	/* way 0 (the last filled) to way 1, word by word (a reader meanwhile
	 * sees a torn entry, which fails its key check), and way 0 for PC:
	 * the set keeps the last two pcs filled (an entry of PC in way 1 is
	 * overwritten so) */
	uint64_t a = __atomic_load_n(&set[0].a, __ATOMIC_RELAXED);
	uint64_t b = __atomic_load_n(&set[0].b, __ATOMIC_RELAXED);
	uint64_t key = __atomic_load_n(&set[0].key, __ATOMIC_RELAXED);
	__atomic_store_n(&set[1].a, a, __ATOMIC_RELAXED);
	__atomic_store_n(&set[1].b, b, __ATOMIC_RELAXED);
	__atomic_store_n(&set[1].key, key, __ATOMIC_RELAXED);
	return &set[0];
}

void step_cache_fill(step_cache_entry *set, uint64_t pc, uint64_t sum)
{
	step_cache_entry *e = step_cache_victim(set, pc);
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
