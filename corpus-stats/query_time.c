/* query_time.c - see query_time.h. */
#include "query_time.h"

int query_compile_time(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "compile_time", "Compile time",
		"Sums of eh_elfs.compile_ms and its split (read_ms: reading the "
		"CFI into rows, rules_ms: interning rule sets and the lookup table, "
		"codegen_ms: machine code, image_ms: the ELF image) and store_ms "
		"(writing it to the store) over the eh_elfs with statistics, each "
		"distinct build-ID once, as recorded when each was compiled (runs "
		"and machines may differ).  eh_frame_mib_per_s: .eh_frame bytes of "
		"those files / 2^20 per second of compile_ms; rows_per_s: their "
		"rows per second of compile_ms.  package_wall_ms: packages.seconds "
		"summed over all packages (wall time of reading and building each, "
		"workers in parallel each counted).",
		STATS_FIGURE_COLS, &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	static const char *const names[] = {
		"eh_elfs", "compile_ms", "read_ms", "rules_ms", "codegen_ms",
		"image_ms", "store_ms", "compile_ms_per_eh_elf", "eh_frame_mib_per_s",
		"rows_per_s", "packages", "package_wall_ms" };
	static const char *const units[] = {
		"count", "ms", "ms", "ms", "ms", "ms", "ms", "ms", "MiB/s", "rows/s",
		"count", "ms" };
	rc = stats_db_figures(db, t,
		"WITH e AS (SELECT count(*) AS n, sum(e.compile_ms) AS c,\n"
		"    sum(e.read_ms) AS rd, sum(e.rules_ms) AS ru, sum(e.codegen_ms) AS cg,\n"
		"    sum(e.image_ms) AS im, sum(e.store_ms) AS st,\n"
		"    sum(u.eh_frame_bytes) AS eh, sum(e.rows) AS rows\n"
		"    FROM uf u JOIN main.eh_elfs e ON e.build_id = u.build_id\n"
		"    WHERE u.stats),\n"
		"p AS (SELECT count(*) AS n, sum(seconds) * 1000.0 AS ms\n"
		"    FROM main.packages)\n"
		"SELECT e.n, e.c, e.rd, e.ru, e.cg, e.im, e.st,\n"
		"  CASE WHEN e.n > 0 THEN e.c / e.n END,\n"
		"  CASE WHEN e.c > 0 THEN (e.eh / 1048576.0) / (e.c / 1000.0) END,\n"
		"  CASE WHEN e.c > 0 THEN e.rows / (e.c / 1000.0) END,\n"
		"  p.n, p.ms FROM e, p",
		names, units, (int)(sizeof names / sizeof *names), err);
	if (rc < 0)
		return rc;
	rc = stats_table_new_cols(r, "compile_phases", "Compile time by phase",
		"The phases of compile_time: sums of eh_elfs.read_ms, rules_ms, "
		"codegen_ms, image_ms (whose sum is about compile_ms) and store_ms "
		"over the eh_elfs with statistics, each distinct build-ID once; "
		"percent: of compile_ms + store_ms.",
		"phase:text ms:ms percent:percent", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	t->plot = (stats_plot){ STATS_PLOT_BARS, 0, 1, 0 };
	rc = stats_db_fill(db, t,
		"WITH e AS (SELECT sum(e.read_ms) AS rd, sum(e.rules_ms) AS ru,\n"
		"    sum(e.codegen_ms) AS cg, sum(e.image_ms) AS im,\n"
		"    sum(e.store_ms) AS st,\n"
		"    coalesce(sum(e.compile_ms), 0) + coalesce(sum(e.store_ms), 0) AS t\n"
		"    FROM se JOIN main.eh_elfs e ON e.build_id = se.build_id),\n"
		"p(k, phase) AS (VALUES (0, 'read'), (1, 'rules'), (2, 'codegen'),\n"
		"    (3, 'image'), (4, 'store'))\n"
		"SELECT phase, v, CASE WHEN t > 0 THEN 100.0 * v / t END\n"
		"FROM (SELECT p.k, p.phase, CASE p.k WHEN 0 THEN rd WHEN 1 THEN ru\n"
		"      WHEN 2 THEN cg WHEN 3 THEN im ELSE st END AS v, e.t AS t\n"
		"      FROM p, e) ORDER BY k", NULL, 0, err);
	return rc < 0 ? rc : 0;
}
