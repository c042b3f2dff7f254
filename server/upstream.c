/* upstream.c - see upstream.h. */
#include "upstream.h"

#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int progress(debuginfod_client *c, long done, long total)
{
	(void)done;
	(void)total;
	const volatile int *cancel = debuginfod_get_user_data(c);
	return cancel && *cancel ? 1 : 0;
}

int upstream_fetch(const char *hex, bool debuginfo, char **path,
		   const volatile int *cancel, metrics *m, ehelf_err *err)
{
	*path = NULL;
	upstream_artifact a = debuginfo ? UP_DEBUGINFO : UP_EXECUTABLE;
	const char *what = debuginfo ? "debuginfo" : "executable";
	debuginfod_client *c = debuginfod_begin();
	if (!c) {
		metrics_upstream(m, a, UP_ERROR);
		return err_set(err, ERR_IO, "cannot start a debuginfod client");
	}
	debuginfod_set_user_data(c, (void *)cancel);
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
	if (fd == -ENOENT) {
		metrics_upstream(m, a, UP_NOT_FOUND);
		return err_set(err, ERR_NOTFOUND, "no upstream server has the %s "
			       "of %s", what, hex);
	}
	metrics_upstream(m, a, UP_ERROR);
	return err_set(err, ERR_IO, "fetching the %s of %s from upstream: %s",
		       what, hex, strerror(-fd));
}
