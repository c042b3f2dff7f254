/*
 * resolve.h - where the eh_elf of a build-ID is found: docs/design.md's
 * client resolution, shared by libehelf's spaces (space.c), ehelf_space_fetch
 * and ehelf-find.  First hit wins:
 *
 *   1. each store of $EHELF_PATH (colon-separated)   opened TRUST_LOCAL
 *   2. /usr/lib/ehelf (installed -ehelf packages)     opened TRUST_LOCAL
 *   3. the cache (fetch.h)                            opened TRUST_SIGNED
 *   4. HTTP from $EHELF_URLS into the cache: fetch_ids, by the caller and
 *      never inside an unwind; then resolve_open again finds it in 3.
 *
 * Every file is opened through trust_open (trust.h) with the build-ID
 * expected; the cache's with trust_open_at beneath its directories, which
 * are opened without following links (fetch_cache.h).  A file present but refused (not trusted, malformed, another
 * build-ID) is passed over for the next place; a refused file in the
 * cache is also removed from it (fetch_cache_evict), so that the next
 * fetch asks for it again.
 */
#ifndef EHELF_CLIENT_RESOLVE_H
#define EHELF_CLIENT_RESOLVE_H

#include <stdbool.h>

#include "fetch.h"
#include "include/ehelf.h"

#define RESOLVE_INSTALLED_ROOT "/usr/lib/ehelf"

typedef enum resolve_place {
	RESOLVE_PATH,        /* a store of $EHELF_PATH */
	RESOLVE_INSTALLED,   /* /usr/lib/ehelf */
	RESOLVE_CACHE,       /* the cache */
} resolve_place;

/* "$EHELF_PATH", "/usr/lib/ehelf", "cache". */
const char *resolve_place_name(resolve_place p);

/* Called for each file looked at (ehelf-find -v): its place, its path,
 * and NULL when it was opened, else why not ("absent", or the refusal). */
typedef void resolve_trace_fn(void *arg, resolve_place place, const char *file,
			      const char *outcome);

typedef struct resolve_result {
	char path[4096];       /* the file opened */
	resolve_place place;
	bool refused;          /* some file was present but refused */
	char why[512];         /* then the last refusal ("FILE: reason") */
} resolve_result;

/* The process-wide fetch configuration: fetch_config_load once, on first
 * use.  NULL when it could not be loaded (a trusted-key file that is not
 * a key): ehelf_last_error() says why, and the cache and fetching are
 * then not used. */
const fetch_config *resolve_config(void);

/* Open HEX's eh_elf from the first of places 1-3 that has one that
 * passes; C is the configuration for the cache (NULL: resolve_config()).
 * RES (may be NULL) receives where, or the last refusal; TRACE (may be
 * NULL) is called as said above.  Returns the object, or NULL with the
 * last refusal, or "no eh_elf", in ehelf_last_error(). */
ehelf_object *resolve_open(const char *hex, const fetch_config *c,
			   resolve_result *res, resolve_trace_fn *trace,
			   void *arg);

#endif
