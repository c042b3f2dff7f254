/*
 * fetch.h - eh_elfs from HTTP servers into the user's cache, with
 * libdebuginfod's conventions (docs/design.md, "Client resolution").
 *
 * Configuration (read with secure_getenv, once, by fetch_config_load):
 *   EHELF_URLS             space-separated server URLs (none: no fetching)
 *   EHELF_CACHE_PATH       the cache, itself a store (CACHE/.build-id/XX/
 *                          REST.so and .sig); else $XDG_CACHE_HOME/ehelf,
 *                          else ~/.cache/ehelf
 *   EHELF_TIMEOUT          seconds one fetch_ids call may take (default 10)
 *   EHELF_RETRY_LIMIT      attempts per server on transport errors (2)
 *   EHELF_MAXSIZE          bytes the downloads of one fetch_ids call may
 *                          hold at once, so the largest eh_elf accepted
 *                          (FETCH_MAXSIZE_DEFAULT; at most EH_ELF_MAX_BYTES)
 *   EHELF_PROGRESS         progress lines on stderr
 *   EHELF_VERBOSE          each request and decision on stderr
 *   EHELF_TRUSTED_KEYS     colon-separated directories of *.pem public keys
 *                          (default /etc/ehelf/trusted-keys)
 *   EHELF_ALLOW_UNSIGNED=1 accept eh_elfs without a valid signature
 *                          (development only; warns)
 * and, in the cache as libdebuginfod keeps them, the files cache_miss_s
 * (seconds a miss is remembered, default 600), cache_clean_interval_s
 * (86400) and max_unused_age_s (604800), written with their defaults
 * when the cache is created (fetch_cache.h: the cache's layout, negative
 * entries and cleaning).
 *
 * EHELF_ALLOW_UNSIGNED=1 is announced by a warning on stderr, once per
 * process, when a configuration is loaded with it.
 *
 * Fetching never happens inside an unwind: callers fetch from a normal
 * thread (ehelf_space_fetch, libehelf-unwind's background thread,
 * ehelf-perf before it unwinds, ehelf-find).
 */
#ifndef EHELF_CLIENT_FETCH_H
#define EHELF_CLIENT_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"
#include "fetch_types.h"

/* EHELF_MAXSIZE's default: 64 MiB, 25 times the largest eh_elf of a
 * Debian 12 system (libLLVM-14.so.1's, 2.5 MiB; docs/trust.md). */
#define FETCH_MAXSIZE_DEFAULT (64u << 20)

/* Read the configuration from the environment.  Returns 0, or a negative
 * ERR_* (a trusted-key file that is not a key) with the message. */
int fetch_config_load(fetch_config *c, ehelf_err *err);
void fetch_config_free(fetch_config *c);

/* Outcome of one build-ID. */
typedef enum fetch_status {
	FETCH_CACHED = 0,      /* in the cache already, or fetched into it */
	FETCH_NOT_FOUND = 1,   /* no server has it (now, or remembered) */
	FETCH_REFUSED = 2,     /* a server sent one that failed the trust
				* checks (bad signature, unknown key, not an
				* eh_elf, another build-ID): not kept */
	FETCH_FAILED = 3,      /* transport errors, timeout */
} fetch_status;

/* Fetch the eh_elfs of the N build-IDs HEX into the cache, all servers
 * asked in parallel with libcurl's multi interface, the first good
 * answer winning.  An eh_elf already in the cache is not asked for (nor
 * checked: opening it does that, resolve.h), nor is one with a negative
 * entry younger than cache_miss_s.  A download is streamed into a
 * temporary file in the cache (never into memory: a fetch's memory is
 * libcurl's 16 KiB buffer per transfer, at most 8 transfers per server,
 * and one read-only mapping of a finished download while it is checked),
 * the bytes of all transfers at once at most EHELF_MAXSIZE; it is checked
 * with trust_check_bytes (TRUST_SIGNED; the signature from the
 * X-EHELF-SIGNATURE header, else GET .../eh_elf.sig), then its signature
 * is written and the temporary renamed into place, mode 0400; refused,
 * the temporary is removed.  A build-ID no server has, or whose downloads
 * were all refused, gets a negative entry; transport errors and timeouts
 * do not.  The whole call takes at most c->timeout seconds (a server
 * that accepts and never answers costs that); transport errors are
 * retried up to c->retry_limit attempts per server within it.
 * STATUS[i] and, when not NULL, WHY[i] (a line each, 256 bytes) receive
 * each outcome.  Thread-safe (calls share nothing but the cache).
 * Returns the number fetched or found cached, or a negative ERR_* when
 * nothing could be tried (an invalid build-ID, a cache that cannot be
 * created). */
int fetch_ids(const fetch_config *c, const char *const *hex, size_t n,
	      fetch_status *status, char (*why)[256], ehelf_err *err);

/* "cached", "not found", "refused", "failed". */
const char *fetch_status_str(fetch_status s);

#endif
