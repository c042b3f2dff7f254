/*
 * report.h - the whole report: every table of ehelf-stats, in the order
 * the outputs show them, computed from an opened database (report.c holds
 * them as one list of query descriptors, query.h).
 *
 * The table ids (a contract with the tests and with whoever reads the
 * JSON or the CSV files): summary, sizes, ratio_histogram, alternatives,
 * rule_kinds, rule_kinds_percent, coverage, dwarf_ops, unsupported,
 * summaries, sections, fde_rows, fde_sizes, cfa_base, cfa_offset,
 * saved_regs, rulesets, top_rulesets, compile_time, compile_phases,
 * top_packages_{eh_frame_bytes,ehelf_bytes,ratio,rows,rulesets,compile_ms},
 * packages, conflicts.
 */
#ifndef EHELF_STATS_REPORT_H
#define EHELF_STATS_REPORT_H

#include "../common/err.h"
#include "stats_db.h"
#include "stats_table.h"

/* Compute every table of DB into R (empty; R->database and
 * R->schema_version are set here, R->generated left to the caller).
 * Returns 0, or ERR_FORMAT (a damaged database, one missing what version 3
 * has) or ERR_NOMEM, with the message; R then holds what was computed
 * (free it with stats_report_free). */
int report_build(stats_db *db, stats_report *r, ehelf_err *err);

#endif
