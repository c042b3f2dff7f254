/* fetch_cache.c - see fetch_cache.h. */
#define _GNU_SOURCE
#include "fetch_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/atomic_file.h"
#include "../common/buildid.h"

/* Temporaries and lone signatures older than this were left by a writer
 * that was killed: a live one takes milliseconds. */
#define STALE_SECONDS 3600

static const char *const param_names[] = {
	"cache_miss_s", "cache_clean_interval_s", "max_unused_age_s",
};

/* CACHE/NAME into OUT (4096 bytes); -1 if it does not fit. */
static int cache_file(const fetch_config *c, const char *name, char *out)
{
	int n = snprintf(out, 4096, "%s/%s", c->cache, name);
	return n < 0 || n >= 4096 ? -1 : 0;
}

/* HEX's eh_elf path with SUFFIX ("", ".sig", ".miss") into OUT (4096
 * bytes); -1 if HEX is invalid or the path does not fit. */
static int entry_file(const fetch_config *c, const char *hex,
		      const char *suffix, char *out)
{
	int n = buildid_store_path(c->cache, hex, out, 4096);
	if (n < 0 || (size_t)n + strlen(suffix) >= 4096)
		return -1;
	strcpy(out + n, suffix);
	return 0;
}

int fetch_cache_path(const fetch_config *c, const char *hex, char *out,
		     size_t n)
{
	return c->cache[0] && buildid_store_path(c->cache, hex, out, n) >= 0
	       ? 0 : -1;
}

void fetch_cache_params(fetch_config *c)
{
	double *v[] = { &c->cache_miss_s, &c->clean_interval_s,
			&c->max_unused_age_s };
	static const double def[] = { CACHE_MISS_S_DEFAULT,
				      CACHE_CLEAN_INTERVAL_S_DEFAULT,
				      MAX_UNUSED_AGE_S_DEFAULT };
	for (int i = 0; i < 3; i++) {
		*v[i] = def[i];
		char path[4096], line[64];
		FILE *f;
		if (!c->cache[0] || cache_file(c, param_names[i], path) < 0 ||
		    !(f = fopen(path, "re")))
			continue;
		char *end;
		if (fgets(line, sizeof line, f)) {
			double x = strtod(line, &end);
			if (end != line && x >= 0)
				*v[i] = x;
		}
		fclose(f);
	}
}

cache_state fetch_cache_lookup(const fetch_config *c, const char *hex,
			       bool *refused, char *why, size_t whylen)
{
	char path[4096];
	struct stat st;
	*refused = false;
	if (!c->cache[0] || entry_file(c, hex, "", path) < 0)
		return CACHE_ABSENT;
	if (lstat(path, &st) == 0)
		return CACHE_PRESENT;
	strcat(path, ".miss");
	if (lstat(path, &st) != 0)
		return CACHE_ABSENT;
	if (c->cache_miss_s <= 0 ||
	    difftime(time(NULL), st.st_mtime) >= c->cache_miss_s) {
		unlink(path); /* expired: ask again */
		return CACHE_ABSENT;
	}
	FILE *f = fopen(path, "re");
	char line[512] = "";
	if (f) {
		if (!fgets(line, sizeof line, f))
			line[0] = '\0';
		fclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
	*refused = !strncmp(line, "refused", 7);
	snprintf(why, whylen, "%s", line[0] ? line : "not found");
	return CACHE_MISS;
}

/* mkdir -p PATH's directory (or PATH itself when WHOLE), mode 0700. */
static int make_dirs(const char *path, bool whole, ehelf_err *err)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	if (!whole) {
		char *slash = strrchr(buf, '/');
		if (!slash || slash == buf)
			return 0;
		*slash = '\0';
	}
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char ch = *p;
		*p = '\0';
		if (mkdir(buf, 0700) != 0 && errno != EEXIST)
			return err_set(err, ERR_IO, "%s: cannot create: %s", buf,
				       strerror(errno));
		*p = ch;
		if (!ch)
			return 0;
	}
}

int fetch_cache_store(const fetch_config *c, const char *hex,
		      const void *img, size_t len, const char *sig,
		      size_t siglen, ehelf_err *err)
{
	char path[4096], sigpath[4096], miss[4096];
	if (!c->cache[0] || entry_file(c, hex, "", path) < 0 ||
	    entry_file(c, hex, ".sig", sigpath) < 0 ||
	    entry_file(c, hex, ".miss", miss) < 0)
		return err_set(err, ERR_IO, "%s: no cache path for it", hex);
	int rc = make_dirs(path, false, err);
	/* the signature first: an eh_elf visible in the cache has its own
	 * beside it (an unsigned one, allowed for development, none) */
	if (rc == 0 && sig)
		rc = atomic_write_cache(sigpath, sig, siglen, 0400, err);
	else if (rc == 0)
		unlink(sigpath);
	if (rc == 0)
		rc = atomic_write_cache(path, img, len, 0400, err);
	if (rc == 0)
		unlink(miss);
	return rc;
}

int fetch_cache_miss(const fetch_config *c, const char *hex, bool refused,
		     const char *why, ehelf_err *err)
{
	char path[4096], line[512];
	if (!c->cache[0] || entry_file(c, hex, ".miss", path) < 0)
		return err_set(err, ERR_IO, "%s: no cache path for it", hex);
	int n = snprintf(line, sizeof line, "%s: %s\n",
			 refused ? "refused" : "not found", why);
	if (n < 0 || (size_t)n >= sizeof line) { /* cut, still one line */
		n = (int)sizeof line - 1;
		line[n - 1] = '\n';
	}
	int rc = make_dirs(path, false, err);
	return rc ? rc : atomic_write_cache(path, line, (size_t)n, 0400, err);
}

void fetch_cache_evict(const fetch_config *c, const char *hex)
{
	char path[4096];
	if (!c->cache[0] || entry_file(c, hex, "", path) < 0)
		return;
	unlink(path);
	strcat(path, ".sig");
	unlink(path);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* Clean one CACHE/.build-id/XX directory D (see fetch_cache_prepare). */
static void clean_dir(const fetch_config *c, int d, time_t now)
{
	DIR *dir = fdopendir(d);
	if (!dir) {
		close(d);
		return;
	}
	struct dirent *e;
	while ((e = readdir(dir))) {
		struct stat st;
		const char *n = e->d_name;
		if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
			continue;
		if (fstatat(d, n, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		double mage = difftime(now, st.st_mtime);
		bool old = false;
		if (!strncmp(n, ".tmp-", 5)) {
			old = mage > STALE_SECONDS;
		} else if (ends_with(n, ".so")) {
			old = difftime(now, st.st_atime) >= c->max_unused_age_s &&
			      mage >= c->max_unused_age_s;
			if (old) { /* its signature with it */
				char sig[512];
				snprintf(sig, sizeof sig, "%s.sig", n);
				unlinkat(d, sig, 0);
			}
		} else if (ends_with(n, ".so.miss")) {
			old = mage >= c->cache_miss_s;
		} else if (ends_with(n, ".so.sig")) { /* alone: a killed writer's */
			char so[512];
			snprintf(so, sizeof so, "%.*s", (int)(strlen(n) - 4), n);
			old = mage > STALE_SECONDS &&
			      faccessat(d, so, F_OK, AT_SYMLINK_NOFOLLOW) != 0;
		}
		if (old)
			unlinkat(d, n, 0);
	}
	closedir(dir);
}

/* Clean the cache now (see fetch_cache_prepare). */
static void clean(const fetch_config *c)
{
	char root[4096];
	if (cache_file(c, ".build-id", root) < 0)
		return;
	DIR *dir = opendir(root);
	if (!dir)
		return;
	time_t now = time(NULL);
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (strlen(e->d_name) != 2)
			continue;
		int d = openat(dirfd(dir), e->d_name,
			       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d < 0)
			continue;
		clean_dir(c, d, now);
		unlinkat(dirfd(dir), e->d_name, AT_REMOVEDIR); /* if empty */
	}
	closedir(dir);
}

int fetch_cache_prepare(const fetch_config *c, ehelf_err *err)
{
	if (!c->cache[0])
		return err_set(err, ERR_IO, "no cache directory: set "
			       "EHELF_CACHE_PATH, XDG_CACHE_HOME or HOME");
	int rc = make_dirs(c->cache, true, err);
	if (rc < 0)
		return rc;
	const double v[] = { c->cache_miss_s, c->clean_interval_s,
			     c->max_unused_age_s };
	char path[4096];
	for (int i = 0; i < 3; i++) {
		char line[64];
		struct stat st;
		if (cache_file(c, param_names[i], path) < 0 || lstat(path, &st) == 0)
			continue;
		int n = snprintf(line, sizeof line, "%.0f\n", v[i]);
		atomic_write_cache(path, line, (size_t)n, 0644, NULL);
	}
	/* the interval file's mtime is the last cleaning (as libdebuginfod) */
	struct stat st;
	/* (an interval of 0 cleans every time: a file's mtime may be a second
	 * ahead of time(), whose clock is coarser than the file system's) */
	if (cache_file(c, "cache_clean_interval_s", path) < 0 ||
	    stat(path, &st) != 0 ||
	    (c->clean_interval_s > 0 &&
	     difftime(time(NULL), st.st_mtime) < c->clean_interval_s))
		return 0;
	clean(c);
	utimensat(AT_FDCWD, path, NULL, 0);
	return 0;
}
