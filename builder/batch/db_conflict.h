/*
 * db_conflict.h - build-ID conflicts in ehelf-batch's database: files
 * that share a build-ID but not their unwind tables (schema.sql: tables
 * cfi_sources and conflicts).  The first ELF of a build-ID no longer
 * decides its eh_elf for everyone: each eh_elf records the digest of the
 * tables it was compiled from, a later file with another digest puts the
 * build-ID in conflict, and a build-ID in conflict has no eh_elf (no
 * eh_elfs row; the caller removes its file from the store), so it is
 * neither shipped (ehelf-pkg) nor served (ehelf-server) until resolved.
 *
 * Calls run inside the caller's transaction (db_begin/db_commit) unless
 * said otherwise; errors are ERR_IO with sqlite's message.
 */
#ifndef EHELF_BATCH_DB_CONFLICT_H
#define EHELF_BATCH_DB_CONFLICT_H

#include <stdbool.h>
#include <stdint.h>

#include "../../common/elf_file.h"
#include "db.h"

/* The unwind tables of an ELF, as cfi_sources records them. */
typedef struct cfi_id {
	char sha[65];        /* 64 lowercase hex digits; "" when unknown */
	bool debug_file;     /* a separate debug file (no .text contents) */
} cfi_id;

/* The digest of F's unwind tables (schema.sql, cfi_sources) into OUT. */
void cfi_digest(elf_file *f, cfi_id *out);

/* HEX's recorded digest into OUT: 1, or 0 when none is recorded (OUT->sha
 * ""), or ERR_IO. */
int db_cfi_get(batch_db *db, const char *hex, cfi_id *out, ehelf_err *err);

/* Record ID as the digest of HEX's eh_elf. */
int db_cfi_put(batch_db *db, const char *hex, const cfi_id *id,
	       ehelf_err *err);

/* 1 when HEX is in conflict, 0 when not, or ERR_IO. */
int db_conflicted(batch_db *db, const char *hex, ehelf_err *err);

/* Put HEX in conflict: the files rows built or present with it (compiled
 * with digest OLD_SHA) become conflicts and files of status 'conflict'
 * with a message naming ROW, whose own conflicts row (digest NEW_SHA) is
 * added too (the caller records ROW itself, with status 'conflict'); its
 * eh_elfs row, statistics and digest are deleted. */
int db_conflict_open(batch_db *db, const char *hex, const char *old_sha,
		     const db_file *row, const char *pkg_name,
		     const char *new_sha, ehelf_err *err);

/* Add ROW (digest SHA) to HEX's conflict. */
int db_conflict_add(batch_db *db, const char *hex, const db_file *row,
		    const char *sha, ehelf_err *err);

/* Build-IDs in conflict and the files involved, in the whole database. */
int db_conflict_counts(batch_db *db, uint64_t *build_ids, uint64_t *files,
		       ehelf_err *err);

/* Forget HEX's conflict (its own transaction): its rows are deleted and
 * the packages of its files marked unfinished, so that the next run reads
 * them again and builds HEX's eh_elf from the first of its files it
 * meets (a conflict again if the files still differ).  Returns how many
 * files it had (0: HEX was not in conflict), or ERR_IO. */
int db_conflict_resolve(batch_db *db, const char *hex, ehelf_err *err);

#endif
