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

/* Flush the directory of PATH, so that a rename into it survives a
 * crash. */
static int sync_dir_of(const char *path, ehelf_err *err)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	int n = slash ? snprintf(dir, sizeof dir, "%.*s", slash == path ? 1
				 : (int)(slash - path), path)
		      : snprintf(dir, sizeof dir, ".");
	if (n < 0 || (size_t)n >= sizeof dir)
		return err_set(err, ERR_IO, "%s: path too long", path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, ERR_IO, "%s: cannot open to flush: %s", dir,
			       strerror(errno));
	int rc = fsync(fd) < 0 && errno != EINVAL
		 ? err_set(err, ERR_IO, "%s: cannot flush: %s", dir,
			   strerror(errno)) : 0;
	close(fd);
	return rc;
}

/* LEN bytes into a new temporary file in TMPDIR (or beside PATH), mode
 * MODE, flushed when DURABLE; its name into TMP (N bytes). */
static int write_tmp(const char *path, const char *tmpdir, const void *data,
		     size_t len, unsigned mode, bool durable, char *tmp,
		     size_t tmpn, ehelf_err *err)
{
	int n;
	if (tmpdir) {
		n = snprintf(tmp, tmpn, "%s/.tmp-XXXXXX", tmpdir);
	} else {
		const char *slash = strrchr(path, '/');
		int dirlen = slash ? (int)(slash - path) : 1;
		n = snprintf(tmp, tmpn, "%.*s/.tmp-XXXXXX", dirlen,
			     slash ? path : ".");
	}
	if (n < 0 || (size_t)n >= tmpn)
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
	if (close(fd) < 0) {
		int e = errno;
		unlink(tmp);
		return err_set(err, ERR_IO, "%s: write failed: %s", path,
			       strerror(e));
	}
	return 0;
}

/* Rename TMP over PATH (TMP removed on failure); then, when DURABLE,
 * flush PATH's directory. */
static int put_in_place(const char *tmp, const char *path, bool durable,
			ehelf_err *err)
{
	if (rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		return err_set(err, ERR_IO, "%s: cannot put it in place: %s",
			       path, strerror(e));
	}
	return durable ? sync_dir_of(path, err) : 0;
}

static int write_renamed(const char *path, const char *tmpdir,
			 const void *data, size_t len, unsigned mode,
			 bool durable, ehelf_err *err)
{
	char tmp[4096];
	int rc = write_tmp(path, tmpdir, data, len, mode, durable, tmp,
			   sizeof tmp, err);
	return rc < 0 ? rc : put_in_place(tmp, path, durable, err);
}

int atomic_prepare(const char *path, const char *tmpdir, const void *data,
		   size_t len, char *tmp, size_t tmpn, ehelf_err *err)
{
	return write_tmp(path, tmpdir, data, len, 0644, true, tmp, tmpn, err);
}

int atomic_commit(const char *tmp, const char *path, ehelf_err *err)
{
	return put_in_place(tmp, path, true, err);
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
