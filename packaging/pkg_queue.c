/* pkg_queue.c - see pkg_queue.h. */
#define _GNU_SOURCE
#include "pkg_queue.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "pkg_control.h"

typedef struct worker {
	pkg_queue *q;
	int id;
} worker;

static void build_one(pkg_queue *q, pkg_job *j, int id)
{
	pkg_meta m;
	ehelf_err *err = &j->err;
	if (pkg_control_check(j->p, err) < 0 ||
	    pkg_meta_read(j->p, q->dpkg, &m, err) < 0 ||
	    pkg_pool_path(j->p, &m, j->pool_path, sizeof j->pool_path, err) < 0 ||
	    pkg_deb_build(&q->env, q->set, j->p, &m, j->pool_path, id,
			  &j->deb_bytes, err) < 0) {
		if (err->code == 0)
			err_set(err, ERR_IO, "failed");
		atomic_fetch_add(&q->failed, 1);
	} else {
		atomic_fetch_add(&q->bytes, j->deb_bytes);
	}
	atomic_fetch_add(&q->done, 1);
}

static void *work(void *arg)
{
	worker *w = arg;
	pkg_queue *q = w->q;
	for (;;) {
		size_t i = atomic_fetch_add(&q->next, 1);
		if (i >= q->n)
			return NULL;
		build_one(q, &q->jobs[i], w->id);
	}
}

double pkg_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void progress(pkg_queue *q, double start, bool end)
{
	size_t done = atomic_load(&q->done), failed = atomic_load(&q->failed);
	double t = pkg_now() - start;
	fprintf(stderr, "\rehelf-pkg: %zu/%zu packages built, %zu failed, "
		"%.1f MiB of .deb, %.0f s", done, q->n, failed,
		(double)atomic_load(&q->bytes) / 1048576.0, t);
	if (done && !end)
		fprintf(stderr, ", about %.0f s left",
			t * (double)(q->n - done) / (double)done);
	fputs(end ? "\n" : "   ", stderr);
	fflush(stderr);
}

void pkg_queue_run(pkg_queue *q, int jobs)
{
	if (jobs > (int)q->n)
		jobs = (int)q->n;
	if (jobs < 1)
		return;
	pthread_t *t = calloc((size_t)jobs, sizeof *t);
	worker *w = calloc((size_t)jobs, sizeof *w);
	int started = 0;
	for (int i = 0; t && w && i < jobs; i++) {
		w[i] = (worker){ q, i };
		if (pthread_create(&t[i], NULL, work, &w[i]) != 0)
			break;
		started++;
	}
	bool tty = isatty(2);
	double start = pkg_now();
	if (started == 0)
		work(&(worker){ q, 0 });
	while (tty && atomic_load(&q->done) < q->n) {
		progress(q, start, false);
		nanosleep(&(struct timespec){ .tv_nsec = 200000000 }, NULL);
	}
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	if (tty)
		progress(q, start, true);
	free(t);
	free(w);
}
