/*
 * query.h - one table of the report stated as data: its id, title, method,
 * columns, plot and SQL (a query descriptor), and the one function that
 * runs a descriptor into a table of the report.
 *
 * A descriptor's SQL reads the temp tables of stats_db_derive() (uf, se,
 * rs, pk: stats_db.h) and the database's own tables (main.*); it is one
 * statement whose result columns are the table's columns in order, or,
 * for a figure table, one row whose column k is the k-th figure.  A
 * report table whose rows are not one statement's result (computed from
 * another table's cells, or depending on which tables the database has)
 * is a function instead (fn), which makes its tables itself.
 */
#ifndef EHELF_STATS_QUERY_H
#define EHELF_STATS_QUERY_H

#include <stdbool.h>

#include "../common/err.h"
#include "stats_db.h"
#include "stats_table.h"

/* Append the table(s) of a query to R.  Returns 0, or ERR_FORMAT (sqlite
 * failed) or ERR_NOMEM with the message in ERR. */
typedef int stats_query_fn(stats_db *db, stats_report *r, ehelf_err *err);

typedef struct stats_query {
	const char *id, *title, *method;  /* the table's (stats_table.h) */
	/* rows tables: the columns, "name:unit ..." (stats_table_new_cols);
	 * NULL for a figure table */
	const char *cols;
	/* figure tables (columns STATS_FIGURE_COLS): the figures, "name:unit
	 * ..." (the unit any text without a space or ':'), one per result
	 * column; NULL for a rows table */
	const char *figures;
	stats_plot plot;                  /* kind STATS_PLOT_NONE: no plot */
	const char *sql;
	bool top;                         /* ?1 in SQL is --top (db->top_n) */
	stats_query_fn *fn;               /* set: a query that is a function
					   * (every other field unused) */
} stats_query;

/* Run Q against DB into a new table of R.  Returns 0, ERR_FORMAT (sqlite
 * failed), ERR_NOMEM, or ERR_ARG for a descriptor whose columns or
 * figures do not match its SQL, with the message in ERR. */
int stats_query_run(stats_db *db, stats_report *r, const stats_query *q,
		    ehelf_err *err);

/* The population of the rule tables, as their methods name it. */
#define STATS_OVER_SE ", over the eh_elfs with statistics (stats_version " \
	"set), each distinct build-ID once."

#endif
