/* db.c - see db.h. */
#include "db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cfi/dwarf_op.h"

static const char schema_sql[] =
#include "schema_sql.h"
	;

enum { S_PKG_UPSERT, S_PKG_GET, S_PKG_END, S_FILE, S_EHELF, S_KINDS, S_OPS,
       S_FDE_ROWS, S_HAS_EHELF, S_CLEAR_KINDS, S_CLEAR_OPS, S_CLEAR_FDE,
       S_COUNT };

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
		"INSERT OR REPLACE INTO eh_elfs (build_id, ehelf_bytes, code_bytes,"
		" table_bytes, fdes, rows, unique_rows, entries, unsupported_rows,"
		" compile_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[S_KINDS] =
		"INSERT INTO rule_kinds (build_id, column_no, no_rule, undefined,"
		" same_value, offset, val_offset, register, expression, val_expression)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[S_OPS] =
		"INSERT INTO dwarf_ops (build_id, opcode, name, uses)"
		" VALUES (?1, ?2, ?3, ?4)",
	[S_FDE_ROWS] =
		"INSERT INTO fde_rows (build_id, rows_per_fde, fdes) VALUES (?1, ?2, ?3)",
	[S_HAS_EHELF] = "SELECT 1 FROM eh_elfs WHERE build_id = ?1",
	[S_CLEAR_KINDS] = "DELETE FROM rule_kinds WHERE build_id = ?1",
	[S_CLEAR_OPS] = "DELETE FROM dwarf_ops WHERE build_id = ?1",
	[S_CLEAR_FDE] = "DELETE FROM fde_rows WHERE build_id = ?1",
};

struct batch_db {
	sqlite3 *h;
	sqlite3_stmt *st[S_COUNT];
	sqlite3_stmt *unsup_clear, *unsup_put;
	char path[1024];
};

static int db_fail(batch_db *db, ehelf_err *err, const char *what)
{
	return err_set(err, ERR_IO, "%s: %s: %s", db->path, what,
		       sqlite3_errmsg(db->h));
}

int db_open(batch_db **out, const char *path, ehelf_err *err)
{
	batch_db *db = calloc(1, sizeof *db);
	if (!db)
		return err_set(err, ERR_NOMEM, "out of memory");
	snprintf(db->path, sizeof db->path, "%s", path);
	int rc = 0;
	if (sqlite3_open(path, &db->h) != SQLITE_OK) {
		rc = db_fail(db, err, "cannot open");
		goto fail;
	}
	sqlite3_busy_timeout(db->h, 10000);
	if (sqlite3_exec(db->h, schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db->h, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL)
	    != SQLITE_OK) {
		rc = db_fail(db, err, "cannot create the schema");
		goto fail;
	}
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
	free(db);
}

struct sqlite3 *db_handle(batch_db *db)
{
	return db->h;
}

int db_begin(batch_db *db, ehelf_err *err)
{
	return sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK
	       ? 0 : db_fail(db, err, "BEGIN");
}

int db_commit(batch_db *db, ehelf_err *err)
{
	return sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) == SQLITE_OK
	       ? 0 : db_fail(db, err, "COMMIT");
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

bool db_has_ehelf(batch_db *db, const char *hex)
{
	sqlite3_stmt *s = db->st[S_HAS_EHELF];
	text(s, 1, hex);
	bool has = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return has;
}

static int clear(batch_db *db, sqlite3_stmt *s, const char *hex, ehelf_err *err)
{
	text(s, 1, hex);
	return run(db, s, err);
}

int db_put_ehelf(batch_db *db, const char *hex, const ehelf_compile_stats *st,
		 const ehelf_coverage *cov, double compile_ms, ehelf_err *err)
{
	sqlite3_stmt *s = db->st[S_EHELF];
	text(s, 1, hex);
	const uint64_t v[] = { st->output_bytes, st->code_bytes, st->table_bytes,
			       st->fdes, st->rows, st->rulesets - 1, st->entries,
			       st->unsupported_rows };
	for (int i = 0; i < 8; i++)
		sqlite3_bind_int64(s, 2 + i, (sqlite3_int64)v[i]);
	sqlite3_bind_double(s, 10, compile_ms);
	int rc = run(db, s, err);
	/* the detail tables: replaced as a whole */
	if (rc == 0)
		rc = clear(db, db->st[S_CLEAR_KINDS], hex, err);
	if (rc == 0)
		rc = clear(db, db->st[S_CLEAR_OPS], hex, err);
	if (rc == 0)
		rc = clear(db, db->st[S_CLEAR_FDE], hex, err);
	if (rc == 0)
		rc = clear(db, db->unsup_clear, hex, err);
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
