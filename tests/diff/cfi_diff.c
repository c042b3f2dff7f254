/*
 * cfi-diff - differential test of the CFI reader against binutils readelf
 * (--debug-dump=frames-interp, row by row) and elfutils libdw (rules at the
 * first address of every row), on real ELF files.
 *
 * Usage: cfi-diff [-j N] [-v] [--max-report N] (--files-from LIST | FILE...)
 * Exit status: 0 when everything agrees, 1 on any mismatch or error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../builder/cfi/uw_dump.h"
#include "../common/corpus_run.h"
#include "libdw_frames.h"
#include "readelf_frames.h"

typedef struct totals {
	uint64_t files, skipped, no_cfi, fdes, rows;
	uint64_t re_fdes, re_rows, re_mismatch, re_extra;
	uint64_t dw_rows, dw_mismatch, dw_lax;
	uint64_t errors;
} totals;

static corpus_opts opt = { .jobs = 1, .max_report = 20 };

#define REPORT(...) corpus_report(&opt, __VA_ARGS__)

/* A row as strings, with "u" (undefined) and "" (no rule) made equal:
 * readelf prints both as "u" once a column exists. */
typedef struct nrow {
	uint64_t lo;
	char cfa[RE_STR];
	char col[RE_NCOLS][RE_STR];
} nrow;

typedef struct nrows {
	nrow *v;
	size_t n, cap;
} nrows;

static void nrows_push(nrows *l, const nrow *r)
{
	if (l->n && l->v[l->n - 1].lo == r->lo) {
		l->v[l->n - 1] = *r; /* an empty row: the later one wins */
	} else {
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 64;
			l->v = realloc(l->v, l->cap * sizeof *l->v);
			if (!l->v)
				abort();
		}
		l->v[l->n++] = *r;
	}
	/* merge identical neighbours */
	if (l->n >= 2) {
		nrow *a = &l->v[l->n - 2], *b = &l->v[l->n - 1];
		if (!strcmp(a->cfa, b->cfa) &&
		    !memcmp(a->col, b->col, sizeof a->col))
			l->n--;
	}
}

static void norm(char *s)
{
	if (!strcmp(s, "u"))
		s[0] = '\0';
}

static void from_re(const re_row *in, uint64_t lo, nrow *out)
{
	memset(out, 0, sizeof *out);
	out->lo = lo;
	memcpy(out->cfa, in->cfa, RE_STR);
	for (int i = 0; i < RE_NCOLS; i++) {
		memcpy(out->col[i], in->col[i], RE_STR);
		norm(out->col[i]);
	}
}

static void from_ours(const uw_row *in, nrow *out)
{
	memset(out, 0, sizeof *out);
	out->lo = in->lo;
	uw_format_cfa(&in->r.cfa, out->cfa, RE_STR);
	for (int i = 0; i < RE_NCOLS; i++) {
		uw_format_rule(&in->r.reg[i], out->col[i], RE_STR);
		norm(out->col[i]);
	}
}

static void row_text(const nrow *r, char *buf, size_t n)
{
	char rn[16];
	size_t used = (size_t)snprintf(buf, n, "%" PRIx64 " cfa=%s", r->lo,
				       r->cfa);
	for (int i = 0; i < RE_NCOLS && used < n; i++)
		if (r->col[i][0])
			used += (size_t)snprintf(buf + used, n - used, " %s=%s",
						 i == UW_RA ? "ra" :
						 uw_reg_name((unsigned)i, rn),
						 r->col[i]);
}

/* State of the readelf pass over one file. */
typedef struct re_pass {
	const char *path;
	elf_file *f;
	totals *t;
	char section[32];
	cfi_reader *r;
	bool reader_failed;
	nrows ours, theirs;
} re_pass;

static int open_section_reader(re_pass *p, const char *section)
{
	cfi_reader_free(p->r);
	p->r = cfi_reader_new();
	snprintf(p->section, sizeof p->section, "%s", section);
	ehelf_err err = { 0 };
	if (!p->r || cfi_reader_add_elf_section(p->r, p->f, section, &err) < 0) {
		REPORT("ERROR %s: %s\n", p->path, err.msg);
		p->reader_failed = true;
		return -1;
	}
	return 0;
}

static int compare_fde(void *arg, const re_fde *re)
{
	re_pass *p = arg;
	if (re->lo == 0)
		return 0; /* discarded function: the reader skips it */
	if (strcmp(re->section, p->section) != 0 &&
	    open_section_reader(p, re->section) < 0)
		return 1;
	if (p->reader_failed)
		return 1;
	uw_fde fde;
	ehelf_err err = { 0 };
	int rc = cfi_reader_next(p->r, &fde, &err);
	if (rc <= 0) {
		REPORT("ERROR %s: %s+0x%" PRIx64 ": %s\n", p->path,
		       re->section, re->offset,
		       rc < 0 ? err.msg : "reader has no FDE here");
		p->reader_failed = true;
		return 1;
	}
	p->t->re_fdes++;
	if (fde.offset != re->offset || fde.lo != re->lo || fde.hi != re->hi) {
		REPORT("MISMATCH readelf %s %s+0x%" PRIx64 ": FDE ours "
		       "+0x%" PRIx64 " %" PRIx64 "..%" PRIx64 ", readelf %"
		       PRIx64 "..%" PRIx64 "\n", p->path, re->section,
		       re->offset, fde.offset, fde.lo, fde.hi, re->lo, re->hi);
		p->t->re_mismatch++;
		return 0;
	}
	p->ours.n = p->theirs.n = 0;
	nrow nr;
	for (size_t i = 0; i < fde.nrows; i++) {
		from_ours(&fde.rows[i], &nr);
		nrows_push(&p->ours, &nr);
	}
	if (re->nrows == 0 && re->cie_row) {
		/* readelf prints no rows for an FDE without instructions */
		from_re(re->cie_row, re->lo, &nr);
		nrows_push(&p->theirs, &nr);
	}
	for (size_t i = 0; i < re->nrows; i++) {
		if (re->rows[i].loc >= re->hi)
			break; /* rows past the FDE's end do not apply */
		from_re(&re->rows[i], re->rows[i].loc, &nr);
		nrows_push(&p->theirs, &nr);
		p->t->re_extra += re->rows[i].extra;
	}
	p->t->re_rows += p->theirs.n;
	size_t n = p->ours.n > p->theirs.n ? p->ours.n : p->theirs.n;
	for (size_t i = 0; i < n; i++) {
		const nrow *a = i < p->ours.n ? &p->ours.v[i] : NULL;
		const nrow *b = i < p->theirs.n ? &p->theirs.v[i] : NULL;
		if (a && b && a->lo == b->lo && !strcmp(a->cfa, b->cfa) &&
		    !memcmp(a->col, b->col, sizeof a->col))
			continue;
		char ta[512] = "(none)", tb[512] = "(none)";
		if (a)
			row_text(a, ta, sizeof ta);
		if (b)
			row_text(b, tb, sizeof tb);
		REPORT("MISMATCH readelf %s %s+0x%" PRIx64 " row %zu:\n"
		       "  ours:    %s\n  readelf: %s\n", p->path, re->section,
		       re->offset, i, ta, tb);
		p->t->re_mismatch++;
		break;
	}
	return 0;
}

static void readelf_pass(const char *path, elf_file *f, totals *t)
{
	re_pass p = { .path = path, .f = f, .t = t };
	char why[512] = "";
	int rc = readelf_frames(path, compare_fde, &p, why, sizeof why);
	if (rc < 0) {
		REPORT("ERROR %s: %s\n", path, why);
		t->errors++;
	} else if (p.reader_failed) {
		t->errors++;
	} else if (p.r) {
		/* every FDE of the reader must have been matched */
		uw_fde fde;
		ehelf_err err = { 0 };
		if (cfi_reader_next(p.r, &fde, &err) != 0) {
			REPORT("MISMATCH readelf %s: reader has FDEs readelf "
			       "does not print\n", path);
			t->re_mismatch++;
		}
	}
	cfi_reader_free(p.r);
	free(p.ours.v);
	free(p.theirs.v);
}

static void libdw_pass(const char *path, elf_file *f, totals *t)
{
	char why[512];
	libdw_cfi dw;
	if (libdw_cfi_open(&dw, path, why, sizeof why) < 0) {
		REPORT("ERROR %s: %s\n", path, why);
		t->errors++;
		return;
	}
	cfi_reader *r = cfi_reader_new();
	ehelf_err err = { 0 };
	int rc = cfi_reader_add_elf(r, f, &err);
	uw_fde fde;
	while (rc >= 0 && (rc = cfi_reader_next(r, &fde, &err)) > 0) {
		t->fdes++;
		t->rows += fde.nrows;
		for (size_t i = 0; i < fde.nrows; i++) {
			t->dw_rows++;
			int st = libdw_cfi_check_row(&dw, &fde, &fde.rows[i],
						     why, sizeof why);
			if (st == 0)
				continue;
			if (st == 2) {
				t->dw_lax++;
				continue;
			}
			t->dw_mismatch++;
			REPORT("MISMATCH libdw %s %s+0x%" PRIx64 " at 0x%" PRIx64
			       ": %s\n", path, fde.section, fde.offset,
			       fde.rows[i].lo, why);
		}
	}
	if (rc < 0) {
		REPORT("ERROR %s: %s\n", path, err.msg);
		t->errors++;
	}
	cfi_reader_free(r);
	libdw_cfi_close(&dw);
}

static void check_file(const char *path, totals *t)
{
	elf_file f;
	ehelf_err err = { 0 };
	int rc = elf_file_open(&f, path, &err);
	if (rc < 0) {
		/* not an x86_64 executable or shared object: not ours */
		if (rc == ERR_IO) {
			REPORT("ERROR %s\n", err.msg);
			t->errors++;
		} else {
			t->skipped++;
		}
		return;
	}
	t->files++;
	uint64_t fdes0 = t->fdes, errors0 = t->errors;
	uint64_t mism0 = t->re_mismatch + t->dw_mismatch;
	libdw_pass(path, &f, t);
	if (t->fdes == fdes0 && t->errors == errors0)
		t->no_cfi++;
	readelf_pass(path, &f, t);
	if (opt.verbose)
		fprintf(stderr, "%s: %" PRIu64 " FDEs, %" PRIu64
			" mismatches\n", path, t->fdes - fdes0,
			t->re_mismatch + t->dw_mismatch - mism0);
	elf_file_close(&f);
}

static void check_one(const char *path, uint64_t *counters)
{
	check_file(path, (totals *)counters);
}

int main(int argc, char **argv)
{
	int rc = corpus_parse_args(argc, argv,
		"Usage: cfi-diff [-j N] [-v] [--max-report N] "
		"(--files-from LIST | FILE...)\n"
		"Compare ehelf's CFI reader with readelf and libdw on real ELFs.\n",
		&opt);
	if (rc >= 0)
		return rc;
	totals sum;
	int failed_children = corpus_run(opt.files, opt.nfiles, opt.jobs, check_one,
					 sizeof sum / sizeof(uint64_t),
					 (uint64_t *)&sum);
	printf("cfi-diff: %" PRIu64 " ELF files (%" PRIu64 " without CFI, %"
	       PRIu64 " other files skipped), %" PRIu64 " FDEs, %" PRIu64
	       " rows\n", sum.files, sum.no_cfi, sum.skipped, sum.fdes,
	       sum.rows);
	printf("  readelf: %" PRIu64 " FDEs, %" PRIu64 " merged rows compared,"
	       " %" PRIu64 " mismatching FDEs (%" PRIu64 " rules in columns "
	       "above 16 not compared)\n", sum.re_fdes, sum.re_rows,
	       sum.re_mismatch, sum.re_extra);
	printf("  libdw:   %" PRIu64 " rows checked, %" PRIu64
	       " mismatching rows (%" PRIu64 " rows with a lax CFA rule that "
	       "libdw rejects, registers compared)\n", sum.dw_rows,
	       sum.dw_mismatch, sum.dw_lax);
	printf("  errors:  %" PRIu64 "%s\n", sum.errors,
	       failed_children ? " (and a worker crashed)" : "");
	if (!sum.files)
		printf("  no ELF file read: nothing compared\n");
	bool ok = !sum.re_mismatch && !sum.dw_mismatch && !sum.errors &&
		  !failed_children && sum.re_fdes == sum.fdes && sum.files > 0;
	if (sum.re_fdes != sum.fdes)
		printf("  FDE counts differ: reader %" PRIu64 ", readelf %"
		       PRIu64 "\n", sum.fdes, sum.re_fdes);
	printf("cfi-diff: %s\n", ok ? "PASS" : "FAIL");
	corpus_opts_free(&opt);
	return ok ? 0 : 1;
}
