/* store.c - see store.h. */
#include "writer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/atomic_file.h"
#include "../common/buildid.h"
#include "layout.h"

static int mkdir_p(const char *path, ehelf_err *err)
{
	char buf[4096];
	if (strlen(path) >= sizeof buf)
		return err_set(err, ERR_ARG, "%s: path too long", path);
	strcpy(buf, path);
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return err_set(err, ERR_IO, "%s: cannot create: %s",
					       buf, strerror(errno));
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

/* Take the store's lock, S->tmp/ehelf-batch.lock (an flock held until
 * store_close), writing this process's ID into it for the message of the
 * next one. */
static int lock_store(store *s, ehelf_err *err)
{
	char path[2200];
	snprintf(path, sizeof path, "%s/ehelf-batch.lock", s->tmp);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return err_set(err, ERR_IO, "%s: the store cannot be written "
			       "(%s): ehelf-batch needs a store it can write "
			       "(ehelf-batch lookup and ehelf-server read one "
			       "that is read-only)", s->root, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		char pid[32] = "";
		ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		close(fd);
		if (e == EWOULDBLOCK)
			return err_set(err, ERR_IO, "%s: another ehelf-batch "
				       "(process %s) is writing this store: run "
				       "again once it has finished", s->root,
				       pid[0] ? pid : "?");
		return err_set(err, ERR_IO, "%s: cannot lock: %s", path,
			       strerror(e));
	}
	char pid[32];
	int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		int rc = err_set(err, ERR_IO, "%s: cannot write: %s", path,
				 strerror(errno));
		close(fd);
		return rc;
	}
	s->lock_fd = fd;
	return 0;
}

int store_at(store *s, const char *root, ehelf_err *err)
{
	s->lock_fd = -1;
	if (snprintf(s->root, sizeof s->root, "%s", root) >= (int)sizeof s->root)
		return err_set(err, ERR_ARG, "%s: path too long", root);
	snprintf(s->tmp, sizeof s->tmp, "%s/.tmp", s->root);
	return 0;
}

int store_open(store *s, const char *root, ehelf_err *err)
{
	if (store_at(s, root, err) < 0)
		return ERR_ARG;
	char ids[2100];
	snprintf(ids, sizeof ids, "%s/.build-id", s->root);
	int rc = mkdir_p(ids, err);
	if (rc == 0)
		rc = mkdir_p(s->tmp, err);
	if (rc == 0)
		rc = lock_store(s, err);
	if (rc < 0)
		return rc;
	/* temporaries of a run that was killed: never renamed, so unused.
	 * Another ehelf-batch holds the lock while it writes, but
	 * ehelf-server's on-demand builds write here too without it: only
	 * those older than an hour are removed, as the server does */
	DIR *d = opendir(s->tmp);
	if (!d) {
		rc = err_set(err, ERR_IO, "%s: %s", s->tmp, strerror(errno));
		store_close(s);
		return rc;
	}
	time_t old = time(NULL) - STORE_TMP_STALE_SECONDS;
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d)) != NULL)
		if (!strncmp(e->d_name, ".tmp-", 5) &&
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_mtime < old)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	return 0;
}

void store_close(store *s)
{
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	s->lock_fd = -1;
}

/* ROOT/.build-id/XX/REST.so followed by SUFFIX ("" or ".sig"). */
static int entry_path(const store *s, const char *hex, const char *suffix,
		      char *out, size_t n)
{
	int len = store_layout_path(s->root, hex, out, n);
	if (len < 0 || (size_t)len + strlen(suffix) >= n)
		return ERR_ARG;
	strcpy(out + len, suffix);
	return 0;
}

/* The same, its directory created if needed. */
static int entry_dir(const store *s, const char *hex, const char *suffix,
		     char *out, size_t n, ehelf_err *err)
{
	if (entry_path(s, hex, suffix, out, n) < 0)
		return err_set(err, ERR_ARG, "invalid build-ID '%.130s'", hex);
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/" STORE_LAYOUT_DIR "/%.2s", s->root, hex);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return err_set(err, ERR_IO, "%s: cannot create: %s", dir,
			       strerror(errno));
	return 0;
}

int store_path(const store *s, const char *hex, char *out, size_t n)
{
	return entry_path(s, hex, "", out, n);
}

int store_sig_path(const store *s, const char *hex, char *out, size_t n)
{
	return entry_path(s, hex, ".sig", out, n);
}

bool store_has(const store *s, const char *hex)
{
	char p[4096];
	struct stat st;
	return store_path(s, hex, p, sizeof p) == 0 && stat(p, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

static int put(const store *s, const char *hex, const char *suffix,
	       const void *data, size_t len, ehelf_err *err)
{
	char p[4096];
	int rc = entry_dir(s, hex, suffix, p, sizeof p, err);
	return rc < 0 ? rc : atomic_write(p, s->tmp, data, len, err);
}

int store_put(const store *s, const char *hex, const void *data, size_t len,
	      ehelf_err *err)
{
	return put(s, hex, "", data, len, err);
}

int store_stage(const store *s, const char *hex, const void *data,
		size_t len, char *tmp, size_t tmpn, ehelf_err *err)
{
	char p[4096];
	int rc = entry_dir(s, hex, "", p, sizeof p, err);
	return rc < 0 ? rc : atomic_prepare(p, s->tmp, data, len, tmp, tmpn, err);
}

int store_commit(const store *s, const char *hex, const char *tmp,
		 ehelf_err *err)
{
	char p[4096];
	if (store_path(s, hex, p, sizeof p) < 0) {
		unlink(tmp);
		return err_set(err, ERR_ARG, "invalid build-ID '%.130s'", hex);
	}
	return atomic_commit(tmp, p, err);
}

int store_put_sig(const store *s, const char *hex, const char *line,
		  size_t len, ehelf_err *err)
{
	return put(s, hex, ".sig", line, len, err);
}

/* The regular file PATH, whole, into *DATA (malloc'd, *LEN bytes). */
static int read_file(const char *path, uint8_t **data, size_t *len,
		     ehelf_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, errno == ENOENT ? ERR_NOTFOUND : ERR_IO,
			       "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, ERR_NOTFOUND, "%s: not a file", path);
	}
	size_t size = (size_t)st.st_size, got = 0;
	uint8_t *buf = malloc(size + 1);
	while (buf && got < size) {
		ssize_t r = read(fd, buf + got, size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	int e = errno;
	close(fd);
	if (!buf)
		return err_set(err, ERR_NOMEM, "out of memory");
	if (got != size) {
		free(buf);
		return err_set(err, ERR_IO, "%s: short read: %s", path,
			       strerror(e));
	}
	*data = buf;
	*len = size;
	return 0;
}

int store_get(const store *s, const char *hex, uint8_t **data, size_t *len,
	      ehelf_err *err)
{
	char p[4096];
	if (store_path(s, hex, p, sizeof p) < 0)
		return err_set(err, ERR_ARG, "invalid build-ID '%.130s'", hex);
	return read_file(p, data, len, err);
}

int store_get_sig(const store *s, const char *hex, char *out, size_t n,
		  ehelf_err *err)
{
	char p[4096];
	if (store_sig_path(s, hex, p, sizeof p) < 0)
		return err_set(err, ERR_ARG, "invalid build-ID '%.130s'", hex);
	uint8_t *data = NULL;
	size_t len = 0;
	int rc = read_file(p, &data, &len, err);
	if (rc < 0)
		return rc;
	len = len < n ? len : n - 1;
	memcpy(out, data, len);
	out[len] = '\0';
	free(data);
	return (int)len;
}

int store_remove_sig(const store *s, const char *hex, ehelf_err *err)
{
	char p[4096];
	if (store_sig_path(s, hex, p, sizeof p) < 0)
		return err_set(err, ERR_ARG, "invalid build-ID '%.130s'", hex);
	if (unlink(p) < 0 && errno != ENOENT)
		return err_set(err, ERR_IO, "%s: cannot remove: %s", p,
			       strerror(errno));
	return 0;
}

int store_remove(const store *s, const char *hex, ehelf_err *err)
{
	char p[4096];
	if (store_path(s, hex, p, sizeof p) < 0)
		return err_set(err, ERR_ARG, "invalid build-ID '%.130s'", hex);
	if (unlink(p) < 0 && errno != ENOENT)
		return err_set(err, ERR_IO, "%s: cannot remove: %s", p,
			       strerror(errno));
	return store_remove_sig(s, hex, err);
}

int store_import(const store *s, const char *hex, bool sig, const char *from,
		 ehelf_err *err)
{
	const char *suffix = sig ? ".sig" : "";
	char to[4096], tmp[4096];
	int rc = entry_dir(s, hex, suffix, to, sizeof to, err);
	if (rc < 0)
		return rc;
	struct stat st;
	if (stat(from, &st) < 0)
		return err_set(err, ERR_NOTFOUND, "%s: %s", from, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(err, ERR_NOTFOUND, "%s: not a file", from);
	/* a hard link, renamed into place, when on one file system */
	snprintf(tmp, sizeof tmp, "%s/.tmp-link-%ld-%s%s", s->tmp, (long)getpid(),
		 hex, suffix);
	unlink(tmp);
	if (link(from, tmp) == 0) {
		if (rename(tmp, to) == 0)
			return 0;
		rc = err_set(err, ERR_IO, "%s: cannot put it in place: %s", to,
			     strerror(errno));
		unlink(tmp);
		return rc;
	}
	uint8_t *data = NULL;
	size_t len = 0;
	rc = read_file(from, &data, &len, err);
	if (rc == 0)
		rc = atomic_write(to, s->tmp, data, len, err);
	free(data);
	return rc;
}
