/* workloads.c - see workloads.h. */
#define _GNU_SOURCE
#include "workloads.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- zlib ------------------------------------------------------------------ */

static unsigned long work_zlib(double seconds)
{
	enum { N = 256 * 1024 };
	static unsigned char in[N], out[N + N / 8 + 64], back[N];
	uint32_t x = 12345;
	static const char *const words[] = { "unwind ", "frame ", "eh_elf ",
					     "register ", "stack ", "dwarf " };
	for (size_t i = 0; i < N;) { /* compressible text with some noise */
		x = x * 1103515245 + 12345;
		const char *w = words[(x >> 16) % 6];
		for (; *w && i < N; w++)
			in[i++] = (x >> 8) % 17 ? (unsigned char)*w : (unsigned char)x;
	}
	unsigned long sum = 0;
	double end = cpu_now() + seconds;
	do {
		uLongf olen = sizeof out, blen = sizeof back;
		compress2(out, &olen, in, N, 6);
		uncompress(back, &blen, out, olen);
		sum += olen + crc32(0, back, (uInt)blen);
	} while (cpu_now() < end);
	return sum;
}

/* ---- qsort ------------------------------------------------------------------ */

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static unsigned long work_qsort(double seconds)
{
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof *v);
	if (!v)
		return 0;
	unsigned long sum = 0;
	uint64_t x = 88172645463325252ull;
	double end = cpu_now() + seconds;
	do {
		for (int i = 0; i < N; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[i] = x % 1000003;
		}
		qsort(v, N, sizeof *v, by_value);
		sum += v[N / 2];
	} while (cpu_now() < end);
	free(v);
	return sum;
}

/* ---- sqlite ------------------------------------------------------------------ */

static int count_row(void *arg, int n, char **vals, char **names)
{
	(void)names;
	*(unsigned long *)arg += (unsigned long)n + (vals[0] ? strlen(vals[0]) : 0);
	return 0;
}

static unsigned long work_sqlite(double seconds)
{
	sqlite3 *db;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		return 0;
	unsigned long sum = 0;
	sqlite3_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);"
			 "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c "
			 "WHERE i < 20000) INSERT INTO t SELECT i, 'row' || (i * 7919 % 20000), "
			 "(i * 31 % 977) / 7.0 FROM c;", NULL, NULL, NULL);
	static const char *const queries[] = {
		"SELECT name, sum(v) FROM t GROUP BY id % 97 ORDER BY 2 DESC LIMIT 5",
		"SELECT count(*) FROM t WHERE name LIKE '%99%'",
		"SELECT a.id FROM t a JOIN t b ON a.id = b.id * 3 WHERE a.v > 50 LIMIT 50",
		"SELECT group_concat(name, ',') FROM (SELECT name FROM t ORDER BY v, name LIMIT 300)",
	};
	double end = cpu_now() + seconds;
	for (int i = 0; cpu_now() < end; i++)
		sqlite3_exec(db, queries[i % 4], count_row, &sum, NULL);
	sqlite3_close(db);
	return sum;
}

const workload workloads[] = {
	{ "zlib", work_zlib },
	{ "qsort", work_qsort },
	{ "sqlite", work_sqlite },
	{ "c++", work_cxx },
};
const int n_workloads = sizeof workloads / sizeof workloads[0];

/* ---- the sampler --------------------------------------------------------------- */

static timer_t timer;
static int timer_on;

int sampler_start(void (*handler)(int, siginfo_t *, void *), long period_ns)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) < 0)
		return -1;
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) < 0)
		return -1;
	timer_on = 1;
	struct itimerspec its = { { 0, period_ns }, { 0, period_ns } };
	return timer_settime(timer, 0, &its, NULL);
}

void sampler_stop(void)
{
	if (timer_on)
		timer_delete(timer);
	timer_on = 0;
	signal(SIGPROF, SIG_IGN);
}
