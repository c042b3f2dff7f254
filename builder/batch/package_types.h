/*
 * package_types.h - the types of package.h (jobs, metadata, members, the
 * reader handle), apart from its functions: the readers behind package.h
 * (package_impl.h, package_archive.h, package_tree.h) use them without
 * depending on package.h, whose pkg_open depends on them.
 */
#ifndef EHELF_BATCH_PACKAGE_TYPES_H
#define EHELF_BATCH_PACKAGE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/err.h"

typedef enum pkg_format {
	PKG_DEB,        /* .deb, .ddeb, .udeb */
	PKG_RPM,        /* .rpm */
	PKG_ARCH,       /* .pkg.tar.zst, .pkg.tar.xz */
	PKG_DIR,        /* a plain directory tree */
	PKG_INSTALLED,  /* a package dpkg says is installed */
	PKG_FILE,       /* a single ELF file, read in place */
} pkg_format;

/* One unit of work: a package file, a directory, an installed package or
 * an ELF file. */
typedef struct pkg_job {
	pkg_format format;
	char *path;     /* file or directory; for PKG_INSTALLED dpkg's name (pkg[:arch]) */
	char *version;  /* PKG_INSTALLED only */
	char *arch;     /* PKG_INSTALLED only */
	uint64_t size;  /* bytes of the package file (for progress), or 0 */
} pkg_job;

typedef struct pkg_jobs {
	pkg_job *v;
	size_t n, cap;
} pkg_jobs;

typedef struct pkg_meta {
	char name[256], version[256], arch[64];
	char source[4096];   /* package file, directory, or "dpkg:NAME" */
	pkg_format format;
} pkg_meta;

/* A member of a package: an ELF file, or one the reader reports instead
 * of reading it (PROBLEM), or a hard link to an earlier member (LINK).
 * Every pointer is valid until the next pkg_next_elf(). */
typedef struct pkg_member {
	const char *path;       /* inside the package, starting with '/', whole */
	const char *disk_path;  /* the file on disk, or NULL: then data/size */
	const uint8_t *data;
	size_t size;
	/* not NULL: the member was not read, for this reason (an ELF over
	 * the size limit); nothing but PATH is set */
	const char *problem;
	/* not NULL: a hard link to the member of this path (as PATH is
	 * written), read earlier; no contents */
	const char *link;
	/* not NULL: the archive is damaged here (libarchive's warning: a
	 * member before this one may be lost); this member is as given */
	const char *warning;
} pkg_member;

typedef struct pkg_reader pkg_reader;

#endif
