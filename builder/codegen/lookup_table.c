/* lookup_table.c - see lookup_table.h. */
#include "lookup_table.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/err.h"

static int cmp_iv(const void *pa, const void *pb)
{
	const lt_interval *a = pa, *b = pb;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

typedef struct entry {
	uint64_t addr;
	uint32_t rule;
} entry;

typedef struct entries {
	entry *v;
	size_t n, cap;
} entries;

static int push(entries *e, uint64_t addr, uint32_t rule)
{
	if (e->n && e->v[e->n - 1].rule == rule)
		return 0; /* contiguous with the same rule: one entry */
	if (e->n && e->v[e->n - 1].addr == addr) {
		e->v[e->n - 1].rule = rule; /* empty range: replaced */
		if (e->n >= 2 && e->v[e->n - 2].rule == rule)
			e->n--;
		return 0;
	}
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 1024;
		entry *v = realloc(e->v, cap * sizeof *v);
		if (!v)
			return ERR_NOMEM;
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n++] = (entry){ addr, rule };
	return 0;
}

int lt_build(lookup_table *t, lt_interval *iv, size_t n, unsigned page_bits)
{
	memset(t, 0, sizeof *t);
	t->page_bits = page_bits;
	qsort(iv, n, sizeof *iv, cmp_iv);
	entries e = { 0 };
	uint64_t end = 0;
	bool any = false;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		uint64_t lo = iv[i].lo;
		if (any && lo < end) {
			t->overlaps++;
			lo = end;
		}
		if (lo >= iv[i].hi)
			continue;
		if (any && lo > end)
			rc = push(&e, end, 0); /* gap */
		if (rc == 0)
			rc = push(&e, lo, iv[i].rule);
		end = iv[i].hi;
		any = true;
	}
	if (rc == 0 && any)
		rc = push(&e, end, 0);
	if (rc < 0) {
		free(e.v);
		return rc;
	}
	uint64_t psize = 1ull << page_bits;
	if (e.n) {
		t->base = e.v[0].addr & ~(psize - 1);
		uint64_t pages = ((e.v[e.n - 1].addr - t->base) >> page_bits) + 1;
		if (pages >= UINT32_MAX || e.n >= UINT32_MAX) {
			free(e.v);
			return ERR_UNSUPPORTED;
		}
		t->npages = (uint32_t)pages;
	}
	t->nentries = e.n;
	t->page_first = malloc(((size_t)t->npages + 1) * sizeof *t->page_first);
	t->off = malloc((e.n ? e.n : 1) * sizeof *t->off);
	t->rule = malloc((e.n ? e.n : 1) * sizeof *t->rule);
	if (!t->page_first || !t->off || !t->rule) {
		free(e.v);
		lt_free(t);
		return ERR_NOMEM;
	}
	size_t k = 0;
	for (uint32_t p = 0; p <= t->npages; p++) {
		uint64_t start = t->base + ((uint64_t)p << page_bits);
		while (k < e.n && e.v[k].addr < start)
			k++;
		t->page_first[p] = (uint32_t)k;
	}
	for (size_t i = 0; i < e.n; i++) {
		t->off[i] = (uint16_t)((e.v[i].addr - t->base) & (psize - 1));
		t->rule[i] = e.v[i].rule;
	}
	free(e.v);
	return 0;
}

void lt_free(lookup_table *t)
{
	free(t->page_first);
	free(t->off);
	free(t->rule);
	memset(t, 0, sizeof *t);
}

uint32_t lt_lookup(const lookup_table *t, uint64_t pc)
{
	if (pc < t->base)
		return 0;
	uint64_t x = pc - t->base;
	uint64_t p = x >> t->page_bits;
	if (p >= t->npages)
		return 0;
	uint32_t o = (uint32_t)(x & ((1ull << t->page_bits) - 1));
	uint32_t lo = t->page_first[p], hi = t->page_first[p + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->off[mid] <= o)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? 0 : t->rule[lo - 1];
}
