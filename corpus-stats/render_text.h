/*
 * render_text.h - a report as text tables, for a terminal or a file.
 *
 * Each table (the tests parse this):
 *   == TITLE [ID] ==
 *   method: METHOD                       (one line, however long)
 *                                        (blank)
 *   NAME   NAME ...                      the column names
 *   -----  ---- ...                      dashes over each column's extent
 *   cell   cell ...                      one line per row
 *                                        (blank)
 * Columns are separated by two spaces and are as wide as their widest
 * cell or name, in code points; a cell is the text under its dashes,
 * trimmed.  Numbers are right-aligned (integers exact, reals %.4g, NULL
 * "-"), text left-aligned; lines carry no trailing spaces.  A table
 * without rows shows "(no rows)" under its dashes.
 *
 * Returns 0, or ERR_IO (writing failed) or ERR_NOMEM with the message.
 */
#ifndef EHELF_STATS_RENDER_TEXT_H
#define EHELF_STATS_RENDER_TEXT_H

#include <stdio.h>

#include "../common/err.h"
#include "stats_table.h"

int render_text(FILE *out, const stats_report *r, ehelf_err *err);

#endif
