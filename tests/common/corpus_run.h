/*
 * corpus_run.h - what the corpus-wide test drivers (cfi-diff, codegen-check)
 * share: reading a file list, and running a per-file check over it in N
 * forked workers whose counters (structs of uint64_t) are summed.
 */
#ifndef EHELF_TESTS_CORPUS_RUN_H
#define EHELF_TESTS_CORPUS_RUN_H

#include <stddef.h>
#include <stdint.h>

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
