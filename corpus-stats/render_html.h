/*
 * render_html.h - a report as one self-contained HTML page: no script, no
 * network (CSS inline, plots inline SVG: svg_plot.h), readable without
 * JavaScript and printable (@media print rules; no fixed width that would
 * overflow A4).
 *
 * The page: a header (database, schema version, date, the archive's
 * totals from the summary table), a table of contents, then each table
 * in a <section id="t-ID" data-table="ID">: its title (h2), its method
 * (p.method), its plot when it has one, and the table (table.stats,
 * data-table="ID"), with a header cell per column carrying data-unit.
 * Number cells (td.num) show a humanized value (KiB, MiB, thousands
 * separators) and carry the exact one, formatted as in JSON, in
 * data-value and title; NULL cells are td.null with "-" and no
 * data-value; text cells (td.text) hold the exact text, escaped, and wrap
 * anywhere.  Wide tables scroll horizontally on screen only.
 *
 * Returns 0, or ERR_IO with the message.
 */
#ifndef EHELF_STATS_RENDER_HTML_H
#define EHELF_STATS_RENDER_HTML_H

#include <stdio.h>

#include "../common/err.h"
#include "stats_table.h"

int render_html(FILE *out, const stats_report *r, ehelf_err *err);

#endif
