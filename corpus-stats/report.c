/* report.c - see report.h. */
#include "report.h"

#include "query_alternatives.h"
#include "query_conflicts.h"
#include "query_fdes.h"
#include "query_packages.h"
#include "query_rules.h"
#include "query_rulesets.h"
#include "query_sizes.h"
#include "query_time.h"

typedef int query_fn(stats_db *db, stats_report *r, ehelf_err *err);

static query_fn *const queries[] = {
	query_summary, query_sizes, query_ratio_histogram, query_alternatives,
	query_rule_kinds, query_coverage, query_dwarf_ops, query_unsupported,
	query_summaries, query_fde_rows, query_fde_sizes, query_cfa_base,
	query_cfa_offset, query_saved_regs, query_rulesets, query_top_rulesets,
	query_compile_time, query_top_packages, query_packages, query_conflicts,
};

int report_build(stats_db *db, stats_report *r, ehelf_err *err)
{
	r->database = db->path;
	r->schema_version = db->version;
	int rc = stats_db_derive(db, err);
	for (size_t i = 0; rc == 0 && i < sizeof queries / sizeof *queries; i++)
		rc = queries[i](db, r, err);
	return rc;
}
