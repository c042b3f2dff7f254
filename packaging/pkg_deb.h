/*
 * pkg_deb.h - building one -ehelf .deb: its eh_elfs (and their signatures)
 * checked against the database and copied from the store into a staging
 * tree, /usr/lib/ehelf/.build-id/XX/REST.so{,.sig}, with
 * /usr/share/doc/NAME-ehelf a symlink to NAME as the -dbgsym packages
 * have, DEBIAN/control (pkg_control.h) and DEBIAN/md5sums; then
 * `dpkg-deb --root-owner-group --build`.
 *
 * Contract: reproducible: every file is 0644 and every directory 0755,
 * owned by root:root in the archive, every time stamp SOURCE_DATE_EPOCH
 * (the caller sets it in the environment, for dpkg-deb's ar members and
 * tar clamping too), and dpkg-deb sorts the tree; so the same store and
 * database give the same bytes.  All or nothing: an eh_elf missing from
 * the store, of another size or SHA-256 than its row says, a signature the
 * row promises but the store lacks, or a file whose build-ID has no
 * eh_elfs row fails the package with a message naming the file and the
 * build-ID, and nothing reaches the pool; a built package is renamed into
 * place, so the pool never holds half a package.
 */
#ifndef EHELF_PKG_DEB_H
#define EHELF_PKG_DEB_H

#include <stdint.h>

#include "../common/err.h"
#include "pkg_db.h"
#include "pkg_meta.h"

typedef struct pkg_deb_env {
	const char *store;     /* the store the eh_elfs are read from */
	const char *repo;      /* the repository root */
	const char *scratch;   /* a scratch directory on the repository's file
				* system, one subdirectory per worker */
	long long epoch;       /* SOURCE_DATE_EPOCH */
} pkg_deb_env;

/* Build P's -ehelf package (its eh_elfs: SET->elfs[P->elf[...]]) into
 * ENV->repo/POOL_PATH, using scratch subdirectory WORKER.  Its size in
 * *DEB_BYTES.  Returns 0, ERR_NOTFOUND (a file or row missing),
 * ERR_FORMAT (a file differing from its row; dpkg-deb refusing the
 * control file) or ERR_IO. */
int pkg_deb_build(const pkg_deb_env *env, const pkg_set *set, const pkg *p,
		  const pkg_meta *m, const char *pool_path, int worker,
		  uint64_t *deb_bytes, ehelf_err *err);

#endif
