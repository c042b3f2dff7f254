/*
 * merge.h - `ehelf-batch merge`: combine the stores and databases of shards
 * (runs of `ehelf-batch --shard K/N`) into one store and one database.
 *
 * Each shard is a store directory whose database is STORE/ehelf.sqlite (the
 * default --db).  Rows are upserted, so merging a shard twice, or shards
 * that overlap, duplicates nothing; eh_elfs and their signatures are
 * copied (hard-linked when on the same file system) before their rows, and
 * a shard row whose eh_elf file is missing is reported and left out.  A
 * shard's eh_elf replaces the merged store's unless that one was built by
 * a newer ABI or generator version.  Build-ID conflicts (db_conflict.h)
 * are merged and found across shards as ehelf-batch finds them in one
 * store: a shard's file of a build-ID whose tables differ from the merged
 * store's puts it in conflict (its eh_elf and rows deleted, its files
 * rows 'conflict'), and a shard's eh_elf from a separate debug file does
 * not replace one from an ELF with code.  Only shard databases of this
 * version are merged (every column and table named, the statistics
 * tables rulesets, fde_sizes and ruleset_texts included): older ones
 * (ERR_UNSUPPORTED: run ehelf-batch on the shard once, which migrates it
 * and records the statistics its eh_elfs lack) and newer ones are refused.
 */
#ifndef EHELF_BATCH_MERGE_H
#define EHELF_BATCH_MERGE_H

#include <stdint.h>

#include "../../common/err.h"

typedef struct merge_summary {
	uint64_t shards, packages, files, ehelfs;
	uint64_t copied;      /* eh_elf files put into the store */
	uint64_t signatures;  /* .sig files put into the store */
	uint64_t missing;     /* shard rows whose eh_elf file was missing */
	uint64_t conflicts;   /* build-IDs in conflict in the merged database
			       * (no eh_elf in the store) */
} merge_summary;

int batch_merge(const char *out_store, const char *out_db,
		char *const *shards, int nshards, merge_summary *sum,
		ehelf_err *err);

#endif
