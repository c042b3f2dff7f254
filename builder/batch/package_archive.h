/*
 * package_archive.h - the reader of a package file (.deb/.ddeb/.udeb, .rpm, .pkg.tar.*), read with
 * libarchive: PKG_DEB, PKG_RPM and PKG_ARCH jobs (for pkg_open).
 */
#ifndef EHELF_BATCH_PACKAGE_ARCHIVE_H
#define EHELF_BATCH_PACKAGE_ARCHIVE_H

#include "package_types.h"

int pkg_open_archive(const pkg_job *job, pkg_reader **r, ehelf_err *err);

#endif
