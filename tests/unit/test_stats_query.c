/*
 * test_stats_query.c - ehelf-stats' query descriptors (corpus-stats/
 * query.h) run against a real sqlite database in memory: a rows table
 * with its plot, --top bound to ?1, a figure table with its units, and
 * the descriptors it refuses (columns or figures that do not match the
 * SQL, a malformed figure or column list, SQL sqlite rejects), each with
 * a message naming the table; a query that is a function is called.
 */
#include <sqlite3.h>

#include "../../corpus-stats/query.h"
#include "unit.h"

static stats_db db;

static int fn_calls;
static int counting_fn(stats_db *d, stats_report *r, ehelf_err *err)
{
	(void)err;
	fn_calls += d == &db && r != NULL;
	return 0;
}

/* Q run into a new report; the return code, the report left in *R. */
static int run(const stats_query *q, stats_report *r, ehelf_err *err)
{
	memset(r, 0, sizeof *r);
	memset(err, 0, sizeof *err);
	return stats_query_run(&db, r, q, err);
}

static const char ten[] = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
	"SELECT i + 1 FROM n WHERE i < 10) ";

static void test_rows(void)
{
	stats_query q = { .id = "t_rows", .title = "T", .method = "M",
		.cols = "i:count half:ratio", .plot = { STATS_PLOT_BARS, 0, 1, 1 } };
	char sql[256];
	snprintf(sql, sizeof sql, "%sSELECT i, i / 2.0 FROM n ORDER BY i", ten);
	q.sql = sql;
	stats_report r;
	ehelf_err err;
	CHECK(run(&q, &r, &err) == 0);
	CHECK(r.n == 1);
	if (r.n == 1) {
		stats_table *t = r.tables[0];
		CHECK_STR(t->id, "t_rows");
		CHECK(t->n_cols == 2 && t->cols[1].unit == STATS_UNIT_RATIO);
		CHECK(t->n_rows == 10);
		CHECK(t->plot.kind == STATS_PLOT_BARS && t->plot.value_col == 1 &&
		      t->plot.log_scale == 1);
		CHECK(stats_at(t, 9, 0)->kind == STATS_INT && stats_at(t, 9, 0)->v.i == 10);
		CHECK(stats_at(t, 9, 1)->kind == STATS_REAL && stats_at(t, 9, 1)->v.d == 5.0);
	}
	stats_report_free(&r);

	/* --top: ?1 is db.top_n */
	snprintf(sql, sizeof sql, "%sSELECT i, 0.5 FROM n ORDER BY i LIMIT ?1", ten);
	q.top = true;
	CHECK(run(&q, &r, &err) == 0);
	CHECK(r.n == 1 && r.tables[0]->n_rows == (size_t)db.top_n);
	stats_report_free(&r);
}

static void test_figures(void)
{
	stats_query q = { .id = "t_figures", .title = "T", .method = "M",
		.figures = "files:count speed:MiB/s share:percent",
		.sql = "SELECT 3, 1.5, NULL" };
	stats_report r;
	ehelf_err err;
	CHECK(run(&q, &r, &err) == 0);
	CHECK(r.n == 1);
	if (r.n == 1) {
		stats_table *t = r.tables[0];
		CHECK(t->n_cols == 3 && t->n_rows == 3);
		CHECK_STR(t->cols[1].name, "value");
		if (t->n_rows == 3) {
			CHECK_STR(stats_at(t, 0, 0)->v.s, "files");
			CHECK(stats_at(t, 0, 1)->v.i == 3);
			CHECK_STR(stats_at(t, 0, 2)->v.s, "count");
			CHECK_STR(stats_at(t, 1, 0)->v.s, "speed");
			CHECK(stats_at(t, 1, 1)->v.d == 1.5);
			CHECK_STR(stats_at(t, 1, 2)->v.s, "MiB/s");
			CHECK(stats_at(t, 2, 1)->kind == STATS_NULL);
			CHECK_STR(stats_at(t, 2, 2)->v.s, "percent");
		}
	}
	stats_report_free(&r);
}

/* descriptors refused: the code and a part of the message */
static const struct refusal {
	stats_query q;
	int code;
	const char *what;
} refusals[] = {
	{ { .id = "t_cols", .cols = "a:count b:count", .sql = "SELECT 1" },
	  ERR_ARG, "table t_cols: the query has 1 columns, the table 2" },
	{ { .id = "t_nfig", .figures = "a:count b:count c:count",
	    .sql = "SELECT 1, 2" },
	  ERR_ARG, "table t_nfig: the query has 2 columns for 3 figures" },
	{ { .id = "t_badfig", .figures = "a:count b", .sql = "SELECT 1, 2" },
	  ERR_ARG, "table t_badfig: bad figure list" },
	{ { .id = "t_badcol", .cols = "a:furlongs", .sql = "SELECT 1" },
	  ERR_ARG, "table t_badcol: bad column list" },
	{ { .id = "t_sql", .cols = "a:count", .sql = "SELECT a FROM nowhere" },
	  ERR_FORMAT, "no such table: nowhere" },
	{ { .id = "t_empty", .figures = "a:count", .sql = "SELECT 1 WHERE 0" },
	  ERR_FORMAT, "no result for table t_empty" },
};

static void test_refused(void)
{
	for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++) {
		stats_query q = refusals[i].q;
		q.title = "T";
		q.method = "M";
		stats_report r;
		ehelf_err err;
		int rc = run(&q, &r, &err);
		CHECK(rc == refusals[i].code);
		CHECK_CONTAINS(err.msg, refusals[i].what);
		if (rc != refusals[i].code || !strstr(err.msg, refusals[i].what))
			fprintf(stderr, "  %s: got %d '%s'\n", q.id, rc, err.msg);
		stats_report_free(&r);
	}
}

static void test_fn(void)
{
	stats_report r;
	ehelf_err err;
	CHECK(run(&(stats_query){ .fn = counting_fn }, &r, &err) == 0);
	CHECK(fn_calls == 1 && r.n == 0);
	stats_report_free(&r);
}

int main(void)
{
	if (sqlite3_open(":memory:", &db.h) != SQLITE_OK) {
		fprintf(stderr, "test_stats_query: sqlite3_open failed\n");
		return 1;
	}
	db.path = ":memory:";
	db.version = STATS_DB_VERSION;
	db.top_n = 3;
	test_rows();
	test_figures();
	test_refused();
	test_fn();
	sqlite3_close(db.h);
	UNIT_DONE("test_stats_query");
}
