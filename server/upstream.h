/*
 * upstream.h - fetching an ELF from the upstream debuginfod servers, by
 * elfutils' libdebuginfod: its server list ($DEBUGINFOD_URLS, set from
 * --upstream before any thread starts), its parallel queries, its cache
 * ($DEBUGINFOD_CACHE_PATH), its per-server timeout and size limit
 * ($DEBUGINFOD_TIMEOUT, $DEBUGINFOD_MAXSIZE), and its progress function,
 * by which a fetch is cut at a deadline or a size whatever the upstream
 * does (a stall, libdebuginfod's retries, a body without Content-Length).
 */
#ifndef EHELF_SERVER_UPSTREAM_H
#define EHELF_SERVER_UPSTREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/err.h"
#include "metrics.h"

/* What bounds one fetch. */
typedef struct upstream_limits {
	const volatile int *cancel; /* polled: nonzero aborts (may be NULL) */
	double deadline;            /* metrics_now() seconds; abort after it */
	uint64_t max_bytes;         /* abort a download beyond it */
} upstream_limits;

/* How a fetch failed, beyond its message. */
typedef enum upstream_failure {
	UPSTREAM_FAILED,            /* transport, refused, upstream error */
	UPSTREAM_TIMED_OUT,         /* the deadline, or libdebuginfod's timer */
	UPSTREAM_TOO_LARGE,         /* above max_bytes */
} upstream_failure;

/* Ask the upstreams for HEX's executable, or its debuginfo when
 * DEBUGINFO, under L.  On success returns a read-only descriptor and
 * *PATH (the file in libdebuginfod's cache, malloc'd).  Returns
 * ERR_NOTFOUND when no upstream has it, ERR_IO for any other failure,
 * with *WHY saying which (a message without the server's paths). */
int upstream_fetch(const char *hex, bool debuginfo, char **path,
		   const upstream_limits *l, upstream_failure *why, metrics *m,
		   ehelf_err *err);

/* Remove what libdebuginfod keeps of HEX's executable and debuginfo
 * under CACHE (CACHE/HEX/executable, .../debuginfo, their temporaries
 * and negative-cache marks; then CACHE/HEX if empty): the server keeps
 * what it built in the store and remembers misses itself, so nothing a
 * build fetched outlives it.  Never follows a symlink. */
void upstream_forget(const char *cache, const char *hex);

#endif
