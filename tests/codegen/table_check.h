/*
 * table_check.h - an eh_elf against the IR rows it was compiled from: the
 * comparison codegen-check runs on every ELF and the compiler's fuzz
 * target (tests/fuzz/fuzz_compile.c) on every table it accepts.
 *
 * For every row of every FDE, at the row's first address and at random
 * addresses inside it, both entry points run on synthetic registers and a
 * synthetic stack and must give, status and all output registers bit for
 * bit, what ir_eval_row() gives for the row's rules; where ehelf_describe
 * summarises a row, the summary applied by the client library
 * (summary_step) must too.  Rows whose rule set did not compile must
 * answer "unsupported".  Where FDEs overlap (the same function in
 * .eh_frame and .debug_frame, or a broken link), an address belongs to
 * the FDE docs/eh_elf.md names ("Overlapping FDEs"): in .eh_frame, else in
 * .debug_frame, the FDE with the greatest start at or before it (the
 * earlier one in the file on a tie), none if the address is past that
 * one's end.  The rule is applied here on its own (a binary search per
 * section, as .eh_frame_hdr searches are made), not through the
 * compiler's code; rows hidden entirely are counted, not checked, and
 * addresses just past an FDE that no FDE owns must answer "not covered".
 *
 * Not thread-safe before table_check_init(); after it, any number of
 * threads may run table_check().
 */
#ifndef EHELF_TESTS_TABLE_CHECK_H
#define EHELF_TESTS_TABLE_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../client-lib/include/ehelf.h"

/* What was compared, and how it went (all uint64_t: summed per file). */
typedef struct table_counters {
	uint64_t files, skipped, no_cfi, fdes, rows, overlap_rows;
	uint64_t pcs, mismatches, unsupported_rows, unsupported_expected;
	uint64_t not_covered_checks, errors, summarised;
	uint64_t status[8];   /* results by status: 1-EHELF_E_BOUNDS .. */
} table_counters;

typedef struct table_check_env {
	int random;             /* random pcs a row besides its first (<= 7) */
	/* a mismatch, as one line (PATH names the table); returns true when
	 * the row's rules should be dumped to stderr after it */
	bool (*report)(void *arg, const char *line);
	void *arg;
	/* a new reader with the table's sections queued (NULL: no memory) */
	cfi_reader *(*open)(void *arg);
} table_check_env;

/* The synthetic stack, once per process.  Returns 0 or -1 (no memory). */
int table_check_init(void);

/* Compare O with the rows ENV's readers give, into C (mismatches,
 * unsupported_rows, pcs, statuses, ...). */
void table_check(const ehelf_object *o, const char *path,
		 const table_check_env *env, table_counters *c);

#endif
