/*
 * package_impl.h - what the package readers share (package_archive.c,
 * package_tree.c, package_jobs.c, package.c): the reader object behind
 * pkg_reader, and small helpers.  It depends on package_types.h only,
 * and the readers on it: no reader depends on another.
 */
#ifndef EHELF_BATCH_PACKAGE_IMPL_H
#define EHELF_BATCH_PACKAGE_IMPL_H

#include "package_types.h"

struct pkg_reader {
	pkg_meta meta;
	int (*next)(pkg_reader *r, pkg_member *m, ehelf_err *err);
	void (*close)(pkg_reader *r);
	/* the member's path and link target (pkg_member_path), freed by
	 * pkg_close */
	char *names[2];
	size_t names_cap[2];
	char problem[512];  /* the member's problem or warning */
};

/* "usr/lib/x", "./usr/lib/x" -> "/usr/lib/x" into OUT (cut to N). */
void pkg_normalize_path(const char *in, char *out, size_t n);

/* IN normalized as pkg_normalize_path does, whole, into R's name buffer
 * WHICH (0: the member's path, 1: its link target); *OUT points to it.
 * Returns 0 or ERR_NOMEM. */
int pkg_member_name(pkg_reader *r, int which, const char *in,
		    const char **out, ehelf_err *err);

/* The package format a file name says (PKG_DEB, PKG_RPM, PKG_ARCH), or -1. */
int pkg_format_of_name(const char *name);

/* True for the file names of package formats ehelf-batch reads. */
bool pkg_is_package_name(const char *name);

/* 1 if PATH is a regular file (not a symbolic link) starting with the
 * ELF magic, 0 if it is not (or is gone), -errno if it is a regular file
 * of 4 bytes or more that cannot be opened or read (which an ELF file may
 * be: the caller reports it). */
int pkg_probe_elf(const char *path);

/* pkg_probe_elf(PATH) == 1. */
bool pkg_is_elf_file(const char *path);

/* Copy S into a fixed field, truncating. */
void pkg_set(char *field, size_t n, const char *s);

#endif
