/*
 * query_fdes.h - the tables of FDEs: how many rows they have, and how
 * large they are (the internship report's FDE-size histogram).
 *
 * Population: the eh_elfs with statistics (stats_db.h's se), each distinct
 * build-ID once.  Each function appends its table to R; returns 0, or
 * ERR_FORMAT (sqlite failed) or ERR_NOMEM with the message in ERR.
 */
#ifndef EHELF_STATS_QUERY_FDES_H
#define EHELF_STATS_QUERY_FDES_H

#include "../common/err.h"
#include "stats_db.h"
#include "stats_table.h"

/* fde_rows: rows_per_fde (64: 64 or more), label, fdes, percent. */
int query_fde_rows(stats_db *db, stats_report *r, ehelf_err *err);

/* fde_sizes: bytes_range ("16-31"), log2, fdes, bytes, fde_percent,
 * byte_percent. */
int query_fde_sizes(stats_db *db, stats_report *r, ehelf_err *err);

#endif
