/* merge.c - see merge.h. */
#include "merge.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "../../store/writer.h"

static int exec(sqlite3 *h, const char *sql, const char *what, ehelf_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(h, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	int rc = err_set(err, ERR_IO, "merge: %s: %s", what, msg ? msg : "?");
	sqlite3_free(msg);
	return rc;
}

/* Copy the rows of shard table s.TABLE into main.TABLE, every column named
 * on both sides: a column the shard lacks (a database of an older
 * version) becomes NULL; OVERRIDE (NULL, or pairs of a column and an
 * expression, NULL-terminated) replaces "x.COLUMN" for columns the shard
 * has.  TAIL follows "FROM s.TABLE AS x". */
static int copy_table(sqlite3 *h, const char *table,
		      const char *const *override, const char *tail,
		      ehelf_err *err)
{
	sqlite3_stmt *cols = NULL;
	if (sqlite3_prepare_v2(h, "SELECT name FROM pragma_table_info(?1, 'main')"
			       " ORDER BY cid", -1, &cols, NULL) != SQLITE_OK)
		return err_set(err, ERR_IO, "merge: %s", sqlite3_errmsg(h));
	sqlite3_bind_text(cols, 1, table, -1, SQLITE_STATIC);
	sqlite3_str *names = sqlite3_str_new(h), *exprs = sqlite3_str_new(h);
	for (int i = 0; sqlite3_step(cols) == SQLITE_ROW; i++) {
		const char *col = (const char *)sqlite3_column_text(cols, 0);
		const char *expr = NULL;
		for (const char *const *o = override; o && o[0]; o += 2)
			if (!strcmp(o[0], col))
				expr = o[1];
		bool has = db_has_column(h, "s", table, col);
		sqlite3_str_appendf(names, "%s\"%w\"", i ? ", " : "", col);
		if (has && expr)
			sqlite3_str_appendf(exprs, "%s%s", i ? ", " : "", expr);
		else if (has)
			sqlite3_str_appendf(exprs, "%sx.\"%w\"", i ? ", " : "", col);
		else
			sqlite3_str_appendf(exprs, "%sNULL", i ? ", " : "");
	}
	sqlite3_finalize(cols);
	char *n = sqlite3_str_finish(names), *e = sqlite3_str_finish(exprs);
	char *q = n && e ? sqlite3_mprintf("INSERT OR REPLACE INTO main.\"%w\" (%s)"
					   " SELECT %s FROM s.\"%w\" AS x %s", table,
					   n, e, table, tail) : NULL;
	int rc = q ? exec(h, q, "copying rows", err)
		   : err_set(err, ERR_NOMEM, "out of memory");
	sqlite3_free(q);
	sqlite3_free(n);
	sqlite3_free(e);
	return rc;
}

/* The shard's column COL of eh_elfs as an expression: NULL if it lacks it. */
static const char *shard_col(sqlite3 *h, const char *col, const char *expr)
{
	return db_has_column(h, "s", "eh_elfs", col) ? expr : "NULL";
}

static int leave_out(sqlite3 *h, const char *hex, const char *why,
		     ehelf_err *err)
{
	char *q = sqlite3_mprintf("INSERT OR IGNORE INTO left_out VALUES (%Q, %Q)",
				  hex, why);
	int rc = exec(h, q, "temp table", err);
	sqlite3_free(q);
	return rc;
}

/* One eh_elf of the shard IN into OUT, with its signature.  The shard's
 * row replaces the merged one (whose file must then be the shard's)
 * unless the merged one was built by a newer ABI or generator version;
 * either way the file and its signature match the row that stays. */
static int merge_ehelf(sqlite3 *h, sqlite3_stmt *row, const store *in,
		       const store *out, const char *dir, merge_summary *sum,
		       ehelf_err *err)
{
	const char *hex = (const char *)sqlite3_column_text(row, 0);
	const char *sha = (const char *)sqlite3_column_text(row, 1);
	const char *old_sha = (const char *)sqlite3_column_text(row, 5);
	bool had_row = sqlite3_column_int(row, 4);
	int abi = sqlite3_column_int(row, 2), gen = sqlite3_column_int(row, 3);
	int old_abi = sqlite3_column_int(row, 6), old_gen = sqlite3_column_int(row, 7);
	char from[4096], from_sig[4096];
	if (!hex || store_path(in, hex, from, sizeof from) < 0 ||
	    store_sig_path(in, hex, from_sig, sizeof from_sig) < 0)
		return err_set(err, ERR_ARG, "%s: invalid build-ID '%s'", dir,
			       hex ? hex : "NULL");
	if (had_row && (old_abi > abi || (old_abi == abi && old_gen > gen)))
		return leave_out(h, hex, "kept", err);
	struct stat st;
	bool in_shard = stat(from, &st) == 0 && S_ISREG(st.st_mode);
	if (!in_shard && had_row && store_has(out, hex))
		return leave_out(h, hex, "kept", err);
	if (!in_shard) {
		fprintf(stderr, "ehelf-batch merge: %s: %s: no such eh_elf (left "
			"out)\n", dir, from);
		sum->missing++;
		return leave_out(h, hex, "missing", err);
	}
	bool same = had_row && sha && old_sha && !strcmp(sha, old_sha) &&
		    store_has(out, hex);
	bool has_sig = stat(from_sig, &st) == 0 && S_ISREG(st.st_mode);
	/* the signature first, so that a visible eh_elf has its own */
	int rc = has_sig ? store_import(out, hex, true, from_sig, err)
	       : !same ? store_remove_sig(out, hex, err) : 0;
	sum->signatures += has_sig && rc == 0;
	if (rc == 0 && !same) {
		rc = store_import(out, hex, false, from, err);
		sum->copied += rc == 0;
	}
	return rc;
}

/* The build-IDs in conflict once the shard is merged (left_out 'conflict':
 * a digest of the shard's and one of the merged store's differ, neither of
 * a separate debug file, or one side has it in conflict already), and
 * those whose merged eh_elf, from an ELF with code, stays against a shard's
 * from a separate debug file (left_out 'kept'); see db_conflict.h. */
static int find_conflicts(sqlite3 *h, ehelf_err *err)
{
	int rc = 0;
	if (db_has_column(h, "s", "cfi_sources", "build_id"))
		rc = exec(h, "INSERT OR IGNORE INTO left_out SELECT x.build_id,"
			  " CASE WHEN x.separate_debug = 0 AND m.separate_debug = 0"
			  " THEN 'conflict' ELSE 'kept' END FROM s.cfi_sources x"
			  " JOIN main.cfi_sources m ON m.build_id = x.build_id"
			  " WHERE x.cfi_sha256 <> m.cfi_sha256 AND NOT"
			  " (x.separate_debug = 0 AND m.separate_debug = 1)",
			  "finding conflicts", err);
	if (rc == 0 && db_has_column(h, "s", "conflicts", "build_id"))
		rc = exec(h, "INSERT OR REPLACE INTO left_out SELECT DISTINCT"
			  " build_id, 'conflict' FROM s.conflicts",
			  "finding conflicts", err);
	return rc ? rc : exec(h, "INSERT OR REPLACE INTO left_out SELECT"
			      " DISTINCT build_id, 'conflict' FROM main.conflicts"
			      " WHERE build_id IN (SELECT build_id FROM s.files)",
			      "finding conflicts", err);
}

#define CONFLICTED "SELECT build_id FROM left_out WHERE why = 'conflict'"
/* The shard's package X.package_id as the merged database's id. */
#define SHARD_PKG \
	" JOIN s.packages sp ON sp.id = x.package_id JOIN main.packages p" \
	" ON p.name = sp.name AND p.version = sp.version" \
	" AND p.architecture = sp.architecture AND p.source = sp.source"

/* In the merge's transaction, after the files rows: the shard's digests
 * and conflicts, and the conflicts find_conflicts found recorded as
 * ehelf-batch records them (every file of the build-ID, both sides; its
 * files rows 'conflict', its eh_elf's rows deleted). */
static int record_conflicts(sqlite3 *h, ehelf_err *err)
{
	bool cfi = db_has_column(h, "s", "cfi_sources", "build_id");
	int rc = !cfi ? 0 : exec(h, "INSERT OR REPLACE INTO main.cfi_sources"
		" SELECT build_id, cfi_sha256, separate_debug FROM s.cfi_sources"
		" WHERE build_id NOT IN (SELECT build_id FROM left_out)",
		"copying cfi_sources", err);
	if (rc == 0 && db_has_column(h, "s", "conflicts", "build_id"))
		rc = exec(h, "INSERT OR IGNORE INTO main.conflicts SELECT"
			  " x.build_id, p.id, x.path, x.cfi_sha256 FROM s.conflicts x"
			  SHARD_PKG, "copying conflicts", err);
	char *q = sqlite3_mprintf("INSERT OR IGNORE INTO main.conflicts SELECT"
		" x.build_id, p.id, x.path, %s FROM s.files x" SHARD_PKG
		"%s WHERE x.build_id IN (" CONFLICTED ") AND x.status IN"
		" ('built', 'present')", cfi ? "coalesce(c.cfi_sha256, '')" : "''",
		cfi ? " LEFT JOIN s.cfi_sources c ON c.build_id = x.build_id" : "");
	rc = rc ? rc : q ? exec(h, q, "recording conflicts", err)
		     : err_set(err, ERR_NOMEM, "out of memory");
	sqlite3_free(q);
	rc = rc ? rc : exec(h, "INSERT OR IGNORE INTO main.conflicts SELECT"
		" f.build_id, f.package_id, f.path, coalesce(c.cfi_sha256, '')"
		" FROM main.files f LEFT JOIN main.cfi_sources c ON c.build_id ="
		" f.build_id WHERE f.build_id IN (" CONFLICTED ") AND f.status IN"
		" ('built', 'present');"
		" UPDATE main.files SET status = 'conflict', ehelf_bytes = 0,"
		" error = 'build-ID conflict: files of another shard have this"
		" build-ID and other unwind tables (table conflicts); no eh_elf is"
		" built, shipped or served until it is resolved (ehelf-batch"
		" resolve)' WHERE build_id IN (" CONFLICTED ") AND status IN"
		" ('built', 'present');"
		" DELETE FROM main.cfi_sources WHERE build_id IN (" CONFLICTED ")",
		"recording conflicts", err);
	static const char *const details[] = { "rule_kinds", "dwarf_ops",
		"fde_rows", "unsupported", "rulesets", "fde_sizes", "eh_elfs" };
	for (size_t i = 0; rc == 0 && i < sizeof details / sizeof *details; i++) {
		q = sqlite3_mprintf("DELETE FROM main.\"%w\" WHERE build_id IN ("
				    CONFLICTED ")", details[i]);
		rc = q ? exec(h, q, "recording conflicts", err)
		       : err_set(err, ERR_NOMEM, "out of memory");
		sqlite3_free(q);
	}
	return rc;
}

/* After the merge's commit: the eh_elfs of the build-IDs in conflict out
 * of OUT. */
static int unstore_conflicts(sqlite3 *h, const store *out, ehelf_err *err)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(h, CONFLICTED, -1, &s, NULL) != SQLITE_OK)
		return err_set(err, ERR_IO, "merge: %s", sqlite3_errmsg(h));
	int rc = 0;
	while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
		const char *hex = (const char *)sqlite3_column_text(s, 0);
		fprintf(stderr, "ehelf-batch merge: %s: build-ID conflict (files "
			"with other unwind tables): no eh_elf until it is "
			"resolved\n", hex);
		rc = store_remove(out, hex, err);
	}
	sqlite3_finalize(s);
	return rc;
}

/* Merge shard store DIR into OUT and the database H: the eh_elf files
 * first, then the rows in one transaction.  Temp table left_out lists the
 * build-IDs whose shard rows are not copied: their eh_elf is missing from
 * the shard (its files rows become failed), or OUT keeps its own (newer,
 * or present when the shard's file is not). */
static int merge_one(sqlite3 *h, const store *out, const char *dir,
		     merge_summary *sum, ehelf_err *err)
{
	store in;
	int rc = store_at(&in, dir, err);
	if (rc < 0)
		return rc;
	char dbpath[4200];
	snprintf(dbpath, sizeof dbpath, "%s/ehelf.sqlite", dir);
	if (access(dbpath, R_OK) != 0)
		return err_set(err, ERR_NOTFOUND, "%s: no shard database", dbpath);
	char *q = sqlite3_mprintf("ATTACH %Q AS s", dbpath);
	rc = exec(h, q, "ATTACH", err);
	sqlite3_free(q);
	if (rc < 0)
		return rc;
	sqlite3_stmt *v = NULL;
	int version = -1;
	if (sqlite3_prepare_v2(h, "PRAGMA s.user_version", -1, &v, NULL) == SQLITE_OK &&
	    sqlite3_step(v) == SQLITE_ROW)
		version = sqlite3_column_int(v, 0);
	sqlite3_finalize(v);
	if (version > DB_SCHEMA_VERSION)
		rc = err_set(err, ERR_UNSUPPORTED, "%s: written by a newer ehelf-batch "
			     "(database version %d; this one knows versions up to "
			     "%d)", dbpath, version, DB_SCHEMA_VERSION);
	else if (version < 0 || !db_has_column(h, "s", "eh_elfs", "build_id"))
		rc = err_set(err, ERR_IO, "%s: not an ehelf-batch database", dbpath);
	else if (version < DB_SCHEMA_VERSION)
		/* its eh_elfs lack the statistics: a writing run migrates it
		 * and rebuilds them */
		rc = err_set(err, ERR_UNSUPPORTED, "%s: written by an older "
			     "ehelf-batch (database version %d; merge reads version "
			     "%d): run ehelf-batch on the shard once to migrate it",
			     dbpath, version, DB_SCHEMA_VERSION);
	/* eh_elf files first, so no row points at a missing one */
	rc = rc ? rc : exec(h, "CREATE TEMP TABLE IF NOT EXISTS left_out (build_id"
			    " TEXT PRIMARY KEY, why TEXT); DELETE FROM left_out",
			    "temp table", err);
	rc = rc ? rc : find_conflicts(h, err);
	sqlite3_stmt *ids = NULL;
	q = rc ? NULL : sqlite3_mprintf(
		"SELECT x.build_id, %s, coalesce(%s, 0), coalesce(%s, 0),"
		" m.build_id IS NOT NULL, m.sha256, coalesce(m.abi_version, 0),"
		" coalesce(m.generator_version, 0) FROM s.eh_elfs x"
		" LEFT JOIN main.eh_elfs m ON m.build_id = x.build_id"
		" WHERE x.build_id NOT IN (SELECT build_id FROM left_out)",
		shard_col(h, "sha256", "x.sha256"),
		shard_col(h, "abi_version", "x.abi_version"),
		shard_col(h, "generator_version", "x.generator_version"));
	if (q && sqlite3_prepare_v2(h, q, -1, &ids, NULL) != SQLITE_OK)
		rc = err_set(err, ERR_IO, "merge: %s", sqlite3_errmsg(h));
	sqlite3_free(q);
	while (rc == 0 && ids && sqlite3_step(ids) == SQLITE_ROW)
		rc = merge_ehelf(h, ids, &in, out, dir, sum, err);
	sqlite3_finalize(ids);
	/* the same eh_elf (same SHA-256) recorded here with its statistics and
	 * in the shard without (built on demand by ehelf-server): this row and
	 * its detail rows are kept */
	rc = rc ? rc : exec(h, "INSERT OR IGNORE INTO left_out SELECT x.build_id,"
			    " 'statistics kept' FROM s.eh_elfs x JOIN main.eh_elfs m"
			    " ON m.build_id = x.build_id WHERE x.stats_version IS NULL"
			    " AND m.stats_version IS NOT NULL AND m.sha256 = x.sha256",
			    "keeping statistics", err);

	static const char *const details[] = { "rule_kinds", "dwarf_ops",
					       "fde_rows", "unsupported",
					       "rulesets", "fde_sizes" };
	static const char *const signer[] = {
		"signed_by", "coalesce(x.signed_by, CASE WHEN m.sha256 = x.sha256"
		" THEN m.signed_by END)", NULL };
	static const char copy_packages[] =
		"INSERT INTO packages (name, version, architecture, source, format,"
		" status, error, seconds)"
		" SELECT name, version, architecture, source, format, status, error,"
		" seconds FROM s.packages WHERE true"
		" ON CONFLICT (name, version, architecture, source) DO UPDATE SET"
		" status = CASE WHEN packages.status = 'done' THEN 'done'"
		" ELSE excluded.status END";
#define MISSING "SELECT build_id FROM left_out WHERE why = 'missing'"
	static const char copy_files[] =
		"INSERT INTO files (package_id, path, build_id, build_id_kind, size,"
		" text_bytes, eh_frame_bytes, eh_frame_hdr_bytes, debug_frame_bytes,"
		" ehelf_bytes, status, error)"
		" SELECT p.id, f.path, f.build_id, f.build_id_kind, f.size,"
		" f.text_bytes, f.eh_frame_bytes, f.eh_frame_hdr_bytes,"
		" f.debug_frame_bytes, f.ehelf_bytes,"
		" CASE WHEN f.build_id IN (" MISSING ") THEN 'failed'"
		" ELSE f.status END,"
		" CASE WHEN f.build_id IN (" MISSING ")"
		" THEN 'eh_elf missing from its shard' ELSE f.error END"
		" FROM s.files f JOIN s.packages sp ON f.package_id = sp.id"
		" JOIN packages p ON p.name = sp.name AND p.version = sp.version"
		" AND p.architecture = sp.architecture AND p.source = sp.source"
		" WHERE true ON CONFLICT (package_id, path) DO UPDATE SET"
		" build_id = excluded.build_id, status = excluded.status,"
		" error = excluded.error, ehelf_bytes = excluded.ehelf_bytes";
	static const char kept[] = "WHERE x.build_id NOT IN (SELECT build_id FROM left_out)";
	rc = rc ? rc : exec(h, "BEGIN", "BEGIN", err);
	rc = rc ? rc : exec(h, copy_packages, "copying packages", err);
	/* the detail rows of an eh_elf replaced go with it */
	for (size_t i = 0; rc == 0 && i < sizeof details / sizeof *details; i++) {
		q = sqlite3_mprintf("DELETE FROM main.\"%w\" WHERE build_id IN"
				    " (SELECT x.build_id FROM s.eh_elfs x %s)",
				    details[i], kept);
		rc = exec(h, q, "replacing rows", err);
		sqlite3_free(q);
	}
	rc = rc ? rc : copy_table(h, "eh_elfs", signer, "LEFT JOIN main.eh_elfs m"
				  " ON m.build_id = x.build_id WHERE x.build_id"
				  " NOT IN (SELECT build_id FROM left_out)", err);
	for (size_t i = 0; rc == 0 && i < sizeof details / sizeof *details; i++)
		rc = copy_table(h, details[i], NULL, kept, err);
	/* shared by every ELF: the rule sets the shard's rows name */
	rc = rc ? rc : exec(h, "INSERT OR IGNORE INTO main.ruleset_texts"
			    " (fingerprint, text) SELECT fingerprint, text"
			    " FROM s.ruleset_texts", "copying ruleset_texts", err);
	rc = rc ? rc : exec(h, copy_files, "copying files", err);
	rc = rc ? rc : record_conflicts(h, err);
	if (rc == 0) {
		rc = exec(h, "COMMIT", "COMMIT", err);
	} else {
		sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	}
	rc = rc ? rc : unstore_conflicts(h, out, err);
	sqlite3_exec(h, "DETACH s", NULL, NULL, NULL);
	sum->shards++;
	return rc;
}

static uint64_t count_rows(sqlite3 *h, const char *table)
{
	char *q = sqlite3_mprintf("SELECT count(*) FROM %s", table);
	sqlite3_stmt *s = NULL;
	uint64_t n = 0;
	if (sqlite3_prepare_v2(h, q, -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		n = (uint64_t)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_free(q);
	return n;
}

int batch_merge(const char *out_store, const char *out_db,
		char *const *shards, int nshards, merge_summary *sum,
		ehelf_err *err)
{
	memset(sum, 0, sizeof *sum);
	store out;
	int rc = store_open(&out, out_store, err);
	batch_db *db = NULL;
	if (rc == 0)
		rc = db_open(&db, out_db, 0, err); /* creates the schema */
	for (int i = 0; rc == 0 && i < nshards; i++)
		rc = merge_one(db_handle(db), &out, shards[i], sum, err);
	if (db) {
		sum->packages = count_rows(db_handle(db), "packages");
		sum->files = count_rows(db_handle(db), "files");
		sum->ehelfs = count_rows(db_handle(db), "eh_elfs");
		sum->conflicts = count_rows(db_handle(db),
					    "(SELECT DISTINCT build_id FROM conflicts)");
		db_close(db);
	}
	store_close(&out);
	return rc;
}
