/* pkg_fs.c - see pkg_fs.h. */
#define _GNU_SOURCE
#include "pkg_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pkg_mkdirs(const char *path)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/* Walk NAME in DIRFD, whose path below the root is REL (PATH_MAX bytes,
 * extended in place and restored). */
static int walk_at(int dirfd, const char *name, char *rel, pkg_walk_fn fn,
		   void *arg)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR || errno == ELOOP
		       ? fn(arg, dirfd, name, rel, false)
		       : errno == ENOENT ? 0 : -1;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	size_t len = strlen(rel);
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(rel + len, PATH_MAX - len, "%s%s", len ? "/" : "",
			     e->d_name) >= (int)(PATH_MAX - len)) {
			errno = ENAMETOOLONG;
			rc = -1;
		} else if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN) {
			rc = walk_at(fd, e->d_name, rel, fn, arg);
		} else {
			rc = fn(arg, fd, e->d_name, rel, false);
		}
		rel[len] = '\0';
	}
	closedir(d);
	return rc ? rc : fn(arg, dirfd, name, rel, true);
}

int pkg_walk(const char *root, pkg_walk_fn fn, void *arg)
{
	char rel[PATH_MAX] = "";
	return walk_at(AT_FDCWD, root, rel, fn, arg);
}

static int remove_one(void *arg, int dirfd, const char *name, const char *rel,
		      bool is_dir)
{
	(void)arg;
	(void)rel;
	return unlinkat(dirfd, name, is_dir ? AT_REMOVEDIR : 0) < 0 &&
	       errno != ENOENT ? -1 : 0;
}

int pkg_rm_tree(const char *path)
{
	return pkg_walk(path, remove_one, NULL);
}
