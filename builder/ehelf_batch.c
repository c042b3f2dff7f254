/*
 * ehelf-batch - compile the eh_elfs of every ELF of a package repository
 * (or of this machine's installed packages) into a store, in parallel,
 * recording sizes and coverage in sqlite, signing them with --sign-key;
 * and merge shards.
 *
 * Exit status: 0 when everything was read and every ELF with unwind
 * tables has its eh_elf; 1 when a package or a member of one could not be
 * read, a build-ID is in conflict, or the store or database failed (or is
 * another's); 3 when all was read and recorded but ELFs could not be
 * compiled (files.status 'failed', with the reason); 2 on bad usage (a
 * --sign-key that cannot be loaded too).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/batch.h"
#include "batch/db.h"
#include "batch/db_conflict.h"
#include "batch/merge.h"

static void usage(FILE *out)
{
	fputs("Usage: ehelf-batch [--store DIR] [--db FILE] [-j N] [--json]\n"
	      "                   [--shard K/N] [--sign-key KEY] [SOURCE...]\n"
	      "       ehelf-batch merge --store DIR [--db FILE] [--json] SHARD_STORE...\n"
	      "       ehelf-batch lookup --store DIR [--db FILE] BUILD-ID...\n"
	      "       ehelf-batch resolve --store DIR [--db FILE] BUILD-ID...\n"
	      "\n"
	      "Compile an eh_elf for every ELF of the SOURCEs into the store\n"
	      "(DIR/.build-id/XX/REST.so) and record sizes, coverage and errors\n"
	      "in an sqlite database.  A SOURCE is a package (.deb, .ddeb, .udeb,\n"
	      ".rpm, .pkg.tar.zst, .pkg.tar.xz), an ELF file, or a directory:\n"
	      "its packages, and its other files as one tree.  Without SOURCE:\n"
	      "the packages installed on this machine.  Build-IDs already in the\n"
	      "store and packages finished by an earlier run are skipped, so a\n"
	      "run that was interrupted is finished by running it again.\n"
	      "One run at a time writes a store (another is refused).\n"
	      "Files that share a build-ID but not their unwind tables are a\n"
	      "conflict: recorded (table conflicts), reported, and that\n"
	      "build-ID gets no eh_elf until it is resolved.\n"
	      "eh_elfs built by an older ehelf-batch (ABI or code generator\n"
	      "version) are rebuilt: the packages shipping them are read again.\n"
	      "\n"
	      "  -s, --store DIR    the store (default: ./ehelf-store)\n"
	      "  -d, --db FILE      the database (default: STORE/ehelf.sqlite)\n"
	      "  -j, --jobs N       worker threads (default: the number of cores)\n"
	      "      --json         print a summary object on standard output\n"
	      "      --shard K/N    only the K-th of N deterministic parts of the\n"
	      "                     packages (1 <= K <= N), for N machines\n"
	      "      --sign-key KEY sign each eh_elf built with the Ed25519 private\n"
	      "                     key in PEM file KEY (openssl genpkey -algorithm\n"
	      "                     ed25519): DIR/.build-id/XX/REST.so.sig, written\n"
	      "                     before the eh_elf; eh_elfs already in the store\n"
	      "                     whose signature is missing or by another key\n"
	      "                     are signed too (docs/signatures.md)\n"
	      "  -h, --help         show this help\n"
	      "\n"
	      "merge: copy the eh_elfs, their signatures and rows of shard stores\n"
	      "(each with its database at SHARD_STORE/ehelf.sqlite) into --store\n"
	      "and --db.\n"
	      "\n"
	      "lookup: print what the database (opened read-only) knows of each\n"
	      "BUILD-ID's eh_elf, as one JSON object per line: build_id, size,\n"
	      "sha256, abi_version, generator_version, stats_version (0: no\n"
	      "statistics recorded), current (false: the next run rebuilds it),\n"
	      "signed_by, packages (how many ship it), package\n"
	      "and path (the first of them); status 1 if one is unknown.\n"
	      "\n"
	      "resolve: forget the conflict of each BUILD-ID (once the package\n"
	      "with the wrong copy is gone from the sources); the next run\n"
	      "reads the packages of its files again and builds its eh_elf.\n"
	      "\n"
	      "Exit status: 0 every ELF with unwind tables has its eh_elf;\n"
	      "1 a package (or a member of one) could not be read, a build-ID\n"
	      "is in conflict, or the store or database failed (or another run\n"
	      "holds the store); 3 ELFs could not be compiled (recorded with\n"
	      "the reason, files.status 'failed'); 2 usage.\n", out);
}

/* DB, or its default STORE/ehelf.sqlite (in BUF, N bytes). */
static const char *db_path(const char *store, const char *db, char *buf,
			   size_t n)
{
	if (!db)
		snprintf(buf, n, "%s/ehelf.sqlite", store);
	return db ? db : buf;
}

static int parse_shard(const char *s, unsigned *k, unsigned *n)
{
	char extra;
	return sscanf(s, "%u/%u%c", k, n, &extra) == 2 && *n >= 1 &&
	       *k >= 1 && *k <= *n ? 0 : -1;
}

static void print_summary(const batch_summary *s, bool json)
{
	if (json) {
		printf("{\"packages\": %" PRIu64 ", \"packages_done_before\": %"
		       PRIu64 ", \"packages_failed\": %" PRIu64 ", \"elfs\": %"
		       PRIu64 ", \"built\": %" PRIu64 ", \"skipped\": %" PRIu64
		       ", \"failed\": %" PRIu64 ", \"failed_before\": %" PRIu64
		       ", \"no_cfi\": %" PRIu64
		       ", \"ignored\": %" PRIu64 ", \"eh_frame_bytes\": %" PRIu64
		       ", \"eh_frame_hdr_bytes\": %" PRIu64 ", \"ehelf_bytes\": %"
		       PRIu64 ", \"rows\": %" PRIu64 ", \"summarised_rows\": %"
		       PRIu64 ", \"sframe_bytes\": %" PRIu64 ", \"signatures\": %"
		       PRIu64 ", \"conflicts\": %" PRIu64 ", \"conflict_build_ids\": %"
		       PRIu64 ", \"seconds\": %.3f}\n",
		       s->packages, s->packages_done_before, s->packages_failed,
		       s->elfs, s->built, s->skipped, s->failed, s->failed_before,
		       s->no_cfi, s->ignored, s->eh_frame_bytes, s->eh_frame_hdr_bytes,
		       s->ehelf_bytes, s->rows, s->summarised_rows,
		       s->sframe_bytes, s->signatures, s->conflicts,
		       s->conflict_ids_all, s->seconds);
		return;
	}
	fprintf(stderr, "ehelf-batch: %" PRIu64 " packages read (%" PRIu64
		" done before, %" PRIu64 " unreadable), %" PRIu64 " ELF files: %"
		PRIu64 " built, %" PRIu64 " already in the store, %" PRIu64
		" without unwind tables, %" PRIu64 " not x86_64 executables or "
		"shared objects, %" PRIu64 " failed\n", s->packages,
		s->packages_done_before, s->packages_failed, s->elfs, s->built,
		s->skipped, s->no_cfi, s->ignored, s->failed);
	if (s->failed_before)
		fprintf(stderr, "ehelf-batch: %" PRIu64 " ELF files of packages done "
			"before have no eh_elf (files.status 'failed', with the "
			"reason)\n", s->failed_before);
	if (s->signatures)
		fprintf(stderr, "ehelf-batch: %" PRIu64 " signatures written\n",
			s->signatures);
	if (s->conflict_ids_all)
		fprintf(stderr, "ehelf-batch: %" PRIu64 " build-IDs in conflict "
			"(%" PRIu64 " files, %" PRIu64 " of them met in this run, %"
			PRIu64 " build-IDs new): files sharing a build-ID but not "
			"their unwind tables; those build-IDs have no eh_elf until "
			"resolved (table conflicts; ehelf-batch resolve)\n",
			s->conflict_ids_all, s->conflict_files_all, s->conflicts,
			s->conflict_ids);
	double in = (double)(s->eh_frame_bytes + s->eh_frame_hdr_bytes);
	fprintf(stderr, "ehelf-batch: %.1f MiB of .eh_frame + .eh_frame_hdr, "
		"%.1f MiB of eh_elfs written, in %.1f s (%.1f MiB/s)\n",
		in / (1 << 20), (double)s->ehelf_bytes / (1 << 20), s->seconds,
		s->seconds > 0 ? (double)s->eh_frame_bytes / (1 << 20) / s->seconds
			       : 0);
}

static int run_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "db", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *store = NULL, *db = NULL;
	bool json = false;
	int c;
	while ((c = getopt_long(argc, argv, "s:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': store = optarg; break;
		case 'd': db = optarg; break;
		case 'J': json = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!store || optind == argc) {
		fprintf(stderr, "ehelf-batch merge: give --store and at least "
			"one SHARD_STORE\n");
		return 2;
	}
	char dbbuf[4096];
	db = db_path(store, db, dbbuf, sizeof dbbuf);
	merge_summary sum;
	ehelf_err err = { 0 };
	int rc = batch_merge(store, db, argv + optind, argc - optind, &sum, &err);
	if (rc < 0) {
		fprintf(stderr, "ehelf-batch merge: %s\n", err.msg);
		return 1;
	}
	if (json)
		printf("{\"shards\": %" PRIu64 ", \"packages\": %" PRIu64
		       ", \"files\": %" PRIu64 ", \"eh_elfs\": %" PRIu64
		       ", \"copied\": %" PRIu64 ", \"signatures\": %" PRIu64
		       ", \"missing\": %" PRIu64 ", \"conflict_build_ids\": %" PRIu64
		       "}\n", sum.shards, sum.packages, sum.files, sum.ehelfs,
		       sum.copied, sum.signatures, sum.missing, sum.conflicts);
	else
		fprintf(stderr, "ehelf-batch merge: %" PRIu64 " shards: %" PRIu64
			" packages, %" PRIu64 " files, %" PRIu64 " eh_elfs (%"
			PRIu64 " copied, %" PRIu64 " signatures, %" PRIu64
			" missing from their shard, %" PRIu64 " build-IDs in "
			"conflict)\n", sum.shards, sum.packages, sum.files,
			sum.ehelfs, sum.copied, sum.signatures, sum.missing,
			sum.conflicts);
	return sum.missing || sum.conflicts ? 1 : 0;
}

/* S as a JSON string ("" for NULL columns: null). */
static void json_string(const char *s)
{
	if (!*s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* The options of lookup and resolve (--store, --db, --help) into *STORE
 * and *DB (its default), the BUILD-IDs from argv[optind]: 1 to go on, 0
 * after --help, or -1 after a usage message (WHAT: the command). */
static int store_db_args(int argc, char **argv, const char *what,
			 bool db_alone, const char **store, const char **db,
			 char *dbbuf, size_t n)
{
	static const struct option opts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*store = *db = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "s:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': *store = optarg; break;
		case 'd': *db = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return -1;
		}
	}
	if ((!*store && !(db_alone && *db)) || optind == argc) {
		fprintf(stderr, "ehelf-batch %s: give --store%s and at least one "
			"BUILD-ID\n", what, db_alone ? " (or --db)" : "");
		return -1;
	}
	*db = db_path(*store, *db, dbbuf, n);
	return 1;
}

static int run_lookup(int argc, char **argv)
{
	const char *store, *dbpath;
	char dbbuf[4096];
	int a = store_db_args(argc, argv, "lookup", true, &store, &dbpath, dbbuf,
			      sizeof dbbuf);
	if (a <= 0)
		return a < 0 ? 2 : 0;
	ehelf_err err = { 0 };
	batch_db *db = NULL;
	if (db_open(&db, dbpath, DB_READ_ONLY, &err) < 0) {
		fprintf(stderr, "ehelf-batch lookup: %s\n", err.msg);
		return 1;
	}
	int status = 0;
	for (int i = optind; i < argc; i++) {
		db_ehelf_row r;
		if (db_lookup_ehelf(db, argv[i], &r, &err) < 0) {
			fprintf(stderr, "ehelf-batch lookup: %s\n", err.msg);
			status = 1;
			continue;
		}
		printf("{\"build_id\": \"%s\", \"size\": %" PRIu64 ", \"sha256\": ",
		       argv[i], r.size);
		json_string(r.sha256);
		printf(", \"abi_version\": %d, \"generator_version\": %d, "
		       "\"stats_version\": %d, \"current\": %s, \"signed_by\": ",
		       r.abi_version, r.generator_version, r.stats_version,
		       db_ehelf_current(&r) ? "true" : "false");
		json_string(r.signed_by);
		printf(", \"packages\": %" PRIu64 ", \"package\": ", r.packages);
		json_string(r.package);
		fputs(", \"path\": ", stdout);
		json_string(r.path);
		puts("}");
	}
	db_close(db);
	return status;
}

static int run_resolve(int argc, char **argv)
{
	const char *store, *dbpath;
	char dbbuf[4096];
	int a = store_db_args(argc, argv, "resolve", false, &store, &dbpath,
			      dbbuf, sizeof dbbuf);
	if (a <= 0)
		return a < 0 ? 2 : 0;
	ehelf_err err = { 0 };
	batch_db *db = NULL;
	if (db_open(&db, dbpath, 0, &err) < 0) {
		fprintf(stderr, "ehelf-batch resolve: %s\n", err.msg);
		return 1;
	}
	int status = 0;
	for (int i = optind; i < argc; i++) {
		int n = db_conflict_resolve(db, argv[i], &err);
		if (n < 0 || n == 0) {
			fprintf(stderr, "ehelf-batch resolve: %s\n", n < 0 ? err.msg
				: "no conflict of that build-ID");
			status = 1;
			continue;
		}
		fprintf(stderr, "ehelf-batch resolve: %s: the conflict of %d files "
			"forgotten; the next run reads their packages again\n",
			argv[i], n);
	}
	db_close(db);
	return status;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return run_merge(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "lookup") == 0)
		return run_lookup(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "resolve") == 0)
		return run_resolve(argc - 1, argv + 1);
	static const struct option opts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "db", required_argument, NULL, 'd' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ "shard", required_argument, NULL, 'S' },
		{ "sign-key", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	batch_opts o = { .store = "ehelf-store" };
	const char *key_path = NULL;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o.jobs = ncpu > 0 ? (int)ncpu : 1;
	bool json = false;
	int c;
	while ((c = getopt_long(argc, argv, "s:d:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': o.store = optarg; break;
		case 'd': o.db = optarg; break;
		case 'j':
			o.jobs = atoi(optarg);
			if (o.jobs < 1 || o.jobs > 1024) {
				fprintf(stderr, "ehelf-batch: -j wants 1..1024\n");
				return 2;
			}
			break;
		case 'J': json = true; break;
		case 'S':
			if (parse_shard(optarg, &o.shard_k, &o.shard_n) < 0) {
				fprintf(stderr, "ehelf-batch: --shard wants K/N with "
					"1 <= K <= N, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'K': key_path = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	char dbbuf[4096];
	o.db = db_path(o.store, o.db, dbbuf, sizeof dbbuf);
	ehelf_err err = { 0 };
	sign_key *key = NULL;
	if (key_path && sign_key_load(&key, key_path, &err) < 0) {
		fprintf(stderr, "ehelf-batch: --sign-key: %s\n", err.msg);
		return 2;
	}
	o.key = key;
	pkg_jobs jobs = { 0 };
	int rc = 0;
	if (optind == argc)
		rc = pkg_jobs_add_installed(&jobs, &err);
	for (int i = optind; rc == 0 && i < argc; i++)
		rc = pkg_jobs_add_source(&jobs, argv[i], &err);
	if (rc < 0) {
		fprintf(stderr, "ehelf-batch: %s\n", err.msg);
		pkg_jobs_free(&jobs);
		sign_key_free(key);
		return rc == ERR_UNSUPPORTED ? 2 : 1;
	}
	pkg_jobs_sort(&jobs);
	batch_shard(&jobs, o.shard_k, o.shard_n);
	batch_summary sum;
	rc = batch_run(&o, &jobs, &sum, &err);
	pkg_jobs_free(&jobs);
	sign_key_free(key);
	if (rc < 0) {
		fprintf(stderr, "ehelf-batch: %s\n", err.msg);
		return 1;
	}
	print_summary(&sum, json);
	return sum.packages_failed || sum.conflict_ids_all ? 1
	       : sum.failed || sum.failed_before ? 3 : 0;
}
