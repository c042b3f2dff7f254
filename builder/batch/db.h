/*
 * db.h - ehelf-batch's sqlite database (schema and comments in
 * builder/schema.sql).
 *
 * Every write is an upsert keyed by what identifies the row (a package by
 * name, version, architecture and source; a file by package and path; an
 * eh_elf by build-ID), so redoing work after a crash duplicates nothing.
 * Not thread-safe: callers serialise access.
 */
#ifndef EHELF_BATCH_DB_H
#define EHELF_BATCH_DB_H

#include <stdbool.h>
#include <stdint.h>

#include "../../common/err.h"
#include "../codegen/compile.h"
#include "package.h"

typedef struct batch_db batch_db;

/* Open (creating it and its schema if needed).  Returns 0 or ERR_IO. */
int db_open(batch_db **db, const char *path, ehelf_err *err);
void db_close(batch_db *db);

int db_begin(batch_db *db, ehelf_err *err);
int db_commit(batch_db *db, ehelf_err *err);

/* The row of package M: its id, and whether a previous run finished it. */
int db_package(batch_db *db, const pkg_meta *m, int64_t *id, bool *done,
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

/* The eh_elf of HEX, its statistics and coverage. */
int db_put_ehelf(batch_db *db, const char *hex, const ehelf_compile_stats *st,
		 const ehelf_coverage *cov, double compile_ms, ehelf_err *err);

/* True when an eh_elf row for HEX exists. */
bool db_has_ehelf(batch_db *db, const char *hex);

/* The underlying handle, for merge and statistics. */
struct sqlite3 *db_handle(batch_db *db);

#endif
