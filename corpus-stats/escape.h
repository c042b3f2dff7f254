/*
 * escape.h - text from the database written safely into each output
 * format.  Input: NUL-terminated UTF-8 (stats_table.h's text cells are
 * valid UTF-8 without control characters; these escape them anyway).
 * Writing errors are left to the caller (ferror on OUT).
 */
#ifndef EHELF_STATS_ESCAPE_H
#define EHELF_STATS_ESCAPE_H

#include <stdio.h>

/* S as a JSON string, quotes included: '"' and '\\' escaped, control
 * characters as \u00XX. */
void escape_json(FILE *out, const char *s);

/* S as HTML text or attribute value: & < > " ' as entities. */
void escape_html(FILE *out, const char *s);

/* S as a CSV field (RFC 4180): quoted, quotes doubled, when it holds a
 * comma, a quote, CR or LF, or starts or ends with a space; else as is. */
void escape_csv(FILE *out, const char *s);

/* S, a text (not a number), as a CSV field read by spreadsheets: one that
 * starts with '=', '+', '-', '@', a tab or CR, which a spreadsheet would
 * take for a formula, gets a "'" before it and is quoted (OWASP's advice
 * on CSV injection); any other as escape_csv writes it. */
void escape_csv_text(FILE *out, const char *s);

#endif
