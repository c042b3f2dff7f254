/*
 * unwind_crosscheck - each sample of a perf.data file unwound by ehelf
 * (as ehelf-perf does), by libunwind's remote API and by libdw (as perf
 * would, testkit/libunwind_remote.c and testkit/libdw_unwind.c), from the
 * same registers and stack copy with the mappings of that moment: do they
 * find the same frames?
 *
 * Prints one line per sample, in ehelf-perf's order (perf's processing
 * order): "EHELF_N LIBUNWIND_N LIBDW_N SAME_AS_LIBUNWIND SAME_AS_LIBDW
 * GUESSED PERF_BOUND DWARF" (0 or 1: the pcs of every frame equal;
 * GUESSED: ehelf found a frame by the frame-pointer chain, no CFI covering
 * a pc; PERF_BOUND: libunwind, reading the stack copy with perf's bound
 * (the last 8 bytes unreadable), stops before ehelf on ehelf's frames;
 * DWARF: ehelf stepped a frame with libdw's CFI, the fallback), then a
 * summary on standard error.  Samples without a stack copy, or that ehelf
 * could not start on, are not compared (0 in every column).  script_compare --oracle uses these lines to tell the
 * samples where perf's stack differs from ehelf's while libunwind and libdw,
 * used directly, agree with ehelf.
 *
 * Usage: unwind_crosscheck FILE   (eh_elfs from $EHELF_PATH)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../testkit/libdw_unwind.h"
#include "../../testkit/libunwind_remote.h"
#include "../../tools/ehelf-perf/perfdata/perf_data.h"
#include "../../tools/ehelf-perf/ehelf_perf/procs.h"
#include "../../tools/ehelf-perf/ehelf_perf/sample_unwind.h"

enum { MAXF = 256 };

/* per process, the baselines' state for one generation of its mappings */
typedef struct baseline {
	uint32_t pid;
	unsigned gen;
	lu_remote *lu;
	libdw_unwinder *dw;
} baseline;

static baseline *bases;
static size_t nbases;

static baseline *baseline_of(proc *pr)
{
	baseline *b = NULL;
	for (size_t i = 0; i < nbases && !b; i++)
		if (bases[i].pid == pr->pid)
			b = &bases[i];
	if (!b) {
		baseline *v = realloc(bases, (nbases + 1) * sizeof *v);
		if (!v)
			return NULL;
		bases = v;
		b = &bases[nbases++];
		memset(b, 0, sizeof *b);
		b->pid = pr->pid;
		b->gen = pr->gen + 1; /* not built yet */
	}
	if (b->gen != pr->gen) { /* the mappings changed: start again */
		lu_remote_free(b->lu);
		libdw_unwinder_free(b->dw);
		b->lu = lu_remote_new();
		libdw_module *mods = calloc(pr->n + 1, sizeof *mods);
		size_t k = 0;
		for (size_t j = 0; mods && j < pr->n; j++) {
			const pmap *m = &pr->maps[j];
			if (m->exec && m->d && m->d->usable && m->has_bias)
				mods[k++] = (libdw_module){ m->d->path, m->bias };
		}
		b->dw = libdw_unwinder_new_modules(mods, k, (pid_t)pr->pid);
		free(mods);
		b->gen = pr->gen;
	}
	return b;
}

static bool same(const ehelf_frame *e, int ne, const uint64_t *p, int np)
{
	if (ne != np)
		return false;
	for (int i = 0; i < ne; i++)
		if (e[i].pc != p[i])
			return false;
	return true;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: unwind_crosscheck FILE\n");
		return 2;
	}
	ehelf_err err = { 0 };
	perf_reader *r = perf_reader_open(argv[1], &err);
	if (!r) {
		fprintf(stderr, "unwind_crosscheck: %s\n", err.msg);
		return 1;
	}
	dso_table *dsos = dso_table_new();
	procs *p = procs_new(dsos);
	unsigned long samples = 0, eq_lu = 0, eq_dw = 0, lu_dw = 0, all = 0;
	unsigned long no_stack = 0;
	perf_event ev;
	int rc;
	while ((rc = perf_reader_next(r, &ev, &err)) > 0) {
		if (ev.kind != PERF_EV_SAMPLE) {
			procs_record(p, r, &ev);
		} else {
			proc *pr = procs_proc(p, ev.pid);
			ehelf_regs regs;
			ehelf_frame e[MAXF];
			uint64_t lu[MAXF], dw[MAXF], lb[MAXF];
			int ne = 0, nl = 0, nd = 0, nb = 0;
			bool cmp = false; /* something was compared */
			/* no stack copy: no user frames, for all (as perf) */
			if (pr && ev.sample.stack_size && sample_regs(&ev, &regs) == 0) {
				ne = sample_unwind(pr, NULL, &ev, e, MAXF);
				baseline *b = baseline_of(pr);
				sample_mem mem = { .stack = ev.sample.stack,
						   .sp = regs.r[EHELF_RSP],
						   .size = ev.sample.stack ? ev.sample.stack_size : 0,
						   .pr = pr };
				if (b) {
					cmp = ne > 0;
					nl = lu_remote_unwind(b->lu, pr, &regs, &mem, lu, MAXF);
					/* perf's bound: its access_mem takes an
					 * address as outside the copy when addr +
					 * 8 >= end, so the last word cannot be
					 * read; a copy one byte shorter says the
					 * same to sample_read */
					sample_mem cut = mem;
					if (cut.size)
						cut.size--;
					nb = lu_remote_unwind(b->lu, pr, &regs, &cut, lb, MAXF);
					nd = b->dw ? libdw_unwind(b->dw, &regs, sample_read, &mem,
								  dw, MAXF) : 0;
					if (nd < 0)
						nd = 0;
				}
			}
			/* a sample without a stack copy, or that ehelf could not
			 * start on, is no comparison: never an explanation */
			bool sl = cmp && same(e, ne, lu, nl), sd = cmp && same(e, ne, dw, nd);
			bool ld = cmp && nl == nd && !memcmp(lu, dw, (size_t)nl * sizeof *lu);
			bool guessed = false, dwarf = false;
			for (int i = 1; i < ne; i++) {
				guessed |= e[i].path == EHELF_PATH_FRAME_POINTER;
				dwarf |= e[i].path == EHELF_PATH_DWARF;
			}
			/* with perf's bound, libunwind stops before ehelf, on
			 * ehelf's frames */
			bool bound = cmp && nb > 0 && nb < ne && same(e, nb, lb, nb);
			printf("%d %d %d %d %d %d %d %d\n", ne, nl, nd, sl, sd, guessed,
			       bound, dwarf);
			if ((!sl || !sd) && getenv("CROSSCHECK_VERBOSE")) {
				fprintf(stderr, "sample %lu pid %u time %llu:\n", samples, ev.pid,
					(unsigned long long)ev.time);
				for (int i = 0; i < ne || i < nl || i < nd; i++)
					fprintf(stderr, "  %2d ehelf %#14llx %s  libunwind %#14llx  libdw %#14llx\n", i,
						i < ne ? (unsigned long long)e[i].pc : 0ull,
						i < ne && e[i].path == EHELF_PATH_DWARF ? "dw" : "  ",
						i < nl ? (unsigned long long)lu[i] : 0ull,
						i < nd ? (unsigned long long)dw[i] : 0ull);
			}
			samples++;
			no_stack += !cmp;
			eq_lu += sl;
			eq_dw += sd;
			lu_dw += ld;
			all += sl && sd;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "unwind_crosscheck: %s\n", err.msg);
		return 1;
	}
	fprintf(stderr, "unwind_crosscheck: %lu samples (%lu not compared: no stack "
		"copy, or no first frame); ehelf = libunwind in %lu, ehelf = libdw in %lu, "
		"libunwind = libdw in %lu, all three in %lu\n",
		samples, no_stack, eq_lu, eq_dw, lu_dw, all);
	for (size_t i = 0; i < nbases; i++) {
		lu_remote_free(bases[i].lu);
		libdw_unwinder_free(bases[i].dw);
	}
	free(bases);
	procs_free(p);
	dso_table_free(dsos);
	perf_reader_close(r);
	return 0;
}
