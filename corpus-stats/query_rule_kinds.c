/* query_rule_kinds.c - see query_rule_kinds.h. */
#include "query_rule_kinds.h"

#include "query.h"

static const char rule_kinds_sql[] =
	"WITH cols(no, name) AS (VALUES (-1, 'cfa'), (0, 'rax'), (1, 'rdx'),\n"
	"  (2, 'rcx'), (3, 'rbx'), (4, 'rsi'), (5, 'rdi'), (6, 'rbp'), (7, 'rsp'),\n"
	"  (8, 'r8'), (9, 'r9'), (10, 'r10'), (11, 'r11'), (12, 'r12'),\n"
	"  (13, 'r13'), (14, 'r14'), (15, 'r15'), (16, 'ra')),\n"
	"k AS (SELECT column_no, sum(no_rule) AS a, sum(undefined) AS b,\n"
	"  sum(same_value) AS c, sum(offset) AS d, sum(val_offset) AS e,\n"
	"  sum(register) AS f, sum(expression) AS g, sum(val_expression) AS h\n"
	"  FROM main.rule_kinds JOIN se USING (build_id) GROUP BY column_no),\n"
	"v AS (SELECT cols.no AS no, cols.name AS name, coalesce(a, 0) AS a,\n"
	"  coalesce(b, 0) AS b, coalesce(c, 0) AS c, coalesce(d, 0) AS d,\n"
	"  coalesce(e, 0) AS e, coalesce(f, 0) AS f, coalesce(g, 0) AS g,\n"
	"  coalesce(h, 0) AS h FROM cols LEFT JOIN k ON k.column_no = cols.no),\n"
	"w AS (SELECT *, a + b + c + d + e + f + g + h AS n FROM v)\n"
	"SELECT name, a, b, c, d, e, f, g, h, n FROM w ORDER BY no";

#define KIND_COLS(unit) \
	"column:text no_rule:" unit " undefined:" unit " same_value:" unit \
	" offset:" unit " val_offset:" unit " register:" unit \
	" expression:" unit " val_expression:" unit " rows:count"

int query_rule_kinds(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "rule_kinds",
		"Rule kinds per register column (report table 6)",
		"Sums of the rule_kinds table (rows of each ELF's unwind table by "
		"the kind of rule of each column)" STATS_OVER_SE "  column cfa is "
		"the CFA (column_no -1: register+offset rules counted as offset, "
		"expressions as expression), ra the return address (column 16); "
		"rows = the sum of the kinds, every row of every table.",
		KIND_COLS("count"), &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	if ((rc = stats_db_fill(db, t, rule_kinds_sql, NULL, 0, err)) < 0)
		return rc;
	for (size_t i = 0; i < t->n_rows; i++)  /* sums of integers, never NULL */
		for (int k = 1; k <= 9; k++)
			if (stats_at(t, i, k)->kind != STATS_INT)
				return err_set(err, ERR_FORMAT, "%s: rule_kinds holds a "
					       "value that is not an integer", db->path);
	/* the percent view from the same cells: they agree by construction */
	stats_table *p;
	rc = stats_table_new_cols(r, "rule_kinds_percent",
		"Rule kinds per register column, percent of rows",
		"The rule_kinds table with each kind as a percentage of the "
		"column's rows (100 * kind / rows; null when there are no rows).",
		KIND_COLS("percent"), &p);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	for (size_t i = 0; i < t->n_rows; i++) {
		stats_cell *row;
		if (stats_table_row(p, &row) < 0 ||
		    stats_cell_text(&row[0], stats_at(t, i, 0)->v.s) < 0)
			return err_set(err, ERR_NOMEM, "out of memory");
		int64_t n = stats_at(t, i, 9)->v.i;
		for (int k = 1; k <= 8; k++)
			if (n > 0)
				stats_cell_real(&row[k], 100.0 * (double)stats_at(t, i, k)->v.i /
						    (double)n);
		stats_cell_int(&row[9], n);
	}
	return 0;
}
