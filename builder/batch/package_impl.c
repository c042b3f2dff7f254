/* package_impl.c - what the package readers share (see package_impl.h):
 * small helpers. */
#include "package_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void pkg_normalize_path(const char *in, char *out, size_t n)
{
	while (in[0] == '.' && in[1] == '/')
		in += 2;
	while (in[0] == '/')
		in++;
	snprintf(out, n, "/%s", in);
}

int pkg_member_name(pkg_reader *r, int which, const char *in,
		    const char **out, ehelf_err *err)
{
	size_t need = strlen(in) + 2;
	if (need > r->names_cap[which]) {
		char *b = realloc(r->names[which], need);
		if (!b)
			return err_set(err, ERR_NOMEM, "out of memory");
		r->names[which] = b;
		r->names_cap[which] = need;
	}
	pkg_normalize_path(in, r->names[which], r->names_cap[which]);
	*out = r->names[which];
	return 0;
}

void pkg_set(char *field, size_t n, const char *s)
{
	snprintf(field, n, "%s", s);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

int pkg_format_of_name(const char *name)
{
	if (ends_with(name, ".deb") || ends_with(name, ".ddeb") ||
	    ends_with(name, ".udeb"))
		return PKG_DEB;
	if (ends_with(name, ".rpm"))
		return PKG_RPM;
	if (ends_with(name, ".pkg.tar.zst") || ends_with(name, ".pkg.tar.xz"))
		return PKG_ARCH;
	return -1;
}

bool pkg_is_package_name(const char *name)
{
	return pkg_format_of_name(name) >= 0;
}

int pkg_probe_elf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 4)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	char magic[4];
	ssize_t n = read(fd, magic, 4);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	return n == 4 && memcmp(magic, "\177ELF", 4) == 0;
}

bool pkg_is_elf_file(const char *path)
{
	return pkg_probe_elf(path) == 1;
}
