/* package.c - pkg_open (the reader of a job's format), the reader's
 * operations and pkg_format_name; see package.h. */
#include "package.h"

#include <stdlib.h>

#include "package_archive.h"
#include "package_impl.h"
#include "package_tree.h"

const char *pkg_format_name(pkg_format f)
{
	switch (f) {
	case PKG_DEB: return "deb";
	case PKG_RPM: return "rpm";
	case PKG_ARCH: return "arch";
	case PKG_DIR: return "dir";
	case PKG_INSTALLED: return "installed";
	case PKG_FILE: return "file";
	}
	return "?";
}

int pkg_open(const pkg_job *job, pkg_reader **r, ehelf_err *err)
{
	*r = NULL;
	switch (job->format) {
	case PKG_DEB:
	case PKG_RPM:
	case PKG_ARCH:
		return pkg_open_archive(job, r, err);
	case PKG_DIR:
	case PKG_INSTALLED:
	case PKG_FILE:
		return pkg_open_tree(job, r, err);
	}
	return err_set(err, ERR_ARG, "unknown package format");
}

const pkg_meta *pkg_get_meta(const pkg_reader *r)
{
	return &r->meta;
}

int pkg_next_elf(pkg_reader *r, pkg_member *m, ehelf_err *err)
{
	*m = (pkg_member){ 0 };
	return r->next(r, m, err);
}

void pkg_close(pkg_reader *r)
{
	if (!r)
		return;
	free(r->names[0]);
	free(r->names[1]);
	r->close(r);
}
