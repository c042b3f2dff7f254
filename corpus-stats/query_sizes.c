/* query_sizes.c - see query_sizes.h. */
#include "query_sizes.h"

#define DISTINCT_NOTE "each distinct build-ID is counted once (the file of " \
	"smallest id among the files of status built or present that ship it)"

int query_summary(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "summary", "Summary",
		"Packages and ELF files are counted as the packages and files "
		"tables hold them (every package's own files).  eh_elfs: rows of "
		"the eh_elfs table; eh_elfs_without_statistics: those whose "
		"stats_version is NULL (built by an older ehelf-batch, or on demand "
		"by ehelf-server), left out of every rule table; "
		"eh_elfs_without_files: those no file of status built or present "
		"ships, left out of every table.  The other figures count each "
		"distinct build-ID of a file of status built or present once "
		"(eh_elfs_of_files of them), sizes summed from the files and "
		"eh_elfs tables; ehelf_per_eh_frame is the sum of eh_elf bytes over "
		"the sum of .eh_frame + .eh_frame_hdr bytes.  Rule set, summary and "
		"unsupported figures count the eh_elfs_in_rule_tables: those of "
		"them with statistics.",
		STATS_FIGURE_COLS, &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	static const char *const n1[] = {
		"packages", "packages_done", "packages_failed", "packages_unfinished",
		"elf_files", "elf_files_built", "elf_files_present",
		"elf_files_no_cfi", "elf_files_ignored", "elf_files_failed",
		"eh_elfs", "eh_elfs_without_statistics", "eh_elfs_without_files",
		"eh_elfs_of_files", "eh_elfs_in_rule_tables",
		"fdes", "rows",
		"elf_bytes", "text_bytes", "eh_frame_bytes", "eh_frame_hdr_bytes",
		"debug_frame_bytes", "ehelf_bytes", "ehelf_per_eh_frame",
		"distinct_rulesets", "distinct_shapes", "rows_with_statistics",
		"summarised_rows_percent", "unsupported_rows_percent" };
	static const char *const u1[] = {
		"count", "count", "count", "count",
		"count", "count", "count", "count", "count", "count",
		"count", "count", "count", "count", "count",
		"count", "count",
		"bytes", "bytes", "bytes", "bytes", "bytes", "bytes", "ratio",
		"count", "count", "count", "percent", "percent" };
	rc = stats_db_figures(db, t,
		"SELECT p.n, p.done, p.failed, p.n - p.done - p.failed,\n"
		"  f.n, f.built, f.present, f.nocfi, f.ignored, f.failed,\n"
		"  (SELECT count(*) FROM main.eh_elfs),\n"
		"  (SELECT count(*) FROM main.eh_elfs WHERE stats_version IS NULL),\n"
		"  (SELECT count(*) FROM main.eh_elfs e WHERE NOT EXISTS\n"
		"     (SELECT 1 FROM uf WHERE uf.build_id = e.build_id)),\n"
		"  u.n, u.stats,\n"
		"  u.fdes, u.rows, u.size, u.text, u.eh, u.hdr, u.dbg, u.ehelf,\n"
		"  CASE WHEN u.eh + u.hdr > 0 THEN 1.0 * u.ehelf / (u.eh + u.hdr) END,\n"
		"  (SELECT count(*) FROM rs), (SELECT count(DISTINCT shape) FROM rs),\n"
		"  s.rows,\n"
		"  CASE WHEN s.rows > 0 THEN 100.0 * s.summarised / s.rows END,\n"
		"  CASE WHEN s.rows > 0 THEN 100.0 * s.unsupported / s.rows END\n"
		"FROM (SELECT count(*) AS n, coalesce(sum(status = 'done'), 0) AS done,\n"
		"             coalesce(sum(status = 'failed'), 0) AS failed\n"
		"      FROM main.packages) p,\n"
		"     (SELECT count(*) AS n, coalesce(sum(status = 'built'), 0) AS built,\n"
		"             coalesce(sum(status = 'present'), 0) AS present,\n"
		"             coalesce(sum(status = 'no-cfi'), 0) AS nocfi,\n"
		"             coalesce(sum(status = 'ignored'), 0) AS ignored,\n"
		"             coalesce(sum(status = 'failed'), 0) AS failed\n"
		"      FROM main.files) f,\n"
		"     (SELECT count(*) AS n, coalesce(sum(stats), 0) AS stats,\n"
		"             coalesce(sum(fdes), 0) AS fdes, coalesce(sum(rows), 0) AS rows,\n"
		"             coalesce(sum(size), 0) AS size,\n"
		"             coalesce(sum(text_bytes), 0) AS text,\n"
		"             coalesce(sum(eh_frame_bytes), 0) AS eh,\n"
		"             coalesce(sum(eh_frame_hdr_bytes), 0) AS hdr,\n"
		"             coalesce(sum(debug_frame_bytes), 0) AS dbg,\n"
		"             coalesce(sum(ehelf_bytes), 0) AS ehelf FROM uf) u,\n"
		"     (SELECT coalesce(sum(e.rows), 0) AS rows,\n"
		"             coalesce(sum(e.summarised_rows), 0) AS summarised,\n"
		"             coalesce(sum(e.unsupported_rows), 0) AS unsupported\n"
		"      FROM se JOIN main.eh_elfs e ON e.build_id = se.build_id) s",
		n1, u1, (int)(sizeof n1 / sizeof *n1), err);
	return rc;
}

/* the sums of one set of uf rows, as the columns of sizes */
#define SIZE_SUMS \
	"count(u.build_id), coalesce(sum(u.size), 0), coalesce(sum(u.text_bytes), 0),\n" \
	"coalesce(sum(u.eh_frame_bytes), 0), coalesce(sum(u.eh_frame_hdr_bytes), 0),\n" \
	"coalesce(sum(u.debug_frame_bytes), 0), coalesce(sum(u.ehelf_bytes), 0),\n" \
	"CASE WHEN sum(u.eh_frame_bytes + u.eh_frame_hdr_bytes) > 0 THEN\n" \
	"  1.0 * sum(u.ehelf_bytes) / sum(u.eh_frame_bytes + u.eh_frame_hdr_bytes) END,\n" \
	"CASE WHEN sum(u.size) > 0 THEN 100.0 * sum(u.ehelf_bytes) / sum(u.size) END\n"

int query_sizes(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "sizes",
		"Sizes: programs, unwind tables and eh_elfs (report table 4)",
		"Sums over the files of status built or present; " DISTINCT_NOTE
		".  The first row is every such file, the others split them by "
		"the size of .eh_frame + .eh_frame_hdr (1 KiB = 1024 bytes; lower "
		"bound included, upper excluded).  ehelf_per_eh_frame = "
		"ehelf_bytes / (eh_frame_bytes + eh_frame_hdr_bytes); "
		"ehelf_percent_of_elf = 100 * ehelf_bytes / elf_bytes.",
		"class:text files:count elf_bytes:bytes text_bytes:bytes "
		"eh_frame_bytes:bytes eh_frame_hdr_bytes:bytes debug_frame_bytes:bytes "
		"ehelf_bytes:bytes ehelf_per_eh_frame:ratio ehelf_percent_of_elf:percent",
		&t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	rc = stats_db_fill(db, t,
		"WITH c(k, name, lo, hi) AS (VALUES (0, 'all files', 0, NULL),\n"
		"  (1, '< 1 KiB', 0, 1024), (2, '1-4 KiB', 1024, 4096),\n"
		"  (3, '4-64 KiB', 4096, 65536), (4, '64-256 KiB', 65536, 262144),\n"
		"  (5, '>= 256 KiB', 262144, NULL))\n"
		"SELECT c.name, " SIZE_SUMS
		"FROM c LEFT JOIN uf u\n"
		"  ON u.eh_frame_bytes + u.eh_frame_hdr_bytes >= c.lo\n"
		" AND (c.hi IS NULL OR u.eh_frame_bytes + u.eh_frame_hdr_bytes < c.hi)\n"
		"GROUP BY c.k ORDER BY c.k", NULL, 0, err);
	return rc < 0 ? rc : 0;
}

int query_ratio_histogram(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "ratio_histogram",
		"Files by eh_elf size / (.eh_frame + .eh_frame_hdr) size",
		"For each distinct build-ID of the files of status built or present "
		"(the file of smallest id that ships it), the ratio ehelf_bytes / (eh_frame_bytes + eh_frame_hdr_bytes), counted "
		"in half-octave bins (bounds in powers of sqrt 2, lower bound "
		"included); files without .eh_frame (their table from .debug_frame "
		"only) have no ratio and are counted in the last row.  percent is "
		"of all the files counted.",
		"ratio_bin:text ratio_from:ratio ratio_to:ratio files:count "
		"percent:percent", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	t->plot = (stats_plot){ STATS_PLOT_HISTOGRAM, 0, 3, 0 };
	rc = stats_db_fill(db, t,
		"WITH b(k, name, lo, hi) AS (VALUES (0, '< 0.25', NULL, 0.25),\n"
		"  (1, '0.25-0.354', 0.25, 0.353553), (2, '0.354-0.5', 0.353553, 0.5),\n"
		"  (3, '0.5-0.707', 0.5, 0.707107), (4, '0.707-1', 0.707107, 1.0),\n"
		"  (5, '1-1.41', 1.0, 1.414214), (6, '1.41-2', 1.414214, 2.0),\n"
		"  (7, '2-2.83', 2.0, 2.828427), (8, '2.83-4', 2.828427, 4.0),\n"
		"  (9, '4-8', 4.0, 8.0), (10, '>= 8', 8.0, NULL),\n"
		"  (11, 'no .eh_frame', NULL, NULL)),\n"
		"q AS (SELECT CASE WHEN eh_frame_bytes + eh_frame_hdr_bytes > 0 THEN\n"
		"  1.0 * ehelf_bytes / (eh_frame_bytes + eh_frame_hdr_bytes) END AS x FROM uf),\n"
		"n AS (SELECT count(*) AS n FROM uf)\n"
		"SELECT b.name, b.lo, b.hi, count(q.rowid_ok),\n"
		"       CASE WHEN n.n > 0 THEN 100.0 * count(q.rowid_ok) / n.n END\n"
		"FROM b CROSS JOIN n LEFT JOIN (SELECT x, 1 AS rowid_ok FROM q) q\n"
		"  ON (b.k = 11 AND q.x IS NULL)\n"
		"  OR (b.k < 11 AND q.x IS NOT NULL AND (b.lo IS NULL OR q.x >= b.lo)\n"
		"      AND (b.hi IS NULL OR q.x < b.hi))\n"
		"GROUP BY b.k ORDER BY b.k", NULL, 0, err);
	return rc < 0 ? rc : 0;
}
