/*
 * debuginfod_file.h - a recording's mapped file, or its debug file, from
 * debuginfod servers through libdebuginfod, as perf asks for what the
 * machine lacks (a recording from another machine).  libdebuginfod's
 * conventions hold: the servers of $DEBUGINFOD_URLS, its cache
 * ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client) with its
 * negative caching and cleaning, $DEBUGINFOD_TIMEOUT, $DEBUGINFOD_PROGRESS
 * (a progress line on standard error), $DEBUGINFOD_VERBOSE.  Without
 * $DEBUGINFOD_URLS nothing is asked.
 */
#ifndef EHELF_PERF_TOOL_DEBUGINFOD_FILE_H
#define EHELF_PERF_TOOL_DEBUGINFOD_FILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct dinfod dinfod;

/* A session: NULL when $DEBUGINFOD_URLS is unset or empty, or when
 * libdebuginfod cannot be loaded or started (then, and out of memory, WHY
 * (CAP bytes) says why; "" otherwise).  Not thread-safe. */
dinfod *dinfod_new(char *why, size_t cap);
void dinfod_free(dinfod *c);

typedef enum dinfod_kind {
	DINFOD_EXECUTABLE,  /* the ELF file itself (its loaded sections) */
	DINFOD_DEBUGINFO,   /* its debug file (.symtab, DWARF) */
} dinfod_kind;

/* The path in libdebuginfod's cache of the KIND file of build-ID ID (LEN
 * bytes), downloaded now if needed, into BUF (CAP bytes).  0, or -1 when
 * no server has it (or it does not fit).  The file is not checked:
 * callers check its build-ID. */
int dinfod_find(dinfod *c, dinfod_kind kind, const uint8_t *id, size_t len,
		char *buf, size_t cap);

#endif
