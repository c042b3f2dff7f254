/*
 * corpus_run.h - what the corpus-wide test drivers (cfi-diff, codegen-check)
 * share: reading a file list, and running a per-file check over it in N
 * forked workers whose counters (structs of uint64_t) are summed.
 */
#ifndef EHELF_TESTS_CORPUS_RUN_H
#define EHELF_TESTS_CORPUS_RUN_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

/* Options every corpus driver takes: -j N, -v, -r N (random pcs), --max-report
 * N, and the files: --files-from LIST or FILE... */
typedef struct corpus_opts {
	int jobs, verbose, random, max_report;
	char **files;
	size_t nfiles;
	bool files_owned;
} corpus_opts;

/* Parse ARGV into O (defaults already in O).  Returns -1 to go on, else the
 * exit status (0 after --help, 2 on a usage error; USAGE is printed). */
int corpus_parse_args(int argc, char **argv, const char *usage, corpus_opts *o);
void corpus_opts_free(corpus_opts *o);

/* printf to stderr, at most O->max_report times per process (mismatch
 * reports from workers). */
void corpus_report(const corpus_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Paths, one per line, from FILE ("-" for stdin).  Exits on I/O errors. */
char **corpus_read_list(const char *file, size_t *n);
void corpus_free_list(char **v, size_t n);

/* Call CHECK(path, counters) for every path, spread over JOBS processes;
 * COUNTERS points to NWORDS uint64_t, zeroed per worker and summed into
 * SUM.  Returns the number of workers that died (0 when all finished). */
int corpus_run(char **paths, size_t n, int jobs,
	       void (*check)(const char *path, uint64_t *counters),
	       size_t nwords, uint64_t *sum);

#endif
