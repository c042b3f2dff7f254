/*
 * cold_sampling.c - the cold sampling benchmark: a program that
 * samples itself with SIGPROF over cache-thrashing work and unwinds in the
 * handler, as a sampling profiler does.  Written only against Debian's
 * <libunwind.h> (methods "backtrace": unw_backtrace, "step": the
 * unw_getcontext / unw_init_local / unw_step loop reading each frame's ip),
 * so that it runs against libunwind or, LD_PRELOADed, libehelf-unwind; built
 * with -DCOLD_NATIVE it uses <ehelf.h> instead ("backtrace":
 * ehelf_backtrace, "local": ehelf_unwind_local from the signal's context).
 * Method "none" only takes the timestamps (for the overhead).
 *
 * Usage: cold-sampling METHOD WORKLOAD RATE SECONDS
 *   WORKLOAD  zlib, qsort, sqlite (or cxx when linked with cold_cxx.cc)
 *   RATE      "tick": setitimer(ITIMER_PROF) every 1 ms of CPU time, which
 *             the kernel honours at its tick at most (CONFIG_HZ);
 *             "max:US": a POSIX timer on CLOCK_MONOTONIC every US
 *             microseconds (hrtimers), sent to this thread; "prof:US":
 *             ITIMER_PROF every US microseconds (for runs under valgrind,
 *             where CPU time runs some 50 times slower)
 *   SECONDS   of this thread's CPU time
 * Prints one line: method workload samples rate-achieved(Hz) frames/sample
 * ns/frame(first sample excluded) ns/frame(first sample) frames(total)
 * median-ns/frame check program-frames(total) ns/program-frame(first
 * excluded) ns/program-frame(first sample), then the samples but the
 * first split by whether their interrupted pc was new (no earlier sample
 * of the process was taken there: the unwinder has not met it) or seen
 * before: samples-new ns/program-frame(new) samples-seen
 * ns/program-frame(seen).  Program frames are those from the interrupted
 * pc outwards: what a profiler keeps.  The methods that start in the
 * handler (unw_backtrace, the unw_step loop, ehelf_backtrace) also walk
 * the handler's and the signal trampoline's frames, which
 * ehelf_unwind_local, starting from the signal's context, does not: the
 * same work per sample is compared only per program frame.
 * Each sample is timed with rdtsc around the unwind only; the TSC is
 * calibrated against CLOCK_MONOTONIC over the run.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <x86intrin.h>

#include <sqlite3.h>
#include <valgrind/callgrind.h>
#include <zlib.h>

#ifdef COLD_NATIVE
#include "ehelf.h"
#else
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

enum { MAXF = 128, MAXS = 1 << 17 };

unsigned long work_cxx(double seconds) __attribute__((weak));

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double mono_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- the unwind, one method per run ------------------------------------- */

static int method;
enum { M_NONE, M_BACKTRACE, M_STEP };
#ifdef COLD_NATIVE
static ehelf_space *space;
#endif

/* The unwind alone (valgrind's --toggle-collect names this function); the
 * pcs go to a buffer a profiler would keep. */
static __attribute__((noinline)) int cold_unwind(void *ucv, void **pcs)
{
	switch (method) {
	case M_BACKTRACE:
#ifdef COLD_NATIVE
		return ehelf_backtrace(pcs, MAXF);
#else
		return unw_backtrace(pcs, MAXF);
#endif
	case M_STEP: {
#ifdef COLD_NATIVE
		ehelf_regs r;
		ehelf_frame f[MAXF];
		ehelf_regs_from_ucontext(&r, ucv);
		int n = ehelf_unwind_local(space, &r, f, MAXF, 0);
		for (int i = 0; i < n; i++)
			pcs[i] = (void *)(uintptr_t)f[i].pc;
		return n < 0 ? 0 : n;
#else
		(void)ucv;
		unw_context_t uc;
		unw_cursor_t c;
		unw_getcontext(&uc);
		if (unw_init_local(&c, &uc) < 0)
			return 0;
		int n = 0;
		do {
			unw_word_t ip;
			if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0)
				break;
			pcs[n++] = (void *)(uintptr_t)ip;
		} while (n < MAXF && unw_step(&c) > 0);
		return n;
#endif
	}
	}
	return 0;
}

static uint32_t s_ticks[MAXS], s_frames[MAXS], s_prog[MAXS];
static uint64_t s_pc[MAXS]; /* the interrupted pc */
static volatile int nsamples;
static void *pcs[MAXF];
static volatile uintptr_t pcsum;

static void on_prof(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)si;
	unsigned aux;
	int i = nsamples;
	/* under callgrind (--collect-atstart=no), the events of the unwinds
	 * but the first (which builds the unwinder's state) are counted;
	 * natively a few instructions, outside the timed part */
	if (i > 0)
		CALLGRIND_TOGGLE_COLLECT;
	uint64_t t0 = __rdtscp(&aux);
	int n = cold_unwind(ucv, pcs);
	uint64_t t1 = __rdtscp(&aux);
	if (i > 0)
		CALLGRIND_TOGGLE_COLLECT;
	if (i < MAXS) {
		s_ticks[i] = (uint32_t)(t1 - t0);
		s_frames[i] = (uint32_t)(n > 0 ? n : 0);
		/* the program's frames: from the interrupted pc (none if the
		 * unwind did not reach it) */
		uintptr_t ip = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
		s_pc[i] = ip;
		s_prog[i] = 0;
		for (int j = 0; j < n; j++)
			if ((uintptr_t)pcs[j] == ip) {
				s_prog[i] = (uint32_t)(n - j);
				break;
			}
		nsamples = i + 1;
	}
	if (n > 0)
		pcsum += (uintptr_t)pcs[n - 1];
}

/* ---- cache-thrashing work ----------------------------------------------- */

/* zlib: compress2 and uncompress of 8 MiB of noisy text */
static unsigned long work_zlib(double seconds)
{
	enum { N = 8 << 20 };
	unsigned char *in = malloc(N), *out = malloc(N + N / 8 + 64), *back = malloc(N);
	if (!in || !out || !back)
		return 0;
	uint32_t x = 12345;
	static const char *const words[] = { "unwind ", "frame ", "eh_elf ",
					     "register ", "stack ", "dwarf " };
	for (size_t i = 0; i < N;) {
		x = x * 1103515245 + 12345;
		const char *w = words[(x >> 16) % 6];
		for (; *w && i < N; w++)
			in[i++] = (x >> 8) % 17 ? (unsigned char)*w : (unsigned char)x;
	}
	unsigned long sum = 0;
	double end = cpu_now() + seconds;
	do {
		uLongf olen = N + N / 8 + 64, blen = N;
		compress2(out, &olen, in, N, 6);
		uncompress(back, &blen, out, olen);
		sum += olen + crc32(0, back, (uInt)blen);
	} while (cpu_now() < end);
	free(in);
	free(out);
	free(back);
	return sum;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* qsort: 2 Mi 8-byte keys (16 MiB, and glibc's merge buffer as much) */
static unsigned long work_qsort(double seconds)
{
	enum { N = 2 << 20 };
	uint64_t *v = malloc(N * sizeof *v);
	if (!v)
		return 0;
	unsigned long sum = 0;
	uint64_t x = 88172645463325252ull;
	double end = cpu_now() + seconds;
	do {
		for (int i = 0; i < N; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[i] = x;
		}
		qsort(v, N, sizeof *v, by_value);
		sum += v[N / 2];
	} while (cpu_now() < end);
	free(v);
	return sum;
}

static int count_row(void *arg, int n, char **vals, char **names)
{
	(void)names;
	*(unsigned long *)arg += (unsigned long)n + (vals[0] ? strlen(vals[0]) : 0);
	return 0;
}

/* sqlite: an in-memory table of 200,000 rows (some 20 MiB with its
 * index), scanned, grouped, joined and sorted */
static unsigned long work_sqlite(double seconds)
{
	sqlite3 *db;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		return 0;
	unsigned long sum = 0;
	sqlite3_exec(db, "PRAGMA cache_size=-65536;"
			 "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);"
			 "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c "
			 "WHERE i < 200000) INSERT INTO t SELECT i, 'row' || (i * 7919 % 200000)"
			 " || '-padding-padding-padding', (i * 31 % 977) / 7.0 FROM c;"
			 "CREATE INDEX tn ON t(name);", NULL, NULL, NULL);
	static const char *const queries[] = {
		"SELECT name, sum(v) FROM t GROUP BY id % 997 ORDER BY 2 DESC LIMIT 5",
		"SELECT count(*) FROM t WHERE name LIKE '%99%'",
		"SELECT a.id FROM t a JOIN t b ON a.name = b.name WHERE a.v > 130 LIMIT 500",
		"SELECT group_concat(name, ',') FROM (SELECT name FROM t ORDER BY v, id DESC LIMIT 3000)",
	};
	double end = cpu_now() + seconds;
	for (int i = 0; cpu_now() < end; i++)
		sqlite3_exec(db, queries[i % 4], count_row, &sum, NULL);
	sqlite3_close(db);
	return sum;
}

/* ---- the run -------------------------------------------------------------- */

/* Samples ordered by interrupted pc, then in time (see new_pcs()). */
static int cmp_pc_then_index(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	if (s_pc[i] != s_pc[j])
		return s_pc[i] < s_pc[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* NEW[i]: whether sample i (of N) is the process's first at its
 * interrupted pc. */
static void new_pcs(int n, bool *new)
{
	static uint32_t order[MAXS];
	for (int i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort(order, (size_t)n, sizeof *order, cmp_pc_then_index);
	for (int k = 0; k < n; k++)
		new[order[k]] = k == 0 || s_pc[order[k]] != s_pc[order[k - 1]];
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s METHOD WORKLOAD tick|max:US|prof:US SECONDS\n",
			argv[0]);
		return 2;
	}
	const char *mname = argv[1], *wname = argv[2], *rate = argv[3];
	double seconds = atof(argv[4]);
	method = !strcmp(mname, "none") ? M_NONE
		 : !strcmp(mname, "backtrace") ? M_BACKTRACE
		 : !strcmp(mname, "step") || !strcmp(mname, "local") ? M_STEP : -1;
	unsigned long (*work)(double) =
		!strcmp(wname, "zlib") ? work_zlib
		: !strcmp(wname, "qsort") ? work_qsort
		: !strcmp(wname, "sqlite") ? work_sqlite
		: !strcmp(wname, "cxx") ? work_cxx : NULL;
	if (method < 0 || !work) {
		fprintf(stderr, "%s: unknown method or workload\n", argv[0]);
		return 2;
	}
#ifdef COLD_NATIVE
	/* ehelf_backtrace is async-signal-safe once its space is built
	 * (ehelf.h): built here, as documented */
	if (method == M_BACKTRACE && ehelf_backtrace_init() < 0)
		fprintf(stderr, "%s: %s\n", argv[0], ehelf_last_error());
	if (method == M_STEP) { /* a profiler's space: built before sampling */
		space = ehelf_space_new();
		if (!space || ehelf_space_load_self(space) < 0)
			fprintf(stderr, "%s: %s\n", argv[0], ehelf_last_error());
	}
#endif
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	timer_t timer;
	bool posix = !strncmp(rate, "max:", 4);
	long us = !strcmp(rate, "tick") ? 1000 : atol(strchr(rate, ':') ? strchr(rate, ':') + 1 : "1000");
	if (us <= 0)
		us = 1000;
	double c0 = cpu_now(), m0 = mono_now();
	unsigned aux;
	uint64_t tsc0 = __rdtscp(&aux);
	if (posix) {
		struct sigevent ev;
		memset(&ev, 0, sizeof ev);
		ev.sigev_notify = SIGEV_THREAD_ID;
		ev.sigev_signo = SIGPROF;
		ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
		struct itimerspec its = { { 0, us * 1000 }, { 0, us * 1000 } };
		if (timer_create(CLOCK_MONOTONIC, &ev, &timer) < 0 ||
		    timer_settime(timer, 0, &its, NULL) < 0) {
			perror("timer");
			return 1;
		}
	} else {
		struct itimerval it = { { us / 1000000, us % 1000000 },
					{ us / 1000000, us % 1000000 } };
		setitimer(ITIMER_PROF, &it, NULL);
	}
	unsigned long sum = work(seconds);
	if (posix) {
		timer_delete(timer);
	} else {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };
		setitimer(ITIMER_PROF, &off, NULL);
	}
	signal(SIGPROF, SIG_IGN);
	double c1 = cpu_now(), m1 = mono_now();
	uint64_t tsc1 = __rdtscp(&aux);
	double ns_per_tick = (m1 - m0) * 1e9 / (double)(tsc1 - tsc0);
	int n = nsamples;
	double ticks = 0, frames = 0, prog = 0;
	for (int i = 1; i < n; i++) {
		ticks += s_ticks[i];
		frames += s_frames[i];
		prog += s_prog[i];
	}
	/* the median sample, as a check on outliers (ns per frame) */
	static uint32_t per[MAXS];
	int k = 0;
	for (int i = 1; i < n; i++)
		if (s_frames[i])
			per[k++] = (uint32_t)(s_ticks[i] / s_frames[i]);
	qsort(per, (size_t)k, sizeof *per, cmp_u32);
	/* the samples at a pc new to the process against those at one seen
	 * before (the unwinder's caches may hold it) */
	static bool new[MAXS];
	new_pcs(n, new);
	double split_ticks[2] = { 0, 0 }, split_prog[2] = { 0, 0 };
	int split_n[2] = { 0, 0 };
	for (int i = 1; i < n; i++) {
		split_ticks[new[i]] += s_ticks[i];
		split_prog[new[i]] += s_prog[i];
		split_n[new[i]]++;
	}
	printf("%s %s %d %.0f %.2f %.1f %.1f %.0f %.1f %lu %.0f %.1f %.1f"
	       " %d %.1f %d %.1f\n", mname,
	       wname, n, n / (posix ? m1 - m0 : c1 - c0),
	       n > 1 ? frames / (n - 1) : 0,
	       frames ? ticks * ns_per_tick / frames : 0,
	       n && s_frames[0] ? s_ticks[0] * ns_per_tick / s_frames[0] : 0,
	       frames, k ? per[k / 2] * ns_per_tick : 0, (sum + pcsum) % 10,
	       prog, prog ? ticks * ns_per_tick / prog : 0,
	       n && s_prog[0] ? s_ticks[0] * ns_per_tick / s_prog[0] : 0,
	       split_n[1], split_prog[1] ? split_ticks[1] * ns_per_tick / split_prog[1] : 0,
	       split_n[0], split_prog[0] ? split_ticks[0] * ns_per_tick / split_prog[0] : 0);
	return 0;
}
