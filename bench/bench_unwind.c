/*
 * bench-unwind - ns per frame of ehelf's local unwinder against libunwind,
 * libgcc, glibc and libdw, on the same stacks in the same run.
 *
 * (a) A deep stack, warm: a recursion through libc (qsort comparators) and
 *     libstdc++ (ostream inserters calling a stream buffer), each method
 *     unwinding the same stack again and again from its deepest point.
 * (b) Sampling: the workloads of testkit/workloads.h (zlib, qsort,
 *     sqlite, C++) interrupted by SIGPROF every 500 us; in the handler
 *     the method unwinds the interrupted stack, timed with the TSC.  Each
 *     method has its own pass over the same workloads, as each would in a
 *     profiler (run one after another in the same handler, a method would
 *     find the caches evicted by the one before).  Each sample is unwound
 *     twice: the first unwind finds code, tables and stack evicted from
 *     the caches by the work; the second, at once, finds them warm.  libdw cannot run in a
 *     signal handler (it allocates): in the first pass the samples'
 *     registers and stacks are copied, and libdw and ehelf's remote entry
 *     unwind the copies after the run (each pass finding them cold:
 *     read once, then flushed from the caches).
 *
 * ns per frame is each method's total time over its own frame count (the
 * methods that start in the handler also walk the handler and the signal
 * frame).  eh_elfs come from $EHELF_PATH.
 *
 * Usage: bench-unwind LIBEHELF_UNWIND_SO [SECONDS-PER-WORKLOAD]
 * ($BENCH_UNWIND_ONLY=TEXT runs only the sampling methods named with TEXT)
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <immintrin.h>
#include <pthread.h>
#include <libunwind.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <unwind.h>
#include <x86intrin.h>

#include "../client-lib/include/ehelf.h"
#include "../testkit/workloads.h"
#include "../testkit/libdw_unwind.h"

enum { MAXF = 256 };

static ehelf_space *space;
static libdw_unwinder *libdw;

/* ---- libehelf-unwind (libunwind's API on ehelf), loaded beside libunwind -- */

static struct {
	int (*getcontext)(unw_context_t *);
	int (*init_local)(unw_cursor_t *, unw_context_t *);
	int (*init_local2)(unw_cursor_t *, unw_context_t *, int);
	int (*step)(unw_cursor_t *);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
	int (*backtrace)(void **, int);
} compat;

static int load_compat(const char *path)
{
	/* DEEPBIND: its calls to its own unw_* must not go to libunwind's */
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
	if (!h) {
		fprintf(stderr, "bench-unwind: %s\n", dlerror());
		return -1;
	}
	compat.getcontext = (int (*)(unw_context_t *))dlsym(h, "_Ux86_64_getcontext");
	compat.init_local = (int (*)(unw_cursor_t *, unw_context_t *))dlsym(h, "_ULx86_64_init_local");
	compat.init_local2 = (int (*)(unw_cursor_t *, unw_context_t *, int))dlsym(h, "_ULx86_64_init_local2");
	compat.step = (int (*)(unw_cursor_t *))dlsym(h, "_ULx86_64_step");
	compat.get_reg = (int (*)(unw_cursor_t *, unw_regnum_t, unw_word_t *))dlsym(h, "_ULx86_64_get_reg");
	compat.backtrace = (int (*)(void **, int))dlsym(h, "unw_backtrace");
	if (!compat.getcontext || !compat.init_local || !compat.init_local2 ||
	    !compat.step || !compat.get_reg || !compat.backtrace) {
		fprintf(stderr, "bench-unwind: %s lacks libunwind's API\n", path);
		return -1;
	}
	return 0;
}

/* ---- the methods: each unwinds from where it is called, or from UC ------- */

typedef struct method {
	const char *name;
	/* UC: the interrupted context in a signal handler, or NULL for "from
	 * here" (the deep-stack case, where every method starts here) */
	int (*run)(ucontext_t *uc, uint64_t *pcs, int max);
} method;

static int m_ehelf_local(ucontext_t *uc, uint64_t *pcs, int max)
{
	ehelf_regs r;
	if (uc)
		ehelf_regs_from_ucontext(&r, uc);
	else
		ehelf_getcontext(&r);
	ehelf_frame f[MAXF];
	int n = ehelf_unwind_local(space, &r, f, max, EHELF_UNWIND_NO_FALLBACK);
	for (int i = 0; i < n; i++)
		pcs[i] = f[i].pc;
	return n;
}

static int m_ehelf_backtrace(ucontext_t *uc, uint64_t *pcs, int max)
{
	(void)uc;
	return ehelf_backtrace((void **)pcs, max);
}

static int step_loop(unw_cursor_t *c, uint64_t *pcs, int max,
		     int (*step)(unw_cursor_t *),
		     int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *))
{
	int n = 0;
	do {
		unw_word_t ip;
		get_reg(c, UNW_REG_IP, &ip);
		pcs[n++] = ip;
	} while (n < max && step(c) > 0);
	return n;
}

static int m_compat_step(ucontext_t *uc, uint64_t *pcs, int max)
{
	unw_cursor_t c;
	unw_context_t here;
	if (uc ? compat.init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME)
	       : (compat.getcontext(&here), compat.init_local(&c, &here)))
		return 0;
	return step_loop(&c, pcs, max, compat.step, compat.get_reg);
}

static int m_compat_backtrace(ucontext_t *uc, uint64_t *pcs, int max)
{
	(void)uc;
	return compat.backtrace((void **)pcs, max);
}

static int m_libunwind_step(ucontext_t *uc, uint64_t *pcs, int max)
{
	unw_cursor_t c;
	unw_context_t here;
	if (uc ? unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME)
	       : (unw_getcontext(&here), unw_init_local(&c, &here)))
		return 0;
	return step_loop(&c, pcs, max, unw_step, unw_get_reg);
}

static int m_libunwind_backtrace(ucontext_t *uc, uint64_t *pcs, int max)
{
	(void)uc;
	return unw_backtrace((void **)pcs, max);
}

typedef struct gcc_arg {
	uint64_t *pcs;
	int n, max;
} gcc_arg;

static _Unwind_Reason_Code gcc_frame(struct _Unwind_Context *ctx, void *argv)
{
	gcc_arg *a = argv;
	if (a->n == a->max)
		return _URC_END_OF_STACK;
	a->pcs[a->n++] = _Unwind_GetIP(ctx);
	return _URC_NO_REASON;
}

static int m_libgcc(ucontext_t *uc, uint64_t *pcs, int max)
{
	(void)uc;
	gcc_arg a = { pcs, 0, max };
	_Unwind_Backtrace(gcc_frame, &a);
	return a.n;
}

/* glibc's backtrace(3), looked up in libc itself: libunwind.so.8 exports a
 * backtrace too, and it comes first for this program */
static int (*glibc_backtrace)(void **, int);

static int m_glibc(ucontext_t *uc, uint64_t *pcs, int max)
{
	(void)uc;
	return glibc_backtrace((void **)pcs, max);
}

/* reads for libdw and ehelf's remote entry in this process: any address,
 * checked by the kernel */
static int self_read(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	struct iovec l = { value, 8 }, r = { (void *)(uintptr_t)addr, 8 };
	return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == 8 ? 0 : -1;
}

static int m_libdw(ucontext_t *uc, uint64_t *pcs, int max)
{
	(void)uc; /* never in the handler */
	ehelf_regs r;
	ehelf_getcontext(&r);
	int n = libdw_unwind(libdw, &r, self_read, NULL, pcs, max);
	return n < 0 ? 0 : n;
}

/* The methods; all but the last can run in a signal handler.  In the
 * handler, the first two start from the interrupted context (ucontext),
 * the others from the handler itself, through the signal frame. */
static const method methods[] = {
	{ "ehelf_unwind_local", m_ehelf_local },
	{ "ehelf_backtrace", m_ehelf_backtrace },
	{ "libehelf-unwind unw_step loop", m_compat_step },
	{ "libehelf-unwind unw_backtrace", m_compat_backtrace },
	{ "libunwind unw_step loop", m_libunwind_step },
	{ "libunwind unw_backtrace", m_libunwind_backtrace },
	{ "libgcc _Unwind_Backtrace", m_libgcc },
	{ "glibc backtrace()", m_glibc },
	{ "libdw dwfl_getthread_frames", m_libdw },
};
enum { N_DEEP = sizeof methods / sizeof methods[0], N_HANDLER = N_DEEP - 1 };

/* ---- timing ------------------------------------------------------------------ */

static double ns_per_tick;

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void calibrate(void)
{
	double t0 = now_ns();
	uint64_t c0 = __rdtsc();
	while (now_ns() - t0 < 1e8)
		;
	ns_per_tick = (now_ns() - t0) / (double)(__rdtsc() - c0);
}

static inline uint64_t ticks(void)
{
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}

/* ---- (a) the deep stack --------------------------------------------------------- */

void through_libstdcxx(int n, void (*next)(int)); /* deep_stack_cxx.cc */

static double deep_ns[N_DEEP];
static int deep_frames[N_DEEP];

static void level(int n);

static __thread int qsort_level;
static int qsort_calls_next(const void *a, const void *b)
{
	if (qsort_level >= 0) {
		int n = qsort_level;
		qsort_level = -1;
		level(n);
	}
	return *(const int *)a - *(const int *)b;
}

static void at_bottom(void)
{
	uint64_t pcs[MAXF];
	for (int m = 0; m < N_DEEP; m++) {
		int reps = m == N_DEEP - 1 ? 200 : 2000; /* libdw is slow */
		for (int i = 0; i < 20; i++) /* warm */
			deep_frames[m] = methods[m].run(NULL, pcs, MAXF);
		double t0 = now_ns();
		for (int i = 0; i < reps; i++)
			methods[m].run(NULL, pcs, MAXF);
		deep_ns[m] = (now_ns() - t0) / reps / (deep_frames[m] ? deep_frames[m] : 1);
	}
}

__attribute__((noinline)) static void level(int n)
{
	volatile int keep = n;
	if (n == 0) {
		at_bottom();
	} else if (n % 3 == 0) {
		int v[2] = { 2, 1 };
		qsort_level = n - 1;
		qsort(v, 2, sizeof v[0], qsort_calls_next);
	} else if (n % 3 == 1) {
		through_libstdcxx(n - 1, level);
	} else {
		level(n - 1);
	}
	(void)keep;
}

/* ---- (b) sampling ------------------------------------------------------------------ */

/* copies: up to 64 KiB of stack each, 1,024 per workload (a perf.data file
 * of the same samples would hold about as much) */
enum { SNAP_MAX = 64 * 1024, ARENA = 128 << 20, MAX_SAMPLES = 32768,
       SNAPS_PER_WORKLOAD = 1024 };
#define PERIOD_NS 500000L

typedef struct sample {
	int workload;
	ehelf_regs regs;
	uint64_t stack_lo;   /* the copy covers [stack_lo, stack_lo + len) */
	uint32_t len;
	size_t at;           /* offset in the arena */
} sample;

static uint8_t *arena;
static size_t arena_used;
static sample samples[MAX_SAMPLES];
static int nsamples, current_workload;
static unsigned current_method;
static int snaps_per_workload[8];
static uint64_t stack_top;
/* per workload and method: ticks and frames */
static uint64_t h_ticks[8][N_HANDLER], h_frames[8][N_HANDLER], h_samples[8][N_HANDLER];
static uint64_t h_warm_ticks[8][N_HANDLER], h_warm_frames[8][N_HANDLER];

/* $BENCH_UNWIND_ONLY=TEXT: only the methods whose name contains TEXT run
 * in the handler (for profiling one of them) */
static bool handler_on[N_HANDLER];

/* libgcc's unwinder (and glibc's backtrace(), which uses it) crashes when
 * the interrupted pc is inside libgcc's own unwinder while it installs a
 * context (the CFI does not describe those instructions; libgcc then reads
 * code at a garbage pc): such samples are not given to them, and counted */
static uint64_t libgcc_lo, libgcc_hi;
static long skipped_for_libgcc;

/* The executable segment of the object loaded at ARG (libgcc_s). */
static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if ((void *)info->dlpi_addr != arg)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			libgcc_lo = info->dlpi_addr + ph->p_vaddr;
			libgcc_hi = libgcc_lo + ph->p_memsz;
		}
	}
	return 1;
}

static void on_sample(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)si;
	ucontext_t *uc = ucv;
	static uint64_t pcs[MAXF];
	int w = current_workload;
	unsigned m = current_method;
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	if ((methods[m].run == m_libgcc || methods[m].run == m_glibc) &&
	    pc >= libgcc_lo && pc < libgcc_hi) {
		skipped_for_libgcc++;
	} else {
		uint64_t t0 = ticks();
		int n = methods[m].run(uc, pcs, MAXF);
		uint64_t t1 = ticks();
		int n2 = methods[m].run(uc, pcs, MAXF); /* again, warm */
		uint64_t t2 = ticks();
		h_ticks[w][m] += t1 - t0;
		h_frames[w][m] += (uint64_t)(n > 0 ? n : 0);
		h_warm_ticks[w][m] += t2 - t1;
		h_warm_frames[w][m] += (uint64_t)(n2 > 0 ? n2 : 0);
		h_samples[w][m]++;
	}
	/* in the first phase, a copy of the registers and the stack, for
	 * libdw and ehelf's remote entry after the run */
	if (m != 0 || nsamples == MAX_SAMPLES || snaps_per_workload[w] == SNAPS_PER_WORKLOAD)
		return;
	sample *s = &samples[nsamples];
	ehelf_regs_from_ucontext(&s->regs, uc);
	uint64_t sp = s->regs.r[EHELF_RSP];
	uint64_t len = sp < stack_top ? stack_top - sp : 0;
	if (len > SNAP_MAX)
		len = SNAP_MAX;
	if (!len || arena_used + len > ARENA)
		return;
	memcpy(arena + arena_used, (const void *)(uintptr_t)sp, len);
	s->workload = w;
	s->stack_lo = sp;
	s->len = (uint32_t)len;
	s->at = arena_used;
	arena_used += len;
	nsamples++;
	snaps_per_workload[w]++;
}

/*
 * Before each replay pass: the copies read once (the first methods' pass
 * wrote them some 50 seconds before; memory of this VM left idle that
 * long came back several times slower, and by how much varied from run
 * to run: 114-876 ns per frame for ehelf's replay), then flushed from
 * the caches, so that each pass finds them cold, as a tool reading a
 * perf.data file does, but not idle.
 */
static volatile uint64_t copies_sink;

static void cold_copies(void)
{
	uint64_t sum = 0;
	for (size_t o = 0; o < arena_used; o += 64)
		sum += arena[o];
	copies_sink = sum;
	for (size_t o = 0; o < arena_used; o += 64)
		_mm_clflush(arena + o);
	_mm_mfence();
}

static int snapshot_read(void *arg, uint64_t addr, uint64_t *value)
{
	const sample *s = arg;
	if (addr >= s->stack_lo && addr - s->stack_lo <= (uint64_t)s->len - 8) {
		memcpy(value, arena + s->at + (addr - s->stack_lo), 8);
		return 0;
	}
	return self_read(NULL, addr, value); /* code and data: still mapped */
}

/* ---- output ------------------------------------------------------------------------ */

/* Method M's ns per frame for each workload and in all, from TICKS and
 * FRAMES per workload; printed as a row named NAME (unless NULL) with the
 * ratio to BASE.  Returns the "all" figure. */
static double print_method(const char *name, uint64_t (*ticks)[N_HANDLER],
			   uint64_t (*frames)[N_HANDLER], int m, int nw,
			   double base)
{
	double ns[9];
	uint64_t tt = 0, ff = 0;
	for (int w = 0; w < nw; w++) {
		ns[w] = frames[w][m] ? ticks[w][m] * ns_per_tick / frames[w][m] : 0;
		tt += ticks[w][m];
		ff += frames[w][m];
	}
	ns[nw] = ff ? tt * ns_per_tick / ff : 0;
	if (name) {
		printf("  %-34s", name);
		for (int w = 0; w <= nw; w++)
			printf(" %8.1f", ns[w]);
		printf(" %9.2f\n", base > 0 ? ns[nw] / base : 1.0);
	}
	return ns[nw];
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench-unwind LIBEHELF_UNWIND_SO [SECONDS-PER-WORKLOAD]\n");
		return 2;
	}
	double secs = argc > 2 ? atof(argv[2]) : 1.5;
	if (load_compat(argv[1]) < 0)
		return 1;
	space = ehelf_space_new();
	if (!space || ehelf_space_load_self(space) < 0 ||
	    ehelf_backtrace_init() < 0) {
		fprintf(stderr, "bench-unwind: %s\n", ehelf_last_error());
		return 1;
	}
	int with, mods = ehelf_space_modules(space, &with);
	libdw = libdw_unwinder_new(getpid());
	if (!libdw)
		return 1;
	calibrate();
	Dl_info gcc_info;
	if (dladdr((void *)(uintptr_t)_Unwind_Backtrace, &gcc_info) && gcc_info.dli_fbase)
		dl_iterate_phdr(find_text, gcc_info.dli_fbase);
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	glibc_backtrace = libc ? (int (*)(void **, int))dlsym(libc, "backtrace") : NULL;
	if (!glibc_backtrace) {
		fprintf(stderr, "bench-unwind: no backtrace in libc.so.6\n");
		return 1;
	}
	uint64_t warm[MAXF];
	m_glibc(NULL, warm, MAXF); /* backtrace() loads libgcc_s on first use */

	/* (a) */
	level(48);
	printf("(a) a deep stack through libc and libstdc++, warm: %d frames; "
	       "%d of %d modules with an eh_elf\n", deep_frames[0], with, mods);
	printf("  %-34s %8s %8s %9s\n", "method", "frames", "ns/frame", "vs ehelf");
	for (int m = 0; m < N_DEEP; m++)
		printf("  %-34s %8d %8.1f %9.2f\n", methods[m].name,
		       deep_frames[m], deep_ns[m], deep_ns[m] / deep_ns[0]);

	/* (b) */
	pthread_attr_t attr;
	void *stack_addr;
	size_t stack_size;
	if (pthread_getattr_np(pthread_self(), &attr) == 0 &&
	    pthread_attr_getstack(&attr, &stack_addr, &stack_size) == 0)
		stack_top = (uint64_t)(uintptr_t)stack_addr + stack_size;
	arena = mmap(NULL, ARENA, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (arena == MAP_FAILED) {
		perror("bench-unwind: mmap");
		return 1;
	}
	const char *only = getenv("BENCH_UNWIND_ONLY");
	for (int m = 0; m < N_HANDLER; m++)
		handler_on[m] = !only || strstr(methods[m].name, only);
	unsigned long sink = 0;
	for (unsigned m = 0; m < N_HANDLER; m++) {
		if (!handler_on[m])
			continue;
		current_method = m;
		for (int w = 0; w < n_workloads; w++) {
			current_workload = w;
			if (sampler_start(on_sample, PERIOD_NS) < 0) {
				perror("bench-unwind: timer");
				return 1;
			}
			sink += workloads[w].run(secs);
			sampler_stop();
		}
	}
	/* replay the copies: ehelf's remote entry, then libdw, each in a pass
	 * of its own over all the copies */
	static uint64_t r_ticks[8][N_HANDLER], r_frames[8][N_HANDLER];
	int per_w[8] = { 0 };
	for (int i = 0; i < nsamples; i++)
		per_w[samples[i].workload]++;
	for (int m = 0; m < 2; m++) {
		cold_copies();
		for (int i = 0; i < nsamples; i++) {
			sample *s = &samples[i];
			ehelf_frame f[MAXF];
			uint64_t pcs[MAXF];
			uint64_t t0 = ticks();
			int n = m == 0 ? ehelf_unwind(space, &s->regs, snapshot_read, s,
						      f, MAXF, 0)
				       : libdw_unwind(libdw, &s->regs, snapshot_read, s,
						      pcs, MAXF);
			r_ticks[s->workload][m] += ticks() - t0;
			r_frames[s->workload][m] += (uint64_t)(n > 0 ? n : 0);
		}
	}
	int nw = n_workloads;
	printf("\n(b) sampling real work at arbitrary pcs: SIGPROF every %ld us, "
	       "%.1f s per workload and method: ns per frame\n", PERIOD_NS / 1000, secs);
	printf("  %-34s", "samples (ehelf)");
	for (int w = 0; w < nw; w++)
		printf(" %8llu", (unsigned long long)h_samples[w][0]);
	printf("\n");
	printf("  %-34s", "frames per sample (ehelf)");
	uint64_t tf = 0, ts = 0;
	for (int w = 0; w < nw; w++) {
		printf(" %8.1f", h_samples[w][0] ? (double)h_frames[w][0] / h_samples[w][0] : 0);
		tf += h_frames[w][0];
		ts += h_samples[w][0];
	}
	printf(" %8.1f\n", ts ? (double)tf / ts : 0);
	for (int pass = 0; pass < 2; pass++) {
		printf("  %-34s", pass ? "the same stack again, at once" :
					 "first unwind of each sample");
		for (int w = 0; w < nw; w++)
			printf(" %8s", workloads[w].name);
		printf(" %8s %9s\n", "all", "vs ehelf");
		double base = 0;
		for (int m = 0; m < N_HANDLER; m++)
			if (handler_on[m]) {
				double all = print_method(methods[m].name,
							  pass ? h_warm_ticks : h_ticks,
							  pass ? h_warm_frames : h_frames,
							  m, nw, base);
				base = base ? base : all;
			}
	}
	double base = print_method(NULL, h_ticks, h_frames, 0, nw, 0);
	printf("  replayed from copies of %d of ehelf's samples' registers and stacks "
	       "(%d %d %d %d):\n", nsamples, per_w[0], per_w[1], per_w[2], per_w[3]);
	print_method("ehelf_unwind (remote entry)", r_ticks, r_frames, 0, nw, base);
	print_method("libdw dwfl_getthread_frames", r_ticks, r_frames, 1, nw, base);
	if (skipped_for_libgcc)
		printf("  (libgcc and glibc were not run on %ld samples interrupted "
		       "inside libgcc's unwinder, where they crash)\n",
		       skipped_for_libgcc);
	fprintf(stderr, "(workload checksum %lu)\n", sink & 0xff);
	libdw_unwinder_free(libdw);
	ehelf_space_free(space);
	return 0;
}
