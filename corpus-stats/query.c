/* query.c - see query.h. */
#include "query.h"

int stats_query_run(stats_db *db, stats_report *r, const stats_query *q,
		    ehelf_err *err)
{
	if (q->fn)
		return q->fn(db, r, err);
	stats_table *t;
	int rc = stats_table_new_cols(r, q->id, q->title, q->method,
				      q->figures ? STATS_FIGURE_COLS : q->cols, &t);
	if (rc < 0)
		return rc == ERR_NOMEM ? err_set(err, rc, "out of memory")
				       : err_set(err, rc, "table %s: bad column "
						 "list", q->id);
	t->plot = q->plot;
	if (q->figures)
		return stats_db_figures(db, t, q->sql, q->figures, err);
	int64_t top = db->top_n;
	rc = stats_db_fill(db, t, q->sql, q->top ? &top : NULL, q->top, err);
	return rc < 0 ? rc : 0;
}
