/*
 * pkg_owner.h - which -ehelf package carries an eh_elf that several binary
 * packages ship (the same ELF file in two packages: perl-base and
 * libperl5.36 share their XS modules, for one).
 *
 * dpkg refuses to install two packages holding the same file, so each
 * build-ID goes into exactly one -ehelf package name: that of the package
 * most likely to be installed, by Priority (required, important,
 * standard, optional, extra: the one the others usually depend on), ties
 * broken by name in byte order, among the names whose -ehelf package can
 * be made (a name or version Debian refuses, metadata that cannot be read:
 * that name carries a shared build-ID only when no other can).  Every version of that name carries it
 * (versions of one package are never installed together); the other
 * packages' -ehelf packages leave it out and count it in n_elsewhere.
 * docs/packaging.md explains the choice.
 */
#ifndef EHELF_PKG_OWNER_H
#define EHELF_PKG_OWNER_H

#include "pkg_db.h"

/* The rank of a name none of whose -ehelf packages can be made: worse
 * than every pkg_priority_rank. */
enum { PKG_RANK_CANNOT_BUILD = 1000 };

/* The rank (pkg_priority_rank, or PKG_RANK_CANNOT_BUILD) of package
 * SET->pkgs[I]'s name. */
typedef int (*pkg_rank_fn)(void *arg, const pkg_set *set, size_t i);

/* Choose the owner of every eh_elf of SET (pkg_elf.owner) and drop from
 * each package the build-IDs another name carries; packages left with none
 * are removed from SET (and counted as SKIP_NO_EHELF).  RANK is called only
 * for packages that share a build-ID with another name.  Returns how many
 * build-IDs are shared. */
size_t pkg_owner_assign(pkg_set *set, pkg_rank_fn rank, void *arg);

#endif
