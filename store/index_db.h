/*
 * index_db.h - the database ehelf-batch writes (store/schema.sql),
 * opened for reading by the programs that use it as an index of the store
 * (ehelf-server, ehelf-pkg) without depending on the builder.
 *
 * The writer (builder/batch/db.c) owns the schema and its migrations; a
 * reader accepts only the version it was built for.  Not part of libehelf
 * (it needs sqlite3): programs link store/index_db.o themselves.
 */
#ifndef EHELF_COMMON_INDEX_DB_H
#define EHELF_COMMON_INDEX_DB_H

#include <stddef.h>

#include "../common/err.h"

struct sqlite3;

/* PRAGMA user_version of store/schema.sql. */
enum { INDEX_DB_VERSION = 3 };

/* Open PATH read-only into *H (closed with sqlite3_close).  A WAL
 * database in a directory this process cannot write (a read-only store, a
 * sandboxed service: sqlite cannot make its -shm file there) is read as an
 * immutable snapshot.  Returns 0; ERR_NOTFOUND (no such file), ERR_IO (not
 * readable, or no eh_elfs table: not an ehelf database) or
 * ERR_UNSUPPORTED (written by an older or newer ehelf-batch), with the
 * message. */
int index_db_open_read(struct sqlite3 **h, const char *path, ehelf_err *err);

/* PATH opened read-only as index_db_open_read() opens it (the immutable
 * fallback included) but whatever its version or tables, for a reader that
 * tells bad files apart itself; NULL when sqlite cannot read it.  Closed
 * with sqlite3_close. */
struct sqlite3 *index_db_open_any(const char *path);

/* 1: the database has the table NAME, 0: not, -1: its schema cannot be
 * read (a damaged file). */
int index_db_has_table(struct sqlite3 *h, const char *name);

/* 1 when build-ID HEX is in conflict (table conflicts: files sharing it
 * with other unwind tables; ehelf-batch deletes its eh_elf, and a reader
 * must not serve or ship one for it either, wherever it comes from), 0
 * when not (or the database predates the table), -1 when the database
 * cannot be read. */
int index_db_conflicted(struct sqlite3 *h, const char *hex);

/* Before anything is written to H (the database at PATH) by program WHO:
 * 0 when it is empty or ehelf's, else ERR_FORMAT with the message.
 * Refused: a database failing PRAGMA integrity_check (quick_check misses
 * an index whose entries are not its table's, at about the same cost),
 * one with an object on a table store/schema.sql never creates, one with
 * a user_version and no tables. */
int index_db_check_ours(struct sqlite3 *h, const char *path, const char *who,
			ehelf_err *err);

/* The database's PRAGMA user_version, or -1 when it cannot be read. */
int index_db_version(struct sqlite3 *h);

/* "file:PATH?immutable=1", PATH percent-encoded, into OUT (N bytes): the
 * URI sqlite reads as a file nobody changes.  Returns 0, or -1 when it does
 * not fit. */
int index_db_immutable_uri(const char *path, char *out, size_t n);

#endif
