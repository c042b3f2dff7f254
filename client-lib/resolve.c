/* resolve.c - see resolve.h. */
#define _GNU_SOURCE
#include "resolve.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

#include "../common/buildid.h"
#include "fetch_cache.h"
#include "object.h"
#include "trust.h"
#include "../store/layout.h"

static pthread_once_t config_once = PTHREAD_ONCE_INIT;
static fetch_config config;
static bool config_ok;
static char config_error[512];

static void config_load(void)
{
	ehelf_err err;
	config_ok = fetch_config_load(&config, &err) == 0;
	if (!config_ok)
		snprintf(config_error, sizeof config_error, "%s", err.msg);
}

const fetch_config *resolve_config(void)
{
	pthread_once(&config_once, config_load);
	if (!config_ok)
		ehelf_set_error("%s", config_error);
	return config_ok ? &config : NULL;
}

const char *resolve_place_name(resolve_place p)
{
	return p == RESOLVE_PATH ? "$EHELF_PATH"
	       : p == RESOLVE_INSTALLED ? RESOLVE_INSTALLED_ROOT : "cache";
}

typedef struct search {
	const char *hex;
	resolve_result *res;
	resolve_trace_fn *trace;
	void *arg;
} search;

static void trace(const search *q, resolve_place place, const char *file,
		  const char *outcome)
{
	if (q->trace)
		q->trace(q->arg, place, file, outcome);
}

/* The outcome O of opening FILE (from PLACE) into Q's result; *REFUSED
 * set when it is NULL (refused).  Returns O. */
static ehelf_object *opened(const search *q, resolve_place place,
			    const char *file, ehelf_object *o, bool *refused)
{
	if (o) {
		snprintf(q->res->path, sizeof q->res->path, "%s", file);
		q->res->place = place;
		trace(q, place, file, NULL);
		return o;
	}
	q->res->refused = *refused = true;
	snprintf(q->res->why, sizeof q->res->why, "%s", ehelf_last_error());
	trace(q, place, file, q->res->why);
	return NULL;
}

/* Try the store ROOT (from PLACE) under POLICY; *REFUSED set when its
 * file is present but refused. */
static ehelf_object *try_store(const search *q, resolve_place place,
			       const char *root, const trust_policy *policy,
			       bool *refused)
{
	char file[4096];
	struct stat st;
	*refused = false;
	if (store_layout_path(root, q->hex, file, sizeof file) < 0)
		return NULL;
	if (lstat(file, &st) != 0) {
		trace(q, place, file, errno == ENOENT ? "absent" : strerror(errno));
		return NULL;
	}
	return opened(q, place, file, trust_open(file, q->hex, policy), refused);
}

/* The same for the cache of C, opened beneath its directories
 * (fetch_cache.h): a link among them is not followed. */
static ehelf_object *try_cache(const search *q, const fetch_config *c,
			       const trust_policy *policy, bool *refused)
{
	char file[4096], rest[160];
	ehelf_err err;
	struct stat st;
	*refused = false;
	if (fetch_cache_path(c, q->hex, file, sizeof file) < 0)
		return NULL;
	int d = fetch_cache_dir(c, q->hex, false, rest, sizeof rest, &err);
	if (d < 0 || fstatat(d, rest, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		trace(q, RESOLVE_CACHE, file, d == ERR_NOTFOUND ||
		      (d >= 0 && errno == ENOENT) ? "absent"
		      : d < 0 ? err.msg : strerror(errno));
		if (d >= 0)
			close(d);
		return NULL;
	}
	ehelf_object *o = trust_open_at(d, rest, file, q->hex, policy);
	close(d);
	return opened(q, RESOLVE_CACHE, file, o, refused);
}

ehelf_object *resolve_open(const char *hex, const fetch_config *c,
			   resolve_result *res, resolve_trace_fn *tr, void *arg)
{
	resolve_result scratch;
	search q = { hex, res ? res : &scratch, tr, arg };
	q.res->refused = false;
	q.res->why[0] = q.res->path[0] = '\0';
	if (!buildid_valid_hex(hex)) {
		ehelf_set_error("invalid build-ID '%.130s'", hex);
		return NULL;
	}
	ehelf_object *o = NULL;
	bool refused;
	const trust_policy local = { .origin = TRUST_LOCAL };
	const char *env = secure_getenv("EHELF_PATH");
	char *path = env ? strdup(env) : NULL;
	if (!env || !env[strspn(env, ":")])
		trace(&q, RESOLVE_PATH, "(not set)", "no store");
	for (char *save = NULL, *d = path ? strtok_r(path, ":", &save) : NULL;
	     d && !o; d = strtok_r(NULL, ":", &save))
		o = try_store(&q, RESOLVE_PATH, d, &local, &refused);
	free(path);
	if (!o)
		o = try_store(&q, RESOLVE_INSTALLED, RESOLVE_INSTALLED_ROOT, &local,
			      &refused);
	if (!o && !c && !(c = resolve_config()))
		trace(&q, RESOLVE_CACHE, "(no cache)", ehelf_last_error());
	if (!o && c && !c->cache[0])
		trace(&q, RESOLVE_CACHE, "(none)", "EHELF_CACHE_PATH, "
		      "XDG_CACHE_HOME and HOME are not set");
	if (!o && c && c->cache[0]) {
		trust_policy signed_ = { .origin = TRUST_SIGNED, .keys = c->keys,
					 .allow_unsigned = c->allow_unsigned };
		o = try_cache(&q, c, &signed_, &refused);
		if (refused)
			fetch_cache_evict(c, hex); /* so that it is fetched again */
	}
	if (!o && q.res->refused)
		ehelf_set_error("%s", q.res->why);
	else if (!o)
		ehelf_set_error("no eh_elf for build-ID %s", hex);
	return o;
}
