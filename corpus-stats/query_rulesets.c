/* query_rulesets.c - see query_rulesets.h. */
#include "query_rulesets.h"

#define POPULATION "Rule sets of the eh_elfs with statistics (stats_version " \
	"set), each distinct build-ID once, weighted by the rows using them " \
	"(rulesets.rows summed)."

/* offsets named in cfa_offset per base; the others are summed */
enum { CFA_OFFSETS = 12 };

int query_cfa_base(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "cfa_base", "Rows by CFA base register",
		POPULATION "  base: rulesets.cfa_base (rsp or rbp + offset, reg: "
		"another register + offset, expr: a DWARF expression, none: no CFA "
		"rule); rulesets: distinct rule sets (by fingerprint); percent: of "
		"all rows.",
		"base:text rows:count rulesets:count percent:percent", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	t->plot = (stats_plot){ STATS_PLOT_BARS, 0, 1, 0 };
	rc = stats_db_fill(db, t,
		"WITH b(k, base) AS (VALUES (0, 'rsp'), (1, 'rbp'), (2, 'reg'),\n"
		"    (3, 'expr'), (4, 'none')),\n"
		"g AS (SELECT cfa_base, sum(rows) AS rows, count(*) AS n FROM rs\n"
		"    GROUP BY cfa_base),\n"
		"t AS (SELECT sum(rows) AS t FROM rs)\n"
		"SELECT b.base, coalesce(g.rows, 0), coalesce(g.n, 0),\n"
		"  CASE WHEN t.t > 0 THEN 100.0 * coalesce(g.rows, 0) / t.t END\n"
		"FROM b CROSS JOIN t LEFT JOIN g ON g.cfa_base = b.base ORDER BY b.k",
		NULL, 0, err);
	return rc < 0 ? rc : 0;
}

int query_cfa_offset(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "cfa_offset",
		"Rows by CFA offset, rsp- and rbp-based CFAs",
		POPULATION "  For the rule sets whose CFA is rsp + offset, then "
		"rbp + offset: the 12 offsets with the most rows (ties: smaller "
		"offset first), then all other offsets of that base summed "
		"('other', offset null).  percent: of all rows, whatever their "
		"base.",
		"base:text cfa:text offset:bytes rows:count percent:percent", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	t->plot = (stats_plot){ STATS_PLOT_BARS, 1, 3, 1 };
	int64_t arg = CFA_OFFSETS;
	rc = stats_db_fill(db, t,
		"WITH g AS (SELECT cfa_base, cfa_offset, sum(rows) AS rows FROM rs\n"
		"    WHERE cfa_base IN ('rsp', 'rbp') GROUP BY cfa_base, cfa_offset),\n"
		"k AS (SELECT *, row_number() OVER (PARTITION BY cfa_base\n"
		"    ORDER BY rows DESC, cfa_offset) AS k FROM g),\n"
		"t AS (SELECT sum(rows) AS t FROM rs)\n"
		"SELECT cfa_base,\n"
		"  CASE WHEN min(k) <= ?1 THEN printf('%s%+lld', cfa_base, cfa_offset)\n"
		"       ELSE cfa_base || '+other' END,\n"
		"  CASE WHEN min(k) <= ?1 THEN cfa_offset END, sum(rows),\n"
		"  CASE WHEN t.t > 0 THEN 100.0 * sum(rows) / t.t END\n"
		"FROM k, t GROUP BY cfa_base, min(k, ?1 + 1)\n"
		"ORDER BY cfa_base = 'rbp', min(k)", &arg, 1, err);
	return rc < 0 ? rc : 0;
}

int query_saved_regs(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "saved_regs",
		"Rows by number of saved registers",
		POPULATION "  saved_regs: registers 0-15 with a rule recovering "
		"the caller's value (offset, val_offset, register, expression, "
		"val_expression); the return address is not counted.  percent: "
		"of all rows.",
		"saved_regs:count rows:count rulesets:count percent:percent", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	t->plot = (stats_plot){ STATS_PLOT_HISTOGRAM, 0, 1, 0 };
	rc = stats_db_fill(db, t,
		"WITH t AS (SELECT sum(rows) AS t FROM rs)\n"
		"SELECT saved_regs, sum(rows), count(*), 100.0 * sum(rows) / t.t\n"
		"FROM rs, t GROUP BY saved_regs ORDER BY saved_regs", NULL, 0, err);
	return rc < 0 ? rc : 0;
}

int query_rulesets(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "rulesets",
		"How many rule sets does a distribution use?",
		"Per file: eh_elfs.unique_rows (distinct rule sets) and "
		"eh_elfs.shapes (distinct shapes: rule sets with their offsets set "
		"to 0) over the eh_elfs with statistics, each distinct build-ID "
		"once; median and p90 are nearest-rank (the value at rank "
		"ceil(n * p / 100) in ascending order).  Archive-wide: "
		"count(DISTINCT fingerprint) and count(DISTINCT shape) over their "
		"rulesets rows.  rulesets_for_P_percent_rows: the fewest rule sets, "
		"the commonest first (by rows summed over the archive), whose rows "
		"add up to at least P % of all rows.",
		STATS_FIGURE_COLS, &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	static const char *const names[] = {
		"files", "rulesets_per_file_median", "rulesets_per_file_p90",
		"rulesets_per_file_max", "shapes_per_file_median",
		"shapes_per_file_p90", "shapes_per_file_max",
		"distinct_rulesets", "distinct_shapes", "rows",
		"rulesets_for_50_percent_rows", "rulesets_for_90_percent_rows",
		"rulesets_for_99_percent_rows", "rulesets_for_99.9_percent_rows",
		"rulesets_for_100_percent_rows" };
	static const char *const units[] = {
		"count", "count", "count", "count", "count", "count", "count",
		"count", "count", "count", "count", "count", "count", "count",
		"count" };
	rc = stats_db_figures(db, t,
		"WITH e AS (SELECT e.unique_rows AS u, e.shapes AS s\n"
		"    FROM se JOIN main.eh_elfs e ON e.build_id = se.build_id),\n"
		"ru AS (SELECT u, row_number() OVER (ORDER BY u) AS k,\n"
		"    count(*) OVER () AS n FROM e),\n"
		"su AS (SELECT s, row_number() OVER (ORDER BY s) AS k,\n"
		"    count(*) OVER () AS n FROM e WHERE s IS NOT NULL),\n"
		"pu AS (SELECT max(CASE WHEN k = (n * 50 + 99) / 100 THEN u END) AS m,\n"
		"    max(CASE WHEN k = (n * 90 + 99) / 100 THEN u END) AS p, max(u) AS x,\n"
		"    count(*) AS n FROM ru),\n"
		"ps AS (SELECT max(CASE WHEN k = (n * 50 + 99) / 100 THEN s END) AS m,\n"
		"    max(CASE WHEN k = (n * 90 + 99) / 100 THEN s END) AS p, max(s) AS x\n"
		"    FROM su),\n"
		"c AS (SELECT row_number() OVER w AS k, sum(rows) OVER w AS c FROM rs\n"
		"    WINDOW w AS (ORDER BY rows DESC, fingerprint\n"
		"                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),\n"
		"t AS (SELECT coalesce(sum(rows), 0) AS t, count(*) AS n,\n"
		"    count(DISTINCT shape) AS shapes FROM rs),\n"
		"cov AS (SELECT min(CASE WHEN c * 1000 >= t * 500 THEN k END) AS a,\n"
		"    min(CASE WHEN c * 1000 >= t * 900 THEN k END) AS b,\n"
		"    min(CASE WHEN c * 1000 >= t * 990 THEN k END) AS c,\n"
		"    min(CASE WHEN c * 1000 >= t * 999 THEN k END) AS d,\n"
		"    min(CASE WHEN c >= t THEN k END) AS e FROM c, t)\n"
		"SELECT pu.n, pu.m, pu.p, pu.x, ps.m, ps.p, ps.x, t.n, t.shapes, t.t,\n"
		"  cov.a, cov.b, cov.c, cov.d, cov.e FROM pu, ps, t, cov",
		names, units, (int)(sizeof names / sizeof *names), err);
	return rc;
}

int query_top_rulesets(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "top_rulesets",
		"The commonest rule sets",
		POPULATION "  The rule sets with the most rows archive-wide (ties: "
		"smaller fingerprint first), at most --top of them; text: "
		"ruleset_texts (readelf's frames-interp notation; c-16: saved at "
		"CFA-16); files: eh_elfs using it; percent and cumulative_percent: "
		"of all rows.",
		"rank:id fingerprint:text text:text rows:count files:count "
		"percent:percent cumulative_percent:percent", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	int64_t arg = db->top_n;
	rc = stats_db_fill(db, t,
		"WITH top AS (SELECT fingerprint, rows, files FROM rs\n"
		"    ORDER BY rows DESC, fingerprint LIMIT ?1),\n"
		"k AS (SELECT *, row_number() OVER w AS k, sum(rows) OVER w AS c\n"
		"    FROM top WINDOW w AS (ORDER BY rows DESC, fingerprint\n"
		"    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),\n"
		"t AS (SELECT sum(rows) AS t FROM rs)\n"
		"SELECT k.k, printf('%016llx', k.fingerprint), x.text, k.rows, k.files,\n"
		"  100.0 * k.rows / t.t, 100.0 * k.c / t.t\n"
		"FROM k CROSS JOIN t\n"
		"LEFT JOIN main.ruleset_texts x ON x.fingerprint = k.fingerprint\n"
		"ORDER BY k.k", &arg, 1, err);
	return rc < 0 ? rc : 0;
}
