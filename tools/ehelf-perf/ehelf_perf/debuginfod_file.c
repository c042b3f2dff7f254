/* debuginfod_file.c - see debuginfod_file.h. */
#include "debuginfod_file.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* libdebuginfod is loaded when a session begins, not with the program:
 * it brings libcurl and some thirty libraries of its own, whose loading
 * and relocation took some 4 ms of every run of ehelf-perf (as much as
 * unwinding 10,000 samples) */
struct dinfod {
	debuginfod_client *client;
	void (*end)(debuginfod_client *);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int,
			       char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int,
			      char **);
};

dinfod *dinfod_new(char *why, size_t cap)
{
	if (cap)
		why[0] = '\0';
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !*urls)
		return NULL;
	static void *lib;
	if (!lib && !(lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL))) {
		const char *e = dlerror();
		snprintf(why, cap, "%s", e ? e : "libdebuginfod.so.1 not loaded");
		return NULL;
	}
	debuginfod_client *(*begin)(void) =
		(debuginfod_client *(*)(void))dlsym(lib, "debuginfod_begin");
	dinfod *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(why, cap, "out of memory");
		return NULL;
	}
	*(void **)&c->end = dlsym(lib, "debuginfod_end");
	*(void **)&c->find_executable = dlsym(lib, "debuginfod_find_executable");
	*(void **)&c->find_debuginfo = dlsym(lib, "debuginfod_find_debuginfo");
	if (!begin || !c->end || !c->find_executable || !c->find_debuginfo) {
		snprintf(why, cap, "libdebuginfod.so.1 lacks debuginfod_begin, "
			 "_end or _find_*");
		free(c);
		return NULL;
	}
	if (!(c->client = begin())) {
		snprintf(why, cap, "debuginfod_begin failed");
		free(c);
		return NULL;
	}
	return c;
}

void dinfod_free(dinfod *c)
{
	if (!c)
		return;
	c->end(c->client);
	free(c);
}

int dinfod_find(dinfod *c, dinfod_kind kind, const uint8_t *id, size_t len,
		char *buf, size_t cap)
{
	if (!c || !len || len > 64)
		return -1;
	char *path = NULL;
	int fd = kind == DINFOD_EXECUTABLE
		       ? c->find_executable(c->client, id, (int)len, &path)
		       : c->find_debuginfo(c->client, id, (int)len, &path);
	if (fd < 0)
		return -1;
	close(fd);
	int n = path ? snprintf(buf, cap, "%s", path) : -1;
	free(path);
	return n >= 0 && (size_t)n < cap ? 0 : -1;
}
