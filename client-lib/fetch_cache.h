/*
 * fetch_cache.h - the user's cache of fetched eh_elfs (fetch.h), as
 * libdebuginfod keeps its own:
 *
 *   CACHE/.build-id/XX/REST.so        an eh_elf, mode 0400, checked before
 *                                     it was renamed there (and again when
 *                                     opened)
 *   CACHE/.build-id/XX/REST.so.sig    its signature, written before it
 *   CACHE/.build-id/XX/REST.so.miss   a negative entry: one line, "not
 *                                     found: ..." or "refused: ...", valid
 *                                     for cache_miss_s after its mtime
 *   CACHE/cache_miss_s, cache_clean_interval_s, max_unused_age_s
 *                                     the parameters, one number each; the
 *                                     interval file's mtime is the last
 *                                     cleaning
 *
 * Nothing outside the cache is opened for writing or removed: CACHE is
 * opened once per call with O_DIRECTORY|O_NOFOLLOW, and every path under
 * it component by component with openat(O_NOFOLLOW) (O_DIRECTORY for the
 * directories, O_NONBLOCK for files: a FIFO does not block), removals
 * with unlinkat on those descriptors.  CACHE must be a directory (not a
 * symbolic link) owned by the effective user and writable by nobody else,
 * or it is refused with a message saying so (ERR_IO).  Below it, what is
 * not the cache's own -- a symbolic link, a FIFO, a directory or file of
 * another user or writable by others -- is never followed nor trusted:
 * a link or file is removed, a directory moved aside to a ".tmp-" name
 * (cleaned like any temporary), so that a planted entry does not deny a
 * fetch.  A negative entry dated in the future (beyond a 2 s clock
 * granularity) counts as expired.
 *
 * Every file is written to a temporary name (".tmp-*") beside its target
 * and renamed; directories are created mode 0700.
 */
#ifndef EHELF_CLIENT_FETCH_CACHE_H
#define EHELF_CLIENT_FETCH_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"
#include "fetch_types.h"

/* The cache's parameters, libdebuginfod's defaults; max_unused_age_s is
 * at least MAX_UNUSED_AGE_S_MIN: a file's atime, the mark of its last
 * use, is updated at most once a day under relatime (Linux's default),
 * so a shorter age cannot tell an eh_elf used a minute ago from an
 * unused one. */
enum {
	CACHE_MISS_S_DEFAULT = 600,
	CACHE_CLEAN_INTERVAL_S_DEFAULT = 86400,
	MAX_UNUSED_AGE_S_DEFAULT = 604800,
	MAX_UNUSED_AGE_S_MIN = 86400,
};

/* The cache path of HEX's eh_elf into OUT (for messages; the cache is
 * never opened by it).  Returns 0 or -1. */
int fetch_cache_path(const fetch_config *c, const char *hex, char *out,
		     size_t n);

/* Read the parameter files of C->cache into C (defaults for those
 * missing, unreadable, links or not the user's). */
void fetch_cache_params(fetch_config *c);

/* HEX's directory CACHE/.build-id/XX, opened beneath the cache as said
 * above, created when CREATE; REST (REST_LEN bytes) receives the eh_elf's
 * name in it ("REST.so").  Returns the descriptor (close it),
 * ERR_NOTFOUND when it does not exist or is not the cache's own (not
 * CREATE), ERR_ARG for an invalid HEX, or ERR_IO with the message (a cache that
 * is a link, not the user's, writable by others; a directory that cannot
 * be created). */
int fetch_cache_dir(const fetch_config *c, const char *hex, bool create,
		    char *rest, size_t rest_len, ehelf_err *err);

/* What the cache holds for HEX. */
typedef enum cache_state {
	CACHE_ABSENT,   /* nothing (an expired, foreign or planted negative
			 * entry, or a planted eh_elf, is removed) */
	CACHE_PRESENT,  /* REST.so: a regular file of the user's (or root's)
			 * not writable by others */
	CACHE_MISS,     /* a negative entry younger than cache_miss_s */
} cache_state;

/* Look HEX up.  For CACHE_MISS, *REFUSED says whether it records refused
 * downloads rather than absence, and WHY (WHYLEN bytes) receives its
 * line. */
cache_state fetch_cache_lookup(const fetch_config *c, const char *hex,
			       bool *refused, char *why, size_t whylen);

/* A download being written into the cache: a temporary file beside its
 * target, renamed into place by fetch_cache_tmp_commit. */
typedef struct cache_tmp {
	int dir;                 /* HEX's directory; -1: not open */
	int fd;                  /* the temporary file */
	char name[192];          /* its name in DIR */
	char rest[160];          /* the target's name, "REST.so" */
} cache_tmp;

#define CACHE_TMP_INIT { .dir = -1, .fd = -1 }

/* Create HEX's temporary file into *T (mode 0600).  Returns 0 or ERR_IO. */
int fetch_cache_tmp_open(const fetch_config *c, const char *hex,
			 cache_tmp *t, ehelf_err *err);

/* Append LEN bytes of DATA to T's file.  Returns 0 or ERR_IO. */
int fetch_cache_tmp_write(cache_tmp *t, const void *data, size_t len,
			  ehelf_err *err);

/* Put T's file, checked by the caller, in place: SIG (SIGLEN bytes; NULL
 * when unsigned) as REST.so.sig first, then T as REST.so, mode 0400, and
 * the negative entry removed.  T is closed either way.  Returns 0 or
 * ERR_IO. */
int fetch_cache_tmp_commit(cache_tmp *t, const char *sig, size_t siglen,
			   ehelf_err *err);

/* Remove T's file and close it (nothing when T is not open). */
void fetch_cache_tmp_discard(cache_tmp *t);

/* fetch_cache_tmp_open, write IMG (LEN bytes), fetch_cache_tmp_commit.
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
 * entries older than cache_miss_s or dated in the future, temporaries and
 * lone signatures over an hour old, empty XX directories.  Returns 0 or
 * ERR_IO (a cache refused as said above). */
int fetch_cache_prepare(const fetch_config *c, ehelf_err *err);

#endif
