/*
 * u64_map.h - a hash map from 64-bit keys to nonzero pointer-sized values
 * (open addressing, linear probing, at most half full).  For the small
 * integer-keyed tables of ehelf-perf: sample ids to attributes, pids and
 * tids to processes and threads.  Not thread-safe; no removal.
 *
 * The slots may be walked directly (for freeing what the values own):
 * v[0, cap), a slot in use has a nonzero val.
 */
#ifndef EHELF_COMMON_U64_MAP_H
#define EHELF_COMMON_U64_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct u64_map {
	struct u64_slot {
		uint64_t key;
		uintptr_t val;  /* 0: free */
	} *v;
	size_t n, cap;
} u64_map;

/* KEY's value, or 0. */
uintptr_t u64_map_get(const u64_map *m, uint64_t key);

/* KEY's value becomes VAL (nonzero), unless KEEP and KEY has one already.
 * 0, or ERR_NOMEM (the map unchanged). */
int u64_map_put(u64_map *m, uint64_t key, uintptr_t val, bool keep);

/* Free the slots (not what the values point to); M is empty again. */
void u64_map_free(u64_map *m);

#endif
