/*
 * query_rule_kinds.h - rule kinds per register column (the internship
 * report's table 6) and the same as percentages: a query that is a
 * function (query.h), its second table computed from the first's cells.
 *
 * Population: the eh_elfs with statistics (stats_db.h's se), each distinct
 * build-ID once.
 */
#ifndef EHELF_STATS_QUERY_RULE_KINDS_H
#define EHELF_STATS_QUERY_RULE_KINDS_H

#include "../common/err.h"
#include "stats_db.h"
#include "stats_table.h"

/* rule_kinds: column, no_rule, undefined, same_value, offset, val_offset,
 * register, expression, val_expression, rows (one row per column: cfa,
 * rax..r15, ra); rule_kinds_percent: the same as percentages of rows.
 * Returns 0, or ERR_FORMAT (sqlite failed, or a kind that is not an
 * integer) or ERR_NOMEM with the message in ERR. */
int query_rule_kinds(stats_db *db, stats_report *r, ehelf_err *err);

#endif
