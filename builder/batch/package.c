/* package.c - pkg_open/pkg_next_elf/pkg_close and the helpers shared by
 * the readers; see package.h. */
#include "package_impl.h"

#include <stdio.h>
#include <string.h>

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
	return r->next(r, m, err);
}

void pkg_close(pkg_reader *r)
{
	if (r)
		r->close(r);
}

void pkg_normalize_path(const char *in, char *out, size_t n)
{
	while (in[0] == '.' && in[1] == '/')
		in += 2;
	while (in[0] == '/')
		in++;
	snprintf(out, n, "/%s", in);
}

void pkg_set(char *field, size_t n, const char *s)
{
	snprintf(field, n, "%s", s);
}
