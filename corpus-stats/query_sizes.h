/*
 * query_sizes.h - the tables of sizes: the summary, sizes by class of
 * .eh_frame size (the internship report's table 4), and eh_elf size
 * against .eh_frame's in log-scale bins.
 *
 * Each function appends one table (or two) to R from DB, whose temp tables
 * stats_db_derive() made; returns 0, or ERR_FORMAT (sqlite failed) or
 * ERR_NOMEM with the message in ERR.
 */
#ifndef EHELF_STATS_QUERY_SIZES_H
#define EHELF_STATS_QUERY_SIZES_H

#include "../common/err.h"
#include "stats_db.h"
#include "stats_table.h"

/* summary: figure, value, unit - the archive in one table. */
int query_summary(stats_db *db, stats_report *r, ehelf_err *err);

/* sizes: class, files, elf_bytes, text_bytes, eh_frame_bytes,
 * eh_frame_hdr_bytes, debug_frame_bytes, ehelf_bytes, ehelf_per_eh_frame,
 * ehelf_percent_of_elf - all files, then by .eh_frame+.eh_frame_hdr size. */
int query_sizes(stats_db *db, stats_report *r, ehelf_err *err);

/* ratio_histogram: ratio_bin, ratio_from, ratio_to, files, percent. */
int query_ratio_histogram(stats_db *db, stats_report *r, ehelf_err *err);

#endif
