/*
 * render_csv.h - a report as CSV files, one per table: DIR/ID.csv.
 *
 * RFC 4180: CRLF line ends; a header row of the column names; fields
 * holding a comma, a quote, CR or LF (or starting or ending with a space)
 * quoted, quotes doubled.  Numbers as in JSON (integers exact, reals
 * %.6g), NULL as an empty field.  A text (a package name, a path) that a
 * spreadsheet would take for a formula (starting with '=', '+', '-' or
 * '@') is written quoted after a "'" (escape_csv_text); numbers, negative
 * ones included, are not.
 *
 * DIR is created if missing (not its parents); files of the same names
 * are replaced, others left alone.  Returns 0, or ERR_IO with the message
 * naming the file.
 */
#ifndef EHELF_STATS_RENDER_CSV_H
#define EHELF_STATS_RENDER_CSV_H

#include "../common/err.h"
#include "stats_table.h"

int render_csv(const char *dir, const stats_report *r, ehelf_err *err);

#endif
