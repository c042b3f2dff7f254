/*
 * lookup_table.h - the address -> rule-set index of an eh_elf.
 *
 * Addresses are split into pages of 2^page_bits bytes from `base`.  Entries
 * (start address, rule-set index) are sorted; an entry covers addresses up
 * to the next entry's start, and rule set 0 means "not covered" (gaps
 * between functions, and the end).  Each entry is stored in the page that
 * contains its start, as a 16-bit offset inside that page;
 * page_first[p] is the number of entries that start before page p, so the
 * entry covering an address in page p is the last of page p's entries that
 * starts at or before it, or else entry page_first[p] - 1.
 *
 * Cost: 2 bytes of offset and 1 or 2 of rule index per entry, 4 bytes per
 * page.  lt_lookup() is the reference the generated lookup code is tested
 * against.
 */
#ifndef EHELF_CODEGEN_LOOKUP_TABLE_H
#define EHELF_CODEGEN_LOOKUP_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct lt_interval {
	uint64_t lo, hi;   /* [lo, hi) */
	uint32_t rule;     /* >= 1 */
	uint32_t seq;      /* input order: earlier wins on overlap */
} lt_interval;

typedef struct lookup_table {
	uint64_t base;         /* page-aligned start */
	unsigned page_bits;
	uint32_t npages;
	uint32_t *page_first;  /* npages + 1 */
	uint16_t *off;         /* nentries */
	uint32_t *rule;        /* nentries */
	size_t nentries;
	uint64_t overlaps;     /* intervals (partly) hidden by earlier ones */
} lookup_table;

/* Build from N intervals (reordered in place).  Returns 0, ERR_NOMEM, or
 * ERR_UNSUPPORTED when the covered span needs more than 2^32 pages. */
int lt_build(lookup_table *t, lt_interval *iv, size_t n, unsigned page_bits);
void lt_free(lookup_table *t);

/* Rule-set index covering PC, 0 if none. */
uint32_t lt_lookup(const lookup_table *t, uint64_t pc);

#endif
