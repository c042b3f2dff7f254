/* u64_map.c - see u64_map.h. */
#include "u64_map.h"

#include <stdlib.h>

#include "err.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

/* The slot of KEY in V (CAP entries, not full): its own or a free one. */
static struct u64_slot *find(struct u64_slot *v, size_t cap, uint64_t key)
{
	size_t i = slot_of(key, cap);
	while (v[i].val && v[i].key != key)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

uintptr_t u64_map_get(const u64_map *m, uint64_t key)
{
	return m->cap ? find(m->v, m->cap, key)->val : 0;
}

int u64_map_put(u64_map *m, uint64_t key, uintptr_t val, bool keep)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct u64_slot *v = calloc(cap, sizeof *v);
		if (!v)
			return ERR_NOMEM;
		for (size_t i = 0; i < m->cap; i++)
			if (m->v[i].val)
				*find(v, cap, m->v[i].key) = m->v[i];
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	struct u64_slot *s = find(m->v, m->cap, key);
	if (s->val && keep)
		return 0;
	if (!s->val)
		m->n++;
	*s = (struct u64_slot){ key, val };
	return 0;
}

void u64_map_free(u64_map *m)
{
	free(m->v);
	*m = (u64_map){ 0 };
}
