/*
 * bench-perf-unwind - ns per frame of unwinding the user stacks of a
 * perf.data file's samples (`perf record --call-graph dwarf`), the
 * unwinding alone, with the same samples and the same memory reader for:
 *  - ehelf: ehelf_unwind_snapshot over the process's address space
 *    (eh_elfs from $EHELF_PATH, libdw for files without one; frame-pointer
 *    guesses where no CFI covers a pc, as ehelf-perf, libunwind and libdw);
 *  - libunwind's remote API: unw_init_remote + unw_step with accessors over
 *    the same sample (find_proc_info through each file's .eh_frame_hdr and
 *    dwarf_search_unwind_table, as perf does), global caching;
 *  - libdw: dwfl_getthread_frames with the files reported by
 *    dwfl_report_elf at their biases and the same memory callback, as perf
 *    does.
 * The file is read once (the processes' mappings as at its end); each
 * method then unwinds every sample in passes of its own, in blocks (a
 * warm-up pass, then three timed), the methods' blocks taking turns, two
 * rounds; the best pass counts.
 *
 * The stack copies are cold when a pass begins (flushed from the caches
 * before it), as they are for a tool reading a perf.data file; the
 * method's own tables are as its previous pass left them, as in a long
 * run.  So that
 * the figures can be read against what memory alone costs here, a pass
 * that only reads the part of each copy that ehelf's unwinding used (one
 * load per 64-byte line, in address order, which the hardware prefetches
 * best) is timed too: the floor, and the ratio of libdw's time to it;
 * and two passes over only the lines holding the return addresses of
 * ehelf's frames, one load per line in address order: with their
 * addresses known in advance, the loads independent (the ra floor: a
 * bound no walk reaches, since a walk learns where the next return
 * address is from the one before), and with each load's address waiting
 * on the value of the one before, as in a walk that reads nothing else
 * (the chain).
 *
 * With --hot, the unwinders' own work instead, memory out of the way:
 * each sample unwound 16 times in a row by a method, the last 15 timed
 * (the time-stamp counter read around them; the cost of that timing,
 * measured by as many empty timed regions, taken out: some 60 ticks
 * here, under 3% of a hot hackbench sample's 15 unwinds), so that
 * its stack copy and the method's tables for it are in the caches; three
 * passes per method, in turns, the best counting.  ehelf there is called
 * without EHELF_UNWIND_COLD_SNAPSHOT, as for a copy just made (an
 * in-process sampler's, or ehelf-perf's, read into a buffer), and also
 * with it, as for a copy in a file's mapping (the last column: what
 * prefetching a copy in the caches costs).
 *
 * With --read, the copies as ehelf-perf now reads them: copied out of the
 * file into buffers just before they are unwound (in the caches, just
 * written: read_passes()), the methods' tables as in the cold passes.
 *
 * Usage: bench-perf-unwind FILE [NAME] [--hot|--read]
 * Prints: NAME, samples, frames and ns/frame for each method, the ratios
 * libunwind/ehelf and libdw/ehelf, the floor and libdw/floor, the ra floor
 * and libdw/ra floor, the chain and libdw/chain, and the first passes'
 * ns/frame (--hot: NAME, samples, then frames and ns/frame
 * for each method, the two ratios, ehelf's ns/frame with the flag, and
 * the ns per frame of timing cost taken out of ehelf's figure).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>
#include <x86intrin.h>

#include "../tools/ehelf-perf/perfdata/perf_data.h"
#include "../tools/ehelf-perf/ehelf_perf/dso.h"
#include "../tools/ehelf-perf/ehelf_perf/procs.h"
#include "../tools/ehelf-perf/ehelf_perf/sample_unwind.h"
#include "../testkit/libdw_unwind.h"
#include "../testkit/libunwind_remote.h"

enum { MAXF = 256 };

typedef struct snap {
	uint32_t pid;
	ehelf_regs regs;
	uint8_t *stack;
	uint64_t size;
} snap;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The methods: ehelf for a cold copy (a file's mapping: prefetched),
 * libunwind, libdw, and (--hot only) ehelf for a copy in the caches. */
enum { EHELF = 0, LIBUNWIND = 1, LIBDW = 2, EHELF_WARM = 3 };

/* ---- per process: the three unwinders' state ----------------------------- */

typedef struct proc_state {
	proc *pr;
	lu_remote *as;
	libdw_unwinder *dw;
	bool dw_tried;
} proc_state;

static proc_state *states;
static size_t nstates;

static proc_state *state_of(procs *p, uint32_t pid)
{
	for (size_t i = 0; i < nstates; i++)
		if (states[i].pr->pid == pid)
			return &states[i];
	proc_state *v = realloc(states, (nstates + 1) * sizeof *v);
	if (!v)
		return NULL;
	states = v;
	proc_state *s = &states[nstates++];
	memset(s, 0, sizeof *s);
	s->pr = procs_proc(p, pid);
	return s;
}

/* Get METHOD (0 ehelf, 1 libunwind, 2 libdw) ready for S's process:
 * address space, libunwind address space, libdw session (not timed). */
static void prepare(procs *p, const snap *s, int method)
{
	proc_state *ps = state_of(p, s->pid);
	if (!ps)
		return;
	if (method == EHELF)
		proc_space(ps->pr);
	if (method == LIBUNWIND && !ps->as)
		ps->as = lu_remote_new();
	if (method == LIBDW && !ps->dw_tried) {
		ps->dw_tried = true;
		libdw_module *mods = calloc(ps->pr->n + 1, sizeof *mods);
		size_t k = 0;
		for (size_t j = 0; mods && j < ps->pr->n; j++) {
			const pmap *m = &ps->pr->maps[j];
			if (m->exec && m->d && m->d->usable && m->has_bias)
				mods[k++] = (libdw_module){ m->d->path, m->bias };
		}
		ps->dw = libdw_unwinder_new_modules(mods, k, (pid_t)s->pid);
		free(mods);
	}
}

/* The 64-byte lines of a sample's copy that hold the return addresses
 * of ehelf's frames (offsets from the copy's start; in address order,
 * each once, but across a signal frame, where neither holds). */
typedef struct ra_lines {
	uint32_t *off;
	uint32_t n;
} ra_lines;

/* Unwind snapshot S of process PS with METHOD; returns its frames.  For
 * ehelf, the bytes of the copy the frames span go to *USED, and the lines
 * of its return addresses are appended to *RA (each may be NULL; RA's
 * buffer holds MAXF, empty on the first call). */
static int unwind_one(proc_state *ps, const snap *s, int method,
		      uint64_t *used, ra_lines *ra)
{
	sample_mem mem = { .stack = s->stack, .sp = s->regs.r[EHELF_RSP],
			   .size = s->size, .pr = ps->pr };
	int got = 0;
	if (method == EHELF || method == EHELF_WARM) {
		ehelf_frame f[MAXF];
		sample_mem files = { .pr = ps->pr };
		/* as ehelf-perf (sample_unwind.c) */
		unsigned flags = EHELF_UNWIND_FRAME_POINTER |
				 (method == EHELF ? EHELF_UNWIND_COLD_SNAPSHOT : 0);
		got = ehelf_unwind_snapshot(proc_space(ps->pr), &s->regs, s->stack,
					    s->regs.r[EHELF_RSP], s->size, sample_read,
					    &files, f, MAXF, flags);
		if (used) /* up to the last frame's return address and sp */
			*used = got > 0 ? f[got - 1].sp - f[0].sp + 8 : 0;
		for (int i = 1; ra && i < got; i++) {
			uint64_t at = f[i].sp - 8 - s->regs.r[EHELF_RSP];
			if (f[i].sp - 8 < s->regs.r[EHELF_RSP] || at + 8 > s->size)
				continue; /* not in the copy */
			uint32_t line = (uint32_t)(at & ~(uint64_t)63);
			if (!ra->n || ra->off[ra->n - 1] != line)
				ra->off[ra->n++] = line;
		}
	} else if (method == LIBUNWIND) {
		uint64_t pcs[MAXF];
		got = lu_remote_unwind(ps->as, ps->pr, &s->regs, &mem, pcs, MAXF);
	} else if (ps->dw) {
		uint64_t pcs[MAXF];
		got = libdw_unwind(ps->dw, &s->regs, sample_read, &mem, pcs, MAXF);
	}
	return got > 0 ? got : 0;
}

/* Per method, ROUNDS blocks of 1 + BLOCK passes (see main). */
enum { ROUNDS = 2, BLOCK = 3 };

/* The stack copies out of every cache level, before a pass: each pass
 * finds them cold, as a tool reading a perf.data file does, whichever
 * pass ran before it and whatever the size of the recording (a small
 * one's stacks would otherwise stay in the L3 cache from pass to pass).
 * The methods' own tables stay as warm as the passes leave them (the
 * other methods' passes included). */
static void flush_stacks(const snap *snaps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (uint64_t o = 0; o < snaps[i].size; o += 64)
			_mm_clflush(snaps[i].stack + o);
	_mm_mfence();
}

static volatile uint64_t floor_sink; /* what the floor read, kept */

/*
 * The memory floor (see the top): one pass reading one word per 64-byte
 * line of USED[i] bytes of each stack copy, the part that ehelf's
 * unwinding spans (from ehelf's first pass); returns the time in ns.
 */
static double floor_pass(const snap *snaps, const uint64_t *used, size_t n)
{
	uint64_t sum = 0;
	double t0 = now();
	for (size_t i = 0; i < n; i++)
		for (uint64_t o = 0; o + 8 <= used[i]; o += 64) {
			uint64_t w;
			memcpy(&w, snaps[i].stack + o, 8);
			sum += w;
		}
	double t = now() - t0;
	floor_sink = sum;
	return t;
}

/* One pass reading one word of each line of RA[i] in each stack copy,
 * in order; with CHAIN, each load's address waits on the value the load
 * before it in the same copy gave (an and with a zero the compiler cannot
 * see through).  The time in ns. */
static double ra_floor_pass(const snap *snaps, const ra_lines *ra, size_t n,
			    bool chain)
{
	uint64_t sum = 0, zero = 0;
	__asm__("" : "+r"(zero));
	double t0 = now();
	/* two loops: one with a select would chain the loads either way */
	if (chain)
		for (size_t i = 0; i < n; i++) {
			uint64_t dep = 0;
			for (uint32_t k = 0; k < ra[i].n; k++) {
				uint64_t w;
				memcpy(&w, snaps[i].stack + ra[i].off[k] + dep, 8);
				sum += w;
				dep = w & zero;
			}
		}
	else
		for (size_t i = 0; i < n; i++)
			for (uint32_t k = 0; k < ra[i].n; k++) {
				uint64_t w;
				memcpy(&w, snaps[i].stack + ra[i].off[k], 8);
				sum += w;
			}
	double t = now() - t0;
	floor_sink = sum;
	return t;
}

enum { HOT_PASSES = 3, HOT_REPEAT = 15 };

/* The time-stamp counter's ticks that N empty timed regions, timed as
 * hot_passes() times its samples, take: the timing's own cost, taken out
 * of the methods' times (some 60 ticks a region here: under 3% of a hot
 * hackbench sample's HOT_REPEAT unwinds by ehelf, nothing for the
 * libraries; so many unwinds per region keep the figures from hanging on
 * this correction). */
static uint64_t timing_overhead(size_t n)
{
	uint64_t ticks = 0;
	for (size_t i = 0; i < n; i++) {
		_mm_lfence();
		uint64_t a = __rdtsc();
		_mm_lfence();
		_mm_lfence();
		ticks += __rdtsc() - a;
	}
	return ticks;
}

/*
 * The --hot passes: for each method in turns, each sample unwound once,
 * then HOT_REPEAT more times, timed (the timing's own cost taken out);
 * the best pass of each method counts.  ehelf twice: as for a cold copy
 * (EHELF_UNWIND_COLD_SNAPSHOT: its copy prefetched, for nothing here)
 * and as the caller of a copy in the caches would (EHELF_WARM, the
 * figure compared).  Prints the result line.
 */
static void hot_passes(const char *name, const snap *snaps, size_t n,
		       proc_state **of)
{
	double ns[4] = { 0 }, taken[4] = { 0 };
	uint64_t frames[4] = { 0 };
	for (int pass = 0; pass < HOT_PASSES; pass++)
		for (int method = 0; method < 4; method++) {
			uint64_t fr = 0, cycles = 0, timed = 0;
			double t0 = now();
			uint64_t c0 = __rdtsc();
			for (size_t i = 0; i < n; i++) {
				if (!of[i])
					continue;
				unwind_one(of[i], &snaps[i], method, NULL, NULL);
				_mm_lfence();
				uint64_t a = __rdtsc();
				_mm_lfence();
				for (int k = 0; k < HOT_REPEAT; k++)
					fr += (uint64_t)unwind_one(of[i], &snaps[i],
								   method, NULL, NULL);
				_mm_lfence();
				cycles += __rdtsc() - a;
				timed++;
			}
			uint64_t over = timing_overhead(timed);
			if (over > cycles)
				over = cycles;
			cycles -= over;
			/* the counter's ticks in ns, from the pass as a whole */
			double ns_per_tick = (now() - t0) / (double)(__rdtsc() - c0);
			double t = (double)cycles * ns_per_tick;
			if (pass == 0 || t < ns[method]) {
				ns[method] = t;
				taken[method] = (double)over * ns_per_tick;
				frames[method] = fr;
			}
		}
	double per[4];
	for (int m = 0; m < 4; m++)
		per[m] = frames[m] ? ns[m] / (double)frames[m] : 0;
	double e = per[EHELF_WARM];
	double te = frames[EHELF_WARM] ? taken[EHELF_WARM] / (double)frames[EHELF_WARM] : 0;
	printf("%-10s %7zu %8llu %8.1f %8llu %8.1f %8llu %8.1f %7.0fx %7.0fx %8.1f %7.2f\n",
	       name, n, (unsigned long long)frames[EHELF_WARM], e,
	       (unsigned long long)frames[LIBUNWIND], per[LIBUNWIND],
	       (unsigned long long)frames[LIBDW], per[LIBDW],
	       e > 0 ? per[LIBUNWIND] / e : 0, e > 0 ? per[LIBDW] / e : 0,
	       per[EHELF], te);
}

/* --read: samples are copied out of their (cold) copies READ_GROUP at a
 * time, then those are unwound, timed: 8 copies of up to 8 KiB, in the
 * L1 and L2 caches as ehelf-perf's just read ones are */
enum { READ_GROUP = 8 };

/*
 * The --read passes: the stack copies as ehelf-perf reads them (pread of a
 * record's part into a buffer, then unwound: copies in the caches, just
 * written), each method's tables as its previous passes and the copying
 * leave them.  Per method in turns, blocks of a warm-up pass and BLOCK
 * timed ones, ROUNDS rounds, the copies flushed before each pass, as the
 * cold passes; each group of READ_GROUP samples copied whole into buffers
 * (untimed), then unwound (timed, the timing's cost taken out).  ehelf is
 * called as ehelf-perf calls it for such a copy (no
 * EHELF_UNWIND_COLD_SNAPSHOT).  Prints the result line.
 */
static void read_passes(const char *name, const snap *snaps, size_t n,
			proc_state **of)
{
	static const int methods[3] = { EHELF_WARM, LIBUNWIND, LIBDW };
	uint64_t max = 0;
	for (size_t i = 0; i < n; i++)
		if (snaps[i].size > max)
			max = snaps[i].size;
	uint8_t *buf[READ_GROUP];
	for (int g = 0; g < READ_GROUP; g++)
		if (!(buf[g] = malloc(max + 1)))
			return;
	double ns[3] = { 0 };
	uint64_t frames[3] = { 0 };
	for (int round = 0; round < ROUNDS; round++)
		for (int m = 0; m < 3; m++)
			for (int pass = 0; pass <= BLOCK; pass++) {
				flush_stacks(snaps, n);
				uint64_t fr = 0, cycles = 0, groups = 0;
				double t0 = now();
				uint64_t c0 = __rdtsc();
				for (size_t i = 0; i < n; i += READ_GROUP) {
					snap g[READ_GROUP];
					size_t k = n - i < READ_GROUP ? n - i : READ_GROUP;
					for (size_t j = 0; j < k; j++) {
						g[j] = snaps[i + j];
						memcpy(buf[j], g[j].stack, g[j].size);
						g[j].stack = buf[j];
					}
					_mm_lfence();
					uint64_t a = __rdtsc();
					_mm_lfence();
					for (size_t j = 0; j < k; j++)
						if (of[i + j])
							fr += (uint64_t)unwind_one(of[i + j], &g[j],
										   methods[m], NULL, NULL);
					_mm_lfence();
					cycles += __rdtsc() - a;
					groups++;
				}
				uint64_t over = timing_overhead(groups);
				cycles -= over < cycles ? over : cycles;
				double ns_per_tick = (now() - t0) / (double)(__rdtsc() - c0);
				double t = (double)cycles * ns_per_tick;
				if (pass == 0) /* the block's warm-up */
					continue;
				if ((round == 0 && pass == 1) || t < ns[m]) {
					ns[m] = t;
					frames[m] = fr;
				}
			}
	for (int g = 0; g < READ_GROUP; g++)
		free(buf[g]);
	double per[3];
	for (int m = 0; m < 3; m++)
		per[m] = frames[m] ? ns[m] / (double)frames[m] : 0;
	printf("%-10s %7zu %8llu %8.1f %8llu %8.1f %8llu %8.1f %7.0fx %7.0fx\n", name, n,
	       (unsigned long long)frames[0], per[0], (unsigned long long)frames[1],
	       per[1], (unsigned long long)frames[2], per[2],
	       per[0] > 0 ? per[1] / per[0] : 0, per[0] > 0 ? per[2] / per[0] : 0);
}

int main(int argc, char **argv)
{
	bool hot = argc > 1 && !strcmp(argv[argc - 1], "--hot");
	bool readm = argc > 1 && !strcmp(argv[argc - 1], "--read");
	if (hot || readm)
		argc--;
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench-perf-unwind FILE [NAME] [--hot|--read]\n");
		return 2;
	}
	const char *name = argc > 2 ? argv[2] : argv[1];
	ehelf_err err = { 0 };
	perf_reader *r = perf_reader_open(argv[1], &err);
	if (!r) {
		fprintf(stderr, "bench-perf-unwind: %s\n", err.msg);
		return 1;
	}
	dso_table *dsos = dso_table_new();
	procs *p = procs_new(dsos);
	snap *snaps = NULL;
	size_t n = 0, cap = 0;
	perf_event ev;
	int rc;
	while ((rc = perf_reader_next(r, &ev, &err)) > 0) {
		switch (ev.kind) {
		case PERF_EV_SAMPLE: {
			snap s = { .pid = ev.pid };
			if (sample_regs(&ev, &s.regs) < 0 || !ev.sample.stack_size)
				break;
			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				snap *v = realloc(snaps, cap * sizeof *v);
				if (!v)
					return 1;
				snaps = v;
			}
			s.size = ev.sample.stack_size;
			s.stack = malloc(s.size);
			if (!s.stack)
				return 1;
			memcpy(s.stack, ev.sample.stack, s.size);
			snaps[n++] = s;
			break;
		}
		default:
			procs_record(p, r, &ev);
			break;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "bench-perf-unwind: %s\n", err.msg);
		return 1;
	}
	/* Each method unwinds every sample in blocks of passes: a pass that
	 * warms the method's own tables (untimed, but the very first is
	 * shown: it also pays for loading them), then BLOCK timed passes,
	 * the best one counting.  The stack copies are flushed before every
	 * pass; the method's tables stay as warm as its own previous pass
	 * left them, as in a run of the tool over many samples (passes of
	 * the methods taking turns would have each one start from tables
	 * the others evicted: a handicap for a method bound by memory, as
	 * ehelf is, that no real run has).  The blocks take turns (ehelf,
	 * libunwind, libdw, the floors, then again: ROUNDS rounds), so that
	 * a slow spell of this machine (a shared one: memory-bound passes
	 * vary by up to 2x from one minute to the next) weighs on all of
	 * them alike. */
	double ns[6] = { 0 }, first[3] = { 0 };
	uint64_t frames[3] = { 0 };
	proc_state **of = calloc(n + 1, sizeof *of);
	if (!of)
		return 1;
	for (int method = 0; method < 3; method++)
		for (size_t i = 0; i < n; i++)
			prepare(p, &snaps[i], method);
	for (size_t i = 0; i < n; i++) /* states[] stays put now */
		of[i] = state_of(p, snaps[i].pid);
	if (hot) {
		hot_passes(name, snaps, n, of);
		goto out;
	}
	if (readm) {
		read_passes(name, snaps, n, of);
		goto out;
	}
	/* the bytes of each copy ehelf's frames span and the lines of their
	 * return addresses, from its first pass, for the floors */
	uint64_t *used = calloc(n + 1, sizeof *used);
	ra_lines *ra = calloc(n + 1, sizeof *ra);
	uint32_t *ra_off = calloc((n + 1) * MAXF, sizeof *ra_off);
	if (!used || !ra || !ra_off)
		return 1;
	for (size_t i = 0; i < n; i++)
		ra[i].off = ra_off + i * MAXF;
	for (int round = 0; round < ROUNDS; round++) {
		for (int method = 0; method < 3; method++)
			for (int pass = 0; pass <= BLOCK; pass++) {
				uint64_t fr = 0;
				bool spans = round == 0 && pass == 0 && method == EHELF;
				flush_stacks(snaps, n);
				double t0 = now();
				for (size_t i = 0; i < n; i++)
					if (of[i])
						fr += (uint64_t)unwind_one(of[i], &snaps[i], method,
									   spans ? &used[i] : NULL,
									   spans ? &ra[i] : NULL);
				double t = now() - t0;
				if (round == 0 && pass == 0)
					first[method] = fr ? t / (double)fr : 0;
				if (pass == 0) /* the block's warm-up */
					continue;
				if ((round == 0 && pass == 1) || t < ns[method]) {
					ns[method] = t;
					frames[method] = fr;
				}
			}
		if (round == 0)
			for (size_t i = 0; i < n; i++)
				if (used[i] > snaps[i].size)
					used[i] = snaps[i].size;
		for (int pass = 0; pass < BLOCK; pass++) {
			flush_stacks(snaps, n);
			double t = floor_pass(snaps, used, n);
			if ((round == 0 && pass == 0) || t < ns[3])
				ns[3] = t;
		}
		for (int chain = 0; chain < 2; chain++)
			for (int pass = 0; pass < BLOCK; pass++) {
				flush_stacks(snaps, n);
				double t = ra_floor_pass(snaps, ra, n, chain);
				if ((round == 0 && pass == 0) || t < ns[4 + chain])
					ns[4 + chain] = t;
			}
	}
	free(used);
	free(ra);
	free(ra_off);
	double per[3];
	for (int m = 0; m < 3; m++)
		per[m] = frames[m] ? ns[m] / (double)frames[m] : 0;
	double floor = frames[0] ? ns[3] / (double)frames[0] : 0;
	double rafloor = frames[0] ? ns[4] / (double)frames[0] : 0;
	double chain = frames[0] ? ns[5] / (double)frames[0] : 0;
	printf("%-10s %7zu %8llu %8.1f %8llu %8.1f %8llu %8.1f %7.0fx %7.0fx "
	       "%7.1f %7.0fx %7.1f %7.0fx %7.1f %7.0fx  "
	       "(first pass: %.1f %.1f %.1f)\n",
	       name, n, (unsigned long long)frames[0], per[0],
	       (unsigned long long)frames[1], per[1], (unsigned long long)frames[2],
	       per[2], per[0] > 0 ? per[1] / per[0] : 0,
	       per[0] > 0 ? per[2] / per[0] : 0, floor,
	       floor > 0 ? per[2] / floor : 0, rafloor,
	       rafloor > 0 ? per[2] / rafloor : 0, chain,
	       chain > 0 ? per[2] / chain : 0, first[0], first[1], first[2]);
out:
	for (size_t i = 0; i < nstates; i++) {
		lu_remote_free(states[i].as);
		libdw_unwinder_free(states[i].dw);
	}
	for (size_t i = 0; i < n; i++)
		free(snaps[i].stack);
	free(snaps);
	free(of);
	free(states);
	procs_free(p);
	dso_table_free(dsos);
	perf_reader_close(r);
	return 0;
}
