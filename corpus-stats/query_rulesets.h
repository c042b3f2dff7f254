/*
 * query_rulesets.h - the tables of rule sets (what a row says: the CFA
 * rule, the register rules): how the CFA is computed, how many registers
 * are saved, how many distinct rule sets and shapes there are per file and
 * archive-wide, how few of them cover most rows, and the commonest ones.
 *
 * Population: the rulesets rows of the eh_elfs with statistics, each
 * distinct build-ID once, aggregated by fingerprint (stats_db.h's rs).
 * Each function appends its table to R; returns 0, or ERR_FORMAT (sqlite
 * failed) or ERR_NOMEM with the message in ERR.
 */
#ifndef EHELF_STATS_QUERY_RULESETS_H
#define EHELF_STATS_QUERY_RULESETS_H

#include "../common/err.h"
#include "stats_db.h"
#include "stats_table.h"

/* cfa_base: base (rsp, rbp, reg, expr, none), rows, rulesets, percent. */
int query_cfa_base(stats_db *db, stats_report *r, ehelf_err *err);

/* cfa_offset: base, cfa ("rsp+8", "rsp+other"), offset, rows, percent -
 * the commonest offsets of rsp- then rbp-based CFAs, then the others. */
int query_cfa_offset(stats_db *db, stats_report *r, ehelf_err *err);

/* saved_regs: saved_regs, rows, rulesets, percent. */
int query_saved_regs(stats_db *db, stats_report *r, ehelf_err *err);

/* rulesets: figure, value, unit - rule sets and shapes per file (median,
 * p90, max) and archive-wide, and how many of the commonest rule sets
 * cover 50, 90, 99, 99.9 and 100 % of rows. */
int query_rulesets(stats_db *db, stats_report *r, ehelf_err *err);

/* top_rulesets: rank, fingerprint, text, rows, files, percent,
 * cumulative_percent - the DB->top_n commonest rule sets by rows. */
int query_top_rulesets(stats_db *db, stats_report *r, ehelf_err *err);

#endif
