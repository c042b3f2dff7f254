/*
 * workloads.h - real work to interrupt at arbitrary pcs, for the sampling
 * test and benchmark of the unwinder: zlib compression, qsort with a
 * callback, sqlite queries and a C++ program (strings, maps, streams and
 * exceptions through libstdc++ and libgcc).  And the sampler: a POSIX
 * timer sending SIGPROF to the calling thread at a fixed period.
 */
#ifndef EHELF_TESTS_WORKLOADS_H
#define EHELF_TESTS_WORKLOADS_H

#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct workload {
	const char *name;
	/* Work for about SECONDS of this thread's CPU time; returns a value
	 * derived from the work (so that nothing is optimized away). */
	unsigned long (*run)(double seconds);
} workload;

extern const workload workloads[];
extern const int n_workloads;

unsigned long work_cxx(double seconds); /* workloads_cxx.cc */

/* Whether SECONDS of this thread's CPU time have passed since START (as
 * returned by cpu_now()); checked every few iterations. */
double cpu_now(void);

/* Deliver SIGPROF to the calling thread every PERIOD_NS of wall-clock time,
 * handled by HANDLER (SA_SIGINFO | SA_RESTART).  Returns 0 or -1 (errno). */
int sampler_start(void (*handler)(int, siginfo_t *, void *), long period_ns);
void sampler_stop(void);

#ifdef __cplusplus
}
#endif

#endif
