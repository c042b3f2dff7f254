/*
 * test_u64_map.c - common/u64_map against a plain array: random keys
 * (zero among them, and clustered ones that probe far), values replaced
 * or kept, growth from empty, lookups of absent keys.
 */
#include <stdlib.h>

#include "../../testkit/xorshift.h"
#include "../../common/u64_map.h"
#include "unit.h"

enum { N = 20000 };
static uint64_t keys[N];
static uintptr_t vals[N];

int main(void)
{
	uint64_t rng = 0x853c49e6748fea9bull;
	u64_map m = { 0 };
	CHECK(u64_map_get(&m, 0) == 0 && u64_map_get(&m, 42) == 0);
	for (int i = 0; i < N; i++) {
		/* a third random, a third small and dense, a third a multiple
		 * of 2^32 (the hash must spread those) */
		uint64_t r = xorshift64(&rng);
		keys[i] = i == 0 ? 0 : i % 3 == 0 ? r : i % 3 == 1 ? (uint64_t)i : (uint64_t)i << 32;
		vals[i] = (uintptr_t)(i + 1);
		CHECK(u64_map_put(&m, keys[i], vals[i], false) == 0);
	}
	CHECK(m.n == N);
	int wrong = 0;
	for (int i = 0; i < N; i++)
		wrong += u64_map_get(&m, keys[i]) != vals[i];
	CHECK(wrong == 0);
	/* keep: the first value stays; without: replaced */
	CHECK(u64_map_put(&m, keys[7], 99999, true) == 0);
	CHECK(u64_map_get(&m, keys[7]) == vals[7]);
	CHECK(u64_map_put(&m, keys[7], 99999, false) == 0);
	CHECK(u64_map_get(&m, keys[7]) == 99999);
	CHECK(m.n == N);
	/* absent keys */
	int found = 0;
	for (int i = 0; i < 1000; i++)
		found += u64_map_get(&m, ((uint64_t)(N + i) << 32) | 1) != 0;
	CHECK(found == 0);
	u64_map_free(&m);
	CHECK(m.cap == 0 && u64_map_get(&m, keys[0]) == 0);
	UNIT_DONE("test_u64_map");
}
