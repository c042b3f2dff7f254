/*
 * pkg_state.h - what makes ehelf-pkg incremental: for each -ehelf package
 * in the pool, a key (SHA-256) of everything its bytes depend on, kept in
 * REPO/.ehelf-pkg/state, one line per package:
 *
 *     NAME VERSION ARCH KEY POOL-PATH
 *
 * The key covers the package's name, version and architecture, where its
 * metadata came from (the .deb's path, size and time, or dpkg's database),
 * SOURCE_DATE_EPOCH, this program's output version (PKG_OUTPUT_VERSION,
 * raised whenever the packages it writes change), and each eh_elf carried:
 * build-ID, size, SHA-256 and signing key.  A package whose key and pool
 * file are unchanged is not rebuilt.  The file is replaced atomically; a
 * run killed before writing it only makes the next one rebuild (the same
 * bytes).
 */
#ifndef EHELF_PKG_STATE_H
#define EHELF_PKG_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"
#include "pkg_db.h"

enum { PKG_OUTPUT_VERSION = 1 };

typedef struct pkg_state_entry {
	char *name, *version, *arch;
	char key[65];
	char *pool_path;
	bool live;      /* part of the repository after this run */
} pkg_state_entry;

typedef struct pkg_state {
	pkg_state_entry *e;   /* [0, sorted) by name, version, arch; later
			       * ones appended by pkg_state_put */
	size_t n, cap, sorted;
} pkg_state;

/* Read the state file PATH (absent: empty).  Returns 0, ERR_IO or
 * ERR_NOMEM. */
int pkg_state_load(pkg_state *s, const char *path, ehelf_err *err);
void pkg_state_free(pkg_state *s);

/* The entry of NAME VERSION ARCH, or NULL. */
pkg_state_entry *pkg_state_find(pkg_state *s, const char *name,
				const char *version, const char *arch);

/* Record (or replace) the entry of P.  Returns it, or NULL when out of
 * memory.  Not thread-safe: the caller serialises. */
pkg_state_entry *pkg_state_put(pkg_state *s, const pkg *p, const char *key,
			       const char *pool_path);

/* The key of P's package (64 hex digits and a NUL into KEY). */
void pkg_state_key(const pkg_set *set, const pkg *p, long long epoch,
		   char key[65]);

/* Write the entries (all, or only the live ones when LIVE_ONLY) to PATH
 * atomically.  Returns 0 or ERR_IO. */
int pkg_state_save(const pkg_state *s, const char *path, bool live_only,
		   ehelf_err *err);

#endif
