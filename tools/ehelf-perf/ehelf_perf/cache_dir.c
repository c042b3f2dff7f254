/* cache_dir.c - see cache_dir.h. */
#include "cache_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Temporary files (".tmp-*", atomic_file.h) older than this were left by
 * a writer that was killed: a live one takes milliseconds. */
#define STALE_TMP_SECONDS 3600

/* Remove the stale temporary files of DIR. */
static void sweep(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	time_t now = time(NULL);
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (strncmp(e->d_name, ".tmp-", 5) == 0 &&
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && now - st.st_mtime > STALE_TMP_SECONDS)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

int cache_dir(const char *sub, char *buf, size_t cap)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n = xdg && *xdg == '/' ? snprintf(buf, cap, "%s/ehelf/%s", xdg, sub)
	      : home && *home ? snprintf(buf, cap, "%s/.cache/ehelf/%s", home, sub)
	      : -1;
	if (n < 0 || (size_t)n >= cap)
		return -1;
	/* mkdir -p, private: the parents as well as the directory itself */
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		int rc = mkdir(buf, 0700);
		*p = c;
		if (rc != 0 && errno != EEXIST)
			return -1;
		if (c == '\0')
			break;
	}
	/* ours alone, or not used: what is saved there is read back as is
	 * (kernel addresses among it) */
	struct stat st;
	if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022))
		return -1;
	/* once per directory and process: what killed writers left */
	static char swept[4][16];
	for (size_t i = 0; i < sizeof swept / sizeof swept[0]; i++) {
		if (!strcmp(swept[i], sub))
			break;
		if (!swept[i][0]) {
			snprintf(swept[i], sizeof swept[i], "%s", sub);
			sweep(buf);
			break;
		}
	}
	return 0;
}
