/*
 * store-check - the invariants of an ehelf-batch store and database:
 *  - every eh_elfs row has its file in the store, which ehelf_object_open
 *    accepts and whose recorded build-ID is the row's;
 *  - every eh_elfs row with signed_by set has its signature (REST.so.sig)
 *    beside its file;
 *  - every files row with status built or present names an eh_elfs row;
 *  - no temporary file lies outside STORE/.tmp;
 *  - no (package, path) or build-ID appears twice.
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
		if (buildid_store_path(root, hex, path, sizeof path) < 0) {
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
	nftw(root, visit, 16, FTW_PHYS);
	printf("store-check: %ld eh_elfs rows, %ld store files, %ld signatures, "
	       "%ld files rows, %d problems\n", rows, files_in_store,
	       sigs_in_store, scalar("SELECT count(*) FROM files"), problems);
	sqlite3_close(db);
	return problems ? 1 : 0;
}
