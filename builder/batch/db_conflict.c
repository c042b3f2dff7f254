/* db_conflict.c - see db_conflict.h. */
#include "db_conflict.h"

#include <openssl/evp.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "../../common/buildid.h"
#include "../../store/index_db.h"

void cfi_digest(elf_file *f, cfi_id *out)
{
	out->sha[0] = '\0';
	elf_section s;
	out->debug_file = elf_file_section(f, ".text", &s, NULL) < 0 || s.nobits;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	bool ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL), any = false;
	static const char *const names[] = { ".eh_frame", ".debug_frame" };
	for (int i = 0; ok && i < 2; i++) {
		if (elf_file_section(f, names[i], &s, NULL) < 0 || s.nobits ||
		    !s.data || !s.size)
			continue;
		uint8_t le[16];
		for (int b = 0; b < 8; b++) {
			le[b] = (uint8_t)(s.addr >> (8 * b));
			le[8 + b] = (uint8_t)(s.size >> (8 * b));
		}
		ok = EVP_DigestUpdate(c, names[i], strlen(names[i]) + 1) &&
		     EVP_DigestUpdate(c, le, sizeof le) &&
		     EVP_DigestUpdate(c, s.data, s.size);
		any = true;
	}
	uint8_t md[32];
	unsigned n = 0;
	if (ok && any && EVP_DigestFinal_ex(c, md, &n))
		buildid_to_hex(md, 32, out->sha, sizeof out->sha);
	EVP_MD_CTX_free(c);
}

static int fail(sqlite3 *h, ehelf_err *err, const char *what)
{
	return err_set(err, ERR_IO, "%s: %s: %s", sqlite3_db_filename(h, "main"),
		       what, sqlite3_errmsg(h));
}

/* Run Q with text parameters ARGS (N of them; NULL binds NULL) to its
 * end; with ROW, the first column of its first row into ROW (ROWN bytes,
 * "" if none) and *GOT 1 when there was one. */
static int exec(batch_db *db, const char *q, const char *const *args, int n,
		char *row, size_t rown, int *got, ehelf_err *err)
{
	sqlite3 *h = db_handle(db);
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(h, q, -1, &s, NULL) != SQLITE_OK)
		return fail(h, err, "cannot prepare a statement");
	for (int i = 0; i < n; i++)
		if (args[i])
			sqlite3_bind_text(s, i + 1, args[i], -1, SQLITE_STATIC);
	int rc;
	if (got)
		*got = 0;
	if (row && rown)
		row[0] = '\0';
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		if (got && !*got) {
			*got = 1;
			const unsigned char *v = sqlite3_column_text(s, 0);
			if (row)
				snprintf(row, rown, "%s", v ? (const char *)v : "");
		}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : fail(h, err, "write failed");
}

int db_cfi_get(batch_db *db, const char *hex, cfi_id *out, ehelf_err *err)
{
	int got = 0;
	char v[80];
	const char *a[] = { hex };
	int rc = exec(db, "SELECT separate_debug || ' ' || cfi_sha256 FROM"
		      " cfi_sources WHERE build_id = ?1", a, 1, v, sizeof v, &got,
		      err);
	out->debug_file = got && v[0] == '1';
	snprintf(out->sha, sizeof out->sha, "%s", got && v[1] == ' ' ? v + 2 : "");
	return rc < 0 ? rc : got;
}

int db_cfi_put(batch_db *db, const char *hex, const cfi_id *id,
	       ehelf_err *err)
{
	const char *a[] = { hex, id->sha, id->debug_file ? "1" : "0" };
	return exec(db, "INSERT OR REPLACE INTO cfi_sources (build_id, cfi_sha256,"
		    " separate_debug) VALUES (?1, ?2, CAST(?3 AS INTEGER))", a, 3,
		    NULL, 0, NULL, err);
}

int db_conflicted(batch_db *db, const char *hex, ehelf_err *err)
{
	int rc = index_db_conflicted(db_handle(db), hex);
	return rc >= 0 ? rc : fail(db_handle(db), err, "cannot read the conflicts");
}

int db_conflict_add(batch_db *db, const char *hex, const db_file *row,
		    const char *sha, ehelf_err *err)
{
	char id[32];
	snprintf(id, sizeof id, "%lld", (long long)row->package_id);
	const char *a[] = { hex, id, row->path, sha };
	return exec(db, "INSERT OR IGNORE INTO conflicts (build_id, package_id,"
		    " path, cfi_sha256) VALUES (?1, CAST(?2 AS INTEGER), ?3, ?4)",
		    a, 4, NULL, 0, NULL, err);
}

int db_conflict_open(batch_db *db, const char *hex, const char *old_sha,
		     const db_file *row, const char *pkg_name,
		     const char *new_sha, ehelf_err *err)
{
	char msg[1024];
	snprintf(msg, sizeof msg, "build-ID conflict: %.400s in package %.200s "
		 "has this build-ID and other unwind tables; neither eh_elf is "
		 "built, shipped or served until it is resolved (ehelf-batch "
		 "resolve)", row->path, pkg_name);
	const char *a[] = { hex, old_sha, msg };
	int rc = exec(db, "INSERT OR IGNORE INTO conflicts (build_id, package_id,"
		      " path, cfi_sha256) SELECT build_id, package_id, path, ?2"
		      " FROM files WHERE build_id = ?1 AND status IN ('built',"
		      " 'present')", a, 2, NULL, 0, NULL, err);
	if (rc == 0)
		rc = exec(db, "UPDATE files SET status = 'conflict', error = ?3,"
			  " ehelf_bytes = 0 WHERE build_id = ?1 AND status IN"
			  " ('built', 'present')", a, 3, NULL, 0, NULL, err);
	if (rc == 0)
		rc = db_conflict_add(db, hex, row, new_sha, err);
	if (rc == 0)
		rc = exec(db, "DELETE FROM cfi_sources WHERE build_id = ?1", a, 1,
			  NULL, 0, NULL, err);
	return rc < 0 ? rc : db_forget_ehelf(db, hex, err);
}

int db_conflict_counts(batch_db *db, uint64_t *build_ids, uint64_t *files,
		       ehelf_err *err)
{
	sqlite3 *h = db_handle(db);
	sqlite3_stmt *s = NULL;
	*build_ids = *files = 0;
	if (sqlite3_prepare_v2(h, "SELECT count(DISTINCT build_id), count(*)"
			       " FROM conflicts", -1, &s, NULL) != SQLITE_OK)
		return fail(h, err, "cannot read the conflicts");
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*build_ids = (uint64_t)sqlite3_column_int64(s, 0);
		*files = (uint64_t)sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : fail(h, err, "cannot read the conflicts");
}

int db_conflict_resolve(batch_db *db, const char *hex, ehelf_err *err)
{
	int rc = db_begin(db, err);
	const char *a[] = { hex };
	if (rc == 0)
		rc = exec(db, "UPDATE packages SET status = 'reading' WHERE id IN"
			  " (SELECT package_id FROM conflicts WHERE build_id = ?1)",
			  a, 1, NULL, 0, NULL, err);
	int n = 0;
	if (rc == 0) {
		rc = exec(db, "DELETE FROM conflicts WHERE build_id = ?1", a, 1,
			  NULL, 0, NULL, err);
		n = sqlite3_changes(db_handle(db));
	}
	if (rc == 0)
		rc = db_commit(db, err);
	if (rc < 0)
		db_rollback(db);
	return rc < 0 ? rc : n;
}
