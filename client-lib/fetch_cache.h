/*
 * fetch_cache.h - the user's cache of fetched eh_elfs (fetch.h), as
 * libdebuginfod keeps its own:
 *
 *   CACHE/.build-id/XX/REST.so        an eh_elf, mode 0400, checked before
 *                                     it was written (and again when opened)
 *   CACHE/.build-id/XX/REST.so.sig    its signature, written before it
 *   CACHE/.build-id/XX/REST.so.miss   a negative entry: one line, "not
 *                                     found: ..." or "refused: ...", valid
 *                                     for cache_miss_s after its mtime
 *   CACHE/cache_miss_s, cache_clean_interval_s, max_unused_age_s
 *                                     the parameters, one number each; the
 *                                     interval file's mtime is the last
 *                                     cleaning
 *
 * Every file is written to a temporary name (".tmp-*") and renamed.  The
 * cache directory and its subdirectories are created mode 0700.
 */
#ifndef EHELF_CLIENT_FETCH_CACHE_H
#define EHELF_CLIENT_FETCH_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"
#include "fetch_types.h"

/* The cache's parameters, libdebuginfod's defaults. */
enum {
	CACHE_MISS_S_DEFAULT = 600,
	CACHE_CLEAN_INTERVAL_S_DEFAULT = 86400,
	MAX_UNUSED_AGE_S_DEFAULT = 604800,
};

/* The cache path of HEX's eh_elf into OUT.  Returns 0 or -1. */
int fetch_cache_path(const fetch_config *c, const char *hex, char *out,
		     size_t n);

/* Read the parameter files of C->cache into C (defaults for those
 * missing or unreadable). */
void fetch_cache_params(fetch_config *c);

/* What the cache holds for HEX. */
typedef enum cache_state {
	CACHE_ABSENT,   /* nothing (an expired negative entry is removed) */
	CACHE_PRESENT,  /* REST.so */
	CACHE_MISS,     /* a negative entry younger than cache_miss_s */
} cache_state;

/* Look HEX up.  For CACHE_MISS, *REFUSED says whether it records refused
 * downloads rather than absence, and WHY (WHYLEN bytes) receives its
 * line. */
cache_state fetch_cache_lookup(const fetch_config *c, const char *hex,
			       bool *refused, char *why, size_t whylen);

/* Put a download that passed its checks in place: SIG (SIGLEN bytes; NULL
 * when unsigned) then IMG (LEN bytes), and the negative entry removed.
 * Returns 0 or ERR_IO with the message. */
int fetch_cache_store(const fetch_config *c, const char *hex,
		      const void *img, size_t len, const char *sig,
		      size_t siglen, ehelf_err *err);

/* Record a negative entry for HEX: REFUSED or not found, with the reason
 * WHY.  Returns 0 or ERR_IO. */
int fetch_cache_miss(const fetch_config *c, const char *hex, bool refused,
		     const char *why, ehelf_err *err);

/* Remove HEX's eh_elf and signature: a cached file that failed its checks
 * when opened (resolve.h), so that the next fetch asks again. */
void fetch_cache_evict(const fetch_config *c, const char *hex);

/* Create the cache if missing (with the parameter files), then, when
 * cache_clean_interval_s has passed since the last cleaning, clean it:
 * eh_elfs (and their signatures) not read for max_unused_age_s, negative
 * entries older than cache_miss_s, temporaries and lone signatures over
 * an hour old, empty XX directories.  Returns 0 or ERR_IO. */
int fetch_cache_prepare(const fetch_config *c, ehelf_err *err);

#endif
