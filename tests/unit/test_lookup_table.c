/*
 * test_lookup_table.c - lt_lookup(), the reference of the generated
 * lookup, against a plain sweep of the intervals (the first to start wins
 * an overlap, and covers only what earlier ones leave), on tables of every
 * page layout: one-byte counts with 4 KiB down to 512-byte pages,
 * two-byte counts (pages of 256 entries and more at every size), subpages
 * of more than LT_VEC entries, sparse spans and overlapping intervals.
 * Every address near each interval's ends is looked up, and random ones.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "../../testkit/xorshift.h"
#include "../../builder/codegen/lookup_table.h"
#include "../../common/err.h"
#include "unit.h"

enum { MAXN = 20000 };
static lt_interval iv[MAXN], sorted[MAXN];

static int cmp_iv(const void *pa, const void *pb)
{
	const lt_interval *a = pa, *b = pb;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The rule covering PC: a sweep of the N intervals of sorted[]. */
static uint32_t sweep(size_t n, uint64_t pc)
{
	uint64_t end = 0;
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		uint64_t lo = any && sorted[i].lo < end ? end : sorted[i].lo;
		if (lo >= sorted[i].hi)
			continue;
		if (pc >= lo && pc < sorted[i].hi)
			return sorted[i].rule;
		end = sorted[i].hi;
		any = true;
	}
	return 0;
}

/* N intervals from BASE: gaps of 0..GAP-1 bytes (after a gap of 0, the
 * next interval may start inside the last one with probability OVERLAP
 * in 8), lengths 1..LEN, NRULES rule sets. */
static size_t make(uint64_t *rng, size_t n, uint64_t base, uint64_t gap,
		   uint64_t len, int overlap, uint32_t nrules)
{
	uint64_t at = base;
	for (size_t i = 0; i < n; i++) {
		uint64_t g = xorshift64(rng) % gap;
		uint64_t l = 1 + xorshift64(rng) % len;
		uint64_t lo = at + g;
		if (i && g == 0 && (int)(xorshift64(rng) % 8) < overlap)
			lo = iv[i - 1].lo + (iv[i - 1].hi - iv[i - 1].lo) / 2;
		iv[i] = (lt_interval){ lo, lo + l,
				       1 + (uint32_t)(xorshift64(rng) % nrules),
				       (uint32_t)i };
		at = lo + l > at ? lo + l : at;
	}
	return n;
}

/* Build from the N intervals of iv[] and compare with the sweep. */
static void check(const char *what, size_t n, uint64_t *rng, unsigned *widths,
		  unsigned *page_bits)
{
	memcpy(sorted, iv, n * sizeof *iv);
	qsort(sorted, n, sizeof *sorted, cmp_iv);
	lookup_table t;
	CHECK(lt_build(&t, iv, n) == 0);
	*widths |= 1u << t.cnt_width;
	*page_bits |= 1u << t.page_bits;
	int wrong = 0;
	for (size_t i = 0; i < n; i++)
		for (int d = -3; d <= 3; d++) {
			uint64_t lo = sorted[i].lo + (uint64_t)d;
			uint64_t hi = sorted[i].hi + (uint64_t)d;
			wrong += lt_lookup(&t, lo) != sweep(n, lo);
			wrong += lt_lookup(&t, hi) != sweep(n, hi);
		}
	uint64_t first = sorted[0].lo, last = sorted[n - 1].hi + 4096;
	for (int k = 0; k < 20000; k++) {
		uint64_t pc = first - 64 + xorshift64(rng) % (last - first + 128);
		wrong += lt_lookup(&t, pc) != sweep(n, pc);
	}
	if (wrong)
		fprintf(stderr, "%s: %d lookups differ (page_bits %u, counts "
			"of %u bytes)\n", what, wrong, t.page_bits, t.cnt_width);
	CHECK(wrong == 0);
	CHECK(lt_lookup(&t, 0) == 0 && lt_lookup(&t, UINT64_MAX) == 0);
	lt_free(&t);
}

int main(void)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	unsigned widths = 0, page_bits = 0;
	/* dense: every page size, then two-byte counts */
	check("1-2 bytes", make(&rng, 3000, 0x401000, 1, 2, 0, 300), &rng, &widths, &page_bits);
	check("2-3 bytes", make(&rng, 3000, 0x401000, 2, 2, 0, 300), &rng, &widths, &page_bits);
	check("3-6 bytes", make(&rng, 3000, 0x401003, 2, 4, 0, 40), &rng, &widths, &page_bits);
	check("4-10 bytes", make(&rng, 3000, 0x7f0000401000, 3, 7, 0, 40), &rng, &widths, &page_bits);
	check("5-30 bytes", make(&rng, 3000, 0x1000, 10, 20, 0, 40), &rng, &widths, &page_bits);
	/* functions of 1-64 bytes with padding, some overlapping */
	check("overlaps", make(&rng, 5000, 0x10000, 16, 64, 4, 20), &rng, &widths, &page_bits);
	/* sparse: tens of kilobytes between functions */
	check("sparse", make(&rng, 500, 0x200000, 1u << 17, 300, 0, 5), &rng, &widths, &page_bits);
	/* megabytes between functions: page records out of proportion to
	 * the entries (lookup_table.h's bound), refused */
	size_t n = make(&rng, 500, 0x200000, 1u << 22, 300, 0, 5);
	lookup_table t;
	CHECK(lt_build(&t, iv, n) == ERR_UNSUPPORTED);
	CHECK(t.rec_need > t.rec_bound && t.rec_bound > LT_REC_FLOOR);
	CHECK(t.span_lo >= 0x200000 && t.span_hi > t.span_lo + (256ull << 20));
	CHECK(t.rec == NULL && t.cnt == NULL);
	check("one", make(&rng, 1, 0xfff, 1, 1, 0, 1), &rng, &widths, &page_bits);
	CHECK(widths == ((1u << 1) | (1u << 2)));
	for (unsigned b = LT_MIN_PAGE_BITS; b <= LT_PAGE_BITS; b++)
		if (!(page_bits & (1u << b)))
			fprintf(stderr, "page size 2^%u not exercised\n", b);
	CHECK(page_bits == ((1u << (LT_PAGE_BITS + 1)) - (1u << LT_MIN_PAGE_BITS)));
	UNIT_DONE("test_lookup_table");
}
