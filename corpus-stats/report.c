/* report.c - see report.h. */
#include "report.h"

#include "query.h"
#include "query_conflicts.h"
#include "query_rule_kinds.h"

#define DISTINCT_NOTE "each distinct build-ID is counted once (the file of " \
	"smallest id among the files of status built or present that ship it)"

/* the sums of one set of uf rows, as the columns of sizes */
#define SIZE_SUMS \
	"count(u.build_id), coalesce(sum(u.size), 0), coalesce(sum(u.text_bytes), 0),\n" \
	"coalesce(sum(u.eh_frame_bytes), 0), coalesce(sum(u.eh_frame_hdr_bytes), 0),\n" \
	"coalesce(sum(u.debug_frame_bytes), 0), coalesce(sum(u.ehelf_bytes), 0),\n" \
	"CASE WHEN sum(u.eh_frame_bytes + u.eh_frame_hdr_bytes) > 0 THEN\n" \
	"  1.0 * sum(u.ehelf_bytes) / sum(u.eh_frame_bytes + u.eh_frame_hdr_bytes) END,\n" \
	"CASE WHEN sum(u.size) > 0 THEN 100.0 * sum(u.ehelf_bytes) / sum(u.size) END\n"

#define RULESETS_POPULATION "Rule sets of the eh_elfs with statistics " \
	"(stats_version set), each distinct build-ID once, weighted by the rows " \
	"using them (rulesets.rows summed)."

/* offsets named in cfa_offset per base; the others are summed */
#define CFA_OFFSETS "12"

#define OWN_FILES "A package's figures are sums over its own files of status " \
	"built or present (a build-ID shipped by two packages counts in both), " \
	"fdes, rows, ehelf_bytes and compile_ms from their eh_elfs rows."

/* A table of the --top packages by one measure: KEY (SQL over pk) the
 * measure, first of COLS (after rank, package, version, elfs); EXTRA the
 * SQL of the other COLS ("" for none); WHERE the packages counted. */
#define TOP_PACKAGES(id_, title_, method_, cols_, key, extra, where) { \
	.id = id_, .title = title_, \
	.method = "The --top packages with the largest value (ties: by name " \
		"and version).  " method_ "  " OWN_FILES, \
	.cols = "rank:id package:text version:text elfs:count " cols_, \
	.plot = { STATS_PLOT_BARS, 1, 4, 0 }, .top = true, \
	.sql = "SELECT row_number() OVER (ORDER BY v DESC, name, version,\n" \
		"  package_id), name, version, elfs, v" extra "\n" \
		"FROM (SELECT *, " key " AS v FROM pk WHERE " where "\n" \
		"  ORDER BY v DESC, name, version, package_id LIMIT ?1)\n" \
		"ORDER BY v DESC, name, version, package_id" }

/* every table, in the order of the outputs */
static const stats_query queries[] = {
{ .id = "summary", .title = "Summary",
  .method = "Packages and ELF files are counted as the packages and files "
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
  .figures = "packages:count packages_done:count packages_failed:count "
	"packages_unfinished:count elf_files:count elf_files_built:count "
	"elf_files_present:count elf_files_no_cfi:count elf_files_ignored:count "
	"elf_files_failed:count eh_elfs:count eh_elfs_without_statistics:count "
	"eh_elfs_without_files:count eh_elfs_of_files:count "
	"eh_elfs_in_rule_tables:count fdes:count rows:count elf_bytes:bytes "
	"text_bytes:bytes eh_frame_bytes:bytes eh_frame_hdr_bytes:bytes "
	"debug_frame_bytes:bytes ehelf_bytes:bytes ehelf_per_eh_frame:ratio "
	"distinct_rulesets:count distinct_shapes:count rows_with_statistics:count "
	"summarised_rows_percent:percent unsupported_rows_percent:percent",
  .sql = "SELECT p.n, p.done, p.failed, p.n - p.done - p.failed,\n"
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
	"      FROM se JOIN main.eh_elfs e ON e.build_id = se.build_id) s" },

{ .id = "sizes",
  .title = "Sizes: programs, unwind tables and eh_elfs (report table 4)",
  .method = "Sums over the files of status built or present; " DISTINCT_NOTE
	".  The first row is every such file, the others split them by "
	"the size of .eh_frame + .eh_frame_hdr (1 KiB = 1024 bytes; lower "
	"bound included, upper excluded).  ehelf_per_eh_frame = "
	"ehelf_bytes / (eh_frame_bytes + eh_frame_hdr_bytes); "
	"ehelf_percent_of_elf = 100 * ehelf_bytes / elf_bytes.",
  .cols = "class:text files:count elf_bytes:bytes text_bytes:bytes "
	"eh_frame_bytes:bytes eh_frame_hdr_bytes:bytes debug_frame_bytes:bytes "
	"ehelf_bytes:bytes ehelf_per_eh_frame:ratio ehelf_percent_of_elf:percent",
  .sql = "WITH c(k, name, lo, hi) AS (VALUES (0, 'all files', 0, NULL),\n"
	"  (1, '< 1 KiB', 0, 1024), (2, '1-4 KiB', 1024, 4096),\n"
	"  (3, '4-64 KiB', 4096, 65536), (4, '64-256 KiB', 65536, 262144),\n"
	"  (5, '>= 256 KiB', 262144, NULL))\n"
	"SELECT c.name, " SIZE_SUMS
	"FROM c LEFT JOIN uf u\n"
	"  ON u.eh_frame_bytes + u.eh_frame_hdr_bytes >= c.lo\n"
	" AND (c.hi IS NULL OR u.eh_frame_bytes + u.eh_frame_hdr_bytes < c.hi)\n"
	"GROUP BY c.k ORDER BY c.k" },

{ .id = "ratio_histogram",
  .title = "Files by eh_elf size / (.eh_frame + .eh_frame_hdr) size",
  .method = "For each distinct build-ID of the files of status built or present "
	"(the file of smallest id that ships it), the ratio ehelf_bytes / (eh_frame_bytes + eh_frame_hdr_bytes), counted "
	"in half-octave bins (bounds in powers of sqrt 2, lower bound "
	"included); files without .eh_frame (their table from .debug_frame "
	"only) have no ratio and are counted in the last row.  percent is "
	"of all the files counted.",
  .cols = "ratio_bin:text ratio_from:ratio ratio_to:ratio files:count "
	"percent:percent",
  .plot = { STATS_PLOT_HISTOGRAM, 0, 3, 0 },
  .sql = "WITH b(k, name, lo, hi) AS (VALUES (0, '< 0.25', NULL, 0.25),\n"
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
	"GROUP BY b.k ORDER BY b.k" },

{ .id = "alternatives",
  .title = "eh_elfs against .eh_frame, SFrame and frame pointers",
  .method = "Over the eh_elfs with statistics, each distinct build-ID once (the "
	"same files for every line).  .eh_frame + .eh_frame_hdr: the files' "
	"section sizes; eh_elf: eh_elfs.ehelf_bytes, rows_not_represented "
	"its unsupported rows; SFrame: eh_elfs.sframe_bytes, the size of a "
	"version-2 .sframe section (header, FDEs and FREs) estimated from "
	"the same rows for the FDEs SFrame can represent (sframe_fdes, "
	"sframe_fres), the FDEs with a row it cannot represent skipped as "
	"GNU as skips them (sframe_skipped_fdes and _rows: those functions "
	"cannot be unwound from SFrame); frame pointers: no table (0 bytes), "
	"the cost being in code (rbp given up as a register, a push, mov and "
	"pop per function), which this database cannot measure.  "
	"ratio_to_eh_frame = bytes / (.eh_frame + .eh_frame_hdr bytes).",
  .cols = "representation:text bytes:bytes ratio_to_eh_frame:ratio fdes:count "
	"fdes_not_represented:count rows_not_represented:count note:text",
  .plot = { STATS_PLOT_BARS, 0, 1, 0 },
  .sql = "WITH s AS (SELECT coalesce(sum(u.eh_frame_bytes + u.eh_frame_hdr_bytes), 0)\n"
	"      AS eh, coalesce(sum(e.ehelf_bytes), 0) AS ehelf,\n"
	"    coalesce(sum(e.fdes), 0) AS fdes,\n"
	"    coalesce(sum(e.unsupported_rows), 0) AS uns,\n"
	"    sum(e.sframe_bytes) AS sf, sum(e.sframe_fdes) AS sfd,\n"
	"    sum(e.sframe_fres) AS sfr, sum(e.sframe_skipped_fdes) AS sks,\n"
	"    sum(e.sframe_skipped_rows) AS skr\n"
	"    FROM uf u JOIN main.eh_elfs e ON e.build_id = u.build_id\n"
	"    WHERE u.stats)\n"
	"SELECT '.eh_frame + .eh_frame_hdr', eh, CASE WHEN eh > 0 THEN 1.0 END,\n"
	"  fdes, 0, 0, 'the DWARF CFI as shipped, read by a DWARF interpreter'\n"
	"  FROM s\n"
	"UNION ALL SELECT 'eh_elf', ehelf, CASE WHEN eh > 0 THEN 1.0 * ehelf / eh END,\n"
	"  fdes, 0, uns, 'machine code and lookup tables compiled from them; "
	"rows_not_represented: rows whose rule set could not be compiled' FROM s\n"
	"UNION ALL SELECT 'SFrame (estimate)', sf,\n"
	"  CASE WHEN eh > 0 THEN 1.0 * sf / eh END, sfd, sks, skr,\n"
	"  printf('estimated from the same rows: %lld FREs; functions with a row "
	"SFrame cannot represent are skipped', coalesce(sfr, 0)) FROM s\n"
	"UNION ALL SELECT 'frame pointers', 0, CASE WHEN eh > 0 THEN 0.0 END,\n"
	"  NULL, NULL, NULL, 'no table: the cost is in code (a register and "
	"prologue/epilogue instructions), which this database cannot measure'\n"
	"  FROM s" },

/* rule_kinds and rule_kinds_percent, the second computed from the
 * first's cells */
{ .fn = query_rule_kinds },

{ .id = "coverage",
  .title = "Coverage: rows and rule sets compiled (report table 5)",
  .method = "rows and unsupported_rows: sums of eh_elfs.rows and "
	"eh_elfs.unsupported_rows" STATS_OVER_SE "  expression_rows: rows "
	"whose rule set has an expression or val_expression rule (CFA "
	"included), found by its text in ruleset_texts (an 'exp' or 'vexp' "
	"rule); expression_rules: expression and val_expression rules "
	"counted per column (rule_kinds).  rulesets: distinct rule sets "
	"summed per ELF (eh_elfs.unique_rows); unsupported_rulesets: rows "
	"of the unsupported table; distinct_*: rule sets by fingerprint "
	"archive-wide (rulesets table).",
  .cols = "rows:count unsupported_rows:count unsupported_percent:percent "
	"expression_rows:count expression_percent:percent "
	"expression_rules:count rulesets:count unsupported_rulesets:count "
	"distinct_rulesets:count distinct_unsupported_rulesets:count",
  .sql = "WITH e AS (SELECT coalesce(sum(e.rows), 0) AS rows,\n"
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
	"FROM e, x" },

{ .id = "dwarf_ops", .title = "DWARF operations in CFI expressions",
  .method = "Sums of the dwarf_ops table (DW_OP opcodes in the expressions of "
	"each ELF's rows)" STATS_OVER_SE "  uses: occurrences; files: eh_elfs "
	"using the opcode at least once; percent: of all uses.  Most used "
	"first.",
  .cols = "opcode:id name:text uses:count files:count percent:percent",
  .plot = { STATS_PLOT_BARS, 1, 2, 1 },
  .sql = "WITH d AS (SELECT opcode, min(name) AS name, sum(uses) AS uses,\n"
	"    count(*) AS files FROM main.dwarf_ops JOIN se USING (build_id)\n"
	"    GROUP BY opcode),\n"
	"n AS (SELECT sum(uses) AS n FROM d)\n"
	"SELECT opcode, name, uses, files, 100.0 * uses / n.n FROM d, n\n"
	"ORDER BY uses DESC, opcode" },

{ .id = "unsupported",
  .title = "Rule sets that could not be compiled, by reason",
  .method = "The unsupported table grouped by reason" STATS_OVER_SE
	"  rulesets: rule sets not compiled (per ELF); rows: the rows using "
	"them; files: eh_elfs with at least one; example: the file and pc of "
	"the reason's rule set with the most rows.",
  .cols = "reason:text rulesets:count rows:count files:count example:text",
  .sql = "SELECT reason, n, rows, files,\n"
	"  printf('%s pc 0x%x', coalesce((SELECT path FROM main.files f\n"
	"     WHERE f.build_id = g.bid ORDER BY f.id LIMIT 1), g.bid), g.pc)\n"
	"FROM (SELECT u.reason AS reason, count(*) AS n, sum(u.rows) AS rows,\n"
	"        count(DISTINCT u.build_id) AS files, max(u.rows) AS most,\n"
	"        u.build_id AS bid, u.example_pc AS pc\n"
	"      FROM main.unsupported u JOIN se USING (build_id)\n"
	"      GROUP BY u.reason) g\n"
	"ORDER BY rows DESC, reason" },

{ .id = "summaries", .title = "Rows covered by summaries",
  .method = "rows and summarised_rows: sums of eh_elfs.rows and "
	"eh_elfs.summarised_rows (rows whose rule set has an ehelf_describe "
	"summary)" STATS_OVER_SE "  rulesets and summarised_rulesets: distinct "
	"rule sets archive-wide (by fingerprint, rulesets table) and those "
	"with a summary.",
  .cols = "rows:count summarised_rows:count summarised_percent:percent "
	"rulesets:count summarised_rulesets:count "
	"summarised_rulesets_percent:percent",
  .sql = "WITH e AS (SELECT coalesce(sum(e.rows), 0) AS rows,\n"
	"    coalesce(sum(e.summarised_rows), 0) AS s\n"
	"    FROM se JOIN main.eh_elfs e ON e.build_id = se.build_id),\n"
	"k AS (SELECT count(*) AS n, coalesce(sum(summarised), 0) AS s FROM rs)\n"
	"SELECT e.rows, e.s, CASE WHEN e.rows > 0 THEN 100.0 * e.s / e.rows END,\n"
	"  k.n, k.s, CASE WHEN k.n > 0 THEN 100.0 * k.s / k.n END FROM e, k" },

{ .id = "sections",
  .title = "FDEs and rows by section: .eh_frame and .debug_frame",
  .method = "Sums of eh_elfs.eh_frame_fdes, eh_frame_rows, debug_frame_fdes and "
	"debug_frame_rows" STATS_OVER_SE "  Every row read from a section "
	"counts, also .debug_frame rows of addresses .eh_frame covers too "
	"(the eh_elf's lookup table uses .debug_frame rows only where "
	".eh_frame has none).  files: eh_elfs with at least "
	"one FDE from the section; percentages of both sections' sum.",
  .cols = "section:text files:count fdes:count rows:count fde_percent:percent "
	"row_percent:percent",
  .sql = "WITH e AS (SELECT coalesce(sum(e.eh_frame_fdes), 0) AS ef,\n"
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
	"  CASE WHEN er + dr > 0 THEN 100.0 * dr / (er + dr) END FROM e" },

{ .id = "fde_rows", .title = "FDEs by number of rows",
  .method = "Sums of the fde_rows table (each ELF's FDEs by the rows of their "
	"unwind table, identical neighbours merged)" STATS_OVER_SE
	"  rows_per_fde 64 counts FDEs of 64 rows or more; percent: of all "
	"FDEs.",
  .cols = "rows_per_fde:count label:text fdes:count percent:percent",
  .plot = { STATS_PLOT_HISTOGRAM, 1, 2, 1 },
  .sql = "WITH d AS (SELECT rows_per_fde AS k, sum(fdes) AS fdes\n"
	"    FROM main.fde_rows JOIN se USING (build_id) GROUP BY rows_per_fde),\n"
	"n AS (SELECT sum(fdes) AS n FROM d)\n"
	"SELECT k, CASE WHEN k >= 64 THEN '>= 64' ELSE CAST(k AS TEXT) END,\n"
	"  fdes, 100.0 * fdes / n.n FROM d, n ORDER BY k" },

{ .id = "fde_sizes", .title = "FDEs by size in bytes",
  .method = "Sums of the fde_sizes table (each ELF's FDEs by the size of the "
	"whole entry, its length field included, in powers of two: bucket "
	"log2 = b holds FDEs of 2^b to 2^(b+1)-1 bytes)" STATS_OVER_SE
	"  bytes: their total size; percentages of all FDEs and of all "
	"their bytes.",
  .cols = "bytes_range:text log2:id fdes:count bytes:bytes fde_percent:percent "
	"byte_percent:percent",
  .plot = { STATS_PLOT_HISTOGRAM, 0, 2, 1 },
  .sql = "WITH d AS (SELECT log2 AS b, sum(fdes) AS fdes, sum(bytes) AS bytes\n"
	"    FROM main.fde_sizes JOIN se USING (build_id) GROUP BY log2),\n"
	"n AS (SELECT sum(fdes) AS n, sum(bytes) AS m FROM d)\n"
	"SELECT printf('%lld-%lld', 1 << b, (1 << (b + 1)) - 1), b, fdes, bytes,\n"
	"  100.0 * fdes / n.n, CASE WHEN n.m > 0 THEN 100.0 * bytes / n.m END\n"
	"FROM d, n ORDER BY b" },

{ .id = "cfa_base", .title = "Rows by CFA base register",
  .method = RULESETS_POPULATION "  base: rulesets.cfa_base (rsp or rbp + "
	"offset, reg: another register + offset, expr: a DWARF expression, "
	"none: no CFA rule); rulesets: distinct rule sets (by fingerprint); "
	"percent: of all rows.",
  .cols = "base:text rows:count rulesets:count percent:percent",
  .plot = { STATS_PLOT_BARS, 0, 1, 0 },
  .sql = "WITH b(k, base) AS (VALUES (0, 'rsp'), (1, 'rbp'), (2, 'reg'),\n"
	"    (3, 'expr'), (4, 'none')),\n"
	"g AS (SELECT cfa_base, sum(rows) AS rows, count(*) AS n FROM rs\n"
	"    GROUP BY cfa_base),\n"
	"t AS (SELECT sum(rows) AS t FROM rs)\n"
	"SELECT b.base, coalesce(g.rows, 0), coalesce(g.n, 0),\n"
	"  CASE WHEN t.t > 0 THEN 100.0 * coalesce(g.rows, 0) / t.t END\n"
	"FROM b CROSS JOIN t LEFT JOIN g ON g.cfa_base = b.base ORDER BY b.k" },

{ .id = "cfa_offset", .title = "Rows by CFA offset, rsp- and rbp-based CFAs",
  .method = RULESETS_POPULATION "  For the rule sets whose CFA is rsp + "
	"offset, then rbp + offset: the " CFA_OFFSETS " offsets with the most "
	"rows (ties: smaller offset first), then all other offsets of that "
	"base summed ('other', offset null).  percent: of all rows, whatever "
	"their base.",
  .cols = "base:text cfa:text offset:bytes rows:count percent:percent",
  .plot = { STATS_PLOT_BARS, 1, 3, 1 },
  .sql = "WITH g AS (SELECT cfa_base, cfa_offset, sum(rows) AS rows FROM rs\n"
	"    WHERE cfa_base IN ('rsp', 'rbp') GROUP BY cfa_base, cfa_offset),\n"
	"k AS (SELECT *, row_number() OVER (PARTITION BY cfa_base\n"
	"    ORDER BY rows DESC, cfa_offset) AS k FROM g),\n"
	"t AS (SELECT sum(rows) AS t FROM rs)\n"
	"SELECT cfa_base,\n"
	"  CASE WHEN min(k) <= " CFA_OFFSETS " THEN printf('%s%+lld', cfa_base, cfa_offset)\n"
	"       ELSE cfa_base || '+other' END,\n"
	"  CASE WHEN min(k) <= " CFA_OFFSETS " THEN cfa_offset END, sum(rows),\n"
	"  CASE WHEN t.t > 0 THEN 100.0 * sum(rows) / t.t END\n"
	"FROM k, t GROUP BY cfa_base, min(k, " CFA_OFFSETS " + 1)\n"
	"ORDER BY cfa_base = 'rbp', min(k)" },

{ .id = "saved_regs", .title = "Rows by number of saved registers",
  .method = RULESETS_POPULATION "  saved_regs: registers 0-15 with a rule "
	"recovering the caller's value (offset, val_offset, register, "
	"expression, val_expression); the return address is not counted.  "
	"percent: of all rows.",
  .cols = "saved_regs:count rows:count rulesets:count percent:percent",
  .plot = { STATS_PLOT_HISTOGRAM, 0, 1, 0 },
  .sql = "WITH t AS (SELECT sum(rows) AS t FROM rs)\n"
	"SELECT saved_regs, sum(rows), count(*), 100.0 * sum(rows) / t.t\n"
	"FROM rs, t GROUP BY saved_regs ORDER BY saved_regs" },

{ .id = "rulesets", .title = "How many rule sets does a distribution use?",
  .method = "Per file: eh_elfs.unique_rows (distinct rule sets) and "
	"eh_elfs.shapes (distinct shapes: rule sets with their offsets set "
	"to 0) over the eh_elfs with statistics, each distinct build-ID "
	"once; median and p90 are nearest-rank (the value at rank "
	"ceil(n * p / 100) in ascending order).  Archive-wide: "
	"count(DISTINCT fingerprint) and count(DISTINCT shape) over their "
	"rulesets rows.  rulesets_for_P_percent_rows: the fewest rule sets, "
	"the commonest first (by rows summed over the archive), whose rows "
	"add up to at least P % of all rows.",
  .figures = "files:count rulesets_per_file_median:count "
	"rulesets_per_file_p90:count rulesets_per_file_max:count "
	"shapes_per_file_median:count shapes_per_file_p90:count "
	"shapes_per_file_max:count distinct_rulesets:count distinct_shapes:count "
	"rows:count rulesets_for_50_percent_rows:count "
	"rulesets_for_90_percent_rows:count rulesets_for_99_percent_rows:count "
	"rulesets_for_99.9_percent_rows:count rulesets_for_100_percent_rows:count",
  .sql = "WITH e AS (SELECT e.unique_rows AS u, e.shapes AS s\n"
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
	"  cov.a, cov.b, cov.c, cov.d, cov.e FROM pu, ps, t, cov" },

{ .id = "top_rulesets", .title = "The commonest rule sets",
  .method = RULESETS_POPULATION "  The rule sets with the most rows "
	"archive-wide (ties: smaller fingerprint first), at most --top of "
	"them; text: ruleset_texts (readelf's frames-interp notation; c-16: "
	"saved at CFA-16); files: eh_elfs using it; percent and "
	"cumulative_percent: of all rows.",
  .cols = "rank:id fingerprint:text text:text rows:count files:count "
	"percent:percent cumulative_percent:percent",
  .top = true,
  .sql = "WITH top AS (SELECT fingerprint, rows, files FROM rs\n"
	"    ORDER BY rows DESC, fingerprint LIMIT ?1),\n"
	"k AS (SELECT *, row_number() OVER w AS k, sum(rows) OVER w AS c\n"
	"    FROM top WINDOW w AS (ORDER BY rows DESC, fingerprint\n"
	"    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),\n"
	"t AS (SELECT sum(rows) AS t FROM rs)\n"
	"SELECT k.k, printf('%016llx', k.fingerprint), x.text, k.rows, k.files,\n"
	"  100.0 * k.rows / t.t, 100.0 * k.c / t.t\n"
	"FROM k CROSS JOIN t\n"
	"LEFT JOIN main.ruleset_texts x ON x.fingerprint = k.fingerprint\n"
	"ORDER BY k.k" },

{ .id = "compile_time", .title = "Compile time",
  .method = "Sums of eh_elfs.compile_ms and its split (read_ms: reading the "
	"CFI into rows, rules_ms: interning rule sets and the lookup table, "
	"codegen_ms: machine code, image_ms: the ELF image) and store_ms "
	"(writing it to the store) over the eh_elfs with statistics, each "
	"distinct build-ID once, as recorded when each was compiled (runs "
	"and machines may differ).  eh_frame_mib_per_s: .eh_frame bytes of "
	"those files / 2^20 per second of compile_ms; rows_per_s: their "
	"rows per second of compile_ms.  package_wall_ms: packages.seconds "
	"summed over all packages (wall time of reading and building each, "
	"workers in parallel each counted).",
  .figures = "eh_elfs:count compile_ms:ms read_ms:ms rules_ms:ms codegen_ms:ms "
	"image_ms:ms store_ms:ms compile_ms_per_eh_elf:ms "
	"eh_frame_mib_per_s:MiB/s rows_per_s:rows/s packages:count "
	"package_wall_ms:ms",
  .sql = "WITH e AS (SELECT count(*) AS n, sum(e.compile_ms) AS c,\n"
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
	"  p.n, p.ms FROM e, p" },

{ .id = "compile_phases", .title = "Compile time by phase",
  .method = "The phases of compile_time: sums of eh_elfs.read_ms, rules_ms, "
	"codegen_ms, image_ms (whose sum is about compile_ms) and store_ms "
	"over the eh_elfs with statistics, each distinct build-ID once; "
	"percent: of compile_ms + store_ms.",
  .cols = "phase:text ms:ms percent:percent",
  .plot = { STATS_PLOT_BARS, 0, 1, 0 },
  .sql = "WITH e AS (SELECT sum(e.read_ms) AS rd, sum(e.rules_ms) AS ru,\n"
	"    sum(e.codegen_ms) AS cg, sum(e.image_ms) AS im,\n"
	"    sum(e.store_ms) AS st,\n"
	"    coalesce(sum(e.compile_ms), 0) + coalesce(sum(e.store_ms), 0) AS t\n"
	"    FROM se JOIN main.eh_elfs e ON e.build_id = se.build_id),\n"
	"p(k, phase) AS (VALUES (0, 'read'), (1, 'rules'), (2, 'codegen'),\n"
	"    (3, 'image'), (4, 'store'))\n"
	"SELECT phase, v, CASE WHEN t > 0 THEN 100.0 * v / t END\n"
	"FROM (SELECT p.k, p.phase, CASE p.k WHEN 0 THEN rd WHEN 1 THEN ru\n"
	"      WHEN 2 THEN cg WHEN 3 THEN im ELSE st END AS v, e.t AS t\n"
	"      FROM p, e) ORDER BY k" },

TOP_PACKAGES("top_packages_eh_frame_bytes", "Top packages by .eh_frame size",
	"eh_frame_bytes: .eh_frame bytes summed.",
	"eh_frame_bytes:bytes", "eh_frame_bytes", "", "eh_frame_bytes > 0"),
TOP_PACKAGES("top_packages_ehelf_bytes", "Top packages by eh_elf size",
	"ehelf_bytes: eh_elf bytes summed.",
	"ehelf_bytes:bytes", "ehelf_bytes", "", "ehelf_bytes > 0"),
TOP_PACKAGES("top_packages_ratio", "Top packages by eh_elf / .eh_frame size ratio",
	"ratio: ehelf_bytes / eh_tables_bytes, eh_tables_bytes being .eh_frame "
	"+ .eh_frame_hdr bytes; only packages with at least 4 KiB (4096 bytes) "
	"of them.",
	"ratio:ratio ehelf_bytes:bytes eh_tables_bytes:bytes",
	"1.0 * ehelf_bytes / (eh_frame_bytes + eh_frame_hdr_bytes)",
	", ehelf_bytes, eh_frame_bytes + eh_frame_hdr_bytes",
	"eh_frame_bytes + eh_frame_hdr_bytes >= 4096"),
TOP_PACKAGES("top_packages_rows", "Top packages by unwind table rows",
	"rows: eh_elfs.rows summed.", "rows:count", "rows", "", "rows > 0"),
TOP_PACKAGES("top_packages_rulesets", "Top packages by distinct rule sets",
	"rulesets: distinct rule sets (fingerprints) of its eh_elfs with "
	"statistics.", "rulesets:count", "rulesets", "", "rulesets > 0"),
TOP_PACKAGES("top_packages_compile_ms", "Top packages by compile time",
	"compile_ms: eh_elfs.compile_ms summed (as recorded when each was "
	"compiled).", "compile_ms:ms", "compile_ms", "", "compile_ms > 0"),

{ .id = "packages", .title = "Packages",
  .method = "One row per package of the packages table (all of them, whatever "
	"their status), by name and version.  " OWN_FILES "  elfs: those "
	"files; rulesets: distinct rule sets (fingerprints) of its eh_elfs "
	"with statistics (null when none has any).",
  .cols = "name:text version:text elfs:count elf_bytes:bytes text_bytes:bytes "
	"eh_frame_bytes:bytes eh_frame_hdr_bytes:bytes debug_frame_bytes:bytes "
	"ehelf_bytes:bytes fdes:count rows:count rulesets:count "
	"compile_ms:ms status:text",
  .sql = "SELECT name, version, elfs, size, text_bytes, eh_frame_bytes,\n"
	"  eh_frame_hdr_bytes, debug_frame_bytes, ehelf_bytes, fdes, rows,\n"
	"  rulesets, compile_ms, status FROM pk\n"
	"ORDER BY name, version, package_id" },

/* its SQL runs only when the database has a conflicts table (one written
 * by an ehelf-batch that did not look for conflicts has none) */
{ .fn = query_conflicts },
};

int report_build(stats_db *db, stats_report *r, ehelf_err *err)
{
	r->database = db->path;
	r->schema_version = db->version;
	int rc = stats_db_derive(db, err);
	for (size_t i = 0; rc == 0 && i < sizeof queries / sizeof *queries; i++)
		rc = stats_query_run(db, r, &queries[i], err);
	return rc;
}
