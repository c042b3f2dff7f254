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

/* The densest page of 2^BITS bytes from BASE: its number of entries. */
static size_t densest(const entries *e, uint64_t base, unsigned bits)
{
	size_t best = 0, run = 0;
	uint64_t page = UINT64_MAX;
	for (size_t i = 0; i < e->n; i++) {
		uint64_t p = (e->v[i].addr - base) >> bits;
		run = p == page ? run + 1 : 1;
		page = p;
		best = run > best ? run : best;
	}
	return best;
}

/* The page size: the one whose records take the fewest bytes with
 * one-byte counts (every page under 256 entries), else 4 KiB with
 * two-byte counts.  Sets page_bits, subpages, cnt_width, stride. */
static void choose_pages(lookup_table *t, const entries *e, uint64_t base)
{
	uint64_t end = e->v[e->n - 1].addr - base;
	uint64_t best = UINT64_MAX;
	t->page_bits = LT_PAGE_BITS;
	t->cnt_width = 2;
	for (unsigned bits = LT_PAGE_BITS; bits >= LT_MIN_PAGE_BITS; bits--) {
		if (e->n >= LT_FIRST1_LIMIT || densest(e, base, bits) > 0xff)
			continue;
		uint64_t pages = (end >> bits) + 1;
		uint64_t cost = pages * (4 + (1u << (bits - LT_SUB_BITS)));
		if (cost < best) {
			best = cost;
			t->page_bits = bits;
			t->cnt_width = 1;
		}
	}
	t->subpages = 1u << (t->page_bits - LT_SUB_BITS);
	t->stride = t->cnt_width == 1 ? 4 + t->subpages : 4 + 2 * (t->subpages + 1);
}

/* Page P's record (see lookup_table.h) into REC. */
static void encode_page(const lookup_table *t, uint32_t p, uint8_t *rec)
{
	const uint16_t *c = &t->cnt[(size_t)p * (t->subpages + 1)];
	memcpy(rec, &t->page_first[p], 4); /* with one-byte counts, its top
					     * byte is 0: cnt[0] */
	for (unsigned s = 0; s <= t->subpages; s++) {
		if (t->cnt_width == 1)
			rec[3 + s] = (uint8_t)c[s];
		else
			memcpy(rec + 4 + 2 * s, &c[s], 2);
	}
}

int lt_build(lookup_table *t, lt_interval *iv, size_t n)
{
	memset(t, 0, sizeof *t);
	t->page_bits = LT_PAGE_BITS;
	t->subpages = LT_SUBPAGES;
	t->cnt_width = 1;
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
		uint64_t need = pages * t->stride; /* pages < 2^52: no overflow */
		uint64_t bound = LT_REC_FLOOR + (uint64_t)LT_REC_PER_ENTRY * e.n;
		if (need > bound || pages >= UINT32_MAX || e.n >= UINT32_MAX) {
			t->rec_need = need;
			t->rec_bound = bound;
			t->span_lo = e.v[0].addr;
			t->span_hi = e.v[e.n - 1].addr;
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
	for (uint32_t p = 0; p < t->npages; p++)
		encode_page(t, p, t->rec + (size_t)p * t->stride);
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

int lt_intervals_push(lt_intervals *iv, lt_interval x)
{
	if (iv->n == iv->cap) {
		size_t cap = iv->cap ? 2 * iv->cap : 4096;
		lt_interval *v = realloc(iv->v, cap * sizeof *v);
		if (!v)
			return ERR_NOMEM;
		iv->v = v;
		iv->cap = cap;
	}
	iv->v[iv->n++] = x;
	return 0;
}

void lt_free(lookup_table *t)
{
	free(t->page_first);
	free(t->cnt);
	free(t->rec);
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
	if (t->cnt_width == 2) {
		uint16_t c[2];
		memcpy(c, rec + 4 + 2 * s, 4);
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
