/*
 * codegen-check - the compiled eh_elf against the IR it was compiled from.
 *
 * For every ELF given: compile it, load the eh_elf with ehelf_object_open,
 * and for every row of every FDE, at the row's first address and at random
 * addresses inside it, run both entry points on synthetic registers and a
 * synthetic stack, and compare status and all output registers, bit for
 * bit, with ir_eval_row() on the row's rules.  Also: addresses no FDE
 * covers must answer "not covered"; rows whose rule set did not compile
 * must answer "unsupported", and be as many as the compiler reported.
 * The comparison itself, overlapping FDEs included, is table_check.h's.
 *
 * Usage: codegen-check [-j N] [-r RANDOM_PCS] [-v] (--files-from LIST | FILE...)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../builder/codegen/compile.h"
#include "../../client-lib/include/ehelf.h"
#include "../common/corpus_run.h"
#include "table_check.h"

typedef table_counters counters;

static corpus_opts opt = { .jobs = 1, .max_report = 20, .random = 2 };
static int reported;

#define REPORT(...) (reported++, corpus_report(&opt, __VA_ARGS__))

/* table_check's report: printed up to --max-report, rules dumped for
 * those */
static bool report(void *arg, const char *line)
{
	(void)arg;
	REPORT("%s", line);
	return reported <= opt.max_report;
}

/* table_check's readers: the ELF's .eh_frame and .debug_frame */
static cfi_reader *open_elf(void *arg)
{
	ehelf_err err = { 0 };
	cfi_reader *r = cfi_reader_new();
	if (r && cfi_reader_add_elf(r, arg, &err) < 0) {
		cfi_reader_free(r);
		return NULL;
	}
	return r;
}

static void check_file(const char *path, uint64_t *cw)
{
	table_counters *c = (table_counters *)cw;
	elf_file f;
	ehelf_err err = { 0 };
	int rc = elf_file_open(&f, path, &err);
	if (rc < 0) {
		if (rc == ERR_IO) {
			REPORT("ERROR %s\n", err.msg);
			c->errors++;
		} else {
			c->skipped++;
		}
		return;
	}
	c->files++;
	uint8_t *image = NULL;
	size_t len = 0;
	ehelf_compile_stats st;
	rc = ehelf_compile_elf(&f, NULL, &image, &len, &st, &err);
	if (rc == ERR_NOTFOUND) {
		c->no_cfi++;
		elf_file_close(&f);
		return;
	}
	if (rc < 0) {
		REPORT("ERROR %s: compile: %s\n", path, err.msg);
		c->errors++;
		elf_file_close(&f);
		return;
	}
	c->unsupported_expected += st.unsupported_rows;
	char tmp[] = "/tmp/ehelf-check-XXXXXX";
	int fd = mkstemp(tmp);
	ehelf_object *o = NULL;
	if (fd >= 0 && write(fd, image, len) == (ssize_t)len && close(fd) == 0)
		o = ehelf_object_open(tmp);
	unlink(tmp);
	free(image);
	if (!o) {
		REPORT("ERROR %s: cannot load its eh_elf: %s\n", path,
		       ehelf_last_error());
		c->errors++;
		ehelf_compile_stats_free(&st);
		elf_file_close(&f);
		return;
	}

	table_check_env env = { .random = opt.random, .report = report,
				.open = open_elf, .arg = &f };
	table_check(o, path, &env, c);
	ehelf_object_close(o);
	ehelf_compile_stats_free(&st);
	elf_file_close(&f);
}

int main(int argc, char **argv)
{
	int rc = corpus_parse_args(argc, argv,
		"Usage: codegen-check [-j N] [-r RANDOM_PCS] [-v] [--max-report N] "
		"(--files-from LIST | FILE...)\n"
		"Check compiled eh_elfs against the IR rows they come from.\n",
		&opt);
	if (rc >= 0)
		return rc;
	if (table_check_init() < 0) {
		fprintf(stderr, "codegen-check: out of memory\n");
		return 1;
	}
	counters s;
	int dead = corpus_run(opt.files, opt.nfiles, opt.jobs, check_file,
			      sizeof s / sizeof(uint64_t), (uint64_t *)&s);
	printf("codegen-check: %" PRIu64 " ELF files compiled and loaded (%"
	       PRIu64 " without CFI, %" PRIu64 " other files skipped), %" PRIu64
	       " FDEs, %" PRIu64 " rows\n", s.files, s.no_cfi, s.skipped,
	       s.fdes, s.rows);
	printf("  %" PRIu64 " steps compared (each pc: local and remote, and "
	       "the row's summary where it has one; all registers valid and "
	       "some not), %" PRIu64 " through summaries, %" PRIu64
	       " mismatching rows\n", s.pcs, s.summarised, s.mismatches);
	printf("  statuses: step %" PRIu64 ", outermost %" PRIu64 ", read %"
	       PRIu64 ", bounds %" PRIu64 ", badreg %" PRIu64 ", expr %" PRIu64
	       "\n", s.status[1], s.status[0], s.status[3], s.status[7],
	       s.status[5], s.status[6]);
	printf("  %" PRIu64 " uncovered addresses answer 'not covered'; %"
	       PRIu64 " rows hidden by overlapping FDEs\n",
	       s.not_covered_checks, s.overlap_rows);
	printf("  unsupported rows: %" PRIu64 " (compiler reported %" PRIu64
	       ")\n", s.unsupported_rows, s.unsupported_expected);
	printf("  errors: %" PRIu64 "%s\n", s.errors,
	       dead ? " (and a worker died)" : "");
	if (!s.files)
		printf("  no ELF file read: nothing compared\n");
	bool ok = !s.mismatches && !s.errors && !dead &&
		  s.unsupported_rows <= s.unsupported_expected &&
		  (s.summarised > 0 || s.rows == 0) && s.files > 0;
	printf("codegen-check: %s\n", ok ? "PASS" : "FAIL");
	corpus_opts_free(&opt);
	return ok ? 0 : 1;
}
