/*
 * lookup_table.h - the address -> rule-set index of an eh_elf.
 *
 * Entries (start address, rule-set index) are sorted and contiguous: an
 * entry covers addresses up to the next entry's start, and rule set 0 means
 * "not covered" (gaps between functions, and after the last one).
 *
 * Addresses from `base` are cut into pages of 512 bytes to 4 KiB, cut in
 * turn into subpages of 256 bytes.  Each entry belongs to the subpage that
 * contains its start and stores only its 8-bit offset there (off[]) and
 * its rule index (rule[]).  Per page: `first` (page_first), the number of
 * entries that start before the page, and cnt[0..S], where cnt[s] counts
 * the page's entries that start before subpage s (cnt[0] = 0, cnt[S] =
 * all of them).  The entry covering an address in subpage s of page p is
 * found among the cnt[s+1] - cnt[s] entries from index first + cnt[s]
 * (LT_VEC offsets are compared at once, as one SSE2 vector), or else it is
 * the entry just before them.  rec[] holds the page records as the
 * generated code reads them: `first` (4 bytes, little-endian), then
 * cnt[0..S] in one or two bytes each.  With one-byte counts, `first` is
 * under 2^24 and its top byte is cnt[0] = 0: cnt[s] is at rec + 3 + s.
 *
 * Cost: 1 byte of offset and 1 rule byte per entry (see entry_gen.c); a
 * page record of 4 + S bytes (20 per 4 KiB page, 8 per KiB).  The counts
 * take one byte each when every page has fewer than 256 entries (and the
 * file fewer than 2^24): the page size is the one of 512 bytes to 4 KiB
 * for which that holds and the records take the fewest bytes (dense code,
 * as in libLLVM, needs smaller pages); else 4 KiB pages with two-byte
 * counts after `first`.
 *
 * Bound: the page records cover the span from the first entry to the
 * last, whatever lies between, so a table is refused when they would take
 * more than LT_REC_FLOOR + LT_REC_PER_ENTRY bytes per entry (1 MiB, and
 * 64 bytes an entry: this machine's ELFs need at most 3.3 bytes an entry):
 * the lookup table's memory and output follow the entries, not the span.
 */
#ifndef EHELF_CODEGEN_LOOKUP_TABLE_H
#define EHELF_CODEGEN_LOOKUP_TABLE_H

#include <stddef.h>
#include <stdint.h>

enum {
	LT_PAGE_BITS = 12,       /* the largest page size, log2 */
	LT_MIN_PAGE_BITS = 9,    /* the smallest */
	LT_SUB_BITS = 8,
	LT_SUBPAGES = 1 << (LT_PAGE_BITS - LT_SUB_BITS), /* at most */
	LT_VEC = 16,             /* offsets compared at once (off[] padding) */
	LT_FIRST1_LIMIT = 1 << 24, /* entries, for one-byte counts */
	/* an entry's rule byte when its rule set's index does not fit in
	 * it (see entry_gen.c), and the blocks escaped entries are ranked in */
	LT_ESCAPE = 0xff,
	LT_ESC_BLOCK_BITS = 7,
	LT_ESC_BLOCK = 1 << LT_ESC_BLOCK_BITS,
	/* the bound on the page records' bytes (above) */
	LT_REC_FLOOR = 1 << 20,
	LT_REC_PER_ENTRY = 64,
};

typedef struct lt_interval {
	uint64_t lo, hi;   /* [lo, hi) */
	uint32_t rule;     /* >= 1 */
	uint32_t seq;      /* input order: earlier wins on overlap */
} lt_interval;

/* A growable array of intervals. */
typedef struct lt_intervals {
	lt_interval *v;
	size_t n, cap;
} lt_intervals;

/* Append X to IV.  Returns 0 or ERR_NOMEM (IV unchanged). */
int lt_intervals_push(lt_intervals *iv, lt_interval x);

typedef struct lookup_table {
	uint64_t base;         /* page-aligned start */
	unsigned page_bits;    /* page size, log2: LT_MIN_PAGE_BITS..LT_PAGE_BITS */
	unsigned subpages;     /* per page: 1 << (page_bits - LT_SUB_BITS) */
	uint32_t npages;
	uint32_t *page_first;  /* npages + 1 */
	uint16_t *cnt;         /* npages * (subpages + 1) */
	unsigned cnt_width;    /* 1 if every page has < 256 entries, else 2 */
	unsigned stride;       /* bytes per page record: 4 + S, or 4 + 2 (S + 1) */
	uint8_t *rec;          /* npages * stride: the page records */
	uint8_t *off;          /* nentries (+ LT_VEC bytes of padding) */
	uint32_t *rule;        /* nentries */
	size_t nentries;
	uint32_t max_rule;
	uint64_t overlaps;     /* intervals (partly) hidden by earlier ones */
	/* set when the bound refused the table: the page records' bytes it
	 * would need, the bound for its entries, and the span [lo, hi) */
	uint64_t rec_need, rec_bound, span_lo, span_hi;
} lookup_table;

/* Build from N intervals (reordered in place).  Returns 0, ERR_NOMEM, or
 * ERR_UNSUPPORTED when the page records would exceed the bound above (or
 * 2^32 pages), with rec_need, rec_bound and the span set; nothing large
 * is allocated before that test. */
int lt_build(lookup_table *t, lt_interval *iv, size_t n);
void lt_free(lookup_table *t);

/* Rule-set index covering PC, 0 if none, found through rec[] and off[]:
 * the reference for the generated lookup code (entry_gen.c). */
uint32_t lt_lookup(const lookup_table *t, uint64_t pc);

#endif
