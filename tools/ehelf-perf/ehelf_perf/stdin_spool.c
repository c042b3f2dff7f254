/* stdin_spool.c - see stdin_spool.h. */
#define _GNU_SOURCE
#include "stdin_spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An unnamed file in DIR, or -1. */
static int temp_file(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd;
	char path[4096]; /* no O_TMPFILE there: a named one, removed at once */
	if (snprintf(path, sizeof path, "%s/ehelf-perf-XXXXXX", dir) >= (int)sizeof path)
		return -1;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

int stdin_spool(ehelf_err *err)
{
	if (lseek(0, 0, SEEK_CUR) >= 0)
		return 0;
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = temp_file(dir);
	if (fd < 0)
		return err_set(err, ERR_IO, "%s: temporary file for standard "
			       "input: %s", dir, strerror(errno));
	static char buf[1 << 16];
	for (;;) {
		ssize_t k = read(0, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			err_set(err, ERR_IO, "standard input: read: %s", strerror(errno));
			break;
		}
		if (k == 0) {
			if (lseek(fd, 0, SEEK_SET) == 0 && dup2(fd, 0) == 0) {
				close(fd);
				return 0;
			}
			err_set(err, ERR_IO, "standard input: %s", strerror(errno));
			break;
		}
		for (ssize_t done = 0; done < k;) {
			ssize_t w = write(fd, buf + done, (size_t)(k - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				close(fd);
				return err_set(err, ERR_IO, "%s: writing standard "
					       "input there: %s", dir, strerror(errno));
			}
			done += w;
		}
	}
	close(fd);
	return err->code;
}
