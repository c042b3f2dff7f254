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
 *
 * The types are in package_types.h; pkg_open and the reader's operations
 * in package.c, the jobs in package_jobs.c, the readers in
 * package_archive.c and package_tree.c, on package_impl.c.
 */
#ifndef EHELF_BATCH_PACKAGE_H
#define EHELF_BATCH_PACKAGE_H

#include "package_types.h"

const char *pkg_format_name(pkg_format f);

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

/* Open a job; its metadata is then known.  Returns 0 or a negative ERR_*
 * with the reason (a corrupt package: ERR_FORMAT). */
int pkg_open(const pkg_job *job, pkg_reader **r, ehelf_err *err);
const pkg_meta *pkg_get_meta(const pkg_reader *r);

/* Next ELF file of the package.  Returns 1, 0 at the end, or a negative
 * ERR_* (a corrupt or truncated package). */
int pkg_next_elf(pkg_reader *r, pkg_member *m, ehelf_err *err);
void pkg_close(pkg_reader *r);

#endif
