/*
 * prefetch.h - the eh_elfs of a recording fetched into the user's cache
 * (fetch.h) before ehelf-perf unwinds, never during: those of its
 * build-IDs (recorded_ids.h) that the resolution chain does not find
 * (resolve.h: $EHELF_PATH's stores, /usr/lib/ehelf, the cache; a file
 * found there but refused counts as not found), all asked for in one
 * fetch_ids call, which runs on a thread of its own so that the caller
 * can show progress meanwhile.
 */
#ifndef EHELF_PERF_TOOL_PREFETCH_H
#define EHELF_PERF_TOOL_PREFETCH_H

#include <stddef.h>

#include "../../../client-lib/fetch.h"
#include "recorded_ids.h"

typedef struct prefetch_result {
	size_t local;          /* found locally: not asked for */
	size_t asked;          /* asked of the servers */
	size_t fetched, not_found, refused, failed; /* their outcomes
					 * (fetched: now in the cache) */
	char refused_why[256]; /* the first refusal's reason, "" if none */
	char failed_why[256];  /* the first failure's, "" if none */
} prefetch_result;

/* Called with how many of the eh_elfs asked for are in the cache now, and
 * how many were asked for. */
typedef void (*prefetch_progress_fn)(void *arg, size_t done, size_t total);

/* Fetch the eh_elfs of IDS not found locally, with configuration C (its
 * servers and cache).  PROGRESS, when not NULL, is called on the calling
 * thread about every 100 ms while the fetch runs, and once at its end
 * with all done.  RES receives the counts.  0, or the negative ERR_* of
 * fetch_ids (nothing could be tried; ERR says why). */
int prefetch(const fetch_config *c, const id_list *ids,
	     prefetch_progress_fn progress, void *arg, prefetch_result *res,
	     ehelf_err *err);

#endif
