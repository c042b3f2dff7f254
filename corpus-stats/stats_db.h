/*
 * stats_db.h - the database ehelf-stats reads (store/schema.sql, version
 * 3 exactly), opened read-only, and the few ways the queries (query_*.h)
 * run SQL into tables (stats_table.h).
 *
 * Contract: nothing in the database is created or changed (sqlite, as for
 * every reader of a WAL database, may make its -wal and -shm files beside
 * it when the directory is writable); what the
 * queries share (the archive's files counted once per build-ID, the rule
 * sets aggregated archive-wide, the per-package figures) is computed once
 * into TEMP tables of the connection by stats_db_derive() (sqlite's temp
 * database is writable on a read-only or immutable connection).  Errors
 * are returned as ERR_* codes (common/err.h) with a message a user can act
 * on, naming the database; nothing prints.
 *
 * The temp tables stats_db_derive() makes, used by the queries:
 *   uf(build_id, package_id, size, text_bytes, eh_frame_bytes,
 *      eh_frame_hdr_bytes, debug_frame_bytes, ehelf_bytes, fdes, rows,
 *      stats)   one row per distinct build-ID of a file whose status is
 *               built or present and which has its eh_elfs row: the file
 *               of smallest files.id; ehelf_bytes, fdes, rows from eh_elfs;
 *               stats 1 when the eh_elf has statistics (stats_version)
 *   se(build_id)  the eh_elfs with statistics (stats_version NOT NULL):
 *               the population of the rule tables
 *   rs(fingerprint, shape, rows, files, supported, summarised, cfa_base,
 *      cfa_reg, cfa_offset, saved_regs)   the rule sets of se's eh_elfs
 *               archive-wide: rows summed, files = eh_elfs using it
 *   pk(package_id, name, version, status, elfs, size, text_bytes,
 *      eh_frame_bytes, eh_frame_hdr_bytes, debug_frame_bytes, ehelf_bytes,
 *      fdes, rows, rulesets, compile_ms)   per package, its own built and
 *               present files (not deduplicated across packages)
 */
#ifndef EHELF_STATS_DB_H
#define EHELF_STATS_DB_H

#include <stdint.h>

#include "../common/err.h"
#include "stats_table.h"

struct sqlite3;

/* The schema version ehelf-stats reads (store/schema.sql). */
enum { STATS_DB_VERSION = 3 };

typedef struct stats_db {
	struct sqlite3 *h;
	const char *path;  /* not owned */
	int version;       /* PRAGMA user_version */
	int top_n;         /* rows of the "top" tables (--top) */
} stats_db;

/* Open PATH read-only (store/index_db.h) into DB, with DB->top_n = TOP_N.
 * Returns 0; ERR_NOTFOUND (no such file), ERR_IO (unreadable, or not an
 * ehelf database: not sqlite, or no eh_elfs table), ERR_FORMAT (damaged:
 * its schema cannot be read), ERR_UNSUPPORTED
 * (written by an older ehelf-batch, to run once on its store, or by a
 * newer one), with the message. */
int stats_db_open(stats_db *db, const char *path, int top_n, ehelf_err *err);

void stats_db_close(stats_db *db);

/* Make the temp tables described above.  Returns 0, or ERR_FORMAT (a
 * damaged database, or one missing tables of version 3) or ERR_NOMEM,
 * with sqlite's message. */
int stats_db_derive(stats_db *db, ehelf_err *err);

/* Run SQL (one statement; ?1..?N bound to the N integers of ARGS) and
 * append each result row to T, result column k to T's column k (sqlite's
 * type: NULL, integer, real, text).  The result must have T->n_cols
 * columns.  Returns the number of rows appended, or ERR_FORMAT (sqlite
 * failed: damaged database, bad SQL) or ERR_NOMEM, with the message. */
int stats_db_fill(stats_db *db, stats_table *t, const char *sql,
		  const int64_t *args, int n_args, ehelf_err *err);

/* Run SQL, whose result is one row of N columns, and append N rows to T
 * (a figure/value/unit table): (name k, column k, unit k), FIGURES being
 * the N figures as "name:unit name:unit ..." (names and units at most 63
 * bytes, without spaces; a unit is any text, "MiB/s" too).  Returns 0,
 * ERR_FORMAT, ERR_NOMEM, or ERR_ARG (FIGURES malformed, or not N of
 * them). */
int stats_db_figures(stats_db *db, stats_table *t, const char *sql,
		     const char *figures, ehelf_err *err);

/* The integer result of SQL (one row, one column; NULL gives 0) in *OUT.
 * Returns 0, ERR_FORMAT or ERR_NOMEM. */
int stats_db_int(stats_db *db, const char *sql, int64_t *out, ehelf_err *err);

#endif
