/* fetch_config.c - fetch.h's configuration from the environment. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/eh_elf_check.h"
#include "fetch.h"
#include "fetch_cache.h"

#define DEFAULT_TRUSTED_KEYS "/etc/ehelf/trusted-keys"

/* A positive number from variable NAME, else DEF. */
static double env_number(const char *name, double def)
{
	const char *v = secure_getenv(name);
	char *end;
	double x = v && *v ? strtod(v, &end) : 0;
	return v && *v && !*end && x > 0 ? x : def;
}

/* Is variable NAME set, non-empty and not "0"? */
static bool env_flag(const char *name)
{
	const char *v = secure_getenv(name);
	return v && *v && strcmp(v, "0") != 0;
}

/* The URLs of the space-separated list S, trailing slashes removed, into
 * a NULL-terminated array. */
static char **split_urls(const char *s)
{
	size_t n = 0, cap = 4;
	char **v = calloc(cap + 1, sizeof *v);
	for (const char *p = s; v && p && *p;) {
		p += strspn(p, " \t\n");
		size_t len = strcspn(p, " \t\n");
		if (!len)
			break;
		if (n == cap) {
			char **w = realloc(v, (2 * cap + 1) * sizeof *v);
			if (!w)
				break;
			v = w;
			cap *= 2;
		}
		size_t keep = len;
		while (keep > 1 && p[keep - 1] == '/')
			keep--;
		if ((v[n] = strndup(p, keep)) != NULL)
			n++;
		v[n] = NULL;
		p += len;
	}
	return v;
}

/* The cache's root into C->cache (empty when none of the variables is
 * set: no getpwuid, whose NSS modules may be loaded with dlopen, while a
 * space is built). */
static void cache_root(fetch_config *c)
{
	const char *p = secure_getenv("EHELF_CACHE_PATH");
	const char *xdg = secure_getenv("XDG_CACHE_HOME");
	const char *home = secure_getenv("HOME");
	int n = p && *p ? snprintf(c->cache, sizeof c->cache, "%s", p)
	      : xdg && *xdg == '/' ? snprintf(c->cache, sizeof c->cache,
					      "%s/ehelf", xdg)
	      : home && *home ? snprintf(c->cache, sizeof c->cache,
					 "%s/.cache/ehelf", home)
	      : -1;
	if (n < 0 || (size_t)n >= sizeof c->cache)
		c->cache[0] = '\0';
	while (n > 1 && (size_t)n < sizeof c->cache && c->cache[n - 1] == '/')
		c->cache[--n] = '\0';
}

int fetch_config_load(fetch_config *c, ehelf_err *err)
{
	memset(c, 0, sizeof *c);
	c->urls = split_urls(secure_getenv("EHELF_URLS"));
	c->keys = sign_keyring_new();
	if (!c->urls || !c->keys) {
		fetch_config_free(c);
		return err_set(err, ERR_NOMEM, "out of memory");
	}
	cache_root(c);
	c->timeout = env_number("EHELF_TIMEOUT", 10);
	c->retry_limit = (int)env_number("EHELF_RETRY_LIMIT", 2);
	double max = env_number("EHELF_MAXSIZE", FETCH_MAXSIZE_DEFAULT);
	c->maxsize = max < EH_ELF_MAX_BYTES ? (size_t)max : EH_ELF_MAX_BYTES;
	c->progress = env_flag("EHELF_PROGRESS");
	c->verbose = env_flag("EHELF_VERBOSE");
	const char *u = secure_getenv("EHELF_ALLOW_UNSIGNED");
	c->allow_unsigned = u && !strcmp(u, "1");
	fetch_cache_params(c);
	const char *dirs = secure_getenv("EHELF_TRUSTED_KEYS");
	int rc = sign_keyring_add_dirs(c->keys, dirs && *dirs ? dirs
						   : DEFAULT_TRUSTED_KEYS, err);
	if (rc < 0) {
		err_prefix(err, "trusted keys");
		fetch_config_free(c);
		return rc;
	}
	static atomic_bool warned;
	if (c->allow_unsigned && !atomic_exchange(&warned, true))
		fprintf(stderr, "ehelf: warning: EHELF_ALLOW_UNSIGNED=1: eh_elfs "
			"from the cache and the network are accepted without a "
			"valid signature (development only)\n");
	return 0;
}

void fetch_config_free(fetch_config *c)
{
	for (char **u = c->urls; u && *u; u++)
		free(*u);
	free(c->urls);
	sign_keyring_free(c->keys);
	c->urls = NULL;
	c->keys = NULL;
}

void fetch_say(const fetch_config *c, bool progress, const char *fmt, ...)
{
	if (!c->verbose && !(progress && c->progress))
		return;
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "ehelf: %s\n", line);
}

const char *fetch_status_str(fetch_status s)
{
	switch (s) {
	case FETCH_CACHED: return "cached";
	case FETCH_NOT_FOUND: return "not found";
	case FETCH_REFUSED: return "refused";
	case FETCH_FAILED: return "failed";
	}
	return "?";
}
