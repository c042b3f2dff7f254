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

/* Sorted, clipped, merged entries ending with a gap. */
static int make_entries(entries *e, lt_interval *iv, size_t n, uint64_t *overlaps)
{
	qsort(iv, n, sizeof *iv, cmp_iv);
	uint64_t end = 0;
	bool any = false;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		uint64_t lo = iv[i].lo;
		if (any && lo < end) {
			(*overlaps)++;
			lo = end;
		}
		if (lo >= iv[i].hi)
			continue;
		if (any && lo > end)
			rc = push(e, end, 0); /* gap */
		if (rc == 0)
			rc = push(e, lo, iv[i].rule);
		end = iv[i].hi;
		any = true;
	}
	if (rc == 0 && any)
		rc = push(e, end, 0);
	return rc;
}

/* Pages of 2^BITS bytes from BASE with more than 255 entries. */
static size_t dense_pages(const entries *e, uint64_t base, unsigned bits)
{
	size_t dense = 0, run = 0;
	uint64_t page = UINT64_MAX;
	for (size_t i = 0; i < e->n; i++) {
		uint64_t p = (e->v[i].addr - base) >> bits;
		run = p == page ? run + 1 : 1;
		page = p;
		dense += run == 0x100;
	}
	return dense;
}

/* The page size whose records and dense records take the fewest bytes
 * (every page is dense in files of LT_FIRST1_LIMIT entries or more).
 * Sets page_bits, subpages, stride, all_dense. */
static void choose_pages(lookup_table *t, const entries *e, uint64_t base)
{
	uint64_t end = e->v[e->n - 1].addr - base;
	uint64_t best = UINT64_MAX;
	t->all_dense = e->n >= LT_FIRST1_LIMIT;
	for (unsigned bits = LT_PAGE_BITS; bits >= LT_MIN_PAGE_BITS; bits--) {
		uint64_t subpages = 1u << (bits - LT_SUB_BITS);
		uint64_t pages = (end >> bits) + 1;
		uint64_t dense = t->all_dense ? pages : dense_pages(e, base, bits);
		uint64_t cost = pages * (4 + subpages) +
				dense * (4 + 2 * (subpages + 1));
		if (cost < best) {
			best = cost;
			t->page_bits = bits;
		}
	}
	t->subpages = 1u << (t->page_bits - LT_SUB_BITS);
	t->stride = 4 + t->subpages;
}

/* Page P's record (see lookup_table.h) into REC, and when it is dense its
 * two-byte counts at t->dense + *DENSE_AT (which it advances). */
static void encode_page(lookup_table *t, uint32_t p, uint8_t *rec,
			size_t *dense_at)
{
	const uint16_t *c = &t->cnt[(size_t)p * (t->subpages + 1)];
	if (!t->all_dense && c[t->subpages] <= 0xff) {
		memcpy(rec, &t->page_first[p], 4); /* its top byte, 0: cnt[0] */
		for (unsigned s = 0; s <= t->subpages; s++)
			rec[3 + s] = (uint8_t)c[s];
		return;
	}
	uint32_t word = LT_DENSE | (uint32_t)*dense_at;
	memcpy(rec, &word, 4);
	uint8_t *d = t->dense + *dense_at;
	memcpy(d, &t->page_first[p], 4);
	memcpy(d + 4, c, 2 * (t->subpages + 1));
	*dense_at += 4 + 2 * (t->subpages + 1);
}

int lt_build(lookup_table *t, lt_interval *iv, size_t n)
{
	memset(t, 0, sizeof *t);
	t->page_bits = LT_PAGE_BITS;
	t->subpages = LT_SUBPAGES;
	t->stride = 4 + LT_SUBPAGES;
	entries e = { 0 };
	int rc = make_entries(&e, iv, n, &t->overlaps);
	if (rc < 0) {
		free(e.v);
		return rc;
	}
	if (e.n) {
		t->base = e.v[0].addr & ~((1ull << LT_PAGE_BITS) - 1);
		choose_pages(t, &e, t->base);
		uint64_t pages = ((e.v[e.n - 1].addr - t->base) >> t->page_bits) + 1;
		if (pages >= UINT32_MAX || e.n >= UINT32_MAX) {
			free(e.v);
			return ERR_UNSUPPORTED;
		}
		t->npages = (uint32_t)pages;
	}
	unsigned nsub = t->subpages;
	t->nentries = e.n;
	t->page_first = malloc(((size_t)t->npages + 1) * sizeof *t->page_first);
	t->cnt = calloc((size_t)t->npages * (nsub + 1), sizeof *t->cnt);
	t->rec = calloc((size_t)t->npages * t->stride + 1, 1);
	t->off = calloc(e.n + LT_VEC, 1);
	t->rule = malloc((e.n ? e.n : 1) * sizeof *t->rule);
	if (!t->page_first || (!t->cnt && t->npages) || !t->rec || !t->off ||
	    !t->rule) {
		free(e.v);
		lt_free(t);
		return ERR_NOMEM;
	}
	size_t k = 0;
	for (uint32_t p = 0; p <= t->npages; p++) {
		uint64_t start = t->base + ((uint64_t)p << t->page_bits);
		while (k < e.n && e.v[k].addr < start)
			k++;
		t->page_first[p] = (uint32_t)k;
		if (p == t->npages)
			break;
		uint16_t *c = &t->cnt[(size_t)p * (nsub + 1)];
		size_t j = k;
		for (unsigned s = 0; s <= nsub; s++) {
			uint64_t sub = start + ((uint64_t)s << LT_SUB_BITS);
			while (j < e.n && e.v[j].addr < sub)
				j++;
			c[s] = (uint16_t)(j - k);
		}
		if (j - k > 0xffff) {
			free(e.v);
			lt_free(t);
			return ERR_UNSUPPORTED;
		}
	}
	size_t ndense = 0;
	for (uint32_t p = 0; p < t->npages; p++)
		ndense += t->all_dense || t->cnt[(size_t)p * (nsub + 1) + nsub] > 0xff;
	t->dense = malloc(ndense * (4 + 2 * (nsub + 1)) + 1);
	if (!t->dense) {
		free(e.v);
		lt_free(t);
		return ERR_NOMEM;
	}
	for (uint32_t p = 0; p < t->npages; p++)
		encode_page(t, p, t->rec + (size_t)p * t->stride, &t->dense_size);
	for (size_t i = 0; i < e.n; i++) {
		t->off[i] = (uint8_t)((e.v[i].addr - t->base) &
				      ((1u << LT_SUB_BITS) - 1));
		t->rule[i] = e.v[i].rule;
		if (e.v[i].rule > t->max_rule)
			t->max_rule = e.v[i].rule;
	}
	free(e.v);
	return 0;
}

void lt_free(lookup_table *t)
{
	free(t->page_first);
	free(t->cnt);
	free(t->rec);
	free(t->dense);
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
	unsigned s = (unsigned)(x >> LT_SUB_BITS) & (t->subpages - 1);
	unsigned o = (unsigned)x & ((1u << LT_SUB_BITS) - 1);
	const uint8_t *rec = t->rec + p * t->stride;
	uint32_t word;
	memcpy(&word, rec, 4);
	size_t i, n;
	if (word & LT_DENSE) {
		const uint8_t *d = t->dense + (word & ~(uint32_t)LT_DENSE);
		uint16_t c[2];
		memcpy(&word, d, 4);
		memcpy(c, d + 4 + 2 * s, 4);
		i = word + c[0];
		n = (size_t)(c[1] - c[0]);
	} else {
		i = word + rec[3 + s];
		n = (size_t)(rec[4 + s] - rec[3 + s]);
	}
	/* the count of the subpage's offsets <= o (they are sorted) */
	size_t end = i + n;
	while (i < end && t->off[i] <= o)
		i++;
	return i == 0 ? 0 : t->rule[i - 1];
}
