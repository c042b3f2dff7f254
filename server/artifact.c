/* artifact.c - see artifact.h. */
#define _GNU_SOURCE
#include "artifact.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/buildid.h"
#include "../store/layout.h"
#include "beneath.h"

/* The metadata cache: direct-mapped, a slot per (build-ID, kind) hash,
 * overwritten on collision; bounded by construction. */
enum { CACHE_SLOTS = 8192, CACHE_LOCKS = 64 };

typedef struct slot {
	char hex[BUILDID_HEX_MAX + 1];
	bool sig;
	dev_t dev;
	ino_t ino;
	uint64_t size;
	int64_t mtime_ns;
	char sha256[65];
	char line[SIG_LINE_MAX];   /* sig: the file's line, without '\n' */
} slot;

struct artifact_store {
	int ids;                   /* ROOT/.build-id */
	artifact_sha_fn sha;
	void *sha_arg;
	metrics *m;
	pthread_mutex_t locks[CACHE_LOCKS];
	slot slots[CACHE_SLOTS];
};

int artifact_store_open(artifact_store **out, const char *root,
			artifact_sha_fn sha, void *sha_arg, metrics *m,
			ehelf_err *err)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return err_set(err, errno == ENOENT ? ERR_NOTFOUND : ERR_IO,
			       "%s: cannot open the store: %s", root,
			       strerror(errno));
	int ids = openat(rootfd, STORE_LAYOUT_DIR,
			 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int e = errno;
	close(rootfd);
	if (ids < 0)
		return err_set(err, e == ENOENT ? ERR_NOTFOUND : ERR_IO,
			       "%s/" STORE_LAYOUT_DIR ": %s (not a store written by "
			       "ehelf-batch?)", root,
			       e == ELOOP ? "a symlink" : strerror(e));
	artifact_store *s = calloc(1, sizeof *s);
	if (!s) {
		close(ids);
		return err_set(err, ERR_NOMEM, "out of memory");
	}
	s->ids = ids;
	s->sha = sha;
	s->sha_arg = sha_arg;
	s->m = m;
	for (int i = 0; i < CACHE_LOCKS; i++)
		pthread_mutex_init(&s->locks[i], NULL);
	*out = s;
	return 0;
}

void artifact_store_close(artifact_store *s)
{
	if (!s)
		return;
	close(s->ids);
	for (int i = 0; i < CACHE_LOCKS; i++)
		pthread_mutex_destroy(&s->locks[i]);
	free(s);
}

/* SHA-256 of the LEN bytes of FD (mapped: eh_elfs are small). */
static int hash_fd(int fd, uint64_t len, char out[65])
{
	if (len == 0) {
		sign_sha256_hex("", 0, out);
		return 0;
	}
	void *p = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	sign_sha256_hex(p, (size_t)len, out);
	munmap(p, (size_t)len);
	return 0;
}

static size_t slot_of(const char *hex, bool sig)
{
	uint64_t h = sig ? 0x9e3779b97f4a7c15ull : 1469598103934665603ull;
	for (const char *p = hex; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	return (size_t)(h % CACHE_SLOTS);
}

/* Fill A's sha256 (and for a signature file, LINE) from the cache, or by
 * reading the file and caching what was read. */
static int metadata(artifact_store *s, const char *hex, bool sig,
		    const struct stat *st, artifact *a, char *line,
		    ehelf_err *err)
{
	size_t i = slot_of(hex, sig);
	pthread_mutex_t *lock = &s->locks[i % CACHE_LOCKS];
	slot *sl = &s->slots[i];
	int64_t mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 +
			   st->st_mtim.tv_nsec;
	pthread_mutex_lock(lock);
	bool hit = sl->sig == sig && !strcmp(sl->hex, hex) &&
		   sl->dev == st->st_dev && sl->ino == st->st_ino &&
		   sl->size == (uint64_t)st->st_size && sl->mtime_ns == mtime_ns;
	if (hit) {
		memcpy(a->sha256, sl->sha256, sizeof a->sha256);
		if (line)
			memcpy(line, sl->line, SIG_LINE_MAX);
	}
	pthread_mutex_unlock(lock);
	metrics_cache(s->m, CACHE_METADATA, hit);
	if (hit)
		return 0;

	char l[SIG_LINE_MAX] = "";
	if (sig) { /* a signature is one short line: read it whole */
		if (st->st_size >= SIG_LINE_MAX)
			return err_set(err, ERR_FORMAT, "%s: not a signature "
				       "(%lld bytes)", a->rel,
				       (long long)st->st_size);
		ssize_t got = pread(a->fd, l, (size_t)st->st_size, 0);
		if (got != st->st_size)
			return err_set(err, ERR_IO, "%s: short read", a->rel);
		l[got] = '\0';
		sign_sha256_hex(l, (size_t)got, a->sha256);
		l[strcspn(l, "\r\n")] = '\0';
		for (char *c = l; *c; c++) /* it goes into a header */
			if (*c < 0x20 || *c > 0x7e)
				return err_set(err, ERR_FORMAT, "%s: not a "
					       "signature line", a->rel);
		if (line)
			memcpy(line, l, SIG_LINE_MAX);
	} else if (!s->sha || s->sha(s->sha_arg, hex, (uint64_t)st->st_size,
				     a->sha256) < 0) {
		if (hash_fd(a->fd, (uint64_t)st->st_size, a->sha256) < 0)
			return err_set(err, ERR_IO, "%s: cannot read: %s", a->rel,
				       strerror(errno));
	}
	pthread_mutex_lock(lock);
	snprintf(sl->hex, sizeof sl->hex, "%s", hex);
	sl->sig = sig;
	sl->dev = st->st_dev;
	sl->ino = st->st_ino;
	sl->size = (uint64_t)st->st_size;
	sl->mtime_ns = mtime_ns;
	memcpy(sl->sha256, a->sha256, sizeof sl->sha256);
	memcpy(sl->line, l, sizeof sl->line);
	pthread_mutex_unlock(lock);
	return 0;
}

/* Open HEX's file (the signature when SIG) into A. */
static int open_one(artifact_store *s, const char *hex, bool sig, artifact *a,
		    char *line, ehelf_err *err)
{
	if (!buildid_valid_hex(hex))
		return err_set(err, ERR_ARG, "invalid build-ID");
	if (store_layout_rel(hex, sig ? ".sig" : "", a->rel, sizeof a->rel) < 0)
		return err_set(err, ERR_ARG, "build-ID too long");
	a->fd = open_beneath(s->ids, a->rel + sizeof STORE_LAYOUT_DIR);
	if (a->fd < 0)
		return err_set(err, errno == ENOENT || errno == ELOOP ||
			       errno == ENOTDIR || errno == EXDEV
			       ? ERR_NOTFOUND : ERR_IO, "%s: %s", a->rel,
			       strerror(errno));
	struct stat st;
	int rc = 0;
	if (fstat(a->fd, &st) < 0)
		rc = err_set(err, ERR_IO, "%s: %s", a->rel, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = err_set(err, ERR_NOTFOUND, "%s: not a regular file", a->rel);
	else
		rc = metadata(s, hex, sig, &st, a, line, err);
	if (rc < 0) {
		close(a->fd);
		a->fd = -1;
		return rc;
	}
	a->size = (uint64_t)st.st_size;
	a->mtime = st.st_mtim.tv_sec;
	return 0;
}

int artifact_open(artifact_store *s, const char *hex, bool sig, artifact *a,
		  ehelf_err *err)
{
	a->sig[0] = '\0';
	int rc = open_one(s, hex, sig, a, NULL, err);
	if (rc < 0 || sig)
		return rc;
	/* the eh_elf's signature, for X-EHELF-SIGNATURE */
	artifact sa;
	char line[SIG_LINE_MAX];
	ehelf_err ignored;
	if (open_one(s, hex, true, &sa, line, &ignored) == 0) {
		close(sa.fd);
		memcpy(a->sig, line, sizeof a->sig);
	}
	return 0;
}

bool artifact_exists(artifact_store *s, const char *hex)
{
	char rel[BUILDID_HEX_MAX + 8];
	snprintf(rel, sizeof rel, "%.2s/%s.so", hex, hex + 2);
	int fd = open_beneath(s->ids, rel);
	if (fd < 0)
		return false;
	struct stat st;
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	close(fd);
	return ok;
}
