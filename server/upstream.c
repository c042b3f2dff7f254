/* upstream.c - see upstream.h. */
#define _GNU_SOURCE
#include "upstream.h"

#include <dirent.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/buildid.h"

typedef struct progress_state {
	const upstream_limits *l;
	upstream_failure why;       /* set when the progress function aborts */
	bool aborted;
} progress_state;

/* libdebuginfod calls it about once a second while a query runs, with
 * DONE the bytes received once it has picked a server (before that, a
 * count of its loops, far below any size limit). */
static int progress(debuginfod_client *c, long done, long total)
{
	(void)total;
	progress_state *ps = debuginfod_get_user_data(c);
	const upstream_limits *l = ps->l;
	if (l->cancel && *l->cancel) {
		ps->why = UPSTREAM_FAILED;
	} else if (metrics_now() > l->deadline) {
		ps->why = UPSTREAM_TIMED_OUT;
	} else if (l->max_bytes && done > 0 && (uint64_t)done > l->max_bytes) {
		ps->why = UPSTREAM_TOO_LARGE;
	} else {
		return 0;
	}
	ps->aborted = true;
	return 1;
}

int upstream_fetch(const char *hex, bool debuginfo, char **path,
		   const upstream_limits *l, upstream_failure *why, metrics *m,
		   ehelf_err *err)
{
	*path = NULL;
	*why = UPSTREAM_FAILED;
	upstream_artifact a = debuginfo ? UP_DEBUGINFO : UP_EXECUTABLE;
	const char *what = debuginfo ? "debuginfo" : "executable";
	debuginfod_client *c = debuginfod_begin();
	if (!c) {
		metrics_upstream(m, a, UP_ERROR);
		return err_set(err, ERR_IO, "cannot start a debuginfod client");
	}
	progress_state ps = { .l = l };
	debuginfod_set_user_data(c, &ps);
	debuginfod_set_progressfn(c, progress);
	/* a build-ID length of 0: the ID is given as a hex string */
	const unsigned char *id = (const unsigned char *)hex;
	int fd = debuginfo ? debuginfod_find_debuginfo(c, id, 0, path)
			   : debuginfod_find_executable(c, id, 0, path);
	debuginfod_end(c);
	if (fd >= 0) {
		metrics_upstream(m, a, UP_OK);
		return fd;
	}
	if (fd == -ENOENT && !ps.aborted) {
		metrics_upstream(m, a, UP_NOT_FOUND);
		return err_set(err, ERR_NOTFOUND, "no upstream server has the %s "
			       "of %s", what, hex);
	}
	metrics_upstream(m, a, UP_ERROR);
	if (ps.aborted)
		*why = ps.why;
	else if (fd == -ETIME || fd == -ETIMEDOUT)
		*why = UPSTREAM_TIMED_OUT;
	else if (fd == -EFBIG)
		*why = UPSTREAM_TOO_LARGE;
	if (*why == UPSTREAM_TIMED_OUT)
		return err_set(err, ERR_IO, "fetching the %s of %s from upstream "
			       "timed out", what, hex);
	if (*why == UPSTREAM_TOO_LARGE)
		return err_set(err, ERR_IO, "the %s of %s upstream is larger than "
			       "this server fetches (%llu MiB)", what, hex,
			       (unsigned long long)(l->max_bytes >> 20));
	return err_set(err, ERR_IO, "fetching the %s of %s from upstream: %s",
		       what, hex, strerror(-fd));
}

void upstream_forget(const char *cache, const char *hex)
{
	if (!buildid_valid_hex(hex))
		return;
	int root = open(cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return;
	int dir = openat(root, hex, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir >= 0) {
		DIR *d = fdopendir(dir);
		if (d) {
			/* what this server fetches (executable, debuginfo,
			 * their temporaries and negative marks); a cache shared
			 * with other tools keeps their files, and HEX then */
			struct dirent *e;
			while ((e = readdir(d)) != NULL)
				if (!strncmp(e->d_name, "executable", 10) ||
				    !strncmp(e->d_name, "debuginfo", 9))
					unlinkat(dirfd(d), e->d_name, 0);
			closedir(d);
		} else {
			close(dir);
		}
		unlinkat(root, hex, AT_REMOVEDIR);
	}
	close(root);
}
