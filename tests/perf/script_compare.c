/*
 * script_compare - compare two `perf script -F comm,tid,time,event,ip,sym,
 * symoff,dso --no-inline` outputs of the same perf.data file, sample by
 * sample: perf's own (PERF) and ehelf-perf's (EHELF).
 *
 * Samples are matched in order by their header line (comm, tid, time,
 * event).  Each sample's frames are split into kernel frames (dso
 * [kernel.kallsyms], or a module in brackets, at a kernel address) and
 * user frames; the user stacks are compared line by line (address,
 * symbol+offset, file).  A differing sample falls in the first class that
 * fits:
 *   perf-longer    EHELF's frames are a strict prefix of PERF's
 *   ehelf-longer   PERF's frames are a strict prefix of EHELF's
 *   symbol         the first differing frame has the same address and file
 *   address        the first differing frame has another address
 * With --oracle FILE (unwind_crosscheck's output for the same perf.data
 * file: per sample, whether libunwind and libdw used directly find the
 * frames ehelf found), a differing sample where both agree with ehelf is
 * counted as "perf only": perf's own result differs from the libraries it
 * is built on, used directly on the same sample; one where ehelf guessed a
 * frame by the frame-pointer chain (no CFI for a pc) and libdw agrees with
 * it is counted as "guess" (libunwind guesses otherwise there, and so
 * perf); one where libdw agrees with ehelf and libunwind used directly
 * differs too is counted as "libunwind" (a limit of the library perf
 * unwinds with; only when ehelf used no libdw frame); one where libunwind
 * used directly agrees with ehelf (no guessed frame) and libdw differs is
 * counted as "libdw" (libdw's own limits: elfutils 0.188's default x86-64
 * rules leave rbx undefined, which loses frames whose CFA is rbx-based,
 * e.g. ld.so's _dl_runtime_resolve_xsavec; and it has no rule for a pc on
 * a PLT entry without CFI, as lld links them, where libunwind and ehelf
 * take the return address at the stack pointer).  A difference in names
 * at the same address ("symbol") is never explained.  Of the "perf only"
 * ones, those where libunwind reading
 * the stack copy with perf's bound (its last 8 bytes unreadable) stops
 * early too are counted apart.
 * Prints the counts, the share of identical user stacks, and the first
 * unexplained examples of each class (-v: 20, --examples N: N).  Exit 0,
 * or 1 when there are fewer samples than --min-samples N (default 1: no
 * samples is a failure, never a pass), the headers differ (not the same
 * samples), the identical share is below --min PERCENT (without --min:
 * just reported), or, with --oracle and --explained, a differing sample
 * is in none of those classes.  A --min that is not above 0, or a
 * --min-samples below 1, is a usage error (exit 2): a minimum of zero
 * would pass on no samples at all.
 *
 * Usage: script_compare [-v] [--examples N] [--min PERCENT] [--min-samples N]
 *                       [--oracle FILE [--explained]] PERF EHELF
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sample {
	char *header;
	char **lines;     /* frames, without the leading tab */
	int n, nuser_from; /* user frames are lines[nuser_from..n) */
} sample;

typedef struct file {
	sample *v;
	size_t n, cap;
} file;

static bool kernel_line(const char *l)
{
	/* "ADDR SYM (DSO)": a kernel address has 16 hex digits from 0xffff */
	while (*l == ' ')
		l++;
	return strncmp(l, "ffff", 4) == 0 && strlen(l) > 16 && l[16] == ' ';
}

static int load(const char *path, file *f)
{
	FILE *in = fopen(path, "r");
	if (!in) {
		perror(path);
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	sample *cur = NULL;
	while ((len = getline(&line, &cap, in)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n'))
			line[--len] = '\0';
		if (len == 0) {
			cur = NULL;
			continue;
		}
		if (line[0] != '\t') {
			if (f->n == f->cap) {
				f->cap = f->cap ? 2 * f->cap : 4096;
				f->v = realloc(f->v, f->cap * sizeof *f->v);
				if (!f->v)
					return -1;
			}
			cur = &f->v[f->n++];
			memset(cur, 0, sizeof *cur);
			cur->header = strdup(line);
			continue;
		}
		if (!cur)
			continue;
		cur->lines = realloc(cur->lines, (size_t)(cur->n + 1) * sizeof *cur->lines);
		cur->lines[cur->n++] = strdup(line + 1);
	}
	free(line);
	fclose(in);
	for (size_t i = 0; i < f->n; i++) {
		sample *s = &f->v[i];
		s->nuser_from = 0;
		while (s->nuser_from < s->n && kernel_line(s->lines[s->nuser_from]))
			s->nuser_from++;
	}
	return 0;
}

enum { SAME, PERF_LONGER, EHELF_LONGER, SYMBOL, ADDRESS, NCLASS };
static const char *const class_name[NCLASS] = {
	"identical", "perf-longer", "ehelf-longer", "symbol", "address",
};

/* "ADDR SYM (DSO)" -> whether A and B have the same ADDR and DSO */
static bool same_place(const char *a, const char *b)
{
	while (*a == ' ')
		a++;
	while (*b == ' ')
		b++;
	size_t ia = strcspn(a, " "), ib = strcspn(b, " ");
	const char *da = strrchr(a, '('), *db = strrchr(b, '(');
	return ia == ib && !strncmp(a, b, ia) && da && db && !strcmp(da, db);
}

/* unwind_crosscheck's lines: per sample 1 when libunwind and libdw agree
 * with ehelf, 3 when moreover libunwind with perf's bound on the stack
 * copy stops early, 2 when ehelf guessed a frame and libdw agrees, 4 when
 * libdw agrees and libunwind used directly does not either (libunwind's
 * own limit, which perf inherits; not when ehelf stepped a frame with
 * libdw's CFI itself, where libdw's agreeing proves nothing), 5 when
 * libunwind agrees and libdw does not (libdw's own limit; not when ehelf
 * guessed a frame), else 0 */
static int load_oracle(const char *path, int **agree, size_t *n)
{
	FILE *in = fopen(path, "r");
	if (!in) {
		perror(path);
		return -1;
	}
	size_t cap = 0;
	int ne, nl, nd, sl, sd, guessed, bound, dwarf;
	while (fscanf(in, "%d %d %d %d %d %d %d %d", &ne, &nl, &nd, &sl, &sd,
		      &guessed, &bound, &dwarf) == 8) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 4096;
			*agree = realloc(*agree, cap * sizeof **agree);
			if (!*agree)
				return -1;
		}
		(*agree)[(*n)++] = sl && sd ? (bound ? 3 : 1) : guessed && sd ? 2
				 : sd && !dwarf ? 4 : sl && !guessed ? 5 : 0;
	}
	fclose(in);
	return 0;
}

int main(int argc, char **argv)
{
	int verbose = 0, argi = 1, examples = -1;
	double min = 0; /* 0: not asked */
	long min_samples = 1;
	char *end;
	const char *oracle = NULL;
	bool explained = false;
	while (argi < argc && argv[argi][0] == '-') {
		if (!strcmp(argv[argi], "-v"))
			verbose++, argi++;
		else if (!strcmp(argv[argi], "--min") && argi + 1 < argc) {
			min = strtod(argv[argi + 1], &end);
			if (end == argv[argi + 1] || *end || !(min > 0 && min <= 100)) {
				fprintf(stderr, "script_compare: --min %s: a share of "
					"identical stacks above 0 and at most 100 "
					"(leave --min out to only report it)\n",
					argv[argi + 1]);
				return 2;
			}
			argi += 2;
		} else if (!strcmp(argv[argi], "--min-samples") && argi + 1 < argc) {
			min_samples = strtol(argv[argi + 1], &end, 10);
			if (end == argv[argi + 1] || *end || min_samples < 1) {
				fprintf(stderr, "script_compare: --min-samples %s: a "
					"count of at least 1\n", argv[argi + 1]);
				return 2;
			}
			argi += 2;
		}
		else if (!strcmp(argv[argi], "--oracle") && argi + 1 < argc)
			oracle = argv[argi + 1], argi += 2;
		else if (!strcmp(argv[argi], "--explained"))
			explained = true, argi++;
		else if (!strcmp(argv[argi], "--examples") && argi + 1 < argc)
			examples = atoi(argv[argi + 1]), argi += 2;
		else
			break;
	}
	if (argc - argi != 2) {
		fprintf(stderr, "usage: script_compare [-v] [--examples N] "
			"[--min PERCENT] [--min-samples N] [--oracle FILE "
			"[--explained]] PERF EHELF\n");
		return 2;
	}
	file pf = { 0 }, ef = { 0 };
	if (load(argv[argi], &pf) < 0 || load(argv[argi + 1], &ef) < 0)
		return 2;
	int *agree = NULL;
	size_t nagree = 0;
	if (oracle && (load_oracle(oracle, &agree, &nagree) < 0 || nagree != pf.n)) {
		fprintf(stderr, "script_compare: %s: %zu samples, not %zu\n", oracle,
			nagree, pf.n);
		return 2;
	}
	if (pf.n != ef.n) {
		printf("script_compare: %zu samples from perf, %zu from ehelf-perf\n",
		       pf.n, ef.n);
		return 1;
	}
	size_t count[NCLASS] = { 0 }, header_diff = 0, kernel_diff = 0, shown[NCLASS] = { 0 };
	size_t perf_only = 0, guess = 0, by_bound = 0, libunwind = 0, libdw = 0;
	size_t user_frames = 0;
	for (size_t i = 0; i < pf.n; i++) {
		const sample *p = &pf.v[i], *e = &ef.v[i];
		if (strcmp(p->header, e->header) != 0) {
			if (header_diff++ < 5)
				printf("header %zu differs:\n  perf:  %s\n  ehelf: %s\n", i,
				       p->header, e->header);
			continue;
		}
		bool kdiff = p->nuser_from != e->nuser_from;
		for (int k = 0; !kdiff && k < p->nuser_from; k++)
			kdiff = strcmp(p->lines[k], e->lines[k]) != 0;
		kernel_diff += kdiff;
		int np = p->n - p->nuser_from, ne = e->n - e->nuser_from;
		user_frames += (size_t)np;
		int k = 0;
		while (k < np && k < ne &&
		       !strcmp(p->lines[p->nuser_from + k], e->lines[e->nuser_from + k]))
			k++;
		int cls;
		if (k == np && k == ne)
			cls = SAME;
		else if (k == ne)
			cls = PERF_LONGER;
		else if (k == np)
			cls = EHELF_LONGER;
		else if (same_place(p->lines[p->nuser_from + k], e->lines[e->nuser_from + k]))
			cls = SYMBOL;
		else
			cls = ADDRESS;
		count[cls]++;
		/* the oracle speaks of unwinding (pcs), not of names: a symbol
		 * printed otherwise at the same address is never explained */
		if (cls != SAME && cls != SYMBOL && agree && agree[i]) {
			if (agree[i] == 1 || agree[i] == 3)
				perf_only++;
			else if (agree[i] == 2)
				guess++;
			else if (agree[i] == 4)
				libunwind++;
			else
				libdw++;
			by_bound += agree[i] == 3;
			continue; /* explained: not shown */
		}
		if (cls != SAME && shown[cls]++ < (size_t)(examples >= 0 ? examples
							   : verbose ? 20 : 3)) {
			printf("%s: %s (user frames from %d)\n", class_name[cls], p->header, k);
			for (int j = k; j < k + 4 && (j < np || j < ne); j++)
				printf("  %2d perf:  %s\n     ehelf: %s\n", j,
				       j < np ? p->lines[p->nuser_from + j] : "-",
				       j < ne ? e->lines[e->nuser_from + j] : "-");
		}
	}
	size_t compared = pf.n - header_diff;
	double share = compared ? 100.0 * (double)count[SAME] / (double)compared : 0;
	printf("script_compare: %zu samples, %zu user frames (perf); identical user "
	       "stacks %zu (%.2f%%)", pf.n, user_frames, count[SAME], share);
	for (int c = 1; c < NCLASS; c++)
		printf(", %s %zu", class_name[c], count[c]);
	printf("; kernel frames differ in %zu, headers in %zu", kernel_diff,
	       header_diff);
	size_t differing = compared - count[SAME];
	if (agree)
		printf("; of the %zu differing, %zu perf only (libunwind and libdw "
		       "used directly agree with ehelf; in %zu of them libunwind "
		       "with perf's bound on the stack copy stops early too), "
		       "%zu guesses (no CFI; libdw agrees with ehelf), %zu libunwind "
		       "(libdw agrees with ehelf, libunwind used directly differs "
		       "too), %zu libdw (libunwind used directly agrees with ehelf, "
		       "libdw differs: its rbx rule, PLT entries), %zu others", differing,
		       perf_only, by_bound, guess, libunwind, libdw,
		       differing - perf_only - guess - libunwind - libdw);
	printf("\n");
	if (pf.n < (size_t)min_samples) {
		printf("script_compare: %zu samples, fewer than the %ld asked "
		       "(--min-samples)\n", pf.n, min_samples);
		return 1;
	}
	return header_diff || share < min ||
	       (agree && explained &&
		differing != perf_only + guess + libunwind + libdw)
		       ? 1 : 0;
}
