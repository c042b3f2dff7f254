/*
 * pkg_repo.h - the apt repository around the pool: a plain directory tree
 * (no symlinks) that any static HTTP server can serve, as can
 * `ehelf-server --repo REPO` under /debian/:
 *
 *   REPO/pool/main/P/SOURCE/NAME-ehelf_VERSION_ARCH.deb
 *   REPO/dists/SUITE/main/binary-ARCH/Packages, Packages.xz
 *   REPO/dists/SUITE/Release              (MD5Sum, SHA1, SHA256, SHA512)
 *   REPO/dists/SUITE/InRelease, Release.gpg      (with a gpg key)
 *   REPO/ehelf-archive-keyring.gpg        (its public key, for signed-by=)
 *
 * Packages stanzas come from `apt-ftparchive packages`, sorted here (it
 * lists files in directory order, which differs between file systems);
 * Packages.xz from `xz -T1` (single-threaded: the same bytes on any
 * machine); Release from `apt-ftparchive release` with its Date given
 * (SOURCE_DATE_EPOCH when set, so the same store gives the same
 * repository, else now); InRelease and Release.gpg from gpg, which stamps
 * the signing time.  Each index is written beside and renamed into place,
 * Release and its signatures last, so a client reading during an update
 * sees the old repository or the new one (give or take a rename).
 */
#ifndef EHELF_PKG_REPO_H
#define EHELF_PKG_REPO_H

#include <stddef.h>

#include "../common/err.h"
#include "pkg_state.h"

typedef struct pkg_repo_opts {
	const char *repo;      /* the repository root */
	const char *suite;     /* dists/SUITE */
	const char *gpg_key;   /* sign with this gpg key, or NULL */
	long long date;        /* Release's Date (seconds since the epoch) */
} pkg_repo_opts;

/* Check that gpg has the secret key ID.  Returns 0 or ERR_NOTFOUND. */
int pkg_repo_check_key(const char *id, ehelf_err *err);

/* Write the indices of the .debs under REPO/pool (pkg_repo.h's layout),
 * removing those of architectures no longer there.  *N_DEBS gets how many
 * packages the indices list, *DEB_BYTES their total size.  Returns 0 or
 * ERR_IO. */
int pkg_repo_index(const pkg_repo_opts *o, size_t *n_debs,
		   unsigned long long *deb_bytes, ehelf_err *err);

/* Remove from REPO/pool the -ehelf packages no live entry of STATE names,
 * and the directories left empty.  Returns how many, or ERR_IO. */
int pkg_repo_prune(const char *repo, const pkg_state *state, ehelf_err *err);

#endif
