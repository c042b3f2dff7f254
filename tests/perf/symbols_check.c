/*
 * symbols_check - tools/ehelf-perf/perfdata/symbols.h against /usr/bin/perf.
 *
 *   symbols_check frames SCRIPT BUILDIDS [CACHE]
 *	SCRIPT is the output of `perf script -F ip,sym,symoff,dso --no-inline
 *	--show-mmap-events`, BUILDIDS that of `perf buildid-list` on the same
 *	perf.data, CACHE perf's build-ID cache (default ~/.debug), where perf
 *	record keeps the vDSO.  Every callchain frame perf printed with a symbol must get
 *	the same name and offset from symtab_find() on its DSO (the build-ID
 *	perf recorded) or on kallsyms; every frame perf printed as [unknown]
 *	in an ELF DSO must get none.  perf prints user addresses of DWARF
 *	callchains map-relative, i.e. as file offsets (the mmap events are
 *	used to check that); they are turned into link-time addresses through
 *	the DSO's PT_LOAD headers.
 *   symbols_check names DSO PROBE
 *	PROBE is the output of `perf probe -F --filter '*' -x DSO`, every
 *	symbol perf loads for DSO, aliases kept (demangled, with PLT entries):
 *	the same multiset of names as symtab_load_elf_flags(SYMTAB_ALIASES).
 *   symbols_check dump DSO|kallsyms
 *	The table: start, size and name of every symbol.
 *
 * Prints counts and the first mismatches of each DSO; exit status 0 when
 * everything matches, 1 on any mismatch, 2 on bad usage or input.
 */
#include <ctype.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/ehelf-perf/perfdata/symbols.h"
#include "../../common/buildid.h"
#include "../../common/elf_file.h"

enum { MAX_SHOWN = 8 };

/* ---- DSOs: path, build-ID, table, PT_LOADs, mappings, counts ------------ */

struct range {
	uint64_t lo, hi;	/* [lo, hi) */
};

struct dso {
	char *name;		/* as perf prints it */
	char *path;		/* the ELF file (for [vdso]: the cached copy) */
	uint8_t id[BUILDID_MAX_BYTES];
	size_t idlen;
	bool loaded;
	symtab *syms;
	char err[512];
	GElf_Phdr *loads;
	size_t nloads;
	struct range *maps_off, *maps_run;	/* from the mmap events */
	size_t nmaps, capmaps;
	long checked, mismatched, unknown_ok, unmapped;
	long shown;
};

static struct dso *dsos;
static size_t ndsos, capdsos;
static symtab *kallsyms;
static long by_offset, by_runtime, ambiguous;

static struct dso *dso_get(const char *name)
{
	for (size_t i = 0; i < ndsos; i++)
		if (strcmp(dsos[i].name, name) == 0)
			return &dsos[i];
	if (ndsos == capdsos) {
		capdsos = capdsos ? 2 * capdsos : 64;
		dsos = realloc(dsos, capdsos * sizeof *dsos);
		if (!dsos) {
			perror("realloc");
			exit(2);
		}
	}
	struct dso *d = &dsos[ndsos++];
	memset(d, 0, sizeof *d);
	d->name = strdup(name);
	d->path = strdup(name);
	return d;
}

static void add_map(struct dso *d, uint64_t start, uint64_t len,
		    uint64_t pgoff)
{
	if (d->nmaps == d->capmaps) {
		d->capmaps = d->capmaps ? 2 * d->capmaps : 8;
		d->maps_off = realloc(d->maps_off, d->capmaps * sizeof(struct range));
		d->maps_run = realloc(d->maps_run, d->capmaps * sizeof(struct range));
		if (!d->maps_off || !d->maps_run) {
			perror("realloc");
			exit(2);
		}
	}
	d->maps_off[d->nmaps] = (struct range){ pgoff, pgoff + len };
	d->maps_run[d->nmaps++] = (struct range){ start, start + len };
}

static bool in_ranges(const struct range *r, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (x >= r[i].lo && x < r[i].hi)
			return true;
	return false;
}

static void dso_load(struct dso *d)
{
	if (d->loaded)
		return;
	d->loaded = true;
	ehelf_err err = { 0 };
	d->syms = symtab_load_elf(d->path, d->id, d->idlen, &err);
	if (!d->syms) {
		snprintf(d->err, sizeof d->err, "%s", err.msg);
		return;
	}
	elf_file f;
	if (elf_file_open(&f, d->path, NULL) != 0)
		return;
	size_t n = 0;
	elf_getphdrnum(f.elf, &n);
	d->loads = calloc(n + 1, sizeof *d->loads);
	for (size_t i = 0; d->loads && i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(f.elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			d->loads[d->nloads++] = ph;
	}
	elf_file_close(&f);
}

/* The link-time address of file offset OFF, or false if no PT_LOAD holds
 * it. */
static bool offset_to_addr(const struct dso *d, uint64_t off, uint64_t *addr)
{
	for (size_t i = 0; i < d->nloads; i++) {
		const GElf_Phdr *ph = &d->loads[i];
		if (off >= ph->p_offset && off - ph->p_offset < ph->p_filesz) {
			*addr = off - ph->p_offset + ph->p_vaddr;
			return true;
		}
	}
	return false;
}

/* ---- input ----------------------------------------------------------------- */

static FILE *open_or_die(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "symbols_check: %s: cannot open\n", path);
		exit(2);
	}
	return f;
}

static int hexval(char c)
{
	return isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
}

/* `perf buildid-list`: "HEX PATH" per line; the vDSO is in CACHE. */
static void read_buildids(const char *file, const char *cache)
{
	FILE *f = open_or_die(file);
	char line[8192];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		char *sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		if (!buildid_valid_hex(line))
			continue;
		const char *name = sp + 1;
		struct dso *d = dso_get(name);
		d->idlen = strlen(line) / 2;
		for (size_t i = 0; i < d->idlen; i++)
			d->id[i] = (uint8_t)(hexval(line[2 * i]) << 4 |
					     hexval(line[2 * i + 1]));
		if (strcmp(name, "[vdso]") == 0) {
			/* perf record keeps the vDSO in its build-ID cache */
			char p[4096];
			snprintf(p, sizeof p, "%s/[vdso]/%s/vdso", cache, line);
			free(d->path);
			d->path = strdup(p);
		}
	}
	fclose(f);
}

/* "PERF_RECORD_MMAP2 1/1: [0xSTART(0xLEN) @ 0xPGOFF ...]: r-xp PATH" */
static void parse_mmap(const char *line)
{
	const char *p = strchr(line, '[');
	uint64_t start, len, pgoff;
	if (!p || sscanf(p, "[%" SCNx64 "(%" SCNx64 ") @ %" SCNx64, &start,
			 &len, &pgoff) != 3)
		return;
	const char *q = strstr(p, "]: ");
	if (!q)
		return;
	q += 3;
	const char *path = strchr(q, ' ');	/* after the protection */
	if (!path || path[1] != '/')
		return;
	add_map(dso_get(path + 1), start, len, pgoff);
}

static void mismatch(struct dso *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void mismatch(struct dso *d, const char *fmt, ...)
{
	d->mismatched++;
	if (d->shown++ >= MAX_SHOWN)
		return;
	va_list ap;
	va_start(ap, fmt);
	printf("  MISMATCH %s: ", d->name);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

/* One callchain line: "\t  ADDR SYM+0xOFF (DSO)" or "\t ADDR [unknown] (DSO)". */
static void check_frame(char *line)
{
	char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	char *end;
	uint64_t x = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return;
	char *text = end + 1;
	size_t n = strlen(text);
	if (n < 3 || text[n - 1] != ')')
		return;
	char *open = NULL;
	for (char *q = text; (q = strstr(q, " (")) != NULL; q++)
		open = q;
	if (!open)
		return;
	*open = '\0';
	text[n - 1] = '\0';
	const char *dname = open + 2;
	bool unknown = strcmp(text, "[unknown]") == 0;
	const char *want = text;
	uint64_t want_off = 0;
	if (!unknown) {
		char *plus = NULL;
		for (char *q = text; (q = strstr(q, "+0x")) != NULL; q++)
			plus = q;
		if (!plus)
			return;
		*plus = '\0';
		want_off = strtoull(plus + 3, NULL, 16);
	}

	struct dso *d = dso_get(dname);
	const char *got;
	uint64_t off = 0;
	if (strcmp(dname, "[kernel.kallsyms]") == 0) {
		if (!kallsyms) {
			ehelf_err err = { 0 };
			kallsyms = symtab_load_kallsyms(&err);
			if (!kallsyms) {
				fprintf(stderr, "symbols_check: %s\n", err.msg);
				exit(2);
			}
		}
		got = symtab_find(kallsyms, x, &off);
	} else if (dname[0] == '/' || strcmp(dname, "[vdso]") == 0) {
		dso_load(d);
		if (!d->syms) {
			if (!unknown)
				mismatch(d, "%s+0x%" PRIx64 ": no table: %s", want,
					 want_off, d->err);
			else
				d->unknown_ok++;
			d->checked++;
			return;
		}
		/* map-relative (a file offset) or a runtime address? */
		bool off_like = d->nmaps == 0 ||
				in_ranges(d->maps_off, d->nmaps, x);
		bool run_like = in_ranges(d->maps_run, d->nmaps, x);
		uint64_t addr;
		if (run_like && !off_like) {
			by_runtime++;
			for (size_t i = 0; i < d->nmaps; i++)
				if (x >= d->maps_run[i].lo && x < d->maps_run[i].hi)
					x = x - d->maps_run[i].lo + d->maps_off[i].lo;
		} else {
			by_offset++;
			ambiguous += run_like;
		}
		if (!offset_to_addr(d, x, &addr)) {
			d->unmapped++;
			if (!unknown)
				mismatch(d, "0x%" PRIx64 " %s+0x%" PRIx64
					 ": offset in no PT_LOAD", x, want,
					 want_off);
			d->checked++;
			return;
		}
		got = symtab_find(d->syms, addr, &off);
		x = addr;
	} else {
		return;		/* [unknown], anonymous and JIT maps */
	}
	d->checked++;
	if (unknown) {
		if (got)
			mismatch(d, "0x%" PRIx64 ": perf [unknown], here %s+0x%"
				 PRIx64, x, got, off);
		else
			d->unknown_ok++;
		return;
	}
	if (!got || strcmp(got, want) != 0 || off != want_off)
		mismatch(d, "0x%" PRIx64 ": perf %s+0x%" PRIx64 ", here %s+0x%"
			 PRIx64, x, want, want_off, got ? got : "(none)", off);
}

static int frames(const char *script, const char *buildids,
		  const char *cache)
{
	read_buildids(buildids, cache);
	FILE *f = open_or_die(script);
	char *line = NULL;
	size_t cap = 0;
	long lines = 0;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "PERF_RECORD_MMAP", 16) == 0)
			parse_mmap(line);
		else if (line[0] == '\t' || line[0] == ' ')
			check_frame(line);
		lines++;
	}
	free(line);
	fclose(f);

	long checked = 0, bad = 0;
	printf("%-60s %9s %9s %9s\n", "dso", "frames", "unknown", "mismatch");
	for (size_t i = 0; i < ndsos; i++) {
		struct dso *d = &dsos[i];
		if (d->checked == 0)
			continue;
		printf("%-60s %9ld %9ld %9ld\n", d->name, d->checked,
		       d->unknown_ok, d->mismatched);
		checked += d->checked;
		bad += d->mismatched;
	}
	printf("frames checked: %ld, mismatches: %ld; user addresses: %ld "
	       "map-relative (%ld also runtime-like), %ld runtime\n", checked,
	       bad, by_offset, ambiguous, by_runtime);
	if (checked == 0) {
		printf("no frames in %s\n", script);
		return 1;
	}
	return bad ? 1 : 0;
}

/* ---- names: the whole table against perf probe -F ------------------------ */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int names(const char *path, const char *probe)
{
	ehelf_err err = { 0 };
	symtab *s = symtab_load_elf_flags(path, NULL, 0, SYMTAB_ALIASES, &err);
	if (!s) {
		fprintf(stderr, "symbols_check: %s\n", err.msg);
		return 2;
	}
	size_t n = symtab_size(s), m = 0, cap = 1024;
	char **ours = malloc((n + 1) * sizeof *ours);
	char **theirs = malloc(cap * sizeof *theirs);
	for (size_t i = 0; i < n; i++)
		ours[i] = (char *)symtab_symbol(s, i, NULL, NULL);
	FILE *f = open_or_die(probe);
	char *line = NULL;
	size_t lcap = 0;
	while (getline(&line, &lcap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (m == cap)
			theirs = realloc(theirs, (cap *= 2) * sizeof *theirs);
		theirs[m++] = strdup(line);
	}
	free(line);
	fclose(f);
	qsort(ours, n, sizeof *ours, cmp_str);
	qsort(theirs, m, sizeof *theirs, cmp_str);
	size_t i = 0, j = 0, only_ours = 0, only_perf = 0;
	while (i < n || j < m) {
		int c = i == n ? 1 : j == m ? -1 : strcmp(ours[i], theirs[j]);
		if (c == 0) {
			i++;
			j++;
		} else if (c < 0) {
			if (only_ours++ < MAX_SHOWN)
				printf("  only here: %s\n", ours[i]);
			i++;
		} else {
			if (only_perf++ < MAX_SHOWN)
				printf("  only perf: %s\n", theirs[j]);
			j++;
		}
	}
	printf("%s: %zu names here, %zu from perf probe, %zu only here, "
	       "%zu only perf\n", path, n, m, only_ours, only_perf);
	if (n == 0)
		printf("%s: no names: nothing compared\n", path);
	for (j = 0; j < m; j++)
		free(theirs[j]);
	free(theirs);
	free(ours);
	symtab_free(s);
	return only_ours || only_perf || n == 0 ? 1 : 0;
}

static int dump(const char *path)
{
	ehelf_err err = { 0 };
	symtab *s = strcmp(path, "kallsyms") == 0 ? symtab_load_kallsyms(&err)
		  : symtab_load_elf(path, NULL, 0, &err);
	if (!s) {
		fprintf(stderr, "symbols_check: %s\n", err.msg);
		return 2;
	}
	for (size_t i = 0; i < symtab_size(s); i++) {
		uint64_t start, size;
		const char *name = symtab_symbol(s, i, &start, &size);
		printf("%016" PRIx64 " %8" PRIx64 " %s\n", start, size, name);
	}
	symtab_free(s);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "frames") == 0) {
		char home[4096];
		snprintf(home, sizeof home, "%s/.debug",
			 getenv("HOME") ? getenv("HOME") : "/root");
		return frames(argv[2], argv[3], argc == 5 ? argv[4] : home);
	}
	if (argc == 4 && strcmp(argv[1], "names") == 0)
		return names(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "dump") == 0)
		return dump(argv[2]);
	fprintf(stderr, "usage: symbols_check frames SCRIPT BUILDIDS [CACHE]\n"
			"       symbols_check names DSO PROBE\n"
			"       symbols_check dump DSO|kallsyms\n");
	return 2;
}
