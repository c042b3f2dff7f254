/* repo.c - see repo.h. */
#include "repo.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"

struct repo {
	int dirfd;
};

int repo_open(repo **out, const char *root, ehelf_err *err)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, errno == ENOENT ? ERR_NOTFOUND : ERR_IO,
			       "--repo %s: %s", root, strerror(errno));
	repo *r = malloc(sizeof *r);
	if (!r) {
		close(fd);
		return err_set(err, ERR_NOMEM, "out of memory");
	}
	r->dirfd = fd;
	*out = r;
	return 0;
}

void repo_close(repo *r)
{
	if (!r)
		return;
	close(r->dirfd);
	free(r);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static const char *content_type(const char *rel)
{
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	if (ends_with(base, ".deb"))
		return "application/vnd.debian.binary-package";
	if (ends_with(base, ".xz"))
		return "application/x-xz";
	if (ends_with(base, ".gz"))
		return "application/gzip";
	if (ends_with(base, ".gpg"))
		return "application/pgp-signature";
	if (!strcmp(base, "Release") || !strcmp(base, "InRelease") ||
	    !strcmp(base, "Packages"))
		return "text/plain; charset=utf-8";
	return "application/octet-stream";
}

int repo_file_open(repo *r, const char *rel, repo_file *f, ehelf_err *err)
{
	f->fd = open_beneath(r->dirfd, rel);
	if (f->fd < 0)
		return err_set(err, errno == ENOENT || errno == ELOOP ||
			       errno == ENOTDIR || errno == EXDEV ? ERR_NOTFOUND
			       : ERR_IO, "%s: %s", rel, strerror(errno));
	struct stat st;
	if (fstat(f->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(f->fd);
		f->fd = -1;
		return err_set(err, ERR_NOTFOUND, "%s: not a file", rel);
	}
	f->size = (uint64_t)st.st_size;
	f->mtime = st.st_mtim.tv_sec;
	snprintf(f->etag, sizeof f->etag, "W/\"%" PRIx64 "-%" PRIx64 "\"",
		 (uint64_t)st.st_mtim.tv_sec, (uint64_t)st.st_size);
	f->type = content_type(rel);
	f->immutable = !strncmp(rel, "pool/", 5);
	return 0;
}
