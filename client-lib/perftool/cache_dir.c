/* cache_dir.c - see cache_dir.h. */
#include "cache_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	return 0;
}
