/*
 * perf_reader_mem.h - the perf.data reader's errors (messages naming the file and
 * offset), growing arrays and arena (freed with the reader)
 * (perf_reader_mem.c; internal to the reader, its state: perf_reader_state.h).
 */
#ifndef EHELF_PERFDATA_PERF_READER_MEM_H
#define EHELF_PERFDATA_PERF_READER_MEM_H

#include "perf_reader_state.h"

/* ERR_FORMAT: "NAME: offset OFF: what". */
int pr_fmt_err(ehelf_err *err, const perf_reader *r, uint64_t off,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* ERR_NOMEM: "NAME: out of memory". */
int pr_nomem(ehelf_err *err, const perf_reader *r);

/* Make room for N elements of ELEM bytes in the array whose pointer is at
 * PP (capacity *CAP); false when out of memory (the array is unchanged). */
bool pr_reserve(void *pp, size_t *cap, size_t n, size_t elem);

/* N bytes, 8-aligned, freed with the reader; NULL if out of memory. */
void *pr_arena_alloc(perf_reader *r, size_t n);

/* A NUL-terminated copy of the string in S[0, MAX) (up to its NUL). */
char *pr_arena_str(perf_reader *r, const uint8_t *s, size_t max);

#endif
