/*
 * query_rules.h - the tables of rules: rule kinds per register column
 * (the internship report's table 6), coverage (its table 5), DWARF
 * operations, what could not be compiled and why, the rows summaries
 * cover, and which section the rows came from.
 *
 * Population: the eh_elfs with statistics (stats_db.h's se), each distinct
 * build-ID once.  Each function appends its table(s) to R; returns 0, or
 * ERR_FORMAT (sqlite failed) or ERR_NOMEM with the message in ERR.
 */
#ifndef EHELF_STATS_QUERY_RULES_H
#define EHELF_STATS_QUERY_RULES_H

#include "../common/err.h"
#include "stats_db.h"
#include "stats_table.h"

/* rule_kinds: column, no_rule, undefined, same_value, offset, val_offset,
 * register, expression, val_expression, rows (one row per column: cfa,
 * rax..r15, ra); rule_kinds_percent: the same as percentages of rows. */
int query_rule_kinds(stats_db *db, stats_report *r, ehelf_err *err);

/* coverage: one row - rows, unsupported_rows, unsupported_percent,
 * expression_rows, expression_percent, expression_rules, rulesets,
 * unsupported_rulesets, distinct_rulesets, distinct_unsupported_rulesets. */
int query_coverage(stats_db *db, stats_report *r, ehelf_err *err);

/* dwarf_ops: opcode, name, uses, files, percent. */
int query_dwarf_ops(stats_db *db, stats_report *r, ehelf_err *err);

/* unsupported: reason, rulesets, rows, files, example. */
int query_unsupported(stats_db *db, stats_report *r, ehelf_err *err);

/* summaries: one row - rows, summarised_rows, summarised_percent,
 * rulesets, summarised_rulesets, summarised_rulesets_percent;
 * sections: section, files, fdes, rows, fde_percent, row_percent. */
int query_summaries(stats_db *db, stats_report *r, ehelf_err *err);

#endif
