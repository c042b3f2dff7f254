/* query_rules.c - see query_rules.h. */
#include "query_rules.h"

#include <stdio.h>

#define POPULATION ", over the eh_elfs with statistics (stats_version set), " \
	"each distinct build-ID once."

static const char columns_cte[] =
	"cols(no, name) AS (VALUES (-1, 'cfa'), (0, 'rax'), (1, 'rdx'),\n"
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
	"w AS (SELECT *, a + b + c + d + e + f + g + h AS n FROM v)\n";

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
		"the kind of rule of each column)" POPULATION "  column cfa is "
		"the CFA (column_no -1: register+offset rules counted as offset, "
		"expressions as expression), ra the return address (column 16); "
		"rows = the sum of the kinds, every row of every table.",
		KIND_COLS("count"), &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	char sql[4096];
	snprintf(sql, sizeof sql, "WITH %s SELECT name, a, b, c, d, e, f, g, h, n "
		 "FROM w ORDER BY no", columns_cte);
	if ((rc = stats_db_fill(db, t, sql, NULL, 0, err)) < 0)
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

int query_coverage(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "coverage",
		"Coverage: rows and rule sets compiled (report table 5)",
		"rows and unsupported_rows: sums of eh_elfs.rows and "
		"eh_elfs.unsupported_rows" POPULATION "  expression_rows: rows "
		"whose rule set has an expression or val_expression rule (CFA "
		"included), found by its text in ruleset_texts (an 'exp' or 'vexp' "
		"rule); expression_rules: expression and val_expression rules "
		"counted per column (rule_kinds).  rulesets: distinct rule sets "
		"summed per ELF (eh_elfs.unique_rows); unsupported_rulesets: rows "
		"of the unsupported table; distinct_*: rule sets by fingerprint "
		"archive-wide (rulesets table).",
		"rows:count unsupported_rows:count unsupported_percent:percent "
		"expression_rows:count expression_percent:percent "
		"expression_rules:count rulesets:count unsupported_rulesets:count "
		"distinct_rulesets:count distinct_unsupported_rulesets:count", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	rc = stats_db_fill(db, t,
		"WITH e AS (SELECT coalesce(sum(e.rows), 0) AS rows,\n"
		"    coalesce(sum(e.unsupported_rows), 0) AS uns,\n"
		"    coalesce(sum(e.unique_rows), 0) AS rulesets\n"
		"    FROM se JOIN main.eh_elfs e ON e.build_id = se.build_id),\n"
		"x AS (SELECT coalesce(sum(rs.rows), 0) AS rows FROM rs\n"
		"    JOIN main.ruleset_texts t ON t.fingerprint = rs.fingerprint\n"
		"    WHERE ' ' || t.text GLOB '*=exp*' OR ' ' || t.text GLOB '*=vexp*')\n"
		"SELECT e.rows, e.uns, CASE WHEN e.rows > 0 THEN 100.0 * e.uns / e.rows END,\n"
		"  x.rows, CASE WHEN e.rows > 0 THEN 100.0 * x.rows / e.rows END,\n"
		"  (SELECT coalesce(sum(expression + val_expression), 0)\n"
		"     FROM main.rule_kinds JOIN se USING (build_id)),\n"
		"  e.rulesets,\n"
		"  (SELECT count(*) FROM main.unsupported JOIN se USING (build_id)),\n"
		"  (SELECT count(*) FROM rs), (SELECT count(*) FROM rs WHERE supported = 0)\n"
		"FROM e, x", NULL, 0, err);
	return rc < 0 ? rc : 0;
}

int query_dwarf_ops(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "dwarf_ops",
		"DWARF operations in CFI expressions",
		"Sums of the dwarf_ops table (DW_OP opcodes in the expressions of "
		"each ELF's rows)" POPULATION "  uses: occurrences; files: eh_elfs "
		"using the opcode at least once; percent: of all uses.  Most used "
		"first.",
		"opcode:id name:text uses:count files:count percent:percent", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	t->plot = (stats_plot){ STATS_PLOT_BARS, 1, 2, 1 };
	rc = stats_db_fill(db, t,
		"WITH d AS (SELECT opcode, min(name) AS name, sum(uses) AS uses,\n"
		"    count(*) AS files FROM main.dwarf_ops JOIN se USING (build_id)\n"
		"    GROUP BY opcode),\n"
		"n AS (SELECT sum(uses) AS n FROM d)\n"
		"SELECT opcode, name, uses, files, 100.0 * uses / n.n FROM d, n\n"
		"ORDER BY uses DESC, opcode", NULL, 0, err);
	return rc < 0 ? rc : 0;
}

int query_unsupported(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "unsupported",
		"Rule sets that could not be compiled, by reason",
		"The unsupported table grouped by reason" POPULATION "  rulesets: "
		"rule sets not compiled (per ELF); rows: the rows using them; "
		"files: eh_elfs with at least one; example: the file and pc of the "
		"reason's rule set with the most rows.",
		"reason:text rulesets:count rows:count files:count example:text", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	rc = stats_db_fill(db, t,
		"SELECT reason, n, rows, files,\n"
		"  printf('%s pc 0x%x', coalesce((SELECT path FROM main.files f\n"
		"     WHERE f.build_id = g.bid ORDER BY f.id LIMIT 1), g.bid), g.pc)\n"
		"FROM (SELECT u.reason AS reason, count(*) AS n, sum(u.rows) AS rows,\n"
		"        count(DISTINCT u.build_id) AS files, max(u.rows) AS most,\n"
		"        u.build_id AS bid, u.example_pc AS pc\n"
		"      FROM main.unsupported u JOIN se USING (build_id)\n"
		"      GROUP BY u.reason) g\n"
		"ORDER BY rows DESC, reason", NULL, 0, err);
	return rc < 0 ? rc : 0;
}

int query_summaries(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "summaries",
		"Rows covered by summaries",
		"rows and summarised_rows: sums of eh_elfs.rows and "
		"eh_elfs.summarised_rows (rows whose rule set has an ehelf_describe "
		"summary)" POPULATION "  rulesets and summarised_rulesets: distinct "
		"rule sets archive-wide (by fingerprint, rulesets table) and those "
		"with a summary.",
		"rows:count summarised_rows:count summarised_percent:percent "
		"rulesets:count summarised_rulesets:count "
		"summarised_rulesets_percent:percent", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	rc = stats_db_fill(db, t,
		"WITH e AS (SELECT coalesce(sum(e.rows), 0) AS rows,\n"
		"    coalesce(sum(e.summarised_rows), 0) AS s\n"
		"    FROM se JOIN main.eh_elfs e ON e.build_id = se.build_id),\n"
		"k AS (SELECT count(*) AS n, coalesce(sum(summarised), 0) AS s FROM rs)\n"
		"SELECT e.rows, e.s, CASE WHEN e.rows > 0 THEN 100.0 * e.s / e.rows END,\n"
		"  k.n, k.s, CASE WHEN k.n > 0 THEN 100.0 * k.s / k.n END FROM e, k",
		NULL, 0, err);
	if (rc < 0)
		return rc;
	rc = stats_table_new_cols(r, "sections",
		"FDEs and rows by section: .eh_frame and .debug_frame",
		"Sums of eh_elfs.eh_frame_fdes, eh_frame_rows, debug_frame_fdes and "
		"debug_frame_rows" POPULATION "  Every row read from a section "
		"counts, also .debug_frame rows of addresses .eh_frame covers too "
		"(the eh_elf's lookup table uses .debug_frame rows only where "
		".eh_frame has none).  files: eh_elfs with at least "
		"one FDE from the section; percentages of both sections' sum.",
		"section:text files:count fdes:count rows:count fde_percent:percent "
		"row_percent:percent", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	rc = stats_db_fill(db, t,
		"WITH e AS (SELECT coalesce(sum(e.eh_frame_fdes), 0) AS ef,\n"
		"    coalesce(sum(e.eh_frame_rows), 0) AS er,\n"
		"    coalesce(sum(e.debug_frame_fdes), 0) AS df,\n"
		"    coalesce(sum(e.debug_frame_rows), 0) AS dr,\n"
		"    count(CASE WHEN e.eh_frame_fdes > 0 THEN 1 END) AS en,\n"
		"    count(CASE WHEN e.debug_frame_fdes > 0 THEN 1 END) AS dn\n"
		"    FROM se JOIN main.eh_elfs e ON e.build_id = se.build_id)\n"
		"SELECT '.eh_frame', en, ef, er,\n"
		"  CASE WHEN ef + df > 0 THEN 100.0 * ef / (ef + df) END,\n"
		"  CASE WHEN er + dr > 0 THEN 100.0 * er / (er + dr) END FROM e\n"
		"UNION ALL\n"
		"SELECT '.debug_frame', dn, df, dr,\n"
		"  CASE WHEN ef + df > 0 THEN 100.0 * df / (ef + df) END,\n"
		"  CASE WHEN er + dr > 0 THEN 100.0 * dr / (er + dr) END FROM e",
		NULL, 0, err);
	return rc < 0 ? rc : 0;
}
