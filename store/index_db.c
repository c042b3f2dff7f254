/* index_db.c - see index_db.h. */
#include "index_db.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
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
