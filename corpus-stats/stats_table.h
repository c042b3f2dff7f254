/*
 * stats_table.h - the report model every renderer draws: a report is a list
 * of tables; a table has an id, a title, a method, typed columns and rows
 * of cells, and optionally a plot spec.
 *
 * The four renderers (render_text.h, render_csv.h, render_json.h,
 * render_html.h) read only this model, so their figures agree by
 * construction; stats_cell_format() is the one number formatting they
 * share.
 *
 * Ownership: a report owns its tables, a table its columns, rows and cells;
 * every string given to these functions is copied (text cells sanitised:
 * invalid UTF-8 and control characters become U+FFFD, so that every output
 * carries the same, valid, single-line text).  Functions that allocate
 * return ERR_NOMEM (common/err.h) when out of memory and leave the model
 * as it was; they never print.
 */
#ifndef EHELF_STATS_TABLE_H
#define EHELF_STATS_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* What a column's numbers count.  STATS_UNIT_MIXED: the unit varies by row
 * and a "unit" text column of the same row names it (figure/value/unit
 * tables such as summary). */
typedef enum stats_unit {
	STATS_UNIT_COUNT,
	STATS_UNIT_BYTES,
	STATS_UNIT_RATIO,
	STATS_UNIT_PERCENT,
	STATS_UNIT_MS,
	STATS_UNIT_TEXT,
	STATS_UNIT_MIXED,
	STATS_UNIT_ID,  /* a number that names (opcode, rank, log2 bucket) */
} stats_unit;

/* "count", "bytes", "ratio", "percent", "ms", "text", "mixed", "id". */
const char *stats_unit_name(stats_unit u);

typedef enum stats_cell_kind {
	STATS_NULL,
	STATS_INT,
	STATS_REAL,
	STATS_TEXT,
} stats_cell_kind;

typedef struct stats_cell {
	stats_cell_kind kind;
	union {
		int64_t i;
		double d;
		char *s;  /* owned, valid UTF-8 without control characters */
	} v;
} stats_cell;

typedef struct stats_column {
	char *name;  /* snake_case: CSV header and JSON column name */
	stats_unit unit;
} stats_column;

typedef enum stats_plot_kind {
	STATS_PLOT_NONE,
	STATS_PLOT_BARS,      /* one bar per row, in row order */
	STATS_PLOT_HISTOGRAM, /* the same, rows being bins in order */
} stats_plot_kind;

typedef struct stats_plot {
	stats_plot_kind kind;
	int label_col;  /* column whose cells label the bars */
	int value_col;  /* column whose numbers the bars measure (>= 0) */
	int log_scale;  /* 1: bar lengths on a log10 scale */
} stats_plot;

typedef struct stats_table {
	char *id;      /* snake_case: CSV file name (ID.csv) and JSON key */
	char *title;
	char *method;  /* how every figure was computed: never empty */
	stats_column *cols;
	int n_cols;
	stats_cell *cells;  /* row-major, n_rows * n_cols */
	size_t n_rows, cap_rows;
	stats_plot plot;
} stats_table;

typedef struct stats_report {
	stats_table **tables;
	size_t n, cap;
	/* where the figures come from, for the outputs' headers */
	const char *database;   /* the path given (not owned) */
	int schema_version;     /* its PRAGMA user_version */
	char generated[32];     /* "2026-11-27 14:03 UTC" */
} stats_report;

/* ---- building -------------------------------------------------------- */

/* A new empty table appended to R, returned in *OUT (owned by R).
 * Returns 0 or ERR_NOMEM. */
int stats_table_new(stats_report *r, const char *id, const char *title,
		    const char *method, stats_table **out);

/* Append a column.  Only before the first row.  Returns 0 or ERR_NOMEM. */
int stats_table_col(stats_table *t, const char *name, stats_unit unit);

/* stats_table_new() and its columns from SPEC, "name:unit name:unit ..."
 * (unit as stats_unit_name() spells it).  Returns 0, ERR_NOMEM, or ERR_ARG
 * for a bad SPEC. */
int stats_table_new_cols(stats_report *r, const char *id, const char *title,
			 const char *method, const char *spec, stats_table **out);

/* The columns of a figure table: one row per figure, its value, and the
 * value's unit ("bytes", "count", "percent", "MiB/s", ...). */
#define STATS_FIGURE_COLS "figure:text value:mixed unit:text"

/* Append a row of n_cols NULL cells; *ROW points at its first cell (valid
 * until the next stats_table_row()).  Returns 0 or ERR_NOMEM. */
int stats_table_row(stats_table *t, stats_cell **row);

/* Set a cell of the last row (replacing any value).  set_text copies S
 * (NULL: a NULL cell) and returns 0 or ERR_NOMEM. */
void stats_cell_int(stats_cell *c, int64_t v);
void stats_cell_real(stats_cell *c, double v);  /* non-finite: NULL */
int stats_cell_text(stats_cell *c, const char *s);
void stats_cell_null(stats_cell *c);

/* The cell at ROW, COL of T. */
static inline const stats_cell *stats_at(const stats_table *t, size_t row, int col)
{
	return &t->cells[row * (size_t)t->n_cols + (size_t)col];
}

void stats_report_free(stats_report *r);

/* ---- formatting, shared by the renderers ----------------------------- */

typedef enum stats_style {
	STATS_STYLE_DATA,  /* JSON and CSV: integers exact, reals %.6g */
	STATS_STYLE_TEXT,  /* text: integers exact, reals %.4g, NULL "-" */
} stats_style;

/* C's number text into OUT (N >= 32 bytes): STATS_INT as "%" PRId64,
 * STATS_REAL with %.6g (DATA) or %.4g (TEXT); NULL as "" (DATA) or "-"
 * (TEXT); text cells are not formatted here (returns NULL for them).
 * Returns OUT. */
const char *stats_cell_format(const stats_cell *c, stats_style style, char *out,
			      size_t n);

/* A malloc'd copy of S made valid UTF-8 without control characters (each
 * bad byte U+FFFD), as text cells are; NULL when out of memory. */
char *stats_text_sanitize(const char *s);

/* The number of code points of the UTF-8 string S (its width in the text
 * output: every character counted as one column). */
size_t stats_utf8_width(const char *s);

#endif
