/* debuginfod_file.c - see debuginfod_file.h. */
#include "debuginfod_file.h"

#include <elfutils/debuginfod.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct dinfod {
	debuginfod_client *client;
};

dinfod *dinfod_new(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !*urls)
		return NULL;
	dinfod *c = calloc(1, sizeof *c);
	if (c && !(c->client = debuginfod_begin())) {
		free(c);
		c = NULL;
	}
	return c;
}

void dinfod_free(dinfod *c)
{
	if (!c)
		return;
	debuginfod_end(c->client);
	free(c);
}

int dinfod_find(dinfod *c, dinfod_kind kind, const uint8_t *id, size_t len,
		char *buf, size_t cap)
{
	if (!c || !len || len > 64)
		return -1;
	char *path = NULL;
	int fd = kind == DINFOD_EXECUTABLE
		       ? debuginfod_find_executable(c->client, id, (int)len, &path)
		       : debuginfod_find_debuginfo(c->client, id, (int)len, &path);
	if (fd < 0)
		return -1;
	close(fd);
	int n = path ? snprintf(buf, cap, "%s", path) : -1;
	free(path);
	return n >= 0 && (size_t)n < cap ? 0 : -1;
}
