/* beneath.c - see beneath.h. */
#define _GNU_SOURCE
#include "beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Without openat2: one component at a time, each refusing symlinks. */
static int open_by_components(int dirfd, const char *rel)
{
	char buf[4096];
	if (strlen(rel) >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(buf, rel);
	int dir = dirfd;
	char *save = NULL;
	char *part = strtok_r(buf, "/", &save);
	while (part) {
		char *next = strtok_r(NULL, "/", &save);
		if (!strcmp(part, "..") || !strcmp(part, ".")) {
			errno = EXDEV;
			goto fail;
		}
		int fd = openat(dir, part, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
				(next ? O_DIRECTORY : O_NONBLOCK));
		if (dir != dirfd) {
			int e = errno;
			close(dir);
			errno = e;
		}
		if (fd < 0 || !next)
			return fd;
		dir = fd;
		part = next;
	}
	errno = ENOENT;
fail:
	if (dir != dirfd)
		close(dir);
	return -1;
}

int open_beneath(int dirfd, const char *rel)
{
	static int no_openat2;
	if (!__atomic_load_n(&no_openat2, __ATOMIC_RELAXED)) {
		struct open_how how = {
			.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
				   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
		};
		long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
		if (fd >= 0 || errno != ENOSYS)
			return (int)fd;
		__atomic_store_n(&no_openat2, 1, __ATOMIC_RELAXED);
	}
	return open_by_components(dirfd, rel);
}
