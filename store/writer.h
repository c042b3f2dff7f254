/*
 * writer.h - the eh_elf store: ROOT/.build-id/XX/REST.so (layout.h), the
 * layout shared by the builder's output, packages, the server and the
 * client's search path, with each eh_elf's signature, if any, beside it as
 * REST.so.sig (common/sign.h).  Files are written atomically through
 * ROOT/.tmp, which store_open() empties of the temporaries a killed run left
 * there (those older than STORE_TMP_STALE_SECONDS: ehelf-server's
 * on-demand builds write there too).  One process at a time writes a store:
 * store_open() takes an flock on ROOT/.tmp/ehelf-batch.lock, held until
 * store_close().
 *
 * Order: a new eh_elf's signature is put before the eh_elf (and a stale
 * signature removed before an unsigned eh_elf replaces a signed one), so
 * that a visible eh_elf always has its signature.  While a signed eh_elf is
 * replaced by a new one, its old bytes are briefly beside the new
 * signature: readers that find a mismatch should read both again.
 */
#ifndef EHELF_BATCH_STORE_H
#define EHELF_BATCH_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/err.h"

enum { STORE_TMP_STALE_SECONDS = 3600 };

typedef struct store {
	char root[2048];
	char tmp[2100];
	int lock_fd;         /* the lock's descriptor, -1 when not held */
} store;

/* Create ROOT (and its .build-id and .tmp) if needed and lock it against
 * another writer.  Returns 0, ERR_ARG, or ERR_IO: another process holds
 * the lock (the message names it), or ROOT cannot be created or written
 * (the message says so for a read-only store). */
int store_open(store *s, const char *root, ehelf_err *err);

/* S for reading the store at ROOT (nothing created, no lock).  Returns 0
 * or ERR_ARG. */
int store_at(store *s, const char *root, ehelf_err *err);

/* Release the lock of a store store_open() opened (no-op otherwise). */
void store_close(store *s);

/* Path of build-ID HEX's eh_elf.  Returns 0, or ERR_ARG for an invalid
 * build-ID or a path that does not fit. */
int store_path(const store *s, const char *hex, char *out, size_t n);

/* True when HEX's eh_elf is in the store (a regular file). */
bool store_has(const store *s, const char *hex);

/* Put HEX's eh_elf into the store, atomically (replacing any).  Returns 0,
 * ERR_ARG or ERR_IO. */
int store_put(const store *s, const char *hex, const void *data, size_t len,
	      ehelf_err *err);

/* store_put() in two steps, for a caller that checks and signs the eh_elf
 * before it becomes visible: DATA (LEN bytes) into a temporary file of
 * the store, flushed, its path into TMP (TMPN bytes); then store_commit()
 * puts it in place (or the caller unlinks it).  Both return 0, ERR_ARG
 * or ERR_IO (store_commit removes TMP on failure). */
int store_stage(const store *s, const char *hex, const void *data,
		size_t len, char *tmp, size_t tmpn, ehelf_err *err);
int store_commit(const store *s, const char *hex, const char *tmp,
		 ehelf_err *err);

/* HEX's eh_elf, read whole into *DATA (malloc'd, *LEN bytes).  Returns 0,
 * ERR_NOTFOUND (no such regular file), ERR_IO or ERR_NOMEM. */
int store_get(const store *s, const char *hex, uint8_t **data, size_t *len,
	      ehelf_err *err);

/* Path of HEX's signature, ROOT/.build-id/XX/REST.so.sig.  Returns 0 or
 * ERR_ARG. */
int store_sig_path(const store *s, const char *hex, char *out, size_t n);

/* Put signature line LINE (LEN bytes) of HEX's eh_elf, atomically
 * (replacing any).  Returns 0, ERR_ARG or ERR_IO. */
int store_put_sig(const store *s, const char *hex, const char *line,
		  size_t len, ehelf_err *err);

/* HEX's signature line into OUT (N bytes, NUL-terminated; longer lines are
 * cut).  Returns its length, ERR_NOTFOUND (unsigned) or ERR_IO. */
int store_get_sig(const store *s, const char *hex, char *out, size_t n,
		  ehelf_err *err);

/* Remove HEX's signature, if any.  Returns 0, ERR_ARG or ERR_IO. */
int store_remove_sig(const store *s, const char *hex, ehelf_err *err);

/* Remove HEX's eh_elf, then its signature, if any.  Returns 0, ERR_ARG or
 * ERR_IO. */
int store_remove(const store *s, const char *hex, ehelf_err *err);

/* Put the file FROM into S as HEX's eh_elf (SIG false) or its signature
 * (SIG true), replacing any: hard-linked when on the same file system,
 * else copied.  Returns 0, ERR_NOTFOUND (FROM is not a regular file),
 * ERR_ARG, ERR_IO or ERR_NOMEM. */
int store_import(const store *s, const char *hex, bool sig, const char *from,
		 ehelf_err *err);

#endif
