/* pkg_repo.c - see pkg_repo.h. */
#define _GNU_SOURCE
#include "pkg_repo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pkg_fs.h"
#include "subproc.h"

int pkg_repo_check_key(const char *id, ehelf_err *err)
{
	const char *argv[] = { "gpg", "--batch", "--list-secret-keys", id, NULL };
	return subproc_run(argv, NULL, err) < 0
	       ? err_set(err, ERR_NOTFOUND, "gpg has no secret key '%s' to sign "
			 "the repository with (gpg --list-secret-keys; "
			 "GNUPGHOME=%s)", id,
			 getenv("GNUPGHOME") ? getenv("GNUPGHOME") : "~/.gnupg")
	       : 0;
}

/* ---- the pool ---------------------------------------------------------- */

typedef struct pool_scan {
	char **arch;          /* distinct architectures, sorted */
	size_t n_arch;
	size_t debs;
	unsigned long long bytes;
	int err;
} pool_scan;

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int scan_one(void *arg, int dirfd, const char *name, const char *rel,
		    bool is_dir)
{
	(void)rel;
	pool_scan *s = arg;
	const char *us = strrchr(name, '_');
	struct stat st;
	if (is_dir || !us || !ends_with(name, ".deb") ||
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	s->debs++;
	s->bytes += (unsigned long long)st.st_size;
	char arch[64];
	snprintf(arch, sizeof arch, "%.*s", (int)(strlen(us + 1) - 4), us + 1);
	for (size_t i = 0; i < s->n_arch; i++)
		if (strcmp(s->arch[i], arch) == 0)
			return 0;
	char **a = realloc(s->arch, (s->n_arch + 1) * sizeof *a);
	if (!a || !(a[s->n_arch] = strdup(arch))) {
		if (a)
			s->arch = a;
		errno = ENOMEM;
		return -1;
	}
	s->arch = a;
	s->n_arch++;
	return 0;
}

static void scan_free(pool_scan *s)
{
	for (size_t i = 0; i < s->n_arch; i++)
		free(s->arch[i]);
	free(s->arch);
}

/* ---- Packages ---------------------------------------------------------- */

/* Sort the stanzas of TEXT (separated by blank lines) in place. */
static int sort_stanzas(char *text, size_t len, FILE *out)
{
	size_t n = 0, cap = 0;
	char **st = NULL;
	for (char *p = text; p < text + len;) {
		while (*p == '\n')
			p++;
		if (!*p)
			break;
		char *end = strstr(p, "\n\n");
		if (end)
			end[1] = '\0';
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			char **q = realloc(st, cap * sizeof *q);
			if (!q) {
				free(st);
				return -1;
			}
			st = q;
		}
		st[n++] = p;
		p = end ? end + 2 : text + len;
	}
	if (n)
		qsort(st, n, sizeof *st, str_cmp);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s\n", st[i], ends_with(st[i], "\n") ? "" : "\n");
	free(st);
	return 0;
}

/* dists/SUITE/main/binary-ARCH/Packages{,.xz}, written beside and renamed. */
static int write_packages(const pkg_repo_opts *o, const char *arch,
			  ehelf_err *err)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 8], dst[PATH_MAX + 16];
	snprintf(dir, sizeof dir, "%s/dists/%s/main/binary-%s", o->repo, o->suite,
		 arch);
	if (pkg_mkdirs(dir) < 0)
		return err_set(err, ERR_IO, "%s: %s", dir, strerror(errno));
	char *text = NULL;
	size_t len = 0;
	const char *argv[] = { "apt-ftparchive", "--arch", arch, "packages",
			       "pool", NULL };
	subproc_opts so = { .cwd = o->repo, .buf = &text, .len = &len };
	int rc = subproc_run(argv, &so, err);
	if (rc < 0)
		return rc;
	snprintf(tmp, sizeof tmp, "%s/.Packages", dir);
	FILE *f = fopen(tmp, "we");
	if (!f || sort_stanzas(text, len, f) < 0 || fclose(f) != 0) {
		free(text);
		return err_set(err, ERR_IO, "%s: %s", tmp, strerror(errno));
	}
	free(text);
	const char *xz[] = { "xz", "-T1", "-c", tmp, NULL };
	snprintf(dst, sizeof dst, "%s/.Packages.xz", dir);
	subproc_opts xo = { .path = dst };
	if ((rc = subproc_run(xz, &xo, err)) < 0)
		return rc;
	char final[PATH_MAX + 16];
	snprintf(final, sizeof final, "%s/Packages.xz", dir);
	if (rename(dst, final) < 0)
		return err_set(err, ERR_IO, "%s: %s", final, strerror(errno));
	snprintf(final, sizeof final, "%s/Packages", dir);
	if (rename(tmp, final) < 0)
		return err_set(err, ERR_IO, "%s: %s", final, strerror(errno));
	return 0;
}

/* Remove dists/SUITE/main/binary-* of architectures not in S. */
static void remove_old_arches(const pkg_repo_opts *o, const pool_scan *s,
			      bool host_only, const char *host)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/dists/%s/main", o->repo, o->suite);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "binary-", 7) != 0)
			continue;
		const char *a = e->d_name + 7;
		bool keep = host_only && strcmp(a, host) == 0;
		for (size_t i = 0; !keep && i < s->n_arch; i++)
			keep = strcmp(s->arch[i], a) == 0;
		if (!keep) {
			char p[PATH_MAX + 300];
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			pkg_rm_tree(p);
		}
	}
	closedir(d);
}

/* ---- Release and its signatures --------------------------------------- */

static int release(const pkg_repo_opts *o, const char *arches, ehelf_err *err)
{
	char scratch[PATH_MAX], rel[PATH_MAX + 16], inrel[PATH_MAX + 16],
	     gpgsig[PATH_MAX + 16], date[64], opt[9][PATH_MAX];
	snprintf(scratch, sizeof scratch, "%s/.ehelf-pkg", o->repo);
	snprintf(rel, sizeof rel, "%s/Release", scratch);
	snprintf(inrel, sizeof inrel, "%s/InRelease", scratch);
	snprintf(gpgsig, sizeof gpgsig, "%s/Release.gpg", scratch);
	time_t t = (time_t)o->date;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S UTC", &tm);
	const char *P = "APT::FTPArchive::Release::";
	snprintf(opt[0], sizeof opt[0], "%sOrigin=ehelf", P);
	snprintf(opt[1], sizeof opt[1], "%sLabel=ehelf", P);
	snprintf(opt[2], sizeof opt[2], "%sSuite=%s", P, o->suite);
	snprintf(opt[3], sizeof opt[3], "%sCodename=%s", P, o->suite);
	snprintf(opt[4], sizeof opt[4], "%sDate=%s", P, date);
	snprintf(opt[5], sizeof opt[5], "%sArchitectures=%s", P, arches);
	snprintf(opt[6], sizeof opt[6], "%sComponents=main", P);
	snprintf(opt[7], sizeof opt[7], "%sDescription=eh_elfs of Debian "
		 "packages (ehelf-pkg)", P);
	char dists[PATH_MAX];
	snprintf(dists, sizeof dists, "dists/%s", o->suite);
	const char *argv[] = { "apt-ftparchive", "-o", opt[0], "-o", opt[1],
			       "-o", opt[2], "-o", opt[3], "-o", opt[4], "-o",
			       opt[5], "-o", opt[6], "-o", opt[7], "release",
			       dists, NULL };
	subproc_opts so = { .cwd = o->repo, .path = rel };
	int rc = subproc_run(argv, &so, err);
	if (rc < 0)
		return rc;
	if (o->gpg_key) {
		const char *clear[] = { "gpg", "--batch", "--yes", "--local-user",
					o->gpg_key, "--digest-algo", "SHA512",
					"--clearsign", "--output", inrel, rel, NULL };
		const char *detach[] = { "gpg", "--batch", "--yes", "--local-user",
					 o->gpg_key, "--digest-algo", "SHA512",
					 "--armor", "--detach-sign", "--output",
					 gpgsig, rel, NULL };
		if ((rc = subproc_run(clear, NULL, err)) < 0 ||
		    (rc = subproc_run(detach, NULL, err)) < 0)
			return err_prefix(err, "signing %s with gpg key %s", rel,
					  o->gpg_key);
	}
	/* Release first: InRelease, which apt prefers, last */
	const char *names[] = { "Release", "Release.gpg", "InRelease" };
	for (int i = 0; i < 3; i++) {
		char from[PATH_MAX + 16], to[PATH_MAX + 32];
		snprintf(from, sizeof from, "%s/%s", scratch, names[i]);
		snprintf(to, sizeof to, "%s/dists/%s/%s", o->repo, o->suite, names[i]);
		if (i > 0 && !o->gpg_key) {
			unlink(to);   /* an unsigned run after a signed one */
			continue;
		}
		if (rename(from, to) < 0)
			return err_set(err, ERR_IO, "%s: %s", to, strerror(errno));
	}
	return 0;
}

/* REPO/ehelf-archive-keyring.gpg: the public key, for signed-by=. */
static int export_key(const pkg_repo_opts *o, ehelf_err *err)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	snprintf(dst, sizeof dst, "%s/ehelf-archive-keyring.gpg", o->repo);
	if (!o->gpg_key) {
		unlink(dst);
		return 0;
	}
	snprintf(tmp, sizeof tmp, "%s/.ehelf-pkg/keyring.gpg", o->repo);
	const char *argv[] = { "gpg", "--batch", "--export", o->gpg_key, NULL };
	subproc_opts so = { .path = tmp };
	int rc = subproc_run(argv, &so, err);
	if (rc < 0)
		return rc;
	return rename(tmp, dst) < 0
	       ? err_set(err, ERR_IO, "%s: %s", dst, strerror(errno)) : 0;
}

int pkg_repo_index(const pkg_repo_opts *o, size_t *n_debs,
		   unsigned long long *deb_bytes, ehelf_err *err)
{
	pool_scan s = { 0 };
	char pool[PATH_MAX], host[64] = "amd64";
	snprintf(pool, sizeof pool, "%s/pool", o->repo);
	/* apt-ftparchive wants the pool even when no package was made */
	if (pkg_mkdirs(pool) < 0 || pkg_walk(pool, scan_one, &s) < 0) {
		int e = errno;
		scan_free(&s);
		return err_set(err, ERR_IO, "%s: %s", pool, strerror(e));
	}
	bool host_only = s.n_arch == 0;
	if (host_only) {
		/* an empty repository still lists the machine's architecture,
		 * so that apt can read it */
		char *out = NULL;
		const char *argv[] = { "dpkg", "--print-architecture", NULL };
		subproc_opts so = { .buf = &out };
		if (subproc_run(argv, &so, NULL) == 0)
			snprintf(host, sizeof host, "%.*s",
				 (int)strcspn(out, "\n"), out);
		free(out);
	} else {
		qsort(s.arch, s.n_arch, sizeof *s.arch, str_cmp);
	}
	char arches[512] = "";
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < (host_only ? 1 : s.n_arch); i++) {
		const char *a = host_only ? host : s.arch[i];
		snprintf(arches + strlen(arches), sizeof arches - strlen(arches),
			 "%s%s", *arches ? " " : "", a);
		rc = write_packages(o, a, err);
	}
	if (rc == 0) {
		remove_old_arches(o, &s, host_only, host);
		rc = release(o, arches, err);
	}
	if (rc == 0)
		rc = export_key(o, err);
	*n_debs = s.debs;
	*deb_bytes = s.bytes;
	scan_free(&s);
	return rc;
}

/* ---- pruning ----------------------------------------------------------- */

typedef struct prune {
	char **live;     /* pool paths of the live entries, sorted */
	size_t n_live;
	int removed;
} prune;

static int prune_one(void *arg, int dirfd, const char *name, const char *rel,
		     bool is_dir)
{
	prune *p = arg;
	if (is_dir) {
		if (*rel)
			unlinkat(dirfd, name, AT_REMOVEDIR);   /* if empty */
		return 0;
	}
	if (!ends_with(name, ".deb") || !strstr(name, "-ehelf_"))
		return 0;
	char path[PATH_MAX + 8];
	snprintf(path, sizeof path, "pool/%s", rel);
	const char *key = path;
	if (p->n_live && bsearch(&key, p->live, p->n_live, sizeof *p->live, str_cmp))
		return 0;
	if (unlinkat(dirfd, name, 0) == 0)
		p->removed++;
	return 0;
}

int pkg_repo_prune(const char *repo, const pkg_state *state, ehelf_err *err)
{
	prune p = { .live = malloc((state->n ? state->n : 1) * sizeof(char *)) };
	if (!p.live)
		return err_set(err, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < state->n; i++)
		if (state->e[i].live)
			p.live[p.n_live++] = state->e[i].pool_path;
	if (p.n_live)
		qsort(p.live, p.n_live, sizeof *p.live, str_cmp);
	char pool[PATH_MAX];
	snprintf(pool, sizeof pool, "%s/pool", repo);
	int rc = pkg_walk(pool, prune_one, &p);
	free(p.live);
	return rc < 0 ? err_set(err, ERR_IO, "%s: %s", pool, strerror(errno))
		      : p.removed;
}
