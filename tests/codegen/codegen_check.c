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
 * Where ehelf_describe summarises a row, the summary applied by the client
 * library (summary_step) must give the same result too.
 * Where FDEs overlap (the same function in .eh_frame and .debug_frame, or
 * a broken link), an address belongs to the covering FDE that starts first
 * (the earlier one in the file on a tie), as the lookup table decides;
 * rows hidden entirely that way are counted, not checked.
 *
 * Usage: codegen-check [-j N] [-r RANDOM_PCS] [-v] (--files-from LIST | FILE...)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../builder/cfi/uw_dump.h"
#include "../../builder/codegen/compile.h"
#include "../../client-lib/include/ehelf.h"
#include "../../client-lib/summary_step.h"
#include "../common/corpus_run.h"
#include "ir_eval.h"

typedef struct counters {
	uint64_t files, skipped, no_cfi, fdes, rows, overlap_rows;
	uint64_t pcs, mismatches, unsupported_rows, unsupported_expected;
	uint64_t not_covered_checks, errors, summarised;
	uint64_t status[8];   /* results by status: 1-EHELF_E_BOUNDS .. */
} counters;

static corpus_opts opt = { .jobs = 1, .max_report = 20, .random = 2 };
static int reported;

#define REPORT(...) (reported++, corpus_report(&opt, __VA_ARGS__))

/* ---- the synthetic process: a stack full of pointers into itself -------- */

enum { MEM_SIZE = 4 << 20 };
static uint8_t *mem;

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static void mem_init(void)
{
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		abort();
	uint64_t *w = (uint64_t *)mem;
	for (size_t k = 0; k < MEM_SIZE / 8; k++)
		w[k] = (uint64_t)(uintptr_t)mem + MEM_SIZE / 4 +
		       (mix64(k) % (MEM_SIZE / 2) & ~7ull);
}

static int read_mem(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	uint64_t base = (uint64_t)(uintptr_t)mem;
	if (addr < base || addr > base + MEM_SIZE - 8)
		return -1;
	memcpy(value, (const void *)(uintptr_t)addr, 8);
	return 0;
}

/* Registers of a frame at PC; VARIANT 0 has every register valid, others
 * drop some. */
static void make_regs(ehelf_regs *r, uint64_t pc, uint64_t seed, int variant)
{
	uint64_t base = (uint64_t)(uintptr_t)mem + MEM_SIZE / 2;
	for (int i = 0; i < EHELF_NREGS; i++)
		r->r[i] = base + (mix64(seed * 31 + (uint64_t)i) % (256 << 10) & ~7ull);
	r->r[EHELF_RIP] = pc;
	r->valid = EHELF_VALID_REGS;
	if (variant)
		r->valid &= (uint32_t)mix64(seed ^ 0xabcdef) | (1u << EHELF_RSP) |
			    (1u << EHELF_RIP);
	r->valid |= EHELF_SIGNAL_FRAME; /* must not leak into out */
}

/* ---- one file ----------------------------------------------------------- */

typedef struct range {
	uint64_t lo, hi;
	uint32_t seq;
	bool overlaps;
} range;

static int cmp_range(const void *a, const void *b)
{
	const range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_seq(const void *a, const void *b)
{
	const range *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Does the FDE with sequence number SEQ own PC?  The lookup table gives an
 * address to the covering FDE that starts first (earlier in the file on a
 * tie); only called for FDEs that overlap others.  RV is sorted by lo. */
static bool owns(const range *rv, size_t nr, uint32_t seq, uint64_t pc)
{
	const range *best = NULL;
	for (size_t i = 0; i < nr && rv[i].lo <= pc; i++) {
		if (pc >= rv[i].hi)
			continue;
		if (!best || rv[i].lo < best->lo ||
		    (rv[i].lo == best->lo && rv[i].seq < best->seq))
			best = &rv[i];
	}
	return best && best->seq == seq;
}

static void status_count(counters *c, int st)
{
	if (st >= -6 && st <= 1)
		c->status[1 - st]++;
}

/* Compare one pc in both modes; returns true if all agree. */
static bool check_pc(const ehelf_object *o, const uw_fde *fde,
		     const uw_row *row, uint64_t pc, uint64_t seed,
		     counters *c, const char *path, bool *unsupported)
{
	bool ok = true;
	for (int variant = 0; variant < 2; variant++) {
		ehelf_regs in, want, got;
		make_regs(&in, pc, seed, variant);
		/* modes: the local and remote entry points, and the row's
		 * summary (ehelf_describe) applied by the client library */
		uint64_t sum = ehelf_object_describe(o, pc);
		for (int mode = 0; mode < 3; mode++) {
			if (mode == 2 && !sum)
				break;
			ir_mem m = { .local = mode == 0,
				     .lo = (uint64_t)(uintptr_t)mem,
				     .hi = (uint64_t)(uintptr_t)mem + MEM_SIZE,
				     .read = read_mem };
			memset(&got, 0x5a, sizeof got);
			int gs = mode == 0
				 ? ehelf_object_step_local(o, pc, &in, &got, m.lo, m.hi)
				 : mode == 1
				 ? ehelf_object_step(o, pc, &in, &got, read_mem, NULL)
				 : summary_step(sum, &in, &got, 0, 0, read_mem, NULL);
			c->pcs++;
			c->summarised += mode == 2;
			status_count(c, gs);
			if (gs == EHELF_E_UNSUPPORTED) {
				*unsupported = true;
				continue;
			}
			int ws = ir_eval_row(&row->r, fde->signal_frame, &in,
					     &want, &m);
			bool same = gs == ws &&
				    (gs < 0 || (got.valid == want.valid &&
						memcmp(got.r, want.r, sizeof got.r) == 0));
			if (same)
				continue;
			ok = false;
			char text[512];
			size_t used = 0;
			text[0] = '\0';
			for (int i = 0; i < EHELF_NREGS && gs >= 0 && ws >= 0; i++)
				if (got.r[i] != want.r[i])
					used += (size_t)snprintf(text + used, sizeof text - used,
						" r%d: got %" PRIx64 " want %" PRIx64, i,
						got.r[i], want.r[i]);
			REPORT("MISMATCH %s pc 0x%" PRIx64 " (%s, variant %d): "
			       "status %d want %d, valid %x want %x%s\n", path, pc,
			       mode == 2 ? "summary" : mode ? "remote" : "local",
			       variant, gs, ws,
			       got.valid, want.valid, text);
			if (reported <= opt.max_report) {
				uw_fde one = *fde;
				one.rows = row;
				one.nrows = 1;
				uw_dump_fde(stderr, &one, true);
			}
		}
	}
	return ok;
}

static void check_file(const char *path, uint64_t *cw)
{
	counters *c = (counters *)cw;
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

	/* pass 1: FDE ranges, to find overlaps and uncovered addresses */
	range *rv = NULL;
	size_t nr = 0, cap = 0;
	cfi_reader *r = cfi_reader_new();
	cfi_reader_add_elf(r, &f, &err);
	uw_fde fde;
	while (cfi_reader_next(r, &fde, &err) > 0) {
		if (nr == cap) {
			cap = cap ? 2 * cap : 1024;
			rv = realloc(rv, cap * sizeof *rv);
		}
		rv[nr] = (range){ fde.lo, fde.hi, (uint32_t)nr, false };
		nr++;
	}
	cfi_reader_free(r);
	qsort(rv, nr, sizeof *rv, cmp_range);
	uint64_t end = 0;
	size_t last = 0;
	for (size_t i = 0; i < nr; i++) {
		if (rv[i].lo == rv[i].hi)
			continue;
		if (i && rv[i].lo < end) {
			rv[i].overlaps = true;
			rv[last].overlaps = true;
		}
		if (rv[i].hi > end) {
			end = rv[i].hi;
			last = i;
		}
	}
	/* addresses just past an FDE that nothing covers */
	for (size_t i = 0; i < nr; i++) {
		uint64_t pc = rv[i].hi;
		bool covered = false;
		for (size_t k = i + 1; k < nr && rv[k].lo <= pc && !covered; k++)
			covered = rv[k].hi > pc;
		for (size_t k = 0; k < i + 1 && !covered; k++)
			covered = rv[k].lo <= pc && pc < rv[k].hi;
		if (covered || i % 7)  /* a sample is enough */
			continue;
		ehelf_regs in, out;
		make_regs(&in, pc, pc, 0);
		int a = ehelf_object_step(o, pc, &in, &out, read_mem, NULL);
		int b = ehelf_object_step_local(o, pc, &in, &out, 0, UINT64_MAX);
		c->not_covered_checks++;
		if (a != EHELF_E_NOT_COVERED || b != EHELF_E_NOT_COVERED ||
		    ehelf_object_describe(o, pc) != 0) {
			REPORT("MISMATCH %s pc 0x%" PRIx64 ": not covered, but "
			       "status %d/%d\n", path, pc, a, b);
			c->mismatches++;
		}
	}
	/* by sequence, for pass 2; a copy stays sorted by address */
	range *by_addr = malloc((nr ? nr : 1) * sizeof *by_addr);
	memcpy(by_addr, rv, nr * sizeof *rv);
	qsort(rv, nr, sizeof *rv, cmp_seq);

	/* pass 2: every row */
	r = cfi_reader_new();
	cfi_reader_add_elf(r, &f, &err);
	size_t k = 0;
	uint64_t file_unsupported = 0;
	while (cfi_reader_next(r, &fde, &err) > 0) {
		const range *me = &rv[k++];
		c->fdes++;
		for (size_t i = 0; i < fde.nrows; i++) {
			const uw_row *row = &fde.rows[i];
			c->rows++;
			uint64_t seed = mix64(row->lo);
			uint64_t pcs[8];
			int npcs = 0;
			pcs[npcs++] = row->lo;
			for (int n = 0; n < opt.random && n < 7; n++)
				pcs[npcs++] = row->lo + mix64(seed + (uint64_t)n) %
							 (row->hi - row->lo);
			bool ok = true, unsupported = false, any = false;
			for (int n = 0; n < npcs && ok; n++) {
				if (me->overlaps && !owns(by_addr, nr, me->seq, pcs[n]))
					continue;
				any = true;
				ok = check_pc(o, &fde, row, pcs[n], seed + (uint64_t)n,
					      c, path, &unsupported);
			}
			if (!any)
				c->overlap_rows++;
			if (!ok)
				c->mismatches++;
			if (unsupported)
				file_unsupported++;
		}
	}
	free(by_addr);
	cfi_reader_free(r);
	c->unsupported_rows += file_unsupported;
	if (opt.verbose)
		fprintf(stderr, "%s: %zu FDEs, %" PRIu64 " unsupported rows\n",
			path, nr, file_unsupported);
	free(rv);
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
	mem_init();
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
