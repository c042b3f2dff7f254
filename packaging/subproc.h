/*
 * subproc.h - running Debian's tools (dpkg-deb, dpkg-query, apt-ftparchive,
 * xz, gpg) as child processes.
 *
 * Contract: the program is started with posix_spawnp from an argument
 * vector, never through a shell, so package names, versions and paths reach
 * it exactly as they are; its standard input is /dev/null, its standard
 * output goes to a file or is captured, and its standard error is captured
 * so that a failure's message quotes the tool ("dpkg-deb: error: ...").
 * Safe to call from several threads at once (every descriptor the parent
 * opens is close-on-exec).
 */
#ifndef EHELF_PKG_SUBPROC_H
#define EHELF_PKG_SUBPROC_H

#include <stddef.h>

#include "../common/err.h"

typedef struct subproc_opts {
	const char *cwd;    /* run there (NULL: here) */
	const char *path;   /* standard output to this file (created, 0644),
			     * or, when NULL ... */
	char **buf;         /* ... captured into *BUF (malloc'd, NUL-terminated,
			     * *LEN bytes), or, when NULL too, discarded */
	size_t *len;
} subproc_opts;

/* Run ARGV (ARGV[0] looked up in PATH) to completion; O may be NULL.
 * Returns 0 when it exited with status 0; else ERR_IO with a message
 * naming ARGV[0], its exit status or signal, and the last lines it wrote
 * to standard error. */
int subproc_run(const char *const argv[], const subproc_opts *o,
		ehelf_err *err);

#endif
