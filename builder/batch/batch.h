/*
 * batch.h - ehelf-batch's driver: jobs (packages) in, eh_elfs in the store
 * and rows in the database out, with N worker threads.
 *
 * Each worker takes the next package, and for each ELF in it: finds its
 * build-ID (NT_GNU_BUILD_ID, or for an ELF without one the first 20 bytes
 * of the SHA-256 of the whole file, recorded as build_id_kind 'sha256'),
 * skips it if that build-ID is already in the store (or is being compiled
 * by another worker: it waits for it), else compiles it with
 * ehelf_compile_elf(), writes the eh_elf atomically, then records it.  A
 * package is marked done once all its ELFs are recorded; packages a
 * previous run finished are skipped, except those shipping an eh_elf of
 * an older ABI or generator version, which is rebuilt, or (with a key)
 * not signed by the run's key (db_reopen_outdated).
 *
 * With a signing key, every eh_elf built gets its signature (written
 * before it), and eh_elfs already in the store whose signature is missing
 * or by another key are signed again.
 */
#ifndef EHELF_BATCH_BATCH_H
#define EHELF_BATCH_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "../../common/err.h"
#include "../../common/sign.h"
#include "package.h"

typedef struct batch_opts {
	const char *store;   /* store root */
	const char *db;      /* sqlite file */
	int jobs;            /* worker threads, >= 1 */
	unsigned shard_k;    /* 1..shard_n; shard_n 0: no sharding */
	unsigned shard_n;
	const sign_key *key; /* sign with it; NULL: eh_elfs built unsigned */
} batch_opts;

typedef struct batch_summary {
	uint64_t packages;          /* read in this run */
	uint64_t packages_done_before; /* finished by an earlier run: skipped */
	uint64_t packages_failed;   /* could not be read */
	uint64_t elfs;              /* ELF files seen */
	uint64_t built;             /* eh_elfs compiled and stored */
	uint64_t skipped;           /* build-ID already in the store */
	uint64_t failed;            /* ELFs that could not be compiled */
	uint64_t failed_before;     /* and those of packages done before,
				     * still without an eh_elf */
	uint64_t no_cfi;            /* ELFs without unwind tables */
	uint64_t ignored;           /* not x86_64 executables or shared objects
				     * (32-bit, relocatable objects, modules) */
	uint64_t conflicts;         /* files recorded in a build-ID conflict
				     * (db_conflict.h) */
	uint64_t conflict_ids;      /* build-IDs put in conflict by this run */
	uint64_t conflict_ids_all;  /* build-IDs in conflict in the database
				     * at the end, files involved */
	uint64_t conflict_files_all;
	uint64_t eh_frame_bytes, eh_frame_hdr_bytes; /* of the ELFs seen */
	uint64_t ehelf_bytes;       /* of the eh_elfs written */
	/* of the eh_elfs built: rows of their tables, those whose rule set
	 * has a summary, and the SFrame estimate (sframe_est.h) */
	uint64_t rows, summarised_rows, sframe_bytes;
	uint64_t signatures;        /* .sig files written (built or re-signed) */
	double seconds;
} batch_summary;

/* Keep the jobs of shard K/N (a deterministic split on the package's
 * identity: its file name, or dpkg name). */
void batch_shard(pkg_jobs *jobs, unsigned k, unsigned n);

/* Run JOBS.  Returns 0 (even if some packages or ELFs failed: they are in
 * the database and the summary), or a negative ERR_* when the store or
 * the database cannot be used. */
int batch_run(const batch_opts *o, const pkg_jobs *jobs, batch_summary *s,
	      ehelf_err *err);

#endif
