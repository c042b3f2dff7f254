/* query_fdes.c - see query_fdes.h. */
#include "query_fdes.h"

#define POPULATION ", over the eh_elfs with statistics (stats_version set), " \
	"each distinct build-ID once."

int query_fde_rows(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "fde_rows", "FDEs by number of rows",
		"Sums of the fde_rows table (each ELF's FDEs by the rows of their "
		"unwind table, identical neighbours merged)" POPULATION
		"  rows_per_fde 64 counts FDEs of 64 rows or more; percent: of all "
		"FDEs.",
		"rows_per_fde:count label:text fdes:count percent:percent", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	t->plot = (stats_plot){ STATS_PLOT_HISTOGRAM, 1, 2, 1 };
	rc = stats_db_fill(db, t,
		"WITH d AS (SELECT rows_per_fde AS k, sum(fdes) AS fdes\n"
		"    FROM main.fde_rows JOIN se USING (build_id) GROUP BY rows_per_fde),\n"
		"n AS (SELECT sum(fdes) AS n FROM d)\n"
		"SELECT k, CASE WHEN k >= 64 THEN '>= 64' ELSE CAST(k AS TEXT) END,\n"
		"  fdes, 100.0 * fdes / n.n FROM d, n ORDER BY k", NULL, 0, err);
	return rc < 0 ? rc : 0;
}

int query_fde_sizes(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "fde_sizes", "FDEs by size in bytes",
		"Sums of the fde_sizes table (each ELF's FDEs by the size of the "
		"whole entry, its length field included, in powers of two: bucket "
		"log2 = b holds FDEs of 2^b to 2^(b+1)-1 bytes)" POPULATION
		"  bytes: their total size; percentages of all FDEs and of all "
		"their bytes.",
		"bytes_range:text log2:id fdes:count bytes:bytes fde_percent:percent "
		"byte_percent:percent", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	t->plot = (stats_plot){ STATS_PLOT_HISTOGRAM, 0, 2, 1 };
	rc = stats_db_fill(db, t,
		"WITH d AS (SELECT log2 AS b, sum(fdes) AS fdes, sum(bytes) AS bytes\n"
		"    FROM main.fde_sizes JOIN se USING (build_id) GROUP BY log2),\n"
		"n AS (SELECT sum(fdes) AS n, sum(bytes) AS m FROM d)\n"
		"SELECT printf('%lld-%lld', 1 << b, (1 << (b + 1)) - 1), b, fdes, bytes,\n"
		"  100.0 * fdes / n.n, CASE WHEN n.m > 0 THEN 100.0 * bytes / n.m END\n"
		"FROM d, n ORDER BY b", NULL, 0, err);
	return rc < 0 ? rc : 0;
}
