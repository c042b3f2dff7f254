/*
 * svg_plot.h - a table's plot (stats_table.h's plot spec) as inline SVG:
 * horizontal bars, one per row in row order, labelled with the label
 * column, their lengths the value column's numbers (linear from 0, or
 * log10(1 + v) with a log scale), an axis with ticks and its name (the
 * value column and unit).  Drawn with <rect>, <text> and <line> in a
 * viewBox, so the page scales it; each bar has a <title> with the exact
 * value.  No script, no external reference.
 *
 * Rows beyond the first SVG_PLOT_MAX_BARS are left out (the caption says
 * so); NULL or negative values draw no bar.  Writing errors are left to
 * the caller (ferror on OUT).
 */
#ifndef EHELF_STATS_SVG_PLOT_H
#define EHELF_STATS_SVG_PLOT_H

#include <stdio.h>

#include "stats_table.h"

enum { SVG_PLOT_MAX_BARS = 120 };

/* Write T's plot (nothing when T has none) into OUT. */
void svg_plot(FILE *out, const stats_table *t);

#endif
