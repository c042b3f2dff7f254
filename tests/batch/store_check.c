/*
 * store-check - the invariants of an ehelf-batch store and database:
 *  - every eh_elfs row has its file in the store, which ehelf_object_open
 *    accepts and whose recorded build-ID is the row's;
 *  - every eh_elfs row with signed_by set has its signature (REST.so.sig)
 *    beside its file;
 *  - every files row with status built or present names an eh_elfs row;
 *  - no temporary file lies outside STORE/.tmp;
 *  - no (package, path) or build-ID appears twice;
 *  - the statistics of every eh_elfs row with stats_version 1 (schema.sql
 *    version 3) agree with each other: its rulesets rows add up to its rows
 *    and are unique_rows many (unique_rows counts the distinct rule sets
 *    the compiler interned, rulesets one row per fingerprint: equal unless
 *    two rule sets of one ELF share a 64-bit fingerprint), with shapes
 *    distinct shapes among them and a ruleset_texts row each; its fde_sizes
 *    add up to its FDEs, each in its power-of-two bucket, their bytes
 *    within its file's .eh_frame + .debug_frame; the section split adds up
 *    to fdes and rows; summarised_rows are the rows of its summarised rule
 *    sets; every FDE is in the SFrame estimate or skipped by it; and no
 *    rulesets or fde_sizes row belongs to an eh_elf without statistics.
 * With --complete, also: every eh_elf file in the store has a row, and
 * every signature its eh_elf (true after a run that finished; a killed run
 * may leave files whose rows it did not commit, and a signature written
 * before its eh_elf).
 *
 * Usage: store-check [--complete] STORE [DB]
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../client-lib/include/ehelf.h"
#include "../../common/buildid.h"
#include "../../store/layout.h"

static int problems;
static sqlite3 *db;
static const char *root;
static long files_in_store, sigs_in_store;
static bool complete;

static void problem(const char *fmt, const char *a, const char *b)
{
	if (problems++ < 20) {
		fprintf(stderr, "store-check: ");
		fprintf(stderr, fmt, a, b);
		fputc('\n', stderr);
	}
}

static int visit(const char *path, const struct stat *sb, int type,
		 struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (type != FTW_F)
		return 0;
	if (!strncmp(base, ".tmp-", 5) && !strstr(path, "/.tmp/"))
		problem("%s: a temporary file outside .tmp%s", path, "");
	const char *ids = strstr(path, "/.build-id/");
	if (!ids || strncmp(base, ".tmp-", 5) == 0)
		return 0;
	/* .build-id/XX/REST.so -> XXREST, or REST.so.sig */
	char hex[200];
	int end = 0;
	if (sscanf(ids, "/.build-id/%2[0-9a-f]/%150[0-9a-f].so%n", hex, hex + 2,
		   &end) != 2 || (ids[end] && strcmp(ids + end, ".sig") != 0)) {
		problem("%s: not a store file name%s", path, "");
		return 0;
	}
	if (ids[end]) {
		sigs_in_store++;
		char so[4096];
		struct stat st;
		snprintf(so, sizeof so, "%.*s", (int)strlen(path) - 4, path);
		if (complete && stat(so, &st) != 0)
			problem("%s: a signature without its eh_elf%s", path, "");
		return 0;
	}
	files_in_store++;
	if (!complete)
		return 0;
	sqlite3_stmt *s;
	sqlite3_prepare_v2(db, "SELECT 1 FROM eh_elfs WHERE build_id = ?", -1, &s, NULL);
	sqlite3_bind_text(s, 1, hex, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_ROW)
		problem("%s: no eh_elfs row for %s", path, hex);
	sqlite3_finalize(s);
	return 0;
}

static long scalar(const char *sql)
{
	sqlite3_stmt *s;
	long v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The statistics of version 3: each check a query giving the build-IDs of
 * the eh_elfs rows (with stats_version 1) it fails, and what it says. */
static const char *const stats_checks[][2] = {
	{ "SELECT build_id FROM eh_elfs WHERE stats_version = 1 AND"
	  " (eh_frame_fdes IS NULL OR eh_frame_rows IS NULL OR debug_frame_fdes IS NULL"
	  " OR debug_frame_rows IS NULL OR summarised_rows IS NULL OR shapes IS NULL"
	  " OR read_ms IS NULL OR rules_ms IS NULL OR codegen_ms IS NULL"
	  " OR image_ms IS NULL OR store_ms IS NULL OR sframe_bytes IS NULL"
	  " OR sframe_fdes IS NULL OR sframe_fres IS NULL"
	  " OR sframe_skipped_fdes IS NULL OR sframe_skipped_rows IS NULL)",
	  "a statistics column is NULL" },
	{ "SELECT build_id FROM eh_elfs e WHERE stats_version = 1 AND rows IS NOT"
	  " (SELECT sum(rows) FROM rulesets r WHERE r.build_id = e.build_id)",
	  "sum(rulesets.rows) != rows" },
	{ "SELECT build_id FROM eh_elfs e WHERE stats_version = 1 AND unique_rows !="
	  " (SELECT count(*) FROM rulesets r WHERE r.build_id = e.build_id)",
	  "count(rulesets) != unique_rows" },
	{ "SELECT build_id FROM eh_elfs e WHERE stats_version = 1 AND (shapes !="
	  " (SELECT count(DISTINCT shape) FROM rulesets r WHERE r.build_id ="
	  " e.build_id) OR shapes > unique_rows OR (rows > 0 AND shapes < 1))",
	  "shapes != count(DISTINCT rulesets.shape), or more than unique_rows" },
	{ "SELECT build_id FROM eh_elfs e WHERE stats_version = 1 AND"
	  " (summarised_rows > rows OR summarised_rows != (SELECT coalesce(sum(rows), 0)"
	  " FROM rulesets r WHERE r.build_id = e.build_id AND summarised = 1))",
	  "summarised_rows != sum(rows of summarised rulesets), or > rows" },
	{ "SELECT DISTINCT r.build_id FROM rulesets r WHERE NOT EXISTS"
	  " (SELECT 1 FROM ruleset_texts t WHERE t.fingerprint = r.fingerprint)",
	  "a rulesets fingerprint without its ruleset_texts row" },
	{ "SELECT DISTINCT build_id FROM rulesets WHERE rows < 1 OR saved_regs < 0"
	  " OR saved_regs > 16 OR cfa_base NOT IN ('rsp', 'rbp', 'reg', 'expr', 'none')"
	  " OR (cfa_base IN ('expr', 'none')) != (cfa_reg IS NULL)"
	  " OR (cfa_reg IS NULL) != (cfa_offset IS NULL)"
	  " OR (cfa_base = 'rsp' AND cfa_reg != 7) OR (cfa_base = 'rbp' AND cfa_reg != 6)"
	  " OR (cfa_base = 'reg' AND cfa_reg IN (6, 7))",
	  "a rulesets row with rows < 1, saved_regs outside 0..16 or a CFA that"
	  " contradicts cfa_base" },
	{ "SELECT build_id FROM eh_elfs e WHERE stats_version = 1 AND fdes IS NOT"
	  " (SELECT sum(fdes) FROM fde_sizes f WHERE f.build_id = e.build_id)",
	  "sum(fde_sizes.fdes) != fdes" },
	{ "SELECT DISTINCT build_id FROM fde_sizes WHERE fdes < 1 OR log2 < 3"
	  " OR bytes < fdes * (1 << log2) OR bytes > fdes * ((1 << (log2 + 1)) - 1)",
	  "an fde_sizes bucket whose bytes are not in 2^log2 .. 2^(log2+1)-1 per FDE" },
	{ "SELECT build_id FROM eh_elfs e WHERE stats_version = 1 AND"
	  " (SELECT sum(bytes) FROM fde_sizes f WHERE f.build_id = e.build_id) >"
	  " (SELECT max(eh_frame_bytes + debug_frame_bytes) FROM files f"
	  " WHERE f.build_id = e.build_id AND f.status IN ('built', 'present'))",
	  "sum(fde_sizes.bytes) > .eh_frame + .debug_frame bytes of its file" },
	{ "SELECT build_id FROM eh_elfs WHERE stats_version = 1 AND"
	  " (eh_frame_rows + debug_frame_rows != rows"
	  " OR eh_frame_fdes + debug_frame_fdes != fdes)",
	  "the section split does not add up to rows and fdes" },
	{ "SELECT build_id FROM eh_elfs WHERE stats_version = 1 AND"
	  " (sframe_fdes + sframe_skipped_fdes != fdes OR sframe_skipped_rows > rows"
	  " OR sframe_fres > rows - sframe_skipped_rows"
	  " OR sframe_bytes < 28 + 20 * sframe_fdes + 3 * sframe_fres"
	  " OR sframe_bytes > 28 + 20 * sframe_fdes + 13 * sframe_fres)",
	  "the SFrame estimate does not add up (FDEs, rows, FRE sizes)" },
	{ "SELECT DISTINCT build_id FROM (SELECT build_id FROM rulesets UNION ALL"
	  " SELECT build_id FROM fde_sizes) WHERE build_id NOT IN"
	  " (SELECT build_id FROM eh_elfs WHERE stats_version = 1)",
	  "rulesets or fde_sizes rows of an eh_elf without statistics" },
	{ "SELECT build_id FROM eh_elfs WHERE stats_version IS NOT NULL"
	  " AND stats_version != 1", "a stats_version other than 1" },
};

/* Run the checks of stats_checks (a database of version 3). */
static void check_stats(void)
{
	for (size_t i = 0; i < sizeof stats_checks / sizeof *stats_checks; i++) {
		sqlite3_stmt *s;
		if (sqlite3_prepare_v2(db, stats_checks[i][0], -1, &s, NULL)
		    != SQLITE_OK) {
			problem("cannot check the statistics: %s%s",
				sqlite3_errmsg(db), "");
			continue;
		}
		while (sqlite3_step(s) == SQLITE_ROW)
			problem("eh_elf %s: %s",
				(const char *)sqlite3_column_text(s, 0),
				stats_checks[i][1]);
		sqlite3_finalize(s);
	}
}

int main(int argc, char **argv)
{
	int a = 1;
	if (a < argc && !strcmp(argv[a], "--complete")) {
		complete = true;
		a++;
	}
	if (a >= argc) {
		fprintf(stderr, "usage: store-check [--complete] STORE [DB]\n");
		return 2;
	}
	root = argv[a];
	char dbpath[4096];
	snprintf(dbpath, sizeof dbpath, "%s/ehelf.sqlite", root);
	if (sqlite3_open_v2(a + 1 < argc ? argv[a + 1] : dbpath, &db,
			    SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fprintf(stderr, "store-check: cannot open the database\n");
		return 1;
	}
	long rows = 0;
	sqlite3_stmt *s;
	sqlite3_prepare_v2(db, "SELECT build_id, signed_by FROM eh_elfs", -1, &s, NULL);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *hex = (const char *)sqlite3_column_text(s, 0);
		char path[4096];
		rows++;
		if (store_layout_path(root, hex, path, sizeof path) < 0) {
			problem("bad build-ID %s%s", hex, "");
			continue;
		}
		ehelf_object *o = ehelf_object_open(path);
		if (!o) {
			problem("%s: %s", path, ehelf_last_error());
			continue;
		}
		const unsigned char *signer = sqlite3_column_text(s, 1);
		char sig[4200];
		struct stat st;
		snprintf(sig, sizeof sig, "%s.sig", path);
		if (signer && stat(sig, &st) != 0)
			problem("%s: signed by %s, but no signature", path,
				(const char *)signer);
		const struct ehelf_info *info = ehelf_object_info(o);
		char got[200];
		buildid_to_hex(info->build_id, info->build_id_len, got, sizeof got);
		if (strcmp(got, hex))
			problem("%s: records build-ID %s", path, got);
		ehelf_object_close(o);
	}
	sqlite3_finalize(s);
	long dangling = scalar("SELECT count(*) FROM files WHERE status IN "
			       "('built', 'present') AND build_id NOT IN "
			       "(SELECT build_id FROM eh_elfs)");
	if (dangling)
		problem("%s built/present files rows name no eh_elfs row%s",
			dangling > 0 ? "some" : "?", "");
	long dup = scalar("SELECT count(*) - count(DISTINCT package_id || ' ' || path)"
			  " FROM files");
	if (dup)
		problem("duplicate files rows%s%s", "", "");
	check_stats();
	long stats = scalar("SELECT count(*) FROM eh_elfs WHERE stats_version = 1");
	nftw(root, visit, 16, FTW_PHYS);
	printf("store-check: %ld eh_elfs rows (%ld with statistics), %ld store "
	       "files, %ld signatures, %ld files rows, %d problems\n", rows,
	       stats, files_in_store, sigs_in_store,
	       scalar("SELECT count(*) FROM files"), problems);
	sqlite3_close(db);
	return problems ? 1 : 0;
}
