/* atomic_file.c - see atomic_file.h. */
#define _GNU_SOURCE /* mkostemp */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int atomic_write(const char *path, const char *tmpdir, const void *data,
		 size_t len, ehelf_err *err)
{
	return atomic_write_mode(path, tmpdir, data, len, 0644, err);
}

static int write_renamed(const char *path, const char *tmpdir,
			 const void *data, size_t len, unsigned mode,
			 bool durable, ehelf_err *err)
{
	char tmp[4096];
	int n;
	if (tmpdir) {
		n = snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", tmpdir);
	} else {
		const char *slash = strrchr(path, '/');
		int dirlen = slash ? (int)(slash - path) : 1;
		n = snprintf(tmp, sizeof tmp, "%.*s/.tmp-XXXXXX", dirlen,
			     slash ? path : ".");
	}
	if (n < 0 || (size_t)n >= sizeof tmp)
		return err_set(err, ERR_IO, "%s: path too long", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return err_set(err, ERR_IO, "%s: cannot create a temporary file "
			       "for it: %s", path, strerror(errno));
	const unsigned char *p = data;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : ENOSPC;
			close(fd);
			unlink(tmp);
			return err_set(err, ERR_IO, "%s: write failed: %s", path,
				       strerror(e));
		}
		p += w;
		left -= (size_t)w;
	}
	if (fchmod(fd, (mode_t)mode) < 0 || (durable && fsync(fd) < 0)) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return err_set(err, ERR_IO, "%s: %s", path, strerror(e));
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		return err_set(err, ERR_IO, "%s: cannot put it in place: %s",
			       path, strerror(e));
	}
	return 0;
}

int atomic_write_mode(const char *path, const char *tmpdir, const void *data,
		      size_t len, unsigned mode, ehelf_err *err)
{
	return write_renamed(path, tmpdir, data, len, mode, true, err);
}

int atomic_write_cache(const char *path, const void *data, size_t len,
		       unsigned mode, ehelf_err *err)
{
	return write_renamed(path, NULL, data, len, mode, false, err);
}
