/*
 * humanize.h - numbers for people (the HTML page and its plots): bytes in
 * B/KiB/MiB/GiB (1 KiB = 1024 bytes), counts with thousands separators,
 * other reals with 4 significant digits.  Never used where an exact value
 * is due: the page carries that in data-value and title attributes.
 */
#ifndef EHELF_STATS_HUMANIZE_H
#define EHELF_STATS_HUMANIZE_H

#include <stddef.h>

#include "stats_table.h"

/* The display text of cell C of a column of unit U into OUT (N >= 48
 * bytes); NULL cells "-"; text cells are not formatted (returns NULL).
 * Returns OUT. */
const char *humanize_cell(const stats_cell *c, stats_unit u, char *out, size_t n);

/* V (of unit U) for an axis tick or bar label, into OUT (N >= 48). */
const char *humanize_value(double v, stats_unit u, char *out, size_t n);

#endif
