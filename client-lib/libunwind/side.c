/* side.c - see side.h. */
#define _GNU_SOURCE
#include "side.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const sonames[] = {
	[SIDE_LOCAL] = "libunwind.so.8",
	[SIDE_GENERIC] = "libunwind-x86_64.so.8",
};

/* where Debian installs them, when the process has not loaded them */
static const char *const dirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64",
	"/usr/lib",
};

static void *handles[2];
static char error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The path of SONAME: the instance this process has loaded, if any, else
 * the first of dirs[] that holds it.  0 or -1. */
static int find_path(const char *soname, char *path, size_t len)
{
	void *h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
	if (h) {
		struct link_map *lm = NULL;
		int rc = dlinfo(h, RTLD_DI_LINKMAP, &lm);
		if (rc == 0 && lm && lm->l_name && lm->l_name[0]) {
			snprintf(path, len, "%s", lm->l_name);
			dlclose(h);
			return 0;
		}
		dlclose(h);
	}
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		snprintf(path, len, "%s/%s", dirs[i], soname);
		if (access(path, R_OK) == 0)
			return 0;
	}
	return -1;
}

/* A private instance of SONAME (see side.h), or NULL with error set.
 * *COPY is the memfd it was loaded from, to close once every instance is
 * loaded: the loader knows an object by its name, /proc/self/fd/N, and a
 * second copy loaded from a reused N would be taken for the first. */
static void *load_copy(const char *soname, int *copy)
{
	char path[4096];
	if (find_path(soname, path, sizeof path) < 0) {
		snprintf(error, sizeof error, "%s not found (install libunwind8)",
			 soname);
		return NULL;
	}
	int in = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (in < 0 || fstat(in, &st) < 0) {
		snprintf(error, sizeof error, "%s: %s", path, strerror(errno));
		if (in >= 0)
			close(in);
		return NULL;
	}
	int fd = memfd_create("ehelf-side-libunwind", MFD_CLOEXEC);
	off_t off = 0;
	ssize_t done = 0;
	while (fd >= 0 && off < st.st_size &&
	       (done = sendfile(fd, in, &off, (size_t)(st.st_size - off))) > 0)
		;
	close(in);
	if (fd < 0 || off != st.st_size) {
		snprintf(error, sizeof error, "copying %s: %s", path,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	void *h = dlopen(self, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
	*copy = fd; /* the mapping keeps the contents once it is closed */
	if (!h)
		snprintf(error, sizeof error, "loading a copy of %s: %s", path,
			 dlerror());
	return h;
}

static void load_once(void)
{
	int copies[2] = { -1, -1 };
	for (int i = 0; i < 2; i++) {
		handles[i] = load_copy(sonames[i], &copies[i]);
		if (!handles[i])
			break;
	}
	for (int i = 0; i < 2; i++)
		if (copies[i] >= 0)
			close(copies[i]);
	if (handles[SIDE_LOCAL] && handles[SIDE_GENERIC])
		error[0] = '\0';
}

int side_load(void)
{
	pthread_once(&once, load_once);
	return handles[SIDE_LOCAL] && handles[SIDE_GENERIC] ? 0 : -1;
}

__attribute__((constructor)) static void side_init(void)
{
	side_load();
}

void *side_sym(side_lib lib, const char *name)
{
	void *h = handles[lib];
	return h ? dlsym(h, name) : NULL;
}

const char *side_error(void)
{
	return error[0] ? error : NULL;
}
