/*
 * pkg_fs.h - the few file-system walks ehelf-pkg needs: mkdir -p, rm -rf,
 * and visiting a tree (children before their directory, symlinks not
 * followed), thread-safe (no nftw callbacks through globals).
 */
#ifndef EHELF_PKG_FS_H
#define EHELF_PKG_FS_H

#include <stdbool.h>

/* Called for each entry: DIRFD and NAME locate it, REL is its path below
 * the walk's root ("" for the root itself).  A nonzero return stops the
 * walk and is returned. */
typedef int (*pkg_walk_fn)(void *arg, int dirfd, const char *name,
			   const char *rel, bool is_dir);

/* Visit ROOT and everything below it.  Returns 0, FN's nonzero return, or
 * -1 with errno (a missing ROOT is an empty walk). */
int pkg_walk(const char *root, pkg_walk_fn fn, void *arg);

/* mkdir -p PATH, mode 0755 (less the umask).  Returns 0 or -1 with errno. */
int pkg_mkdirs(const char *path);

/* rm -rf PATH.  Returns 0 or -1 with errno. */
int pkg_rm_tree(const char *path);

#endif
