/*
 * fetch_cache.c - see fetch_cache.h.
 *
 * Component by component with openat(O_NOFOLLOW) rather than openat2's
 * RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS: every name below the cache is one
 * the cache itself chose (".build-id", two hex digits, a hex file name),
 * so walking them one descriptor at a time is the same guarantee, on
 * every kernel (openat2 needs 5.6, and seccomp filters often refuse it).
 */
#define _GNU_SOURCE
#include "fetch_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/buildid.h"
#include "../store/layout.h"

/* Temporaries and lone signatures older than this were left by a writer
 * that was killed: a live one takes milliseconds. */
#define STALE_SECONDS 3600
/* A file's mtime may lead time() by up to a second (time()'s clock is
 * coarser than the file system's); beyond this, it is dated in the
 * future. */
#define CLOCK_SLACK_S 2

static const char *const param_names[] = {
	"cache_miss_s", "cache_clean_interval_s", "max_unused_age_s",
};

int fetch_cache_path(const fetch_config *c, const char *hex, char *out,
		     size_t n)
{
	return c->cache[0] && store_layout_path(c->cache, hex, out, n) >= 0
	       ? 0 : -1;
}

/* ---- what belongs to the cache ---------------------------------------------- */

/* Why the directory ST is not the cache's own (BUF, N bytes), or NULL. */
static const char *foreign_dir(const struct stat *st, char *buf, size_t n)
{
	if (!S_ISDIR(st->st_mode))
		return "not a directory";
	if (st->st_uid != geteuid()) {
		snprintf(buf, n, "owned by uid %u, not by this user (uid %u)",
			 (unsigned)st->st_uid, (unsigned)geteuid());
		return buf;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(buf, n, "writable by %s (mode %04o; chmod go-w makes it "
			 "private)", st->st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(st->st_mode & 07777));
		return buf;
	}
	return NULL;
}

/* Is ST a file of the cache's own: regular, the user's (or, ROOT_TOO,
 * root's), writable by nobody else? */
static bool own_file(const struct stat *st, bool root_too)
{
	return S_ISREG(st->st_mode) &&
	       (st->st_uid == geteuid() || (root_too && st->st_uid == 0)) &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* A name in a directory of the cache for a temporary of BASE into OUT. */
static void tmp_name(char *out, size_t n, const char *base)
{
	static atomic_uint seq;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(out, n, ".tmp-%.140s.%d.%u.%lx", base, (int)getpid(),
		 atomic_fetch_add(&seq, 1), (unsigned long)ts.tv_nsec);
}

/* Remove NAME of D, which is not the cache's own: a directory is moved
 * aside (a ".tmp-" name, cleaned as temporaries are), anything else
 * unlinked (a link itself, never its target).  Returns 0 or -1. */
static int put_aside(int d, const char *name)
{
	struct stat st;
	if (fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(d, name, 0) == 0 || errno == ENOENT ? 0 : -1;
	char aside[192];
	tmp_name(aside, sizeof aside, "aside");
	return renameat(d, name, d, aside);
}

/* ---- directories ------------------------------------------------------------ */

/* mkdir -p PATH's parents (outside the cache: $XDG_CACHE_HOME, ...). */
static int make_parents(const char *path, ehelf_err *err)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	char *last = strrchr(buf, '/');
	if (!last || last == buf)
		return 0;
	*last = '\0';
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

/* The cache's root, as fetch_cache.h says, created when CREATE.  Returns
 * its descriptor, ERR_NOTFOUND, or ERR_IO with the message. */
static int open_root(const fetch_config *c, bool create, ehelf_err *err)
{
	if (!c->cache[0])
		return err_set(err, ERR_IO, "no cache directory: set "
			       "EHELF_CACHE_PATH, XDG_CACHE_HOME or HOME");
	if (create) {
		int rc = make_parents(c->cache, err);
		if (rc < 0)
			return rc;
		if (mkdir(c->cache, 0700) != 0 && errno != EEXIST)
			return err_set(err, ERR_IO, "%s: cannot create the cache: %s",
				       c->cache, strerror(errno));
	}
	int fd = open(c->cache, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		struct stat st;
		if (e == ENOENT)
			return err_set(err, ERR_NOTFOUND, "%s: no cache", c->cache);
		if (lstat(c->cache, &st) == 0 && S_ISLNK(st.st_mode))
			return err_set(err, ERR_IO, "cache %s: a symbolic link, not "
				       "followed: refused (make it a directory of "
				       "yours, or set EHELF_CACHE_PATH)", c->cache);
		return err_set(err, ERR_IO, "cache %s: %s", c->cache, strerror(e));
	}
	struct stat st;
	char buf[160];
	const char *why = fstat(fd, &st) != 0 ? strerror(errno)
			  : foreign_dir(&st, buf, sizeof buf);
	if (why) {
		close(fd);
		return err_set(err, ERR_IO, "cache %s: %s: refused", c->cache, why);
	}
	return fd;
}

/* The directory NAME of D (SHOWN in messages), the cache's own; created
 * when CREATE, and then what is there in its place and not the cache's
 * own is put aside.  Returns its descriptor, ERR_NOTFOUND (absent, or
 * not the cache's own and not CREATE), or ERR_IO. */
static int open_sub(const fetch_config *c, int d, const char *shown,
		    const char *name, bool create, ehelf_err *err)
{
	for (int attempt = 0; attempt < 4; attempt++) {
		int fd = openat(d, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC);
		struct stat st;
		char buf[160];
		const char *why;
		if (fd >= 0) {
			why = fstat(fd, &st) != 0 ? strerror(errno)
			      : foreign_dir(&st, buf, sizeof buf);
			if (!why)
				return fd;
			close(fd);
		} else if (errno == ENOENT) {
			if (!create)
				return ERR_NOTFOUND;
			if (mkdirat(d, name, 0700) != 0 && errno != EEXIST)
				return err_set(err, ERR_IO, "%s: cannot create: %s",
					       shown, strerror(errno));
			continue;
		} else if (errno == ELOOP || errno == ENOTDIR) {
			why = fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			      S_ISLNK(st.st_mode) ? "a symbolic link"
			      : "not a directory";
		} else {
			return err_set(err, ERR_IO, "%s: %s", shown, strerror(errno));
		}
		fetch_say(c, false, "%s: %s: not followed, %s", shown, why,
			  create ? "put aside" : "passed over");
		if (!create)
			return ERR_NOTFOUND;
		if (put_aside(d, name) != 0)
			return err_set(err, ERR_IO, "%s: %s, and cannot be put "
				       "aside: %s", shown, why, strerror(errno));
	}
	return err_set(err, ERR_IO, "%s: keeps being replaced", shown);
}

int fetch_cache_dir(const fetch_config *c, const char *hex, bool create,
		    char *rest, size_t rest_len, ehelf_err *err)
{
	if (!buildid_valid_hex(hex))
		return err_set(err, ERR_ARG, "invalid build-ID '%.130s'", hex);
	int n = snprintf(rest, rest_len, "%s.so", hex + 2);
	if (n < 0 || (size_t)n >= rest_len)
		return err_set(err, ERR_ARG, "%s: name too long", hex);
	int root = open_root(c, create, err);
	if (root < 0)
		return root;
	char shown[4200], xx[3] = { hex[0], hex[1], 0 };
	snprintf(shown, sizeof shown, "%s/.build-id", c->cache);
	int b = open_sub(c, root, shown, STORE_LAYOUT_DIR, create, err);
	close(root);
	if (b < 0)
		return b;
	snprintf(shown, sizeof shown, "%s/" STORE_LAYOUT_DIR "/%s", c->cache, xx);
	int d = open_sub(c, b, shown, xx, create, err);
	close(b);
	return d;
}

/* ---- files -------------------------------------------------------------------- */

/* A new temporary file beside BASE in D (mode 0600, O_EXCL, not through
 * a link); its name into OUT.  Returns the descriptor or -1 (errno). */
static int create_tmp(int d, const char *base, char *out, size_t n)
{
	for (int i = 0; i < 8; i++) {
		tmp_name(out, n, base);
		int fd = openat(d, out, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
					O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* NAME of D as LEN bytes of DATA, mode MODE, through a temporary and a
 * rename (which replaces a link or file there, never what it points at;
 * a directory there is put aside first). */
static int write_at(int d, const char *shown, const char *name,
		    const void *data, size_t len, mode_t mode, ehelf_err *err)
{
	char tmp[192];
	int fd = create_tmp(d, name, tmp, sizeof tmp);
	if (fd < 0)
		return err_set(err, ERR_IO, "%s: cannot create a temporary file "
			       "beside it: %s", shown, strerror(errno));
	int rc = write_all(fd, data, len) == 0 && fchmod(fd, mode) == 0 ? 0 : -1;
	int e = errno;
	if (close(fd) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	struct stat st;
	if (rc == 0 && fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode))
		put_aside(d, name);
	if (rc == 0 && renameat(d, tmp, d, name) != 0) {
		rc = -1;
		e = errno;
	}
	if (rc == 0)
		return 0;
	unlinkat(d, tmp, 0);
	return err_set(err, ERR_IO, "%s: cannot write it: %s", shown, strerror(e));
}

/* Has a negative entry of mtime MTIME expired at NOW (or is it dated in
 * the future)? */
static bool miss_expired(const fetch_config *c, time_t mtime, time_t now)
{
	double age = difftime(now, mtime);
	return c->cache_miss_s <= 0 || age >= c->cache_miss_s ||
	       age < -CLOCK_SLACK_S;
}

/* Up to N - 1 bytes of the regular file NAME of D, the user's own, as a
 * string into BUF; *MTIME its mtime.  Returns the length, or -1 (absent,
 * a link, a FIFO, another user's, writable by others, unreadable). */
static ssize_t read_own(int d, const char *name, char *buf, size_t n,
			time_t *mtime)
{
	int fd = openat(d, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
				 O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	ssize_t got = -1;
	if (fstat(fd, &st) == 0 && own_file(&st, false)) {
		got = 0;
		while ((size_t)got < n - 1) {
			ssize_t r = read(fd, buf + got, n - 1 - (size_t)got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += r;
		}
		buf[got] = '\0';
		*mtime = st.st_mtime;
	}
	close(fd);
	return got;
}

void fetch_cache_params(fetch_config *c)
{
	double *v[] = { &c->cache_miss_s, &c->clean_interval_s,
			&c->max_unused_age_s };
	static const double def[] = { CACHE_MISS_S_DEFAULT,
				      CACHE_CLEAN_INTERVAL_S_DEFAULT,
				      MAX_UNUSED_AGE_S_DEFAULT };
	int root = c->cache[0] ? open_root(c, false, NULL) : -1;
	for (int i = 0; i < 3; i++) {
		*v[i] = def[i];
		char line[64], *end;
		time_t mtime;
		if (root < 0 || read_own(root, param_names[i], line, sizeof line,
					 &mtime) < 0)
			continue;
		double x = strtod(line, &end);
		if (end != line && x >= 0)
			*v[i] = x;
	}
	if (c->max_unused_age_s < MAX_UNUSED_AGE_S_MIN)
		c->max_unused_age_s = MAX_UNUSED_AGE_S_MIN;
	if (root >= 0)
		close(root);
}

cache_state fetch_cache_lookup(const fetch_config *c, const char *hex,
			       bool *refused, char *why, size_t whylen)
{
	*refused = false;
	char rest[160], name[200], shown[4200];
	int d = fetch_cache_dir(c, hex, false, rest, sizeof rest, NULL);
	if (d < 0)
		return CACHE_ABSENT;
	fetch_cache_path(c, hex, shown, sizeof shown - 8);
	struct stat st;
	if (fstatat(d, rest, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (own_file(&st, true)) {
			close(d);
			return CACHE_PRESENT;
		}
		fetch_say(c, false, "%s: not a regular file of this user's, "
			  "writable by nobody else: removed", shown);
		put_aside(d, rest);
	}
	snprintf(name, sizeof name, "%s.miss", rest);
	strcat(shown, ".miss");
	char line[512];
	time_t mtime = 0;
	ssize_t n = read_own(d, name, line, sizeof line, &mtime);
	if (n < 0 || miss_expired(c, mtime, time(NULL))) {
		if (n < 0 && fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			fetch_say(c, false, "%s: not a regular file of this "
				  "user's, writable by nobody else: ignored and "
				  "removed", shown);
		put_aside(d, name); /* expired, planted or foreign: ask again */
		close(d);
		return CACHE_ABSENT;
	}
	close(d);
	line[strcspn(line, "\n")] = '\0';
	for (char *p = line; *p; p++) /* it is printed */
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	*refused = !strncmp(line, "refused", 7);
	snprintf(why, whylen, "%s", line[0] ? line : "not found");
	return CACHE_MISS;
}

/* ---- writing entries ---------------------------------------------------------- */

int fetch_cache_tmp_open(const fetch_config *c, const char *hex,
			 cache_tmp *t, ehelf_err *err)
{
	*t = (cache_tmp)CACHE_TMP_INIT;
	int d = fetch_cache_dir(c, hex, true, t->rest, sizeof t->rest, err);
	if (d < 0)
		return d;
	int fd = create_tmp(d, t->rest, t->name, sizeof t->name);
	if (fd < 0) {
		char shown[4200];
		fetch_cache_path(c, hex, shown, sizeof shown);
		int e = errno;
		close(d);
		return err_set(err, ERR_IO, "%s: cannot create a temporary file "
			       "beside it: %s", shown, strerror(e));
	}
	t->dir = d;
	t->fd = fd;
	return 0;
}

int fetch_cache_tmp_write(cache_tmp *t, const void *data, size_t len,
			  ehelf_err *err)
{
	if (write_all(t->fd, data, len) != 0)
		return err_set(err, ERR_IO, "cache: %s: cannot write it: %s",
			       t->name, strerror(errno));
	return 0;
}

void fetch_cache_tmp_discard(cache_tmp *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->dir >= 0) {
		unlinkat(t->dir, t->name, 0);
		close(t->dir);
	}
	*t = (cache_tmp)CACHE_TMP_INIT;
}

int fetch_cache_tmp_commit(cache_tmp *t, const char *sig, size_t siglen,
			   ehelf_err *err)
{
	char signame[200], missname[200];
	snprintf(signame, sizeof signame, "%s.sig", t->rest);
	snprintf(missname, sizeof missname, "%s.miss", t->rest);
	int rc = 0;
	if (fchmod(t->fd, 0400) != 0 || close(t->fd) != 0)
		rc = err_set(err, ERR_IO, "cache: %s: %s", t->name, strerror(errno));
	t->fd = -1;
	/* the signature first: an eh_elf visible in the cache has its own
	 * beside it (an unsigned one, allowed for development, none) */
	if (rc == 0 && sig)
		rc = write_at(t->dir, signame, signame, sig, siglen, 0400, err);
	else if (rc == 0)
		put_aside(t->dir, signame);
	struct stat st;
	if (rc == 0 && fstatat(t->dir, t->rest, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode))
		put_aside(t->dir, t->rest);
	if (rc == 0 && renameat(t->dir, t->name, t->dir, t->rest) != 0)
		rc = err_set(err, ERR_IO, "cache: %s: cannot rename it into place: "
			     "%s", t->rest, strerror(errno));
	if (rc == 0)
		put_aside(t->dir, missname);
	else
		unlinkat(t->dir, t->name, 0);
	close(t->dir);
	t->dir = -1;
	return rc;
}

int fetch_cache_store(const fetch_config *c, const char *hex,
		      const void *img, size_t len, const char *sig,
		      size_t siglen, ehelf_err *err)
{
	cache_tmp t;
	int rc = fetch_cache_tmp_open(c, hex, &t, err);
	if (rc < 0)
		return rc;
	if ((rc = fetch_cache_tmp_write(&t, img, len, err)) < 0) {
		fetch_cache_tmp_discard(&t);
		return rc;
	}
	return fetch_cache_tmp_commit(&t, sig, siglen, err);
}

int fetch_cache_miss(const fetch_config *c, const char *hex, bool refused,
		     const char *why, ehelf_err *err)
{
	char line[512], rest[160], name[200], shown[4200];
	int n = snprintf(line, sizeof line, "%s: %s\n",
			 refused ? "refused" : "not found", why);
	if (n < 0 || (size_t)n >= sizeof line) { /* cut, still one line */
		n = (int)sizeof line - 1;
		line[n - 1] = '\n';
	}
	int d = fetch_cache_dir(c, hex, true, rest, sizeof rest, err);
	if (d < 0)
		return d;
	snprintf(name, sizeof name, "%s.miss", rest);
	fetch_cache_path(c, hex, shown, sizeof shown - 8);
	strcat(shown, ".miss");
	int rc = write_at(d, shown, name, line, (size_t)n, 0400, err);
	close(d);
	return rc;
}

void fetch_cache_evict(const fetch_config *c, const char *hex)
{
	char rest[160], sig[200];
	int d = fetch_cache_dir(c, hex, false, rest, sizeof rest, NULL);
	if (d < 0)
		return;
	snprintf(sig, sizeof sig, "%s.sig", rest);
	put_aside(d, rest);
	put_aside(d, sig);
	close(d);
}

/* ---- cleaning ------------------------------------------------------------------ */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static bool is_dot(const char *n)
{
	return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]));
}

/* Remove the temporary NAME of D (ST) if a killed writer left it, or it
 * is dated in the future; a directory put aside only once empty. */
static void clean_tmp(int d, const char *name, const struct stat *st,
		      time_t now)
{
	double age = difftime(now, st->st_mtime);
	if (age <= STALE_SECONDS && age >= -CLOCK_SLACK_S)
		return;
	unlinkat(d, name, S_ISDIR(st->st_mode) ? AT_REMOVEDIR : 0);
}

/* Is the eh_elf ST unused for max_unused_age_s at NOW? */
static bool unused(const fetch_config *c, const struct stat *st, time_t now)
{
	return difftime(now, st->st_atime) >= c->max_unused_age_s &&
	       difftime(now, st->st_mtime) >= c->max_unused_age_s;
}

/* Clean one CACHE/.build-id/XX directory D (see fetch_cache_prepare);
 * D is closed. */
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
		if (is_dot(n) || fstatat(d, n, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		bool old = false;
		if (!strncmp(n, ".tmp-", 5)) {
			clean_tmp(d, n, &st, now);
			continue;
		}
		if (S_ISDIR(st.st_mode))
			continue; /* not the cache's: put aside when in the way */
		if (!own_file(&st, true)) {
			old = true; /* a link, a FIFO, another user's file */
		} else if (ends_with(n, ".so")) {
			old = unused(c, &st, now);
			if (old) { /* its signature with it */
				char sig[512];
				snprintf(sig, sizeof sig, "%s.sig", n);
				unlinkat(d, sig, 0);
			}
		} else if (ends_with(n, ".so.miss")) {
			old = miss_expired(c, st.st_mtime, now);
		} else if (ends_with(n, ".so.sig")) { /* alone: a killed writer's */
			char so[512];
			snprintf(so, sizeof so, "%.*s", (int)(strlen(n) - 4), n);
			old = difftime(now, st.st_mtime) > STALE_SECONDS &&
			      faccessat(d, so, F_OK, AT_SYMLINK_NOFOLLOW) != 0;
		}
		if (old)
			unlinkat(d, n, 0);
	}
	closedir(dir);
}

/* The temporaries of D (the root or .build-id), each XX directory when
 * XX_TOO; D stays open. */
static void clean_level(const fetch_config *c, int d, bool xx_too, time_t now)
{
	int dd = dup(d);
	DIR *dir = dd >= 0 ? fdopendir(dd) : NULL;
	if (!dir) {
		if (dd >= 0)
			close(dd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(dir))) {
		struct stat st;
		const char *n = e->d_name;
		if (is_dot(n) || fstatat(d, n, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (!strncmp(n, ".tmp-", 5)) {
			clean_tmp(d, n, &st, now);
		} else if (xx_too && strlen(n) == 2) {
			char shown[4200];
			snprintf(shown, sizeof shown, "%s/" STORE_LAYOUT_DIR "/%s", c->cache, n);
			int x = open_sub(c, d, shown, n, false, NULL);
			if (x < 0)
				continue;
			clean_dir(c, x, now);
			unlinkat(d, n, AT_REMOVEDIR); /* if empty */
		}
	}
	closedir(dir);
}

/* Clean the cache of root ROOT now (see fetch_cache_prepare). */
static void clean(const fetch_config *c, int root)
{
	time_t now = time(NULL);
	clean_level(c, root, false, now);
	char shown[4200];
	snprintf(shown, sizeof shown, "%s/.build-id", c->cache);
	int b = open_sub(c, root, shown, STORE_LAYOUT_DIR, false, NULL);
	if (b < 0)
		return;
	clean_level(c, b, true, now);
	close(b);
}

int fetch_cache_prepare(const fetch_config *c, ehelf_err *err)
{
	int root = open_root(c, true, err);
	if (root < 0)
		return root;
	const double v[] = { c->cache_miss_s, c->clean_interval_s,
			     c->max_unused_age_s };
	for (int i = 0; i < 3; i++) {
		char line[64], shown[4200];
		struct stat st;
		if (fstatat(root, param_names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    own_file(&st, false))
			continue;
		snprintf(shown, sizeof shown, "%s/%s", c->cache, param_names[i]);
		int n = snprintf(line, sizeof line, "%.0f\n", v[i]);
		write_at(root, shown, param_names[i], line, (size_t)n, 0644, NULL);
	}
	/* the interval file's mtime is the last cleaning (as libdebuginfod);
	 * an interval of 0 cleans every time: a file's mtime may be a second
	 * ahead of time() */
	struct stat st;
	if (fstatat(root, "cache_clean_interval_s", &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    (c->clean_interval_s > 0 &&
	     difftime(time(NULL), st.st_mtime) < c->clean_interval_s &&
	     difftime(time(NULL), st.st_mtime) >= -CLOCK_SLACK_S)) {
		close(root);
		return 0;
	}
	clean(c, root);
	utimensat(root, "cache_clean_interval_s", NULL, AT_SYMLINK_NOFOLLOW);
	close(root);
	return 0;
}
