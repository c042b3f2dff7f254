/*
 * pkg_db.h - what ehelf-pkg reads from ehelf-batch's database: the Debian
 * binary packages it knows and the eh_elfs of their ELF files.
 *
 * Contract: the database is opened read-only (builder/batch/db.h: nothing
 * created or changed; a store on a read-only file system is read as a
 * snapshot).  Rows of one package read from several sources (its .deb and
 * this machine's dpkg database, say) become one pkg, keyed by name,
 * version and architecture; its build-IDs are the union of theirs.  Rows
 * that cannot become a Debian package are left out and counted by reason:
 * formats other than deb and installed (rpm, arch, dir, file, and the
 * 'debuginfod' rows of ehelf-server's on-demand builds), .udeb installer
 * packages, -dbgsym and -ehelf packages themselves, and packages
 * ehelf-batch did not finish.  A file recorded as built or present whose
 * build-ID has no eh_elfs row is kept (has_row false): the package that
 * would carry it is refused later, with a message naming the file.
 */
#ifndef EHELF_PKG_DB_H
#define EHELF_PKG_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/buildid.h"
#include "../common/err.h"
#include "../common/sign.h"

/* One build-ID's eh_elf, as the database knows it. */
typedef struct pkg_elf {
	char build_id[BUILDID_HEX_MAX + 1];
	char *path;          /* a file of this build-ID, for messages */
	bool has_row;        /* the eh_elfs table has it */
	uint64_t size;       /* eh_elfs.ehelf_bytes */
	char sha256[65];     /* "" where the column is NULL */
	char signed_by[SIG_KEYID_HEX + 1];  /* "" when unsigned */
	uint64_t eh_frame, eh_frame_hdr;    /* of the ELF it replaces */
	char *owner;         /* the package name that carries it (pkg_owner.h) */
} pkg_elf;

/* One binary package (name, version, architecture). */
typedef struct pkg {
	char *name, *version, *arch;
	char *deb;           /* a .deb file it was read from, or NULL */
	bool installed;      /* read from this machine's dpkg database */
	size_t *elf;         /* indices into pkg_set.elfs, ascending */
	size_t n_elf;
	size_t n_elsewhere;  /* build-IDs it ships that another package
			      * carries (pkg_owner.h) */
	bool selected;       /* to be built by this run */
} pkg;

enum pkg_skip_reason {
	SKIP_FORMAT,      /* not a Debian package */
	SKIP_UDEB,        /* an installer package */
	SKIP_DEBUG,       /* a -dbgsym or -ehelf package */
	SKIP_UNFINISHED,  /* ehelf-batch did not finish reading it */
	SKIP_NO_EHELF,    /* no file with an eh_elf */
	SKIP_COUNT
};

typedef struct pkg_set {
	pkg *pkgs;           /* sorted by name, version, architecture */
	size_t n;
	pkg_elf *elfs;       /* sorted by build-ID */
	size_t n_elfs;
	unsigned skipped[SKIP_COUNT];  /* database rows left out, by reason */
} pkg_set;

/* A sentence for REASON ("not Debian packages (rpm, arch, dir, ...)"). */
const char *pkg_skip_reason_str(enum pkg_skip_reason reason);

/* Load the packages of the database at PATH into SET (zeroed first).
 * Returns 0, ERR_IO (cannot open or read; not an ehelf database),
 * ERR_UNSUPPORTED (another schema version) or ERR_NOMEM. */
int pkg_db_load(pkg_set *set, const char *path, ehelf_err *err);
void pkg_set_free(pkg_set *set);

/* Remove the packages left without eh_elfs (counted as SKIP_NO_EHELF). */
void pkg_set_drop_empty(pkg_set *set);

#endif
