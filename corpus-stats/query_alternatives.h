/*
 * query_alternatives.h - eh_elfs against the other ways of recording how
 * to unwind: the .eh_frame and .eh_frame_hdr they are compiled from, an
 * SFrame estimate for the same rows, and frame pointers.
 *
 * Appends its table to R; returns 0, or ERR_FORMAT (sqlite failed) or
 * ERR_NOMEM with the message in ERR.
 */
#ifndef EHELF_STATS_QUERY_ALTERNATIVES_H
#define EHELF_STATS_QUERY_ALTERNATIVES_H

#include "../common/err.h"
#include "stats_db.h"
#include "stats_table.h"

/* alternatives: representation, bytes, ratio_to_eh_frame, fdes,
 * fdes_not_represented, rows_not_represented, note. */
int query_alternatives(stats_db *db, stats_report *r, ehelf_err *err);

#endif
