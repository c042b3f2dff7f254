/*
 * index.h - the server's index: the sqlite database ehelf-batch writes
 * (store/schema.sql), read for the SHA-256s and the store's totals, and
 * written when the server builds an eh_elf on demand.
 *
 * A store may be served without its database (a mirror's copy, a store
 * written by hand): then every lookup answers "unknown" and the server
 * hashes files itself.  Reads use one connection per thread (sqlite's
 * prepared statements are per connection); writes one connection under a
 * lock, with sqlite's busy timeout, so replicas of the server and
 * ehelf-batch may write the same database.
 */
#ifndef EHELF_SERVER_INDEX_H
#define EHELF_SERVER_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/err.h"

typedef struct server_index server_index;

/* Open the database at PATH; WRITABLE for on-demand builds (created with
 * the schema if missing).  A database written by a newer ehelf-batch is
 * refused.  Returns 0, ERR_NOTFOUND (read-only and missing: serve
 * without), ERR_FORMAT or ERR_IO. */
int index_open(server_index **ix, const char *path, bool writable,
	       ehelf_err *err);
void index_close(server_index *ix);

/* artifact_sha_fn: the SHA-256 recorded for HEX's eh_elf if the row says
 * its size is SIZE.  0, or -1 when unknown. */
int index_sha256(void *ix, const char *hex, uint64_t size, char out[65]);

/* 1 when HEX is in conflict in the database (files of that build-ID with
 * other unwind tables, table conflicts: its eh_elf is neither built nor
 * served until ehelf-batch resolve), 0 when not or unknown. */
int index_conflicted(server_index *ix, const char *hex);

/* Totals for the status page: eh_elfs, their bytes, packages read. */
int index_totals(server_index *ix, uint64_t *ehelfs, uint64_t *bytes,
		 uint64_t *packages);

/* What an on-demand build produced, as ehelf-compile --json reports it. */
typedef struct index_build {
	const char *hex;
	const char *upstream;       /* the URL list the ELF came from */
	const char *json;           /* ehelf-compile --json's object (its
				     * "rulesets" counts "no rule" too) */
	const char *sha256;         /* of the eh_elf's bytes */
	const char *signed_by;      /* key ID, or NULL */
	uint64_t elf_bytes;
	double seconds;
} index_build;

/* Record B: a 'debuginfod' package row for the upstream, the file row,
 * the eh_elfs row.  One transaction.  Returns 0 or ERR_IO. */
int index_record_build(server_index *ix, const index_build *b, ehelf_err *err);

/* The number KEY has in the flat JSON object JSON, or 0. */
double json_number(const char *json, const char *key);

#endif
