/* symbol_view.c - see symbol_view.h. */
#define _GNU_SOURCE
#include "symbol_view.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../../common/buildid.h"
#include "cache_dir.h"

/* LINK made a symbolic link to TARGET, replaced atomically if it is
 * another one (a concurrent run makes the same). */
static bool link_to(const char *target, const char *link)
{
	char have[4096];
	ssize_t n = readlink(link, have, sizeof have - 1);
	if (n >= 0 && (have[n] = '\0', !strcmp(have, target)))
		return true;
	char tmp[4200];
	const char *slash = strrchr(link, '/');
	int k = snprintf(tmp, sizeof tmp, "%.*s/.tmp-%ld-%s", (int)(slash - link),
			 link, (long)getpid(), slash + 1);
	if (k < 0 || (size_t)k >= sizeof tmp)
		return false;
	unlink(tmp);
	if (symlink(target, tmp) != 0)
		return false;
	if (rename(tmp, link) != 0) {
		unlink(tmp);
		return false;
	}
	return true;
}

/* "A/B" into BUF (CAP bytes); false when it does not fit. */
static bool join(char *buf, size_t cap, const char *a, const char *b)
{
	int n = snprintf(buf, cap, "%s/%s", a, b);
	return n >= 0 && (size_t)n < cap;
}

int symbol_view(const char *hex, const char *elf, const char *debug,
		char *buf, size_t cap)
{
	char dir[4096], base[4096], dbg[4096], link[4096];
	char elf_abs[PATH_MAX], debug_abs[PATH_MAX]; /* links hold absolute paths */
	if (!buildid_valid_hex(hex) || !realpath(elf, elf_abs) ||
	    !realpath(debug, debug_abs) ||
	    cache_dir("files", dir, sizeof dir) != 0 ||
	    !join(base, sizeof base, dir, hex) ||
	    !join(dbg, sizeof dbg, base, ".debug") ||
	    (mkdir(base, 0700) != 0 && errno != EEXIST) ||
	    (mkdir(dbg, 0700) != 0 && errno != EEXIST) ||
	    !join(link, sizeof link, dbg, "elf") || !link_to(debug_abs, link) ||
	    !join(link, sizeof link, base, "elf") || !link_to(elf_abs, link) ||
	    !join(buf, cap, base, "elf"))
		return -1;
	return 0;
}
