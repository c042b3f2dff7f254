/*
 * query_conflicts.h - the build-ID conflicts ehelf-batch found: files that
 * share a build-ID but not their unwind tables (store/schema.sql, table
 * conflicts), whose build-ID therefore has no eh_elf.
 *
 * Appends its table to R; returns 0, or ERR_FORMAT (sqlite failed) or
 * ERR_NOMEM with the message in ERR.
 */
#ifndef EHELF_STATS_QUERY_CONFLICTS_H
#define EHELF_STATS_QUERY_CONFLICTS_H

#include "../common/err.h"
#include "stats_db.h"
#include "stats_table.h"

/* conflicts: build_id, package, version, path, cfi_sha256 - one row per
 * file in conflict, by build-ID, package and path (none for a database
 * written by an ehelf-batch that did not look for conflicts). */
int query_conflicts(stats_db *db, stats_report *r, ehelf_err *err);

#endif
