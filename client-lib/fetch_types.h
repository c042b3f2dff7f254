/*
 * fetch_types.h - the fetch configuration (its variables and defaults:
 * fetch.h), apart so that both sides of fetching use it: fetch.h's
 * downloads and fetch_cache.h's cache, which fetch.c calls.
 */
#ifndef EHELF_CLIENT_FETCH_TYPES_H
#define EHELF_CLIENT_FETCH_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/sign.h"

typedef struct fetch_config {
	char **urls;               /* NULL-terminated; urls[0] NULL: none */
	char cache[4096];          /* the cache store's root */
	double timeout;            /* seconds */
	int retry_limit;
	size_t maxsize;
	bool progress, verbose, allow_unsigned;
	sign_keyring *keys;        /* the trusted keys */
	double cache_miss_s, clean_interval_s, max_unused_age_s;
} fetch_config;

/* A line "ehelf: ..." on stderr when C->verbose, or C->progress and
 * PROGRESS (fetch_config.c). */
void fetch_say(const fetch_config *c, bool progress, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
