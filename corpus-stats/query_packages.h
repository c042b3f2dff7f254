/*
 * query_packages.h - the tables of packages: every package, and the top
 * packages by each measure.
 *
 * Per-package figures count the package's own files of status built or
 * present (a build-ID shipped by two packages counts in both; stats_db.h's
 * pk).  Each function appends its table(s) to R; returns 0, or ERR_FORMAT
 * (sqlite failed) or ERR_NOMEM with the message in ERR.
 */
#ifndef EHELF_STATS_QUERY_PACKAGES_H
#define EHELF_STATS_QUERY_PACKAGES_H

#include "../common/err.h"
#include "stats_db.h"
#include "stats_table.h"

/* top_packages_MEASURE for MEASURE eh_frame_bytes, ehelf_bytes, ratio,
 * rows, rulesets, compile_ms: rank, package, version, elfs, MEASURE
 * (ratio: also ehelf_bytes and eh_tables_bytes) - DB->top_n packages. */
int query_top_packages(stats_db *db, stats_report *r, ehelf_err *err);

/* packages: name, version, elfs, elf_bytes, text_bytes, eh_frame_bytes,
 * eh_frame_hdr_bytes, debug_frame_bytes, ehelf_bytes, fdes, rows, rulesets,
 * compile_ms, status - every package. */
int query_packages(stats_db *db, stats_report *r, ehelf_err *err);

#endif
