/* db.c - see db.h. */
#include "db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/ehelf_abi.h"
#include "../../common/buildid.h"
#include "../../common/u64_map.h"
#include "../cfi/dwarf_op.h"

static const char schema_sql[] =
#include "schema_sql.h"
	;

enum { S_PKG_UPSERT, S_PKG_GET, S_PKG_END, S_FILE, S_EHELF, S_KINDS, S_OPS,
       S_FDE_ROWS, S_RULESET, S_TEXT, S_FDE_SIZE, S_LOOKUP, S_LOOKUP_PKG,
       S_SET_SIGNED, S_REOPEN, S_CLEAR_KINDS, S_CLEAR_OPS, S_CLEAR_FDE,
       S_CLEAR_RULESETS, S_CLEAR_FDE_SIZES, S_FORGET_EHELF, S_COUNT };

/* The eh_elfs columns after build_id, in the order S_EHELF binds them
 * (from ?2); the first EHELF_V2_COLS exist since version 2, the others
 * since version 3. */
#define EHELF_COLS \
	"ehelf_bytes, code_bytes, table_bytes, fdes, rows, unique_rows, entries," \
	" unsupported_rows, compile_ms, sha256, abi_version, generator_version," \
	" signed_by, stats_version, eh_frame_fdes, eh_frame_rows," \
	" debug_frame_fdes, debug_frame_rows, summarised_rows, shapes, read_ms," \
	" rules_ms, codegen_ms, image_ms, store_ms, sframe_bytes, sframe_fdes," \
	" sframe_fres, sframe_skipped_fdes, sframe_skipped_rows"
enum { EHELF_NCOLS = 30 };

static const char *const sql[S_COUNT] = {
	[S_PKG_UPSERT] =
		"INSERT INTO packages (name, version, architecture, source, format)"
		" VALUES (?1, ?2, ?3, ?4, ?5)"
		" ON CONFLICT (name, version, architecture, source) DO NOTHING",
	[S_PKG_GET] =
		"SELECT id, status FROM packages WHERE name = ?1 AND version = ?2"
		" AND architecture = ?3 AND source = ?4",
	[S_PKG_END] =
		"UPDATE packages SET status = ?2, error = ?3, seconds = ?4"
		" WHERE id = ?1",
	[S_FILE] =
		"INSERT INTO files (package_id, path, build_id, build_id_kind, size,"
		" text_bytes, eh_frame_bytes, eh_frame_hdr_bytes, debug_frame_bytes,"
		" ehelf_bytes, status, error)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
		" ON CONFLICT (package_id, path) DO UPDATE SET"
		" build_id = excluded.build_id, build_id_kind = excluded.build_id_kind,"
		" size = excluded.size, text_bytes = excluded.text_bytes,"
		" eh_frame_bytes = excluded.eh_frame_bytes,"
		" eh_frame_hdr_bytes = excluded.eh_frame_hdr_bytes,"
		" debug_frame_bytes = excluded.debug_frame_bytes,"
		" ehelf_bytes = excluded.ehelf_bytes, status = excluded.status,"
		" error = excluded.error",
	[S_EHELF] =
		"INSERT OR REPLACE INTO eh_elfs (build_id, " EHELF_COLS ")"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
		" ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27,"
		" ?28, ?29, ?30, ?31)",
	[S_KINDS] =
		"INSERT INTO rule_kinds (build_id, column_no, no_rule, undefined,"
		" same_value, offset, val_offset, register, expression, val_expression)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[S_OPS] =
		"INSERT INTO dwarf_ops (build_id, opcode, name, uses)"
		" VALUES (?1, ?2, ?3, ?4)",
	[S_FDE_ROWS] =
		"INSERT INTO fde_rows (build_id, rows_per_fde, fdes) VALUES (?1, ?2, ?3)",
	/* two rule sets of one ELF with one fingerprint (a 64-bit collision)
	 * are one row: the first one's, with the rows of both */
	[S_RULESET] =
		"INSERT INTO rulesets (build_id, fingerprint, shape, rows, summarised,"
		" supported, cfa_base, cfa_reg, cfa_offset, saved_regs)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
		" ON CONFLICT (build_id, fingerprint) DO UPDATE SET"
		" rows = rows + excluded.rows",
	[S_TEXT] =
		"INSERT OR IGNORE INTO ruleset_texts (fingerprint, text) VALUES (?1, ?2)",
	[S_FDE_SIZE] =
		"INSERT INTO fde_sizes (build_id, log2, fdes, bytes) VALUES (?1, ?2, ?3, ?4)",
	[S_LOOKUP] =
		"SELECT ehelf_bytes, sha256, abi_version, generator_version,"
		" signed_by, stats_version FROM eh_elfs WHERE build_id = ?1",
	[S_LOOKUP_PKG] =
		"SELECT (SELECT count(DISTINCT package_id) FROM files WHERE"
		" build_id = ?1 AND status IN ('built', 'present')), p.name, f.path"
		" FROM files f JOIN packages p ON p.id = f.package_id"
		" WHERE f.build_id = ?1 AND f.status IN ('built', 'present')"
		" ORDER BY p.name, f.path LIMIT 1",
	[S_SET_SIGNED] = "UPDATE eh_elfs SET signed_by = ?2 WHERE build_id = ?1",
	[S_REOPEN] =
		"UPDATE packages SET status = 'reading' WHERE status = 'done'"
		/* the upstreams ehelf-server records its on-demand builds under
		 * are no packages ehelf-batch reads: reopened, they would stay
		 * unfinished forever */
		" AND format <> 'debuginfod' AND id IN"
		" (SELECT f.package_id FROM files f JOIN eh_elfs e"
		" ON e.build_id = f.build_id WHERE f.status IN ('built', 'present')"
		" AND (coalesce(e.abi_version, 0) < ?1"
		" OR coalesce(e.generator_version, 0) < ?2"
		" OR coalesce(e.stats_version, 0) < ?4"
		" OR (?3 IS NOT NULL AND e.signed_by IS NOT ?3)))",
	[S_CLEAR_KINDS] = "DELETE FROM rule_kinds WHERE build_id = ?1",
	[S_CLEAR_OPS] = "DELETE FROM dwarf_ops WHERE build_id = ?1",
	[S_CLEAR_FDE] = "DELETE FROM fde_rows WHERE build_id = ?1",
	[S_CLEAR_RULESETS] = "DELETE FROM rulesets WHERE build_id = ?1",
	[S_CLEAR_FDE_SIZES] = "DELETE FROM fde_sizes WHERE build_id = ?1",
	[S_FORGET_EHELF] = "DELETE FROM eh_elfs WHERE build_id = ?1",
};

/* At most this many fingerprints are remembered as having their
 * ruleset_texts row (16 to 32 bytes each); beyond, the INSERT OR IGNORE
 * just runs. */
enum { TEXTS_KNOWN_MAX = 1 << 22 };

struct batch_db {
	sqlite3 *h;
	sqlite3_stmt *st[S_COUNT];
	sqlite3_stmt *unsup_clear, *unsup_put;
	/* fingerprints whose ruleset_texts row this process committed (most
	 * rule sets recur in every ELF: their rows need not be written
	 * again), and those written by the open transaction */
	u64_map texts_known;
	uint64_t *texts_pending;
	size_t npending, cap_pending;
	char path[1024];
};

static int db_fail(batch_db *db, ehelf_err *err, const char *what)
{
	return err_set(err, ERR_IO, "%s: %s: %s", db->path, what,
		       sqlite3_errmsg(db->h));
}

bool db_has_column(struct sqlite3 *h, const char *schema, const char *table,
		   const char *column)
{
	sqlite3_stmt *s = NULL;
	bool has = sqlite3_prepare_v2(h, "SELECT 1 FROM pragma_table_info(?1, ?2)"
				      " WHERE name = ?3", -1, &s, NULL) == SQLITE_OK &&
		   sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC) == SQLITE_OK &&
		   sqlite3_bind_text(s, 2, schema, -1, SQLITE_STATIC) == SQLITE_OK &&
		   sqlite3_bind_text(s, 3, column, -1, SQLITE_STATIC) == SQLITE_OK &&
		   sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return has;
}

static int exec_sql(batch_db *db, const char *q, const char *what,
		    ehelf_err *err)
{
	return sqlite3_exec(db->h, q, NULL, NULL, NULL) == SQLITE_OK ? 0
	       : db_fail(db, err, what);
}

static int user_version(batch_db *db, int *v, ehelf_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &s, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW)
		*v = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : db_fail(db, err, "cannot read");
}

/* Version 0 or 2 to this one: the eh_elfs columns added since, in one
 * transaction (another process may be doing the same); the tables added
 * since are created by the schema script, which runs next. */
static int migrate(batch_db *db, ehelf_err *err)
{
	static const char *const added[][2] = {
		/* version 2 */
		{ "sha256", "TEXT" }, { "abi_version", "INTEGER" },
		{ "generator_version", "INTEGER" }, { "signed_by", "TEXT" },
		/* version 3 */
		{ "stats_version", "INTEGER" },
		{ "eh_frame_fdes", "INTEGER" }, { "eh_frame_rows", "INTEGER" },
		{ "debug_frame_fdes", "INTEGER" }, { "debug_frame_rows", "INTEGER" },
		{ "summarised_rows", "INTEGER" }, { "shapes", "INTEGER" },
		{ "read_ms", "REAL" }, { "rules_ms", "REAL" },
		{ "codegen_ms", "REAL" }, { "image_ms", "REAL" },
		{ "store_ms", "REAL" }, { "sframe_bytes", "INTEGER" },
		{ "sframe_fdes", "INTEGER" }, { "sframe_fres", "INTEGER" },
		{ "sframe_skipped_fdes", "INTEGER" },
		{ "sframe_skipped_rows", "INTEGER" },
	};
	int rc = exec_sql(db, "BEGIN IMMEDIATE", "cannot upgrade", err);
	for (size_t i = 0; rc == 0 && i < sizeof added / sizeof *added; i++) {
		if (db_has_column(db->h, "main", "eh_elfs", added[i][0]))
			continue;
		char *q = sqlite3_mprintf("ALTER TABLE eh_elfs ADD COLUMN %s %s",
					  added[i][0], added[i][1]);
		rc = q ? exec_sql(db, q, "cannot upgrade", err)
		       : err_set(err, ERR_NOMEM, "out of memory");
		sqlite3_free(q);
	}
	char q[64];
	snprintf(q, sizeof q, "PRAGMA user_version = %d", DB_SCHEMA_VERSION);
	if (rc == 0)
		rc = exec_sql(db, q, "cannot upgrade", err);
	if (rc == 0)
		return exec_sql(db, "COMMIT", "cannot upgrade", err);
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Check the version of the open database; for writing, migrate it or
 * create the schema. */
static int check_schema(batch_db *db, bool ro, ehelf_err *err)
{
	int v = 0;
	int rc = user_version(db, &v, err);
	if (rc < 0)
		return rc;
	if (v > DB_SCHEMA_VERSION)
		return err_set(err, ERR_UNSUPPORTED, "%s: written by a newer "
			       "ehelf-batch (database version %d; this one knows "
			       "versions up to %d)", db->path, v, DB_SCHEMA_VERSION);
	if (!ro && (rc = index_db_check_ours(db->h, db->path, "ehelf-batch",
					       err)) < 0)
		return rc;
	bool tables = db_has_column(db->h, "main", "eh_elfs", "build_id");
	if (ro && !tables)
		return err_set(err, ERR_IO, "%s: not an ehelf-batch database (no "
			       "eh_elfs table)", db->path);
	if (ro && v < DB_SCHEMA_VERSION)
		return err_set(err, ERR_UNSUPPORTED, "%s: written by an older "
			       "ehelf-batch (database version %d): run ehelf-batch "
			       "on its store once to migrate it", db->path, v);
	if (ro)
		return 0;
	if (tables && v < DB_SCHEMA_VERSION && (rc = migrate(db, err)) < 0)
		return rc;
	if ((rc = exec_sql(db, schema_sql, "cannot create the schema", err)) < 0 ||
	    (rc = exec_sql(db, "PRAGMA synchronous = NORMAL", "cannot set up",
			   err)) < 0 ||
	    (rc = user_version(db, &v, err)) < 0)
		return rc;
	return v == DB_SCHEMA_VERSION ? 0
	       : err_set(err, ERR_UNSUPPORTED, "%s: schema.sql sets version %d, "
			 "db.c expects %d", db->path, v, DB_SCHEMA_VERSION);
}

/* Open DB->path (URI when IMMUTABLE) and check its schema. */
static int open_handle(batch_db *db, bool ro, bool immutable, ehelf_err *err)
{
	char uri[4200];
	if (immutable && index_db_immutable_uri(db->path, uri, sizeof uri) < 0)
		return err_set(err, ERR_ARG, "%s: path too long", db->path);
	int flags = ro ? SQLITE_OPEN_READONLY
		       : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(immutable ? uri : db->path, &db->h,
			    flags | (immutable ? SQLITE_OPEN_URI : 0), NULL)
	    != SQLITE_OK)
		return db_fail(db, err, "cannot open");
	sqlite3_busy_timeout(db->h, 10000);
	if (!ro && sqlite3_db_readonly(db->h, "main") == 1)
		return err_set(err, ERR_IO, "%s: the database cannot be written "
			       "(a read-only file or file system): ehelf-batch "
			       "needs one it can write", db->path);
	return check_schema(db, ro, err);
}

int db_open(batch_db **out, const char *path, unsigned flags, ehelf_err *err)
{
	batch_db *db = calloc(1, sizeof *db);
	if (!db)
		return err_set(err, ERR_NOMEM, "out of memory");
	snprintf(db->path, sizeof db->path, "%s", path);
	bool ro = flags & DB_READ_ONLY;
	int rc = open_handle(db, ro, false, err);
	int why = rc == ERR_IO && ro ? sqlite3_errcode(db->h) : SQLITE_OK;
	if (why == SQLITE_CANTOPEN || why == SQLITE_READONLY) {
		/* a WAL database in a directory this process cannot write (a
		 * read-only file system), without the -shm file a reader
		 * needs: read as a snapshot */
		sqlite3_close(db->h);
		db->h = NULL;
		rc = open_handle(db, ro, true, err);
	}
	if (rc < 0)
		goto fail;
	for (int i = 0; i < S_COUNT; i++)
		if (sqlite3_prepare_v2(db->h, sql[i], -1, &db->st[i], NULL)
		    != SQLITE_OK) {
			rc = db_fail(db, err, "cannot prepare a statement");
			goto fail;
		}
	if (sqlite3_prepare_v2(db->h, "DELETE FROM unsupported WHERE build_id = ?1",
			       -1, &db->unsup_clear, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, "INSERT INTO unsupported (build_id, ruleset,"
			       " rows, example_pc, reason) VALUES (?1, ?2, ?3, ?4, ?5)",
			       -1, &db->unsup_put, NULL) != SQLITE_OK) {
		rc = db_fail(db, err, "cannot prepare a statement");
		goto fail;
	}
	*out = db;
	return 0;
fail:
	db_close(db);
	return rc;
}

void db_close(batch_db *db)
{
	if (!db)
		return;
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(db->st[i]);
	sqlite3_finalize(db->unsup_clear);
	sqlite3_finalize(db->unsup_put);
	sqlite3_close(db->h);
	u64_map_free(&db->texts_known);
	free(db->texts_pending);
	free(db);
}

struct sqlite3 *db_handle(batch_db *db)
{
	return db->h;
}

int db_begin(batch_db *db, ehelf_err *err)
{
	db->npending = 0;
	return sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK
	       ? 0 : db_fail(db, err, "BEGIN");
}

int db_commit(batch_db *db, ehelf_err *err)
{
	if (sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, err, "COMMIT");
	/* remembered once durable (a memory shortage only forgets some) */
	for (size_t i = 0; i < db->npending &&
	     db->texts_known.n < TEXTS_KNOWN_MAX; i++)
		u64_map_put(&db->texts_known, db->texts_pending[i], 1, true);
	db->npending = 0;
	return 0;
}

void db_rollback(batch_db *db)
{
	/* the texts of the abandoned transaction were never written */
	db->npending = 0;
	if (!sqlite3_get_autocommit(db->h))
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

/* Does FP need its ruleset_texts row written in this transaction? */
static bool text_needed(batch_db *db, uint64_t fp)
{
	if (u64_map_get(&db->texts_known, fp))
		return false;
	if (db->npending == db->cap_pending) {
		size_t cap = db->cap_pending ? 2 * db->cap_pending : 256;
		uint64_t *v = realloc(db->texts_pending, cap * sizeof *v);
		if (!v)
			return true; /* written, not remembered */
		db->texts_pending = v;
		db->cap_pending = cap;
	}
	db->texts_pending[db->npending++] = fp;
	return true;
}

/* Run a prepared statement to completion and reset it. */
static int run(batch_db *db, sqlite3_stmt *s, ehelf_err *err)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0
	       : db_fail(db, err, "write failed");
}

static void text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

int db_package(batch_db *db, const pkg_meta *m, int64_t *id, bool *done,
	       ehelf_err *err)
{
	sqlite3_stmt *s = db->st[S_PKG_UPSERT];
	text(s, 1, m->name);
	text(s, 2, m->version);
	text(s, 3, m->arch);
	text(s, 4, m->source);
	text(s, 5, pkg_format_name(m->format));
	int rc = run(db, s, err);
	if (rc < 0)
		return rc;
	s = db->st[S_PKG_GET];
	text(s, 1, m->name);
	text(s, 2, m->version);
	text(s, 3, m->arch);
	text(s, 4, m->source);
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_reset(s);
		return db_fail(db, err, "package row missing");
	}
	*id = sqlite3_column_int64(s, 0);
	const unsigned char *status = sqlite3_column_text(s, 1);
	*done = status && strcmp((const char *)status, "done") == 0;
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return 0;
}

int db_package_forget_others(batch_db *db, int64_t id, const pkg_meta *m,
			      ehelf_err *err)
{
	char *q = sqlite3_mprintf(
		"BEGIN IMMEDIATE;"
		" CREATE TEMP TABLE IF NOT EXISTS gone (id INTEGER PRIMARY KEY);"
		" DELETE FROM gone;"
		" INSERT INTO gone SELECT id FROM packages WHERE source = %Q"
		" AND format = %Q AND id <> %lld;"
		" DELETE FROM conflicts WHERE package_id IN (SELECT id FROM gone);"
		" DELETE FROM files WHERE package_id IN (SELECT id FROM gone);"
		" DELETE FROM packages WHERE id IN (SELECT id FROM gone);"
		" COMMIT", m->source, pkg_format_name(m->format), (long long)id);
	int rc = q ? exec_sql(db, q, "cannot forget a replaced package", err)
		   : err_set(err, ERR_NOMEM, "out of memory");
	sqlite3_free(q);
	if (rc < 0)
		db_rollback(db);
	return rc;
}

int db_package_unbuilt(batch_db *db, int64_t id, uint64_t *n, ehelf_err *err)
{
	sqlite3_stmt *s = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db->h, "SELECT count(*) FROM files f WHERE"
			       " f.package_id = ?1 AND f.status = 'failed' AND NOT"
			       " EXISTS (SELECT 1 FROM eh_elfs e WHERE e.build_id ="
			       " f.build_id)", -1, &s, NULL) != SQLITE_OK)
		return db_fail(db, err, "cannot read the files");
	sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*n = (uint64_t)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : db_fail(db, err, "cannot read the files");
}

int db_package_end(batch_db *db, int64_t id, const char *status,
		   const char *error, double seconds, ehelf_err *err)
{
	sqlite3_stmt *s = db->st[S_PKG_END];
	sqlite3_bind_int64(s, 1, id);
	text(s, 2, status);
	text(s, 3, error);
	sqlite3_bind_double(s, 4, seconds);
	return run(db, s, err);
}

int db_put_file(batch_db *db, const db_file *f, ehelf_err *err)
{
	sqlite3_stmt *s = db->st[S_FILE];
	sqlite3_bind_int64(s, 1, f->package_id);
	text(s, 2, f->path);
	text(s, 3, f->build_id);
	text(s, 4, f->build_id_kind);
	const uint64_t sizes[] = { f->size, f->text, f->eh_frame, f->eh_frame_hdr,
				   f->debug_frame, f->ehelf };
	for (int i = 0; i < 6; i++)
		sqlite3_bind_int64(s, 5 + i, (sqlite3_int64)sizes[i]);
	text(s, 11, f->status);
	text(s, 12, f->error);
	return run(db, s, err);
}

/* Column I of S's row into OUT (N bytes), "" when NULL. */
static void column_text(sqlite3_stmt *s, int i, char *out, size_t n)
{
	const unsigned char *v = sqlite3_column_text(s, i);
	snprintf(out, n, "%s", v ? (const char *)v : "");
}

int db_lookup_ehelf(batch_db *db, const char *hex, db_ehelf_row *out,
		    ehelf_err *err)
{
	memset(out, 0, sizeof *out);
	if (!buildid_valid_hex(hex))
		return err_set(err, ERR_ARG, "invalid build-ID '%.130s'", hex);
	sqlite3_stmt *s = db->st[S_LOOKUP];
	text(s, 1, hex);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->size = (uint64_t)sqlite3_column_int64(s, 0);
		column_text(s, 1, out->sha256, sizeof out->sha256);
		out->abi_version = sqlite3_column_int(s, 2);
		out->generator_version = sqlite3_column_int(s, 3);
		column_text(s, 4, out->signed_by, sizeof out->signed_by);
		out->stats_version = sqlite3_column_int(s, 5);
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc == SQLITE_DONE)
		return err_set(err, ERR_NOTFOUND, "%s: no eh_elf for build-ID %s",
			       db->path, hex);
	if (rc != SQLITE_ROW)
		return db_fail(db, err, "lookup failed");
	s = db->st[S_LOOKUP_PKG];
	text(s, 1, hex);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->packages = (uint64_t)sqlite3_column_int64(s, 0);
		column_text(s, 1, out->package, sizeof out->package);
		column_text(s, 2, out->path, sizeof out->path);
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0
	       : db_fail(db, err, "lookup failed");
}

bool db_ehelf_current(const db_ehelf_row *r)
{
	return r->abi_version >= EHELF_ABI_VERSION &&
	       r->generator_version >= EHELF_GENERATOR_VERSION &&
	       r->stats_version >= DB_STATS_VERSION;
}

int db_set_signed(batch_db *db, const char *hex, const char *signed_by,
		  ehelf_err *err)
{
	sqlite3_stmt *s = db->st[S_SET_SIGNED];
	text(s, 1, hex);
	text(s, 2, signed_by);
	return run(db, s, err);
}

int db_reopen_outdated(batch_db *db, const char *key_id, ehelf_err *err)
{
	sqlite3_stmt *s = db->st[S_REOPEN];
	sqlite3_bind_int(s, 1, EHELF_ABI_VERSION);
	sqlite3_bind_int(s, 2, EHELF_GENERATOR_VERSION);
	text(s, 3, key_id);
	sqlite3_bind_int(s, 4, DB_STATS_VERSION);
	int rc = run(db, s, err);
	return rc < 0 ? rc : sqlite3_changes(db->h);
}

int db_reopen_missing(batch_db *db, bool (*in_store)(void *arg, const char *hex),
		      void *arg, ehelf_err *err)
{
	sqlite3_stmt *ids = NULL, *up = NULL;
	if (sqlite3_prepare_v2(db->h, "SELECT DISTINCT f.build_id, e.build_id IS NOT"
			       " NULL FROM files f JOIN packages p ON p.id ="
			       " f.package_id LEFT JOIN eh_elfs e ON e.build_id ="
			       " f.build_id WHERE p.status = 'done' AND f.status IN"
			       " ('built', 'present') AND f.build_id IS NOT NULL",
			       -1, &ids, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, "UPDATE packages SET status = 'reading'"
			       " WHERE status = 'done' AND format <> 'debuginfod'"
			       " AND id IN (SELECT package_id FROM files WHERE"
			       " build_id = ?1 AND status IN ('built', 'present'))",
			       -1, &up, NULL) != SQLITE_OK) {
		sqlite3_finalize(ids);
		return db_fail(db, err, "cannot prepare a statement");
	}
	/* the build-IDs first, then the updates (not while reading) */
	char **missing = NULL;
	size_t n = 0, cap = 0;
	int rc = 0, st;
	while (rc == 0 && (st = sqlite3_step(ids)) == SQLITE_ROW) {
		const char *hex = (const char *)sqlite3_column_text(ids, 0);
		if (sqlite3_column_int(ids, 1) && in_store(arg, hex))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			char **v = realloc(missing, cap * sizeof *v);
			if (!v) {
				rc = err_set(err, ERR_NOMEM, "out of memory");
				break;
			}
			missing = v;
		}
		if (!(missing[n] = strdup(hex)))
			rc = err_set(err, ERR_NOMEM, "out of memory");
		else
			n++;
	}
	if (rc == 0 && st != SQLITE_DONE)
		rc = db_fail(db, err, "cannot read the files");
	sqlite3_finalize(ids);
	int reopened = 0;
	for (size_t i = 0; i < n; i++) {
		if (rc == 0) {
			text(up, 1, missing[i]);
			rc = run(db, up, err);
			reopened += rc == 0 ? sqlite3_changes(db->h) : 0;
		}
		free(missing[i]);
	}
	free(missing);
	sqlite3_finalize(up);
	return rc < 0 ? rc : reopened;
}

static int clear(batch_db *db, sqlite3_stmt *s, const char *hex, ehelf_err *err)
{
	text(s, 1, hex);
	return run(db, s, err);
}

int db_link_file(batch_db *db, int64_t package_id, const char *target,
		 const char *path, char status[16], ehelf_err *err)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(db->h, "INSERT INTO files (package_id, path,"
			       " build_id, build_id_kind, size, text_bytes,"
			       " eh_frame_bytes, eh_frame_hdr_bytes, debug_frame_bytes,"
			       " ehelf_bytes, status, error) SELECT package_id, ?3,"
			       " build_id, build_id_kind, size, text_bytes,"
			       " eh_frame_bytes, eh_frame_hdr_bytes, debug_frame_bytes,"
			       " ehelf_bytes, CASE status WHEN 'built' THEN 'present'"
			       " ELSE status END, error FROM files WHERE"
			       " package_id = ?1 AND path = ?2 AND true"
			       " ON CONFLICT (package_id, path) DO UPDATE SET"
			       " build_id = excluded.build_id, build_id_kind ="
			       " excluded.build_id_kind, size = excluded.size,"
			       " text_bytes = excluded.text_bytes, eh_frame_bytes ="
			       " excluded.eh_frame_bytes, eh_frame_hdr_bytes ="
			       " excluded.eh_frame_hdr_bytes, debug_frame_bytes ="
			       " excluded.debug_frame_bytes, ehelf_bytes ="
			       " excluded.ehelf_bytes, status = excluded.status,"
			       " error = excluded.error RETURNING status", -1, &s,
			       NULL) != SQLITE_OK)
		return db_fail(db, err, "cannot prepare a statement");
	sqlite3_bind_int64(s, 1, package_id);
	sqlite3_bind_text(s, 2, target, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, path, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s), copied = 0;
	if (rc == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(s, 0);
		snprintf(status, 16, "%s", v ? (const char *)v : "");
		copied = 1;
		rc = sqlite3_step(s);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? copied : db_fail(db, err, "write failed");
}

int db_forget_ehelf(batch_db *db, const char *hex, ehelf_err *err)
{
	sqlite3_stmt *const detail[] = {
		db->st[S_CLEAR_KINDS], db->st[S_CLEAR_OPS], db->st[S_CLEAR_FDE],
		db->unsup_clear, db->st[S_CLEAR_RULESETS],
		db->st[S_CLEAR_FDE_SIZES], db->st[S_FORGET_EHELF],
	};
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof detail / sizeof *detail; i++)
		rc = clear(db, detail[i], hex, err);
	return rc;
}

static void int64_or_null(sqlite3_stmt *s, int i, bool set, uint64_t v)
{
	if (set)
		sqlite3_bind_int64(s, i, (sqlite3_int64)v);
	else
		sqlite3_bind_null(s, i);
}

static void double_or_null(sqlite3_stmt *s, int i, bool set, double v)
{
	if (set)
		sqlite3_bind_double(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

/* The eh_elfs row of HEX. */
static int put_ehelf_row(batch_db *db, const char *hex, const db_ehelf *e,
			 ehelf_err *err)
{
	const ehelf_compile_stats *st = e->st;
	const ehelf_compile_detail *d = e->detail;
	sqlite3_stmt *s = db->st[S_EHELF];
	text(s, 1, hex);
	const uint64_t v[] = { st->output_bytes, st->code_bytes, st->table_bytes,
			       st->fdes, st->rows, st->rulesets - 1, st->entries,
			       st->unsupported_rows };
	for (int i = 0; i < 8; i++)
		sqlite3_bind_int64(s, 2 + i, (sqlite3_int64)v[i]);
	sqlite3_bind_double(s, 10, e->compile_ms);
	text(s, 11, e->sha256);
	sqlite3_bind_int(s, 12, EHELF_ABI_VERSION);
	sqlite3_bind_int(s, 13, EHELF_GENERATOR_VERSION);
	text(s, 14, e->signed_by);
	/* since version 3 */
	int64_or_null(s, 15, d, DB_STATS_VERSION);
	const uint64_t n[] = {
		d ? d->eh_frame_fdes : 0, d ? d->eh_frame_rows : 0,
		d ? d->debug_frame_fdes : 0, d ? d->debug_frame_rows : 0,
		d ? d->summarised_rows : 0, d ? d->shapes : 0,
	};
	for (int i = 0; i < 6; i++)
		int64_or_null(s, 16 + i, d, n[i]);
	const double ms[] = { d ? d->read_ms : 0, d ? d->rules_ms : 0,
			      d ? d->codegen_ms : 0, d ? d->image_ms : 0,
			      e->store_ms };
	for (int i = 0; i < 5; i++)
		double_or_null(s, 22 + i, d, ms[i]);
	const uint64_t sf[] = {
		d ? sframe_est_bytes(&d->sframe) : 0, d ? d->sframe.fdes : 0,
		d ? d->sframe.fres : 0, d ? d->sframe.skipped_fdes : 0,
		d ? d->sframe.skipped_rows : 0,
	};
	for (int i = 0; i < 5; i++)
		int64_or_null(s, 27 + i, d, sf[i]);
	_Static_assert(27 + 5 - 2 == EHELF_NCOLS, "every eh_elfs column bound");
	return run(db, s, err);
}

/* The rulesets, ruleset_texts and fde_sizes rows of D. */
static int put_detail(batch_db *db, const char *hex,
		      const ehelf_compile_detail *d, ehelf_err *err)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < d->nrulesets; i++) {
		const ehelf_ruleset_stat *r = &d->rulesets[i];
		bool reg = r->cfa_base != EHELF_CFA_EXPR &&
			   r->cfa_base != EHELF_CFA_NONE;
		sqlite3_stmt *s = db->st[S_RULESET];
		text(s, 1, hex);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)r->fingerprint);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)r->shape);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)r->rows);
		sqlite3_bind_int(s, 5, r->summarised);
		sqlite3_bind_int(s, 6, r->supported);
		sqlite3_bind_text(s, 7, ehelf_cfa_base_name(r->cfa_base), -1,
				  SQLITE_STATIC);
		int64_or_null(s, 8, reg, r->cfa_reg);
		int64_or_null(s, 9, reg, (uint64_t)r->cfa_offset);
		sqlite3_bind_int(s, 10, r->saved_regs);
		rc = run(db, s, err);
		if (rc < 0 || !text_needed(db, r->fingerprint))
			continue;
		s = db->st[S_TEXT];
		sqlite3_bind_int64(s, 1, (sqlite3_int64)r->fingerprint);
		sqlite3_bind_text(s, 2, r->text, -1, SQLITE_STATIC);
		rc = run(db, s, err);
	}
	for (int b = 0; rc == 0 && b < EHELF_FDE_SIZE_BUCKETS; b++) {
		if (!d->fde_size_fdes[b])
			continue;
		sqlite3_stmt *s = db->st[S_FDE_SIZE];
		text(s, 1, hex);
		sqlite3_bind_int(s, 2, b);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)d->fde_size_fdes[b]);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)d->fde_size_bytes[b]);
		rc = run(db, s, err);
	}
	return rc;
}

int db_put_ehelf(batch_db *db, const char *hex, const db_ehelf *e,
		 ehelf_err *err)
{
	const ehelf_compile_stats *st = e->st;
	const ehelf_coverage *cov = e->cov;
	sqlite3_stmt *s;
	int rc = put_ehelf_row(db, hex, e, err);
	/* the detail tables: replaced as a whole */
	if (rc == 0)
		rc = clear(db, db->st[S_CLEAR_KINDS], hex, err);
	if (rc == 0)
		rc = clear(db, db->st[S_CLEAR_OPS], hex, err);
	if (rc == 0)
		rc = clear(db, db->st[S_CLEAR_FDE], hex, err);
	if (rc == 0)
		rc = clear(db, db->unsup_clear, hex, err);
	if (rc == 0)
		rc = clear(db, db->st[S_CLEAR_RULESETS], hex, err);
	if (rc == 0)
		rc = clear(db, db->st[S_CLEAR_FDE_SIZES], hex, err);
	if (rc == 0 && e->detail)
		rc = put_detail(db, hex, e->detail, err);
	for (int col = 0; rc == 0 && col <= UW_NCOLS; col++) {
		s = db->st[S_KINDS];
		text(s, 1, hex);
		sqlite3_bind_int(s, 2, col == UW_NCOLS ? -1 : col);
		for (int k = 0; k < UW_RULE_KINDS; k++)
			sqlite3_bind_int64(s, 3 + k, (sqlite3_int64)cov->kinds[col][k]);
		rc = run(db, s, err);
	}
	for (int op = 0; rc == 0 && op < 256; op++) {
		if (!cov->ops[op])
			continue;
		s = db->st[S_OPS];
		const char *name = dwop_name((uint8_t)op);
		text(s, 1, hex);
		sqlite3_bind_int(s, 2, op);
		text(s, 3, name ? name : "?");
		sqlite3_bind_int64(s, 4, (sqlite3_int64)cov->ops[op]);
		rc = run(db, s, err);
	}
	for (int b = 0; rc == 0 && b < EHELF_FDE_ROWS_BUCKETS; b++) {
		if (!cov->fde_rows[b])
			continue;
		s = db->st[S_FDE_ROWS];
		text(s, 1, hex);
		sqlite3_bind_int(s, 2, b);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)cov->fde_rows[b]);
		rc = run(db, s, err);
	}
	for (size_t i = 0; rc == 0 && i < st->nunsupported; i++) {
		const ehelf_unsupported *u = &st->unsupported[i];
		s = db->unsup_put;
		text(s, 1, hex);
		sqlite3_bind_int64(s, 2, u->ruleset);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)u->rows);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)u->example_pc);
		text(s, 5, u->why);
		rc = run(db, s, err);
	}
	return rc;
}
