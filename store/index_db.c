/* index_db.c - see index_db.h. */
#include "index_db.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int index_db_immutable_uri(const char *path, char *out, size_t n)
{
	size_t o = (size_t)snprintf(out, n, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (o + 4 >= n)
			return -1;
		if (*p == '%' || *p == '?' || *p == '#' || *p < 0x21 || *p > 0x7e)
			o += (size_t)snprintf(out + o, n - o, "%%%02x", *p);
		else
			out[o++] = (char)*p;
	}
	return snprintf(out + o, n - o, "?immutable=1") >= (int)(n - o) ? -1 : 0;
}

int index_db_version(sqlite3 *h)
{
	sqlite3_stmt *s = NULL;
	int v = -1;
	if (sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The tables of every schema version (schema.sql), with their indexes
 * (sqlite's own objects are sqlite_*). */
static const char *const ehelf_tables[] = {
	"packages", "files", "eh_elfs", "rule_kinds", "dwarf_ops", "fde_rows",
	"rulesets", "ruleset_texts", "fde_sizes", "unsupported", "cfi_sources",
	"conflicts",
};

static bool ehelf_table(const char *name)
{
	for (size_t i = 0; name && i < sizeof ehelf_tables / sizeof *ehelf_tables;
	     i++)
		if (!strcmp(name, ehelf_tables[i]))
			return true;
	return false;
}

int index_db_check_ours(sqlite3 *h, const char *path, const char *who,
			ehelf_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(h, "PRAGMA integrity_check(1)", -1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	const char *r = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0)
					 : NULL;
	if (!r || strcmp(r, "ok") != 0) {
		rc = err_set(err, ERR_FORMAT, "%s: a damaged database (PRAGMA "
			     "integrity_check: %s): not used; give %s another "
			     "--db, or move it away to start afresh", path,
			     r ? r : sqlite3_errmsg(h), who);
		sqlite3_finalize(s);
		return rc;
	}
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(h, "SELECT type, name, tbl_name FROM"
			       " main.sqlite_master WHERE name NOT LIKE 'sqlite!_%'"
			       " ESCAPE '!' ORDER BY rowid", -1, &s, NULL) != SQLITE_OK)
		return err_set(err, ERR_FORMAT, "%s: cannot read the schema: %s",
			       path, sqlite3_errmsg(h));
	rc = 0;
	bool any = false;
	while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
		any = true;
		if (!ehelf_table((const char *)sqlite3_column_text(s, 2)))
			rc = err_set(err, ERR_FORMAT, "%s: not an ehelf-batch "
				     "database (it has the %s '%.100s', which "
				     "ehelf-batch never creates): not changed; "
				     "give %s a --db of its own", path,
				     sqlite3_column_text(s, 0),
				     sqlite3_column_text(s, 1), who);
	}
	sqlite3_finalize(s);
	int version = index_db_version(h);
	if (rc == 0 && version != 0 && !any)
		rc = err_set(err, ERR_FORMAT, "%s: not an ehelf-batch database "
			     "(user_version %d, no tables): not changed; give %s "
			     "a --db of its own", path, version, who);
	return rc;
}

int index_db_has_table(sqlite3 *h, const char *name)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(h, "SELECT 1 FROM main.sqlite_master WHERE "
			       "type = 'table' AND name = ?1", -1, &s,
			       NULL) != SQLITE_OK ||
	    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) != SQLITE_OK) {
		sqlite3_finalize(s);
		return -1;
	}
	int st = sqlite3_step(s);
	sqlite3_finalize(s);
	return st == SQLITE_ROW ? 1 : st == SQLITE_DONE ? 0 : -1;
}

int index_db_conflicted(sqlite3 *h, const char *hex)
{
	int has = index_db_has_table(h, "conflicts");
	if (has <= 0)
		return has;
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(h, "SELECT 1 FROM main.conflicts WHERE build_id = ?1"
			       " LIMIT 1", -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_bind_text(s, 1, hex, -1, SQLITE_STATIC) != SQLITE_OK) {
		sqlite3_finalize(s);
		return -1;
	}
	int st = sqlite3_step(s);
	sqlite3_finalize(s);
	return st == SQLITE_ROW ? 1 : st == SQLITE_DONE ? 0 : -1;
}

static sqlite3 *open_read(const char *name, bool uri)
{
	sqlite3 *h = NULL;
	if (sqlite3_open_v2(name, &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
			    (uri ? SQLITE_OPEN_URI : 0), NULL) != SQLITE_OK) {
		sqlite3_close(h);
		return NULL;
	}
	sqlite3_busy_timeout(h, 10000);
	return h;
}

sqlite3 *index_db_open_any(const char *path)
{
	sqlite3 *h = open_read(path, false);
	if (!h || index_db_version(h) < 0) {
		sqlite3_close(h);
		char uri[4200];
		h = index_db_immutable_uri(path, uri, sizeof uri) == 0 ? open_read(uri, true)
							       : NULL;
		if (h && index_db_version(h) < 0) {
			sqlite3_close(h);
			h = NULL;
		}
	}
	return h;
}

int index_db_open_read(sqlite3 **out, const char *path, ehelf_err *err)
{
	*out = NULL;
	if (access(path, F_OK) != 0)
		return err_set(err, ERR_NOTFOUND, "%s: no such database", path);
	sqlite3 *h = index_db_open_any(path);
	int v = h ? index_db_version(h) : -1;
	int rc = 0;
	if (v < 0)
		rc = err_set(err, ERR_IO, "%s: cannot read the database", path);
	else if (v > INDEX_DB_VERSION)
		rc = err_set(err, ERR_UNSUPPORTED, "%s: written by a newer "
			     "ehelf-batch (database version %d; this program reads "
			     "version %d)", path, v, INDEX_DB_VERSION);
	else if (index_db_has_table(h, "eh_elfs") != 1)
		rc = err_set(err, ERR_IO, "%s: not an ehelf-batch database (no "
			     "eh_elfs table)", path);
	else if (v < INDEX_DB_VERSION)
		rc = err_set(err, ERR_UNSUPPORTED, "%s: written by an older "
			     "ehelf-batch (database version %d): run ehelf-batch "
			     "on its store once to migrate it", path, v);
	if (rc < 0) {
		sqlite3_close(h);
		return rc;
	}
	*out = h;
	return 0;
}
