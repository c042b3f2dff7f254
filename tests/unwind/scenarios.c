/* scenarios.c - see scenarios.h. */
#include "scenarios.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __thread const char *qsort_name;
static __thread int qsort_calls;

static int compare(const void *a, const void *b)
{
	if (qsort_calls++ == 3)
		probe(qsort_name);
	return *(const int *)a - *(const int *)b;
}

static void run_qsort(const char *name)
{
	int v[16];
	for (int i = 0; i < 16; i++)
		v[i] = (i * 7919) % 16;
	qsort_name = name;
	qsort_calls = 0;
	qsort(v, 16, sizeof v[0], compare);
}

void scen_qsort(void)
{
	run_qsort("qsort");
}

static void on_signal(int sig)
{
	(void)sig;
	probe("signal");
}

void scen_signal(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
}

/* over-aligned locals and a variable-length array: GCC realigns the stack
 * through a DRAP register, the CFA becomes *(rbp - 8) */
__attribute__((noinline)) static int drap(int n)
{
	char vla[n];
	volatile int aligned[8] __attribute__((aligned(64)));
	memset(vla, n, (size_t)n);
	aligned[0] = vla[n - 1];
	probe("drap");
	return aligned[0];
}

void scen_drap(void)
{
	volatile int r = drap(37);
	(void)r;
}

__attribute__((noinline)) static int recurse(int n)
{
	volatile int keep[2] = { n, 0 }; /* a frame per level: no loop */
	if (n == 0) {
		probe("recursive");
		return 0;
	}
	keep[1] = recurse(keep[0] - 1);
	return keep[1] + 1;
}

void scen_recursive(void)
{
	volatile int r = recurse(40);
	(void)r;
}

static void *thread_main(void *arg)
{
	(void)arg;
	run_qsort("thread");
	return NULL;
}

void scen_threads(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL) != 0) {
			fprintf(stderr, "scen_threads: no thread\n");
			abort();
		}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
}

static volatile sig_atomic_t thread_signal_probed;

static void on_signal_thread(int sig)
{
	(void)sig;
	probe("thread-signal");
	thread_signal_probed = 1;
}

static void *thread_signal_main(void *arg)
{
	(void)arg;
	raise(SIGUSR1); /* to this thread */
	return NULL;
}

void scen_thread_signal(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal_thread;
	sigaction(SIGUSR1, &sa, &old);
	/* the thread inherits this mask: SIGUSR1 must reach its handler */
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	pthread_t t;
	if (pthread_create(&t, NULL, thread_signal_main, NULL) != 0 ||
	    pthread_join(t, NULL) != 0 || !thread_signal_probed) {
		fprintf(stderr, "scen_thread_signal: the thread's probe did not run\n");
		abort();
	}
	sigaction(SIGUSR1, &old, NULL);
}

/* scenario_cfa_rbx.S */
void cfa_rbx_outer(void (*leaf)(void), int direct);
void cfa_rbx_sigleaf(void);

__attribute__((noinline)) static void leaf_probe(void)
{
	probe("cfa-rbx");
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

static void on_signal_rbx(int sig)
{
	(void)sig;
	probe("cfa-rbx-signal");
}

void scen_cfa_rbx(void)
{
	for (int i = 0; i < 2; i++)
		cfa_rbx_outer(leaf_probe, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal_rbx;
	sigaction(SIGUSR2, &sa, NULL);
	for (int i = 0; i < 2; i++)
		cfa_rbx_outer(cfa_rbx_sigleaf, 1);
}

void scen_all(void)
{
	scen_qsort();
	scen_signal();
	scen_drap();
	scen_recursive();
	scen_cxx();
	scen_threads();
	scen_thread_signal();
	scen_cfa_rbx();
}
