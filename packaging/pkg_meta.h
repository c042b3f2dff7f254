/*
 * pkg_meta.h - what an -ehelf package copies from the package it describes
 * and the database does not record: its source package, maintainer,
 * Multi-Arch and Priority (and its Installed-Size, for figures).
 *
 * Contract: read from the package's .deb file with `dpkg-deb --field`, which
 * must still hold that package (name, version, architecture), else from
 * this machine's dpkg database (`dpkg-query`, read once), where the same
 * version must be installed; otherwise an error says which and what to do.
 * Thread-safe once the dpkg table is loaded.
 */
#ifndef EHELF_PKG_META_H
#define EHELF_PKG_META_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/err.h"
#include "pkg_db.h"

typedef struct pkg_meta {
	char source[128];          /* the source package's name */
	char source_version[128];  /* its version */
	char maintainer[256];
	char multi_arch[16];       /* "same", "foreign", "allowed", or "" */
	char priority[32];         /* "" when the package has none */
	uint64_t installed_size;   /* KiB, as the package says */
} pkg_meta;

/* This machine's installed packages. */
typedef struct pkg_dpkg pkg_dpkg;

/* Load them with one dpkg-query.  Returns 0 or ERR_IO. */
int pkg_dpkg_load(pkg_dpkg **d, ehelf_err *err);
void pkg_dpkg_free(pkg_dpkg *d);

/* The installed version of NAME:ARCH, or NULL when it is not installed. */
const char *pkg_dpkg_version(const pkg_dpkg *d, const char *name,
			     const char *arch);

/* The metadata of P into M.  Returns 0, ERR_NOTFOUND (neither its .deb nor
 * dpkg has that package any more) or ERR_IO. */
int pkg_meta_read(const pkg *p, const pkg_dpkg *d, pkg_meta *m,
		  ehelf_err *err);

/* Are A and B one Debian version as dpkg reads them (an epoch of 0 is
 * none: "0:1.2" is "1.2")? */
bool pkg_version_same(const char *a, const char *b);

/* How likely a package of PRIORITY is to be installed: 0 required,
 * 1 important, 2 standard, 3 optional or unknown, 4 extra. */
int pkg_priority_rank(const char *priority);

#endif
