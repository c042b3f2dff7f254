/*
 * pkg_control.h - the names and the control file of an -ehelf package,
 * modelled on the automatic -dbgsym packages of dh_gencontrol:
 *
 *   Package: NAME-ehelf                  Depends: NAME (= VERSION)
 *   Source: SOURCE [(SOURCE-VERSION)]    Section: debug
 *   Version: VERSION                     Priority: optional
 *   Auto-Built-Package: ehelf            Multi-Arch: same (if NAME is)
 *   Architecture: ARCH                   Description: (short and long)
 *   Maintainer: NAME's                   Build-Ids: every build-ID carried
 *   Installed-Size: KiB
 *
 * fields in the order dpkg-gencontrol writes them.  ARCH is the package's,
 * but amd64 for an Architecture: all package (an eh_elf is x86_64 code).
 * The control file is written here rather than by dpkg-gencontrol, which
 * needs a source tree (debian/control, debian/changelog) that a package
 * read from a .deb or from dpkg's database does not have; dpkg-deb checks
 * it when building, as it checks dpkg-gencontrol's.
 */
#ifndef EHELF_PKG_CONTROL_H
#define EHELF_PKG_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "../common/err.h"
#include "pkg_db.h"
#include "pkg_meta.h"

/* The -ehelf package's architecture for P. */
const char *pkg_ehelf_arch(const pkg *p);

/* Refuse a name, version or architecture that could not make an
 * installable Debian package (or would be unsafe in a file name): the
 * characters of Debian policy, then the version's syntax by `dpkg
 * --validate-version`.  Returns 0, or ERR_FORMAT or ERR_IO with a
 * message. */
int pkg_control_check(const pkg *p, ehelf_err *err);

/* "pool/main/P/SOURCE/NAME-ehelf_VERSION_ARCH.deb" (VERSION without its
 * epoch) into OUT (N bytes).  Returns 0 or ERR_ARG when too long. */
int pkg_pool_path(const pkg *p, const pkg_meta *m, char *out, size_t n,
		  ehelf_err *err);

/* The control file of P's -ehelf package carrying SET's eh_elfs P->elf,
 * of INSTALLED_KIB, as a malloc'd string (NULL when out of memory). */
char *pkg_control_text(const pkg_set *set, const pkg *p, const pkg_meta *m,
		       uint64_t installed_kib);

#endif
