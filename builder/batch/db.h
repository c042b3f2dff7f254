/*
 * db.h - ehelf-batch's sqlite database (schema, comments and versions in
 * store/schema.sql), which is also the index ehelf-server reads.
 *
 * Every write is an upsert keyed by what identifies the row (a package by
 * name, version, architecture and source; a file by package and path; an
 * eh_elf by build-ID), so redoing work after a crash duplicates nothing.
 * Not thread-safe: callers serialise access to one batch_db (a server may
 * open one per thread).
 */
#ifndef EHELF_BATCH_DB_H
#define EHELF_BATCH_DB_H

#include <stdbool.h>
#include <stdint.h>

#include "../../common/err.h"
#include "../../store/index_db.h"
#include "../../common/sign.h"
#include "../codegen/compile.h"
#include "package.h"

typedef struct batch_db batch_db;
struct sqlite3;

enum {
	DB_SCHEMA_VERSION = INDEX_DB_VERSION, /* PRAGMA user_version of
					       * store/schema.sql */
	DB_STATS_VERSION = 1,    /* eh_elfs.stats_version of the statistics
				  * db_put_ehelf records (schema.sql) */
	DB_READ_ONLY = 1,        /* db_open flag */
};

/* Open PATH.  FLAGS 0: for writing, created with its schema if needed, a
 * database of version 0 or 2 migrated silently to this version (the
 * columns and tables it lacks added; its eh_elfs rows, without
 * statistics, are rebuilt by the next run: db_reopen_outdated).  DB_READ_ONLY: an existing
 * database of this version only, nothing created or changed (a server
 * over a read-only store; where the -shm file of a WAL database cannot be
 * created, it is read as an immutable snapshot).  A database of a later
 * version is refused.
 * Returns 0, ERR_IO (cannot open, not an ehelf database) or
 * ERR_UNSUPPORTED (another version). */
int db_open(batch_db **db, const char *path, unsigned flags, ehelf_err *err);
void db_close(batch_db *db);

int db_begin(batch_db *db, ehelf_err *err);
int db_commit(batch_db *db, ehelf_err *err);
/* Abandon the open transaction, if any (after a failed write: the next
 * db_begin() can then start one). */
void db_rollback(batch_db *db);

/* The row of package M: its id, and whether a previous run finished it. */
int db_package(batch_db *db, const pkg_meta *m, int64_t *id, bool *done,
	       ehelf_err *err);

/* How many ELF files of package ID an earlier run recorded 'failed' whose
 * build-ID has no eh_elf (from another file either) into *N. */
int db_package_unbuilt(batch_db *db, int64_t id, uint64_t *n, ehelf_err *err);

/* The package file of M, read as package ID, held other packages when
 * earlier runs read it (it was replaced): their rows (packages, files,
 * conflicts) are deleted, in a transaction of their own.  For package
 * files only (deb, rpm, arch). */
int db_package_forget_others(batch_db *db, int64_t id, const pkg_meta *m,
			      ehelf_err *err);

/* Record how the package ended: STATUS "done" or "failed" (with ERROR). */
int db_package_end(batch_db *db, int64_t id, const char *status,
		   const char *error, double seconds, ehelf_err *err);

typedef struct db_file {
	int64_t package_id;
	const char *path;
	const char *build_id;       /* NULL if unknown */
	const char *build_id_kind;  /* "gnu", "sha256" or NULL */
	uint64_t size, text, eh_frame, eh_frame_hdr, debug_frame, ehelf;
	const char *status;         /* built, present, no-cfi, failed */
	const char *error;          /* NULL unless failed / no-cfi */
} db_file;

int db_put_file(batch_db *db, const db_file *f, ehelf_err *err);

/* An eh_elf built, as db_put_ehelf records it. */
typedef struct db_ehelf {
	const ehelf_compile_stats *st;
	const ehelf_coverage *cov;
	/* the statistics of schema version 3; NULL: none recorded
	 * (stats_version and its columns NULL, no rulesets or fde_sizes
	 * rows) */
	const ehelf_compile_detail *detail;
	double compile_ms;      /* ehelf_compile_elf() */
	double store_ms;        /* writing it to the store (with detail only) */
	const char *sha256;     /* of its bytes, 64 lowercase hex digits */
	const char *signed_by;  /* key ID of its signature; NULL: unsigned */
} db_ehelf;

/* The eh_elf of HEX, with E's statistics, recorded with this build's
 * EHELF_ABI_VERSION, EHELF_GENERATOR_VERSION and (with E->detail)
 * DB_STATS_VERSION.  Its earlier detail rows (rule_kinds, dwarf_ops,
 * fde_rows, unsupported, rulesets, fde_sizes) are replaced;
 * ruleset_texts rows are added where missing (shared by every ELF). */
int db_put_ehelf(batch_db *db, const char *hex, const db_ehelf *e,
		 ehelf_err *err);

/* Record PATH of package PACKAGE_ID, a hard link to its member TARGET, as
 * TARGET's files row says (built read as present), its status into
 * STATUS.  Returns 1, 0 when TARGET has no row (not an ELF), or ERR_IO. */
int db_link_file(batch_db *db, int64_t package_id, const char *target,
		 const char *path, char status[16], ehelf_err *err);

/* Delete HEX's eh_elfs row and its detail rows (a build-ID in conflict:
 * db_conflict.h). */
int db_forget_ehelf(batch_db *db, const char *hex, ehelf_err *err);

/* Record that key SIGNED_BY signed HEX's eh_elf. */
int db_set_signed(batch_db *db, const char *hex, const char *signed_by,
		  ehelf_err *err);

/* An eh_elf as the index knows it.  Strings are "" where the column is
 * NULL (rows of version 0), versions 0. */
typedef struct db_ehelf_row {
	uint64_t size;                      /* bytes of the eh_elf file */
	char sha256[65];                    /* of its bytes, lowercase hex */
	int abi_version;                    /* EHELF_ABI_VERSION it was built for */
	int generator_version;              /* EHELF_GENERATOR_VERSION */
	int stats_version;                  /* DB_STATS_VERSION; 0: no statistics */
	char signed_by[SIG_KEYID_HEX + 1];  /* key ID of its .sig; "" unsigned */
	uint64_t packages;  /* packages shipping a file of this build-ID it was
			     * built from (files rows built or present) */
	char package[256];  /* the first of them by name, "" if none */
	char path[1024];    /* that file's path in the package */
} db_ehelf_row;

/* Look up HEX's eh_elf (read-only: works on a DB_READ_ONLY database).
 * Returns 0, ERR_NOTFOUND (no row), ERR_ARG (invalid build-ID) or ERR_IO. */
int db_lookup_ehelf(batch_db *db, const char *hex, db_ehelf_row *out,
		    ehelf_err *err);

/* Was R built by this ehelf-batch's ABI and generator versions (or later
 * ones), with its statistics recorded (DB_STATS_VERSION or later)?  If
 * not, the next run rebuilds it. */
bool db_ehelf_current(const db_ehelf_row *r);

/* Mark unfinished the packages shipping an eh_elf that is not current
 * (older or NULL versions, stats_version included: eh_elfs of older
 * databases and of ehelf-server's on-demand builds, which record no
 * statistics) or, when KEY_ID is not NULL, not signed by that
 * key, so that this run reads them again: rebuilds the former, signs the
 * latter.  Returns how many packages, or ERR_IO. */
int db_reopen_outdated(batch_db *db, const char *key_id, ehelf_err *err);

/* Mark unfinished the packages shipping a file recorded built or present
 * whose eh_elf is gone: no eh_elfs row, or IN_STORE(ARG, build-ID) false
 * (its file removed from the store), so that this run reads them again and
 * builds it.  Returns how many packages, or ERR_IO / ERR_NOMEM. */
int db_reopen_missing(batch_db *db, bool (*in_store)(void *arg, const char *hex),
		      void *arg, ehelf_err *err);

/* Does SCHEMA.TABLE (SCHEMA "main", or an attached database) have
 * COLUMN? */
bool db_has_column(struct sqlite3 *h, const char *schema, const char *table,
		   const char *column);

/* The underlying handle, for merge and statistics. */
struct sqlite3 *db_handle(batch_db *db);

#endif
