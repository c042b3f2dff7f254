/*
 * ehelf-batch - compile the eh_elfs of every ELF of a package repository
 * (or of this machine's installed packages) into a store, in parallel,
 * recording sizes and coverage in sqlite; and merge shards.
 *
 * Exit status: 0 when every package was read (ELFs that could not be
 * compiled are recorded and reported, and make it 0 too), 1 when packages
 * could not be read or the store or database failed, 2 on bad usage.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/batch.h"
#include "batch/merge.h"

static void usage(FILE *out)
{
	fputs("Usage: ehelf-batch [--store DIR] [--db FILE] [-j N] [--json]\n"
	      "                   [--shard K/N] [SOURCE...]\n"
	      "       ehelf-batch merge --store DIR [--db FILE] [--json] SHARD_STORE...\n"
	      "\n"
	      "Compile an eh_elf for every ELF of the SOURCEs into the store\n"
	      "(DIR/.build-id/XX/REST.so) and record sizes, coverage and errors\n"
	      "in an sqlite database.  A SOURCE is a package (.deb, .ddeb, .udeb,\n"
	      ".rpm, .pkg.tar.zst, .pkg.tar.xz), an ELF file, or a directory:\n"
	      "its packages, and its other files as one tree.  Without SOURCE:\n"
	      "the packages installed on this machine.  Build-IDs already in the\n"
	      "store and packages finished by an earlier run are skipped, so a\n"
	      "run that was interrupted is finished by running it again.\n"
	      "\n"
	      "  -s, --store DIR    the store (default: ./ehelf-store)\n"
	      "  -d, --db FILE      the database (default: STORE/ehelf.sqlite)\n"
	      "  -j, --jobs N       worker threads (default: the number of cores)\n"
	      "      --json         print a summary object on standard output\n"
	      "      --shard K/N    only the K-th of N deterministic parts of the\n"
	      "                     packages (1 <= K <= N), for N machines\n"
	      "  -h, --help         show this help\n"
	      "\n"
	      "merge: copy the eh_elfs and rows of shard stores (each with its\n"
	      "database at SHARD_STORE/ehelf.sqlite) into --store and --db.\n"
	      "\n"
	      "Exit status: 0 success (ELFs that could not be compiled are\n"
	      "recorded), 1 unreadable packages or a store/database failure,\n"
	      "2 usage.\n", out);
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
		       ", \"failed\": %" PRIu64 ", \"no_cfi\": %" PRIu64
		       ", \"ignored\": %" PRIu64 ", \"eh_frame_bytes\": %" PRIu64
		       ", \"eh_frame_hdr_bytes\": %" PRIu64 ", \"ehelf_bytes\": %"
		       PRIu64 ", \"seconds\": %.3f}\n", s->packages,
		       s->packages_done_before, s->packages_failed, s->elfs,
		       s->built, s->skipped, s->failed, s->no_cfi, s->ignored,
		       s->eh_frame_bytes, s->eh_frame_hdr_bytes, s->ehelf_bytes,
		       s->seconds);
		return;
	}
	fprintf(stderr, "ehelf-batch: %" PRIu64 " packages read (%" PRIu64
		" done before, %" PRIu64 " unreadable), %" PRIu64 " ELF files: %"
		PRIu64 " built, %" PRIu64 " already in the store, %" PRIu64
		" without unwind tables, %" PRIu64 " not x86_64 executables or "
		"shared objects, %" PRIu64 " failed\n", s->packages,
		s->packages_done_before, s->packages_failed, s->elfs, s->built,
		s->skipped, s->no_cfi, s->ignored, s->failed);
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
	if (!db) {
		snprintf(dbbuf, sizeof dbbuf, "%s/ehelf.sqlite", store);
		db = dbbuf;
	}
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
		       ", \"copied\": %" PRIu64 ", \"missing\": %" PRIu64 "}\n",
		       sum.shards, sum.packages, sum.files, sum.ehelfs,
		       sum.copied, sum.missing);
	else
		fprintf(stderr, "ehelf-batch merge: %" PRIu64 " shards: %" PRIu64
			" packages, %" PRIu64 " files, %" PRIu64 " eh_elfs (%"
			PRIu64 " copied, %" PRIu64 " missing from their shard)\n",
			sum.shards, sum.packages, sum.files, sum.ehelfs,
			sum.copied, sum.missing);
	return sum.missing ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return run_merge(argc - 1, argv + 1);
	static const struct option opts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "db", required_argument, NULL, 'd' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ "shard", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	batch_opts o = { .store = "ehelf-store" };
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
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	char dbbuf[4096];
	if (!o.db) {
		snprintf(dbbuf, sizeof dbbuf, "%s/ehelf.sqlite", o.store);
		o.db = dbbuf;
	}
	ehelf_err err = { 0 };
	pkg_jobs jobs = { 0 };
	int rc = 0;
	if (optind == argc)
		rc = pkg_jobs_add_installed(&jobs, &err);
	for (int i = optind; rc == 0 && i < argc; i++)
		rc = pkg_jobs_add_source(&jobs, argv[i], &err);
	if (rc < 0) {
		fprintf(stderr, "ehelf-batch: %s\n", err.msg);
		pkg_jobs_free(&jobs);
		return rc == ERR_UNSUPPORTED ? 2 : 1;
	}
	pkg_jobs_sort(&jobs);
	batch_shard(&jobs, o.shard_k, o.shard_n);
	batch_summary sum;
	rc = batch_run(&o, &jobs, &sum, &err);
	pkg_jobs_free(&jobs);
	if (rc < 0) {
		fprintf(stderr, "ehelf-batch: %s\n", err.msg);
		return 1;
	}
	print_summary(&sum, json);
	return sum.packages_failed ? 1 : 0;
}
