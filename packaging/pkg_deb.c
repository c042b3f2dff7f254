/* pkg_deb.c - see pkg_deb.h. */
#define _GNU_SOURCE
#include "pkg_deb.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/buildid.h"
#include "../common/sign.h"
#include "pkg_control.h"
#include "pkg_fs.h"
#include "subproc.h"
#include "../store/layout.h"

static int set_time(void *arg, int dirfd, const char *name, const char *rel,
		    bool is_dir)
{
	(void)rel;
	(void)is_dir;
	const struct timespec *t = arg;
	struct timespec ts[2] = { *t, *t };
	return utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW);
}

/* The whole of file PATH into *DATA (malloc'd), *LEN bytes.  Returns 0,
 * ERR_NOTFOUND or ERR_IO (errno in the message). */
static int read_all(const char *path, char **data, size_t *len, ehelf_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return err_set(err, e == ENOENT ? ERR_NOTFOUND : ERR_IO, "%s: %s",
			       path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, ERR_FORMAT, "%s: not a regular file", path);
	}
	*data = malloc((size_t)st.st_size + 1);
	size_t n = 0;
	while (*data && n < (size_t)st.st_size) {
		ssize_t r = read(fd, *data + n, (size_t)st.st_size - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!*data)
		return err_set(err, ERR_NOMEM, "out of memory");
	if (n != (size_t)st.st_size) {
		free(*data);
		return err_set(err, ERR_IO, "%s: short read", path);
	}
	*len = n;
	return 0;
}

/* Write LEN bytes to the new file PATH, mode 0644, time stamp T. */
static int write_new(const char *path, const void *data, size_t len,
		     const struct timespec *t, ehelf_err *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return err_set(err, ERR_IO, "%s: %s", path, strerror(errno));
	size_t n = 0;
	while (n < len) {
		ssize_t w = write(fd, (const char *)data + n, len - n);
		if (w <= 0)
			break;
		n += (size_t)w;
	}
	struct timespec ts[2] = { *t, *t };
	int bad = n != len || fchmod(fd, 0644) < 0 || futimens(fd, ts) < 0;
	int e = errno;
	if (close(fd) < 0 && !bad) {
		bad = 1;
		e = errno;
	}
	return bad ? err_set(err, ERR_IO, "%s: %s", path, strerror(e)) : 0;
}

/* One md5sums line for DATA at REL (relative to the package's root). */
static void md5_line(FILE *out, const void *data, size_t len, const char *rel)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	EVP_Digest(data, len, md, &n, EVP_md5(), NULL);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%02x", md[i]);
	fprintf(out, "  %s\n", rel);
}

static uint64_t kib(size_t bytes)
{
	return (bytes + 1023) / 1024;
}

/* Copy store file SRC (LEN bytes in DATA) to ROOT/REL, with its md5sums
 * line and Installed-Size. */
static int add_file(const char *root, const char *rel, const char *data,
		    size_t len, const struct timespec *t, FILE *md5,
		    uint64_t *size, ehelf_err *err)
{
	char dst[PATH_MAX];
	snprintf(dst, sizeof dst, "%s/%s", root, rel);
	char *slash = strrchr(dst, '/');
	*slash = '\0';
	if (pkg_mkdirs(dst) < 0)
		return err_set(err, ERR_IO, "%s: %s", dst, strerror(errno));
	*slash = '/';
	int rc = write_new(dst, data, len, t, err);
	if (rc < 0)
		return rc;
	md5_line(md5, data, len, rel);
	*size += kib(len);
	return 0;
}

/* The eh_elf E of package P (and its signature) into ROOT. */
static int add_ehelf(const pkg_deb_env *env, const pkg *p, const pkg_elf *e,
		     const char *root, const struct timespec *t, FILE *md5,
		     uint64_t *size, ehelf_err *err)
{
	if (!e->has_row)
		return err_set(err, ERR_NOTFOUND, "%s %s: %s (build-ID %s) is "
			       "recorded as built, but the database has no "
			       "eh_elfs row for it: run ehelf-batch again",
			       p->name, p->version, e->path, e->build_id);
	char src[PATH_MAX], rel[PATH_MAX];
	if (store_layout_path(env->store, e->build_id, src, sizeof src) < 0 ||
	    store_layout_path("usr/lib/ehelf", e->build_id, rel, sizeof rel) < 0)
		return err_set(err, ERR_FORMAT, "%s %s: malformed build-ID '%s' "
			       "in the database (%s)", p->name, p->version,
			       e->build_id, e->path);
	char *data;
	size_t len;
	int rc = read_all(src, &data, &len, err);
	if (rc < 0)
		return err_prefix(err, "%s %s: the eh_elf of %s (build-ID %s)%s",
				  p->name, p->version, e->path, e->build_id,
				  rc == ERR_NOTFOUND ? " is missing from the store "
				  "(run ehelf-batch again: it rebuilds the eh_elfs "
				  "missing from its store)" : "");
	char sha[65];
	sign_sha256_hex(data, len, sha);
	if (len != e->size || (*e->sha256 && strcmp(sha, e->sha256) != 0)) {
		free(data);
		return err_set(err, ERR_FORMAT, "%s %s: %s (%zu bytes, SHA-256 "
			       "%.16s...) is not the eh_elf the database records "
			       "for %s (%" PRIu64 " bytes, %.16s...): remove it "
			       "and run ehelf-batch again (it rebuilds the eh_elfs "
			       "missing from its store)", p->name, p->version, src,
			       len, sha, e->path, e->size, e->sha256);
	}
	rc = add_file(root, rel, data, len, t, md5, size, err);
	free(data);
	if (rc < 0 || !*e->signed_by)
		return rc;
	char sig[PATH_MAX + 4], sig_rel[PATH_MAX + 4];
	snprintf(sig, sizeof sig, "%s.sig", src);
	snprintf(sig_rel, sizeof sig_rel, "%s.sig", rel);
	if ((rc = read_all(sig, &data, &len, err)) < 0)
		return err_prefix(err, "%s %s: the database says %s's eh_elf is "
				  "signed by %s, but its signature", p->name,
				  p->version, e->path, e->signed_by);
	rc = add_file(root, sig_rel, data, len, t, md5, size, err);
	free(data);
	return rc;
}

/* The staging tree of P's package at ROOT. */
static int stage(const pkg_deb_env *env, const pkg_set *set, const pkg *p,
		 const pkg_meta *m, const char *root, ehelf_err *err)
{
	struct timespec t = { .tv_sec = (time_t)env->epoch };
	char path[PATH_MAX];
	char *sums = NULL;
	size_t sums_len;
	FILE *md5 = open_memstream(&sums, &sums_len);
	if (!md5)
		return err_set(err, ERR_NOMEM, "out of memory");
	/* dpkg-gencontrol's Installed-Size: KiB of each file, 1 for each
	 * directory and symlink: the root, usr/lib/ehelf/.build-id, each XX
	 * directory below, usr/share/doc and the doc symlink */
	uint64_t size = 8;
	int rc = 0;
	char last_xx[3] = "";
	for (size_t k = 0; rc == 0 && k < p->n_elf; k++) {
		const pkg_elf *e = &set->elfs[p->elf[k]];
		if (strncmp(last_xx, e->build_id, 2) != 0) {
			memcpy(last_xx, e->build_id, 2);
			size++;
		}
		rc = add_ehelf(env, p, e, root, &t, md5, &size, err);
	}
	char *override = NULL;
	if (rc == 0 && asprintf(&override, "# eh_elfs are self-contained by design: "
				"no DT_NEEDED, not even libc\n# (docs/eh_elf.md, "
				"docs/packaging.md)\n%s-ehelf: shared-library-lacks-"
				"prerequisites [usr/lib/ehelf/.build-id/*]\n",
				p->name) < 0)
		rc = err_set(err, ERR_NOMEM, "out of memory");
	char rel[PATH_MAX];
	snprintf(rel, sizeof rel, "usr/share/lintian/overrides/%s-ehelf", p->name);
	if (rc == 0) {
		rc = add_file(root, rel, override, strlen(override), &t, md5, &size,
			      err);
		size += 2;   /* usr/share/lintian, its overrides */
	}
	free(override);
	fclose(md5);
	snprintf(path, sizeof path, "%s/usr/share/doc", root);
	if (rc == 0 && pkg_mkdirs(path) < 0)
		rc = err_set(err, ERR_IO, "%s: %s", path, strerror(errno));
	snprintf(path, sizeof path, "%s/usr/share/doc/%s-ehelf", root, p->name);
	if (rc == 0 && symlink(p->name, path) < 0)
		rc = err_set(err, ERR_IO, "%s: %s", path, strerror(errno));
	snprintf(path, sizeof path, "%s/DEBIAN", root);
	if (rc == 0 && pkg_mkdirs(path) < 0)
		rc = err_set(err, ERR_IO, "%s: %s", path, strerror(errno));
	char *control = rc == 0 ? pkg_control_text(set, p, m, size) : NULL;
	if (rc == 0 && !control)
		rc = err_set(err, ERR_NOMEM, "out of memory");
	snprintf(path, sizeof path, "%s/DEBIAN/control", root);
	if (rc == 0)
		rc = write_new(path, control, strlen(control), &t, err);
	snprintf(path, sizeof path, "%s/DEBIAN/md5sums", root);
	if (rc == 0)
		rc = write_new(path, sums, sums_len, &t, err);
	free(control);
	free(sums);
	if (rc == 0 && pkg_walk(root, set_time, &t) < 0)
		rc = err_set(err, ERR_IO, "%s: setting time stamps: %s", root,
			     strerror(errno));
	return rc;
}

int pkg_deb_build(const pkg_deb_env *env, const pkg_set *set, const pkg *p,
		  const pkg_meta *m, const char *pool_path, int worker,
		  uint64_t *deb_bytes, ehelf_err *err)
{
	char dir[PATH_MAX], root[PATH_MAX], out[PATH_MAX], dst[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/w%d", env->scratch, worker);
	snprintf(root, sizeof root, "%s/root", dir);
	snprintf(out, sizeof out, "%s/out.deb", dir);
	if (snprintf(dst, sizeof dst, "%s/%s", env->repo, pool_path) >= (int)sizeof dst)
		return err_set(err, ERR_ARG, "%s: path too long", pool_path);
	pkg_rm_tree(dir);
	if (pkg_mkdirs(root) < 0)
		return err_set(err, ERR_IO, "%s: %s", root, strerror(errno));
	int rc = stage(env, set, p, m, root, err);
	if (rc == 0) {
		const char *argv[] = { "dpkg-deb", "--root-owner-group", "--build",
				       root, out, NULL };
		if ((rc = subproc_run(argv, NULL, err)) < 0)
			err_prefix(err, "%s %s", p->name, p->version);
	}
	struct stat st;
	if (rc == 0 && stat(out, &st) < 0)
		rc = err_set(err, ERR_IO, "%s: %s", out, strerror(errno));
	if (rc == 0) {
		char *slash = strrchr(dst, '/');
		*slash = '\0';
		if (pkg_mkdirs(dst) < 0)
			rc = err_set(err, ERR_IO, "%s: %s", dst, strerror(errno));
		*slash = '/';
	}
	if (rc == 0 && rename(out, dst) < 0)
		rc = err_set(err, ERR_IO, "%s: %s", dst, strerror(errno));
	if (rc == 0)
		*deb_bytes = (uint64_t)st.st_size;
	pkg_rm_tree(dir);
	return rc;
}
