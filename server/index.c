/* index.c - see index.h. */
#include "index.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/buildid.h"
#include "../store/index_db.h"

static const char schema_sql[] =
#include "schema_sql.h"
	;

enum { INDEX_SCHEMA_VERSION = INDEX_DB_VERSION };

struct server_index {
	char path[4096];
	bool writable;
	pthread_key_t reader;       /* this thread's read connection */
	pthread_mutex_t wlock;
	sqlite3 *w;                 /* the writing connection (writable) */
};

typedef struct reader {
	sqlite3 *h;
	sqlite3_stmt *sha;
} reader;

static void reader_free(void *p)
{
	reader *r = p;
	if (!r)
		return;
	sqlite3_finalize(r->sha);
	sqlite3_close(r->h);
	free(r);
}

int index_open(server_index **out, const char *path, bool writable,
	       ehelf_err *err)
{
	*out = NULL;
	if (!writable && access(path, R_OK) != 0)
		return err_set(err, ERR_NOTFOUND, "%s: no index database", path);
	server_index *ix = calloc(1, sizeof *ix);
	if (!ix)
		return err_set(err, ERR_NOMEM, "out of memory");
	snprintf(ix->path, sizeof ix->path, "%s", path);
	ix->writable = writable;
	pthread_mutex_init(&ix->wlock, NULL);
	pthread_key_create(&ix->reader, reader_free);
	sqlite3 *h = NULL;
	int rc = 0;
	int flags = writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
			     : SQLITE_OPEN_READONLY;
	if (sqlite3_open_v2(path, &h, flags | SQLITE_OPEN_NOMUTEX, NULL)
	    != SQLITE_OK) {
		rc = err_set(err, ERR_IO, "%s: cannot open: %s", path,
			     h ? sqlite3_errmsg(h) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(h, 10000);
	int v = index_db_version(h);
	if (v > INDEX_SCHEMA_VERSION) {
		rc = err_set(err, ERR_FORMAT, "%s: written by a newer ehelf-batch "
			     "(schema %d; this server reads up to %d)", path, v,
			     INDEX_SCHEMA_VERSION);
		goto fail;
	}
	if (writable && index_db_check_ours(h, path, "ehelf-server", err) < 0) {
		rc = ERR_FORMAT;
		goto fail;
	}
	if (writable && v < INDEX_SCHEMA_VERSION) {
		/* a new database, or one an older ehelf-batch wrote: let the
		 * builder's own code migrate it (run ehelf-batch once) */
		if (v == 0 && index_db_has_table(h, "eh_elfs") == 0 &&
		    sqlite3_exec(h, schema_sql, NULL, NULL, NULL) != SQLITE_OK) {
			rc = err_set(err, ERR_IO, "%s: cannot create the schema: %s",
				     path, sqlite3_errmsg(h));
			goto fail;
		}
		if (index_db_version(h) < INDEX_SCHEMA_VERSION) {
			rc = err_set(err, ERR_FORMAT, "%s: schema %d is older than "
				     "this server writes (%d): run ehelf-batch on "
				     "the store once to migrate it", path, v,
				     INDEX_SCHEMA_VERSION);
			goto fail;
		}
	}
	if (writable) {
		ix->w = h;
	} else {
		sqlite3_close(h);
	}
	*out = ix;
	return 0;
fail:
	sqlite3_close(h);
	pthread_key_delete(ix->reader);
	free(ix);
	return rc;
}

void index_close(server_index *ix)
{
	if (!ix)
		return;
	reader_free(pthread_getspecific(ix->reader));
	pthread_setspecific(ix->reader, NULL);
	pthread_key_delete(ix->reader);
	sqlite3_close(ix->w);
	pthread_mutex_destroy(&ix->wlock);
	free(ix);
}

/* This thread's read connection, opened on first use (as an immutable
 * snapshot where sqlite cannot make the WAL's -shm: index_db.h); NULL if
 * it cannot be (the lookup then answers "unknown"). */
static reader *thread_reader(server_index *ix)
{
	reader *r = pthread_getspecific(ix->reader);
	if (r)
		return r->h ? r : NULL;
	r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	pthread_setspecific(ix->reader, r);
	if (index_db_open_read(&r->h, ix->path, NULL) < 0)
		return NULL;
	sqlite3_prepare_v2(r->h, "SELECT sha256 FROM eh_elfs WHERE build_id = ?1"
			   " AND ehelf_bytes = ?2 AND sha256 IS NOT NULL", -1,
			   &r->sha, NULL);
	return r;
}

int index_sha256(void *arg, const char *hex, uint64_t size, char out[65])
{
	server_index *ix = arg;
	reader *r = ix ? thread_reader(ix) : NULL;
	if (!r || !r->sha)
		return -1;
	sqlite3_bind_text(r->sha, 1, hex, -1, SQLITE_STATIC);
	sqlite3_bind_int64(r->sha, 2, (sqlite3_int64)size);
	int rc = -1;
	if (sqlite3_step(r->sha) == SQLITE_ROW &&
	    sqlite3_column_bytes(r->sha, 0) == 64) {
		memcpy(out, sqlite3_column_text(r->sha, 0), 64);
		out[64] = '\0';
		rc = 0;
	}
	sqlite3_reset(r->sha);
	sqlite3_clear_bindings(r->sha);
	return rc;
}

int index_conflicted(server_index *ix, const char *hex)
{
	reader *r = ix ? thread_reader(ix) : NULL;
	return r && index_db_conflicted(r->h, hex) > 0;
}

int index_totals(server_index *ix, uint64_t *ehelfs, uint64_t *bytes,
		 uint64_t *packages)
{
	reader *r = ix ? thread_reader(ix) : NULL;
	if (!r)
		return -1;
	sqlite3_stmt *s = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(r->h, "SELECT (SELECT count(*) FROM eh_elfs),"
			       " (SELECT coalesce(sum(ehelf_bytes), 0) FROM eh_elfs),"
			       " (SELECT count(*) FROM packages)", -1, &s, NULL)
	    == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
		*ehelfs = (uint64_t)sqlite3_column_int64(s, 0);
		*bytes = (uint64_t)sqlite3_column_int64(s, 1);
		*packages = (uint64_t)sqlite3_column_int64(s, 2);
		rc = 0;
	}
	sqlite3_finalize(s);
	return rc;
}

double json_number(const char *json, const char *key)
{
	char pat[128];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	const char *p = strstr(json, pat);
	return p ? strtod(p + strlen(pat), NULL) : 0;
}

static int exec_bound(sqlite3 *h, const char *sql, const char *const *text,
		      int ntext, const double *num, int nnum, ehelf_err *err,
		      const char *path)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) != SQLITE_OK)
		return err_set(err, ERR_IO, "%s: %s", path, sqlite3_errmsg(h));
	for (int i = 0; i < ntext; i++)
		if (text[i])
			sqlite3_bind_text(s, i + 1, text[i], -1, SQLITE_STATIC);
	for (int i = 0; i < nnum; i++)
		sqlite3_bind_double(s, ntext + i + 1, num[i]);
	int st = sqlite3_step(s);
	sqlite3_finalize(s);
	return st == SQLITE_DONE || st == SQLITE_ROW ? 0
	       : err_set(err, ERR_IO, "%s: %s", path, sqlite3_errmsg(h));
}

int index_record_build(server_index *ix, const index_build *b, ehelf_err *err)
{
	if (!ix || !ix->w)
		return 0;
	const char *j = b->json;
	pthread_mutex_lock(&ix->wlock);
	sqlite3 *h = ix->w;
	char path[BUILDID_HEX_MAX + 32];
	snprintf(path, sizeof path, "/buildid/%s/executable", b->hex);
	int rc = sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK
		 ? 0 : err_set(err, ERR_IO, "%s: BEGIN: %s", ix->path,
			       sqlite3_errmsg(h));
	/* the upstream is recorded as a package of format 'debuginfod' */
	const char *pkg[] = { b->upstream };
	if (rc == 0)
		rc = exec_bound(h, "INSERT INTO packages (name, version, architecture,"
				" source, format, status) VALUES ('debuginfod', '',"
				" 'x86_64', ?1, 'debuginfod', 'done')"
				" ON CONFLICT (name, version, architecture, source)"
				" DO NOTHING", pkg, 1, NULL, 0, err, ix->path);
	const double ehelf_bytes = json_number(j, "output_bytes");
	const char *ft[] = { b->upstream, path, b->hex };
	const double fn[] = { (double)b->elf_bytes, json_number(j, "text_bytes"),
			      json_number(j, "eh_frame_bytes"),
			      json_number(j, "eh_frame_hdr_bytes"),
			      json_number(j, "debug_frame_bytes"), ehelf_bytes };
	if (rc == 0)
		rc = exec_bound(h, "INSERT INTO files (package_id, path, build_id,"
				" build_id_kind, size, text_bytes, eh_frame_bytes,"
				" eh_frame_hdr_bytes, debug_frame_bytes, ehelf_bytes,"
				" status) SELECT id, ?2, ?3, 'gnu', ?4, ?5, ?6, ?7, ?8,"
				" ?9, 'built' FROM packages WHERE name = 'debuginfod'"
				" AND version = '' AND architecture = 'x86_64'"
				" AND source = ?1 ON CONFLICT (package_id, path) DO"
				" UPDATE SET build_id = excluded.build_id,"
				" size = excluded.size, ehelf_bytes = excluded.ehelf_bytes,"
				" status = 'built', error = NULL", ft, 3, fn, 6, err,
				ix->path);
	const char *et[] = { b->hex, b->sha256, b->signed_by };
	const double en[] = { ehelf_bytes, json_number(j, "code_bytes"),
			      json_number(j, "table_bytes"), json_number(j, "fdes"),
			      json_number(j, "rows"), json_number(j, "rulesets") - 1,
			      json_number(j, "entries"),
			      json_number(j, "unsupported_rows"),
			      json_number(j, "compile_ms"),
			      json_number(j, "abi_version"),
			      json_number(j, "generator_version") };
	/* a rebuilt build-ID's detail rows (written by ehelf-batch) describe
	 * the old eh_elf: they go with it (this build records none) */
	static const char *const detail[] = { "rule_kinds", "dwarf_ops",
		"fde_rows", "unsupported", "rulesets", "fde_sizes" };
	for (size_t i = 0; rc == 0 && i < sizeof detail / sizeof *detail; i++) {
		char q[96];
		snprintf(q, sizeof q, "DELETE FROM %s WHERE build_id = ?1",
			 detail[i]);
		rc = exec_bound(h, q, et, 1, NULL, 0, err, ix->path);
	}
	if (rc == 0)
		rc = exec_bound(h, "INSERT OR REPLACE INTO eh_elfs (build_id, sha256,"
				" signed_by, ehelf_bytes, code_bytes, table_bytes, fdes,"
				" rows, unique_rows, entries, unsupported_rows,"
				" compile_ms, abi_version, generator_version) VALUES"
				" (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
				" ?13, ?14)", et, 3, en, 11, err, ix->path);
	if (rc == 0 && sqlite3_exec(h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = err_set(err, ERR_IO, "%s: COMMIT: %s", ix->path,
			     sqlite3_errmsg(h));
	if (rc < 0)
		sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	pthread_mutex_unlock(&ix->wlock);
	return rc;
}
