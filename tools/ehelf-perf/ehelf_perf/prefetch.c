/* prefetch.c - see prefetch.h. */
#define _GNU_SOURCE
#include "prefetch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../../client-lib/resolve.h"
#include "../../../store/layout.h"

/* Is HEX's eh_elf in the cache of C (fetch.h: a store)? */
static bool in_cache(const fetch_config *c, const char *hex)
{
	char file[4096];
	struct stat st;
	return store_layout_path(c->cache, hex, file, sizeof file) >= 0 &&
	       stat(file, &st) == 0;
}

/* Is HEX's eh_elf found, and does it pass, without fetching (resolve.h:
 * $EHELF_PATH, /usr/lib/ehelf, the cache)? */
static bool found_locally(const fetch_config *c, const char *hex)
{
	ehelf_object *o = resolve_open(hex, c, NULL, NULL, NULL);
	ehelf_object_close(o);
	return o != NULL;
}

/* The fetch_ids call, on its thread. */
struct job {
	const fetch_config *c;
	const char **hex;
	size_t n;
	fetch_status *status;
	char (*why)[256];
	ehelf_err err;
	int rc;
	atomic_bool finished;
};

static void *run_job(void *arg)
{
	struct job *j = arg;
	j->rc = fetch_ids(j->c, j->hex, j->n, j->status, j->why, &j->err);
	atomic_store(&j->finished, true);
	return NULL;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Run J, calling PROGRESS about every 100 ms until it is finished. */
static void run_watched(struct job *j, prefetch_progress_fn progress, void *arg)
{
	pthread_t t;
	if (!progress || pthread_create(&t, NULL, run_job, j) != 0) {
		run_job(j);
		return;
	}
	double next = now_s() + 0.1;
	while (!atomic_load(&j->finished)) {
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
		if (now_s() < next)
			continue;
		size_t done = 0;
		for (size_t i = 0; i < j->n; i++)
			done += in_cache(j->c, j->hex[i]);
		progress(arg, done, j->n);
		next = now_s() + 0.1;
	}
	pthread_join(t, NULL);
}

int prefetch(const fetch_config *c, const id_list *ids,
	     prefetch_progress_fn progress, void *arg, prefetch_result *res,
	     ehelf_err *err)
{
	memset(res, 0, sizeof *res);
	struct job j = { .c = c };
	j.hex = malloc((ids->n ? ids->n : 1) * sizeof *j.hex);
	j.status = malloc((ids->n ? ids->n : 1) * sizeof *j.status);
	j.why = malloc((ids->n ? ids->n : 1) * sizeof *j.why);
	if (!j.hex || !j.status || !j.why) {
		free(j.hex);
		free(j.status);
		free(j.why);
		return err_set(err, ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < ids->n; i++)
		if (found_locally(c, ids->hex[i]))
			res->local++;
		else
			j.hex[j.n++] = ids->hex[i];
	res->asked = j.n;
	int rc = 0;
	if (j.n) {
		run_watched(&j, progress, arg);
		rc = j.rc;
		if (rc < 0)
			*err = j.err;
	}
	for (size_t i = 0; rc >= 0 && i < j.n; i++) {
		char *why = NULL;
		switch (j.status[i]) {
		case FETCH_CACHED: res->fetched++; break;
		case FETCH_NOT_FOUND: res->not_found++; break;
		case FETCH_REFUSED:
			res->refused++;
			why = res->refused_why;
			break;
		case FETCH_FAILED:
			res->failed++;
			why = res->failed_why;
			break;
		}
		if (why && !why[0])
			snprintf(why, 256, "%s", j.why[i]);
	}
	if (progress && rc >= 0 && j.n)
		progress(arg, j.n, j.n);
	free(j.hex);
	free(j.status);
	free(j.why);
	return rc < 0 ? rc : 0;
}
