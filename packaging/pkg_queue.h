/*
 * pkg_queue.h - building the -ehelf packages that changed, N at once: each
 * worker thread takes the next package, reads its metadata, checks its
 * name and version and builds its .deb (pkg_deb.h) in a scratch directory
 * of its own; on a terminal, a progress line on stderr (packages, failures,
 * MiB written, time left), redrawn five times a second.
 *
 * Contract: after pkg_queue_run every job has either err.code 0 and its
 * .deb in the pool at pool_path, or an error message and nothing in the
 * pool; when threads cannot be started the calling thread builds them all.
 */
#ifndef EHELF_PKG_QUEUE_H
#define EHELF_PKG_QUEUE_H

#include <stdatomic.h>
#include <stdint.h>

#include "../common/err.h"
#include "pkg_db.h"
#include "pkg_deb.h"
#include "pkg_meta.h"

typedef struct pkg_job {
	pkg *p;
	char key[65];          /* its pkg_state key */
	char pool_path[512];   /* set when built */
	uint64_t deb_bytes;
	ehelf_err err;         /* code 0: built */
} pkg_job;

typedef struct pkg_queue {
	const pkg_set *set;
	const pkg_dpkg *dpkg;
	pkg_deb_env env;
	pkg_job *jobs;
	size_t n;
	atomic_size_t next, done, failed;
	atomic_uint_fast64_t bytes;
} pkg_queue;

/* Build Q's N jobs with up to JOBS threads. */
void pkg_queue_run(pkg_queue *q, int jobs);

/* Monotonic seconds. */
double pkg_now(void);

#endif
