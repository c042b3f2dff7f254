/*
 * query_time.h - compile time: in total, by phase, as throughput, and the
 * wall time spent on packages.
 *
 * Each function appends its table(s) to R; returns 0, or ERR_FORMAT
 * (sqlite failed) or ERR_NOMEM with the message in ERR.
 */
#ifndef EHELF_STATS_QUERY_TIME_H
#define EHELF_STATS_QUERY_TIME_H

#include "../common/err.h"
#include "stats_db.h"
#include "stats_table.h"

/* compile_time: figure, value, unit; compile_phases: phase, ms, percent
 * (read, rules, codegen, image: the split of compile_ms; store). */
int query_compile_time(stats_db *db, stats_report *r, ehelf_err *err);

#endif
