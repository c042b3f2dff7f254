/*
 * merge.h - `ehelf-batch merge`: combine the stores and databases of shards
 * (runs of `ehelf-batch --shard K/N`) into one store and one database.
 *
 * Each shard is a store directory whose database is STORE/ehelf.sqlite (the
 * default --db).  Rows are upserted, so merging a shard twice, or shards
 * that overlap, duplicates nothing; eh_elfs are copied (hard-linked when on
 * the same file system) before their rows, and a shard row whose eh_elf
 * file is missing is reported and left out.
 */
#ifndef EHELF_BATCH_MERGE_H
#define EHELF_BATCH_MERGE_H

#include <stdint.h>

#include "../../common/err.h"

typedef struct merge_summary {
	uint64_t shards, packages, files, ehelfs, copied, missing;
} merge_summary;

int batch_merge(const char *out_store, const char *out_db,
		char *const *shards, int nshards, merge_summary *sum,
		ehelf_err *err);

#endif
