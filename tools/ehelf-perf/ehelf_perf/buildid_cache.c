/* buildid_cache.c - see buildid_cache.h. */
#define _GNU_SOURCE
#include "buildid_cache.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../../common/buildid.h"

/* Trim S in place (leading and trailing blanks); returns the start. */
static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* buildid.dir from perf's configuration file PATH (git-config syntax:
 * "[buildid]" then "dir = PATH"), into OUT (CAP bytes) if set there. */
static void config_dir(const char *path, char *out, size_t cap)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char line[4096];
	bool in_buildid = false;
	while (fgets(line, sizeof line, f)) {
		char *s = trim(line);
		if (*s == '#' || *s == ';' || !*s)
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');
			if (end)
				*end = '\0';
			in_buildid = !strcasecmp(trim(s + 1), "buildid");
			continue;
		}
		char *eq = strchr(s, '=');
		if (!in_buildid || !eq)
			continue;
		*eq = '\0';
		if (strcasecmp(trim(s), "dir"))
			continue;
		char *v = trim(eq + 1);
		size_t n = strlen(v);
		if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
			v[n - 1] = '\0';
			v++;
		}
		if (*v)
			snprintf(out, cap, "%s", v);
	}
	fclose(f);
}

/* perf's build-ID cache directory into OUT (CAP bytes): $PERF_BUILDID_DIR
 * (set by perf for the commands it runs), else buildid.dir of
 * /etc/perfconfig then ~/.perfconfig (the later wins), else ~/.debug.
 * False when there is none. */
static bool cache_root(char *out, size_t cap)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	if (env && *env)
		return snprintf(out, cap, "%s", env) < (int)cap;
	out[0] = '\0';
	config_dir("/etc/perfconfig", out, cap);
	if (home && *home) {
		char user[4096];
		if (snprintf(user, sizeof user, "%s/.perfconfig", home) < (int)sizeof user)
			config_dir(user, out, cap);
		if (!out[0])
			snprintf(out, cap, "%s/.debug", home);
	}
	return out[0] != '\0';
}

/* The hex of ID (LEN bytes) and the cache's root into HEX and ROOT. */
static bool id_and_root(const uint8_t *id, size_t len,
			char hex[BUILDID_HEX_MAX + 1], char root[4096])
{
	return buildid_to_hex(id, len, hex, BUILDID_HEX_MAX + 1) > 0 &&
	       cache_root(root, 4096);
}

int buildid_cache_path(const char *name, const char *file, const uint8_t *id,
		       size_t len, char *buf, size_t cap)
{
	char hex[BUILDID_HEX_MAX + 1], root[4096];
	if (!id_and_root(id, len, hex, root))
		return -1;
	int n = snprintf(buf, cap, "%s/%s/%s/%s", root, name, hex, file);
	return n >= 0 && (size_t)n < cap ? 0 : -1;
}

int buildid_cache_file(const uint8_t *id, size_t len, const char *file,
		       char *buf, size_t cap)
{
	char hex[BUILDID_HEX_MAX + 1], root[4096];
	if (!id_and_root(id, len, hex, root))
		return -1;
	int n = snprintf(buf, cap, "%s/.build-id/%.2s/%s/%s", root, hex, hex + 2,
			 file);
	return n >= 0 && (size_t)n < cap ? 0 : -1;
}
