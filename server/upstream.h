/*
 * upstream.h - fetching an ELF from the upstream debuginfod servers, by
 * elfutils' libdebuginfod: its server list ($DEBUGINFOD_URLS, set from
 * --upstream before any thread starts), its parallel queries, its cache
 * ($DEBUGINFOD_CACHE_PATH), its timeouts and size limits.
 */
#ifndef EHELF_SERVER_UPSTREAM_H
#define EHELF_SERVER_UPSTREAM_H

#include <stdbool.h>

#include "../common/err.h"
#include "metrics.h"

/* Ask the upstreams for HEX's executable, or its debuginfo when
 * DEBUGINFO.  On success returns a read-only descriptor and *PATH (the
 * file in libdebuginfod's cache, malloc'd).  Returns ERR_NOTFOUND when no
 * upstream has it, ERR_IO for any other failure (message from
 * libdebuginfod's errno: a timeout, a refused connection, too large).
 * CANCEL, if not NULL, is polled during the transfer: nonzero aborts. */
int upstream_fetch(const char *hex, bool debuginfo, char **path,
		   const volatile int *cancel, metrics *m, ehelf_err *err);

#endif
