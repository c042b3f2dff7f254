/*
 * package.h - what ehelf-batch reads: packages (.deb/.ddeb/.udeb, .rpm,
 * .pkg.tar.zst/.xz), plain directory trees, and the packages installed on
 * this machine (dpkg's database), each giving its metadata and its ELF
 * files, recognised by content (the ELF magic), not by name.
 *
 * Archives are read with libarchive as streams, the data.tar inside a .deb
 * included, without unpacking to disk; only one ELF at a time is held in
 * memory.  Files of directory trees and installed packages are read where
 * they are.
 */
#ifndef EHELF_BATCH_PACKAGE_H
#define EHELF_BATCH_PACKAGE_H

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

const char *pkg_format_name(pkg_format f);

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

/* Add the jobs SOURCE stands for: a package file; an ELF file (a PKG_FILE
 * job); or a directory, whose package files (found recursively) are jobs
 * of their own and whose other files, if any, form one PKG_DIR job.
 * Returns 0, ERR_IO, ERR_UNSUPPORTED (a file that is neither a package nor
 * an ELF file) or ERR_NOMEM. */
int pkg_jobs_add_source(pkg_jobs *jobs, const char *source, ehelf_err *err);

/* Add every package installed on this machine (dpkg-query). */
int pkg_jobs_add_installed(pkg_jobs *jobs, ehelf_err *err);

/* Sort jobs into a deterministic order (format, then path), dropping
 * duplicates (a source given twice). */
void pkg_jobs_sort(pkg_jobs *jobs);
void pkg_jobs_free(pkg_jobs *jobs);

typedef struct pkg_meta {
	char name[256], version[256], arch[64];
	char source[4096];   /* package file, directory, or "dpkg:NAME" */
	pkg_format format;
} pkg_meta;

typedef struct pkg_member {
	char path[4096];        /* inside the package, starting with '/' */
	const char *disk_path;  /* the file on disk, or NULL: then data/size */
	const uint8_t *data;    /* valid until the next pkg_next_elf() */
	size_t size;
} pkg_member;

typedef struct pkg_reader pkg_reader;

/* Open a job; its metadata is then known.  Returns 0 or a negative ERR_*
 * with the reason (a corrupt package: ERR_FORMAT). */
int pkg_open(const pkg_job *job, pkg_reader **r, ehelf_err *err);
const pkg_meta *pkg_get_meta(const pkg_reader *r);

/* Next ELF file of the package.  Returns 1, 0 at the end, or a negative
 * ERR_* (a corrupt or truncated package). */
int pkg_next_elf(pkg_reader *r, pkg_member *m, ehelf_err *err);
void pkg_close(pkg_reader *r);

/* Internal: the readers of each kind. */
int pkg_open_archive(const pkg_job *job, pkg_reader **r, ehelf_err *err);
int pkg_open_tree(const pkg_job *job, pkg_reader **r, ehelf_err *err);

#endif
