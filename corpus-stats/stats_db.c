/* stats_db.c - see stats_db.h. */
#include "stats_db.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../store/index_db.h"

/* index_db_open_read() accepts only the version it was built for: the one
 * ehelf-stats reads (a new schema version needs both looked at) */
_Static_assert((int)INDEX_DB_VERSION == (int)STATS_DB_VERSION,
	       "ehelf-stats reads another schema version than store/index_db.h");

/* ---- opening --------------------------------------------------------- */

/* What a file is, found without index_db's verdict: its user_version (-1:
 * not a sqlite database sqlite can read) and whether it has eh_elfs (1),
 * not (0), or its schema cannot be read (-1: damaged). */
typedef struct probe {
	int version;
	int has_ehelfs;
} probe;

static probe probe_file(const char *path)
{
	probe p = { -1, 0 };
	sqlite3 *h = index_db_open_any(path);
	if (h) {
		p.version = index_db_version(h);
		p.has_ehelfs = index_db_has_table(h, "eh_elfs");
	}
	sqlite3_close(h);
	return p;
}

int stats_db_open(stats_db *db, const char *path, int top_n, ehelf_err *err)
{
	memset(db, 0, sizeof *db);
	db->path = path;
	db->top_n = top_n;
	if (access(path, F_OK) != 0)
		return err_set(err, ERR_NOTFOUND, "%s: no such database (ehelf-batch "
			       "writes STORE/ehelf.sqlite; `make run` builds "
			       "build/store; name another with --db)", path);
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(err, ERR_IO, "%s: cannot read the database: %s", path,
			       strerror(errno));
	int empty = getc(f) == EOF;
	fclose(f);
	if (empty)  /* sqlite would take it for a new, empty database */
		return err_set(err, ERR_IO, "%s: not an ehelf database (an empty "
			       "file)", path);

	ehelf_err ierr = { 0 };
	sqlite3 *h = NULL;
	int rc = index_db_open_read(&h, path, &ierr);
	probe p = probe_file(path);
	if (p.version < 0 && rc == 0)  /* index_db read it, the probe not */
		p = (probe){ index_db_version(h), 1 };
	if (p.version < 0) {
		sqlite3_close(h);
		return err_set(err, ERR_IO, "%s: not an ehelf database (not a sqlite "
			       "database, or a truncated or damaged one)", path);
	}
	if (p.has_ehelfs < 0) {
		sqlite3_close(h);
		return err_set(err, ERR_FORMAT, "%s: the database is damaged (its "
			       "schema cannot be read): restore it, or run "
			       "ehelf-batch on a new store", path);
	}
	if (!p.has_ehelfs) {
		sqlite3_close(h);
		return err_set(err, ERR_IO, "%s: not an ehelf database (a sqlite "
			       "database without the eh_elfs table ehelf-batch "
			       "writes)", path);
	}
	if (p.version < STATS_DB_VERSION) {
		sqlite3_close(h);
		return err_set(err, ERR_UNSUPPORTED, "%s: written by an older "
			       "ehelf-batch (version %d): run ehelf-batch on its "
			       "store once to migrate it and record the statistics "
			       "(ehelf-stats reads version %d)", path, p.version,
			       STATS_DB_VERSION);
	}
	if (p.version > STATS_DB_VERSION) {
		sqlite3_close(h);
		return err_set(err, ERR_UNSUPPORTED, "%s: written by a newer "
			       "ehelf-batch (version %d; this ehelf-stats reads "
			       "version %d): use the ehelf-stats of that release",
			       path, p.version, STATS_DB_VERSION);
	}
	if (rc != 0) {
		sqlite3_close(h);
		return err_set(err, rc, "%s", ierr.msg);
	}
	db->h = h;
	db->version = p.version;
	/* the derived tables are sorted and joined in memory */
	sqlite3_exec(h, "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536",
		     NULL, NULL, NULL);
	return 0;
}

void stats_db_close(stats_db *db)
{
	sqlite3_close(db->h);
	db->h = NULL;
}

/* ---- running SQL ----------------------------------------------------- */

static int sql_error(stats_db *db, int src, ehelf_err *err)
{
	if (src == SQLITE_NOMEM)
		return err_set(err, ERR_NOMEM, "%s: out of memory", db->path);
	if (src == SQLITE_CORRUPT || src == SQLITE_NOTADB)
		return err_set(err, ERR_FORMAT, "%s: the database is damaged (sqlite: "
			       "%s): restore it, or run ehelf-batch on a new store",
			       db->path, sqlite3_errmsg(db->h));
	return err_set(err, ERR_FORMAT, "%s: cannot read the statistics (sqlite: "
		       "%s): is it a complete ehelf database of version %d?",
		       db->path, sqlite3_errmsg(db->h), STATS_DB_VERSION);
}

static int prepare(stats_db *db, const char *sql, const int64_t *args, int n_args,
		   sqlite3_stmt **s, ehelf_err *err)
{
	int src = sqlite3_prepare_v2(db->h, sql, -1, s, NULL);
	if (src != SQLITE_OK)
		return sql_error(db, src, err);
	for (int i = 0; i < n_args; i++)
		sqlite3_bind_int64(*s, i + 1, args[i]);
	return 0;
}

/* Column K of S's row into C. */
static int take(sqlite3_stmt *s, int k, stats_cell *c)
{
	switch (sqlite3_column_type(s, k)) {
	case SQLITE_INTEGER:
		stats_cell_int(c, sqlite3_column_int64(s, k));
		return 0;
	case SQLITE_FLOAT:
		stats_cell_real(c, sqlite3_column_double(s, k));
		return 0;
	case SQLITE_NULL:
		stats_cell_null(c);
		return 0;
	default:
		return stats_cell_text(c, (const char *)sqlite3_column_text(s, k));
	}
}

int stats_db_fill(stats_db *db, stats_table *t, const char *sql,
		  const int64_t *args, int n_args, ehelf_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = prepare(db, sql, args, n_args, &s, err);
	if (rc < 0)
		return rc;
	if (sqlite3_column_count(s) != t->n_cols) {
		sqlite3_finalize(s);
		return err_set(err, ERR_ARG, "table %s: the query has %d columns, "
			       "the table %d", t->id, sqlite3_column_count(s),
			       t->n_cols);
	}
	int n = 0, src;
	while ((src = sqlite3_step(s)) == SQLITE_ROW) {
		stats_cell *row;
		if (stats_table_row(t, &row) < 0) {
			sqlite3_finalize(s);
			return err_set(err, ERR_NOMEM, "out of memory");
		}
		for (int k = 0; k < t->n_cols; k++)
			if (take(s, k, &row[k]) < 0) {
				sqlite3_finalize(s);
				return err_set(err, ERR_NOMEM, "out of memory");
			}
		n++;
	}
	rc = src == SQLITE_DONE ? n : sql_error(db, src, err);
	sqlite3_finalize(s);
	return rc;
}

/* The next "name:unit" of a figure list at *P into NAME and UNIT (each
 * at most 63 bytes); 1, 0 at the end, or -1 for a malformed item. */
static int next_figure(const char **p, char name[64], char unit[64])
{
	while (**p == ' ')
		(*p)++;
	size_t n = strcspn(*p, " ");
	if (n == 0)
		return 0;
	const char *colon = memchr(*p, ':', n);
	if (!colon)
		return -1;
	size_t nl = (size_t)(colon - *p), ul = n - nl - 1;
	if (nl == 0 || nl > 63 || ul == 0 || ul > 63)
		return -1;
	memcpy(name, *p, nl);
	name[nl] = '\0';
	memcpy(unit, colon + 1, ul);
	unit[ul] = '\0';
	*p += n;
	return 1;
}

int stats_db_figures(stats_db *db, stats_table *t, const char *sql,
		     const char *figures, ehelf_err *err)
{
	char name[64], unit[64];
	int n = 0, got;
	for (const char *p = figures; (got = next_figure(&p, name, unit)) > 0;)
		n++;
	if (got < 0 || t->n_cols != 3)
		return err_set(err, ERR_ARG, "table %s: bad figure list", t->id);
	sqlite3_stmt *s = NULL;
	int rc = prepare(db, sql, NULL, 0, &s, err);
	if (rc < 0)
		return rc;
	if (sqlite3_column_count(s) != n) {
		sqlite3_finalize(s);
		return err_set(err, ERR_ARG, "table %s: the query has %d columns for "
			       "%d figures", t->id, sqlite3_column_count(s), n);
	}
	int src = sqlite3_step(s);
	if (src != SQLITE_ROW) {
		rc = src == SQLITE_DONE ? err_set(err, ERR_FORMAT, "%s: no result for "
						  "table %s", db->path, t->id)
					: sql_error(db, src, err);
		sqlite3_finalize(s);
		return rc;
	}
	const char *p = figures;
	for (int k = 0; k < n && rc == 0; k++) {
		next_figure(&p, name, unit);
		stats_cell *row;
		rc = stats_table_row(t, &row);
		if (rc == 0)
			rc = stats_cell_text(&row[0], name);
		if (rc == 0)
			rc = take(s, k, &row[1]);
		if (rc == 0)
			rc = stats_cell_text(&row[2], unit);
	}
	sqlite3_finalize(s);
	return rc < 0 ? err_set(err, ERR_NOMEM, "out of memory") : 0;
}

int stats_db_int(stats_db *db, const char *sql, int64_t *out, ehelf_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = prepare(db, sql, NULL, 0, &s, err);
	if (rc < 0)
		return rc;
	int src = sqlite3_step(s);
	*out = 0;
	if (src == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	else if (src != SQLITE_DONE)
		rc = sql_error(db, src, err);
	sqlite3_finalize(s);
	return rc;
}

/* ---- the derived tables ---------------------------------------------- */

static const char derive_sql[] =
	/* files counted once per build-ID: the file of smallest id */
	"CREATE TEMP TABLE uf AS\n"
	"SELECT f.build_id AS build_id, f.package_id AS package_id,\n"
	"       coalesce(f.size, 0) AS size,\n"
	"       coalesce(f.text_bytes, 0) AS text_bytes,\n"
	"       coalesce(f.eh_frame_bytes, 0) AS eh_frame_bytes,\n"
	"       coalesce(f.eh_frame_hdr_bytes, 0) AS eh_frame_hdr_bytes,\n"
	"       coalesce(f.debug_frame_bytes, 0) AS debug_frame_bytes,\n"
	"       e.ehelf_bytes AS ehelf_bytes, e.fdes AS fdes, e.rows AS rows,\n"
	"       e.compile_ms AS compile_ms,\n"
	"       e.stats_version IS NOT NULL AS stats\n"
	"FROM main.files f JOIN main.eh_elfs e ON e.build_id = f.build_id\n"
	"WHERE f.id IN (SELECT min(id) FROM main.files\n"
	"               WHERE status IN ('built', 'present') AND build_id IS NOT NULL\n"
	"               GROUP BY build_id);\n"
	"CREATE UNIQUE INDEX temp.uf_build_id ON uf (build_id);\n"
	"CREATE TEMP TABLE se (build_id TEXT PRIMARY KEY) WITHOUT ROWID;\n"
	"INSERT INTO se SELECT build_id FROM uf WHERE stats;\n"
	/* the rule sets archive-wide; a fingerprint's attributes are those
	 * of its rules, the same in every ELF */
	"CREATE TEMP TABLE rs AS\n"
	"SELECT r.fingerprint AS fingerprint, min(r.shape) AS shape,\n"
	"       sum(r.rows) AS rows, count(*) AS files,\n"
	"       min(r.supported) AS supported, max(r.summarised) AS summarised,\n"
	"       min(r.cfa_base) AS cfa_base, min(r.cfa_reg) AS cfa_reg,\n"
	"       min(r.cfa_offset) AS cfa_offset, min(r.saved_regs) AS saved_regs\n"
	"FROM se JOIN main.rulesets r ON r.build_id = se.build_id\n"
	"GROUP BY r.fingerprint;\n"
	/* per package: its own built and present files */
	"CREATE TEMP TABLE pk AS\n"
	"SELECT p.id AS package_id, p.name AS name, p.version AS version,\n"
	"       p.status AS status, count(e.build_id) AS elfs,\n"
	"       coalesce(sum(f.size), 0) AS size,\n"
	"       coalesce(sum(f.text_bytes), 0) AS text_bytes,\n"
	"       coalesce(sum(f.eh_frame_bytes), 0) AS eh_frame_bytes,\n"
	"       coalesce(sum(f.eh_frame_hdr_bytes), 0) AS eh_frame_hdr_bytes,\n"
	"       coalesce(sum(f.debug_frame_bytes), 0) AS debug_frame_bytes,\n"
	"       coalesce(sum(e.ehelf_bytes), 0) AS ehelf_bytes,\n"
	"       coalesce(sum(e.fdes), 0) AS fdes, coalesce(sum(e.rows), 0) AS rows,\n"
	"       sum(e.compile_ms) AS compile_ms,\n"
	"       count(e.stats_version) AS stats_elfs, NULL AS rulesets\n"
	"FROM main.packages p\n"
	"LEFT JOIN main.files f ON f.package_id = p.id\n"
	"     AND f.status IN ('built', 'present')\n"
	"LEFT JOIN main.eh_elfs e ON e.build_id = f.build_id\n"
	"GROUP BY p.id;\n"
	"UPDATE pk SET rulesets = (\n"
	"  SELECT count(DISTINCT r.fingerprint)\n"
	"  FROM main.files f JOIN se ON se.build_id = f.build_id\n"
	"  JOIN main.rulesets r ON r.build_id = f.build_id\n"
	"  WHERE f.package_id = pk.package_id AND f.status IN ('built', 'present'))\n"
	"WHERE stats_elfs > 0;\n";

int stats_db_derive(stats_db *db, ehelf_err *err)
{
	static const char *const v3[] = { "rulesets", "ruleset_texts", "fde_sizes",
					  "rule_kinds", "dwarf_ops", "fde_rows",
					  "unsupported", "files", "packages" };
	for (size_t i = 0; i < sizeof v3 / sizeof *v3; i++) {
		int has = index_db_has_table(db->h, v3[i]);
		if (has < 0)
			return err_set(err, ERR_FORMAT, "%s: the database is damaged "
				       "(its schema cannot be read): restore it, or "
				       "run ehelf-batch on a new store", db->path);
		if (!has)
			return err_set(err, ERR_FORMAT, "%s: not a complete ehelf "
				       "database of version %d (no table %s)",
				       db->path, STATS_DB_VERSION, v3[i]);
	}
	char *msg = NULL;
	int src = sqlite3_exec(db->h, derive_sql, NULL, NULL, &msg);
	sqlite3_free(msg);
	return src == SQLITE_OK ? 0 : sql_error(db, src, err);
}
