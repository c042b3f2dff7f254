/* merge.c - see merge.h. */
#include "merge.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "store.h"

static int exec(sqlite3 *h, const char *sql, const char *what, ehelf_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(h, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	int rc = err_set(err, ERR_IO, "merge: %s: %s", what, msg ? msg : "?");
	sqlite3_free(msg);
	return rc;
}

/* Copy one eh_elf from IN to OUT (hard link if possible). */
static int copy_ehelf(const store *in, const store *out, const char *hex,
		      ehelf_err *err)
{
	char from[4096], to[4096];
	if (store_path(in, hex, from, sizeof from) < 0 ||
	    store_path(out, hex, to, sizeof to) < 0)
		return err_set(err, ERR_ARG, "invalid build-ID '%s'", hex);
	if (store_has(out, hex))
		return 0;
	/* a hard link when both stores are on one file system */
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/.build-id/%.2s", out->root, hex);
	if ((mkdir(dir, 0755) == 0 || errno == EEXIST) && link(from, to) == 0)
		return 0;
	int fd = open(from, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, ERR_NOTFOUND, "%s: %s", from, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, ERR_NOTFOUND, "%s: not a file", from);
	}
	uint8_t *buf = malloc((size_t)st.st_size + 1);
	ssize_t got = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	int rc = got == st.st_size ? store_put(out, hex, buf, (size_t)got, err)
				  : err_set(err, ERR_IO, "%s: short read", from);
	free(buf);
	return rc;
}

static int merge_one(sqlite3 *h, const store *out, const char *dir,
		     merge_summary *sum, ehelf_err *err)
{
	store in;
	int rc = store_open(&in, dir, err);
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
	/* eh_elf files first, so no row points at a missing one */
	sqlite3_stmt *ids = NULL;
	rc = sqlite3_prepare_v2(h, "SELECT build_id FROM s.eh_elfs", -1, &ids, NULL)
	     == SQLITE_OK ? 0 : err_set(err, ERR_IO, "merge: %s", sqlite3_errmsg(h));
	rc = rc ? rc : exec(h, "CREATE TEMP TABLE IF NOT EXISTS missing (build_id TEXT"
			    " PRIMARY KEY); DELETE FROM missing", "temp table", err);
	while (rc == 0 && sqlite3_step(ids) == SQLITE_ROW) {
		const char *hex = (const char *)sqlite3_column_text(ids, 0);
		ehelf_err e = { 0 };
		bool had = store_has(out, hex);
		int c = copy_ehelf(&in, out, hex, &e);
		if (c == ERR_NOTFOUND) {
			fprintf(stderr, "ehelf-batch merge: %s: %s (left out)\n",
				dir, e.msg);
			char *ins = sqlite3_mprintf("INSERT OR IGNORE INTO missing "
						    "VALUES (%Q)", hex);
			rc = exec(h, ins, "missing", err);
			sqlite3_free(ins);
			sum->missing++;
		} else if (c < 0) {
			*err = e;
			rc = c;
		} else {
			sum->copied += !had;
		}
	}
	sqlite3_finalize(ids);
	static const char *const copy_sql[] = {
		"INSERT INTO packages (name, version, architecture, source, format,"
		" status, error, seconds)"
		" SELECT name, version, architecture, source, format, status, error,"
		" seconds FROM s.packages WHERE true"
		" ON CONFLICT (name, version, architecture, source) DO UPDATE SET"
		" status = CASE WHEN packages.status = 'done' THEN 'done'"
		" ELSE excluded.status END",
		"INSERT OR REPLACE INTO eh_elfs SELECT * FROM s.eh_elfs"
		" WHERE build_id NOT IN (SELECT build_id FROM missing)",
		"INSERT OR REPLACE INTO rule_kinds SELECT * FROM s.rule_kinds"
		" WHERE build_id NOT IN (SELECT build_id FROM missing)",
		"INSERT OR REPLACE INTO dwarf_ops SELECT * FROM s.dwarf_ops"
		" WHERE build_id NOT IN (SELECT build_id FROM missing)",
		"INSERT OR REPLACE INTO fde_rows SELECT * FROM s.fde_rows"
		" WHERE build_id NOT IN (SELECT build_id FROM missing)",
		"INSERT OR REPLACE INTO unsupported SELECT * FROM s.unsupported"
		" WHERE build_id NOT IN (SELECT build_id FROM missing)",
		"INSERT INTO files (package_id, path, build_id, build_id_kind, size,"
		" text_bytes, eh_frame_bytes, eh_frame_hdr_bytes, debug_frame_bytes,"
		" ehelf_bytes, status, error)"
		" SELECT p.id, f.path, f.build_id, f.build_id_kind, f.size,"
		" f.text_bytes, f.eh_frame_bytes, f.eh_frame_hdr_bytes,"
		" f.debug_frame_bytes, f.ehelf_bytes,"
		" CASE WHEN f.build_id IN (SELECT build_id FROM missing)"
		" THEN 'failed' ELSE f.status END,"
		" CASE WHEN f.build_id IN (SELECT build_id FROM missing)"
		" THEN 'eh_elf missing from its shard' ELSE f.error END"
		" FROM s.files f JOIN s.packages sp ON f.package_id = sp.id"
		" JOIN packages p ON p.name = sp.name AND p.version = sp.version"
		" AND p.architecture = sp.architecture AND p.source = sp.source"
		" WHERE true ON CONFLICT (package_id, path) DO UPDATE SET"
		" build_id = excluded.build_id, status = excluded.status,"
		" error = excluded.error, ehelf_bytes = excluded.ehelf_bytes",
	};
	rc = rc ? rc : exec(h, "BEGIN", "BEGIN", err);
	for (size_t i = 0; rc == 0 && i < sizeof copy_sql / sizeof *copy_sql; i++)
		rc = exec(h, copy_sql[i], "copying rows", err);
	if (rc == 0) {
		rc = exec(h, "COMMIT", "COMMIT", err);
	} else {
		sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	}
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
		rc = db_open(&db, out_db, err); /* creates the schema */
	for (int i = 0; rc == 0 && i < nshards; i++)
		rc = merge_one(db_handle(db), &out, shards[i], sum, err);
	if (db) {
		sum->packages = count_rows(db_handle(db), "packages");
		sum->files = count_rows(db_handle(db), "files");
		sum->ehelfs = count_rows(db_handle(db), "eh_elfs");
		db_close(db);
	}
	return rc;
}
