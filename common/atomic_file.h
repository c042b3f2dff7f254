/*
 * atomic_file.h - writing a file so that it is either absent or complete,
 * whatever happens (kill -9, power loss): the bytes go to a temporary file,
 * are flushed to disk, the temporary is renamed over the target, and the
 * target's directory is flushed (else a crash can lose the rename).
 */
#ifndef EHELF_COMMON_ATOMIC_FILE_H
#define EHELF_COMMON_ATOMIC_FILE_H

#include <stddef.h>

#include "err.h"

/* Write LEN bytes to PATH, mode 0644.  The temporary file is created in
 * TMPDIR (which must be on the same file system), or next to PATH when
 * TMPDIR is NULL; its name starts with ".tmp-".  Returns 0 or ERR_IO. */
int atomic_write(const char *path, const char *tmpdir, const void *data,
		 size_t len, ehelf_err *err);

/* The same with permissions MODE (0600 for a private file). */
int atomic_write_mode(const char *path, const char *tmpdir, const void *data,
		      size_t len, unsigned mode, ehelf_err *err);

/* atomic_write() in two steps, for a writer that checks (or signs) the
 * file before it becomes visible: LEN bytes into a flushed temporary file,
 * mode 0644, in TMPDIR (or next to PATH when NULL), whose name goes into
 * TMP (TMPN bytes).  Returns 0 or ERR_IO (nothing left behind).  The
 * caller then gives it to atomic_commit() or unlinks it. */
int atomic_prepare(const char *path, const char *tmpdir, const void *data,
		   size_t len, char *tmp, size_t tmpn, ehelf_err *err);

/* Rename the temporary TMP over PATH and flush PATH's directory.  Returns
 * 0 or ERR_IO (TMP removed). */
int atomic_commit(const char *tmp, const char *path, ehelf_err *err);

/* The same for a cache, next to PATH, without flushing to disk: never
 * seen half-written by a running reader, but after a power loss possibly
 * empty or zeroed, so its readers must check what they read (and make it
 * again).  Flushing a 7 MiB table cost up to 0.3 s on a busy disk. */
int atomic_write_cache(const char *path, const void *data, size_t len,
		       unsigned mode, ehelf_err *err);

#endif
