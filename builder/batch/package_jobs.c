/* package_jobs.c - turning sources into jobs (see package.h). */
#include <errno.h>
#include <limits.h>
#include <fts.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "package.h"
#include "package_impl.h"

static int add(pkg_jobs *jobs, pkg_format f, const char *path,
	       const char *version, const char *arch, uint64_t size,
	       ehelf_err *err)
{
	if (jobs->n == jobs->cap) {
		size_t cap = jobs->cap ? 2 * jobs->cap : 64;
		pkg_job *v = realloc(jobs->v, cap * sizeof *v);
		if (!v)
			return err_set(err, ERR_NOMEM, "out of memory");
		jobs->v = v;
		jobs->cap = cap;
	}
	pkg_job *j = &jobs->v[jobs->n];
	*j = (pkg_job){ .format = f, .path = strdup(path), .size = size,
			.version = version ? strdup(version) : NULL,
			.arch = arch ? strdup(arch) : NULL };
	if (!j->path)
		return err_set(err, ERR_NOMEM, "out of memory");
	jobs->n++;
	return 0;
}

/* A symbolic link E met in a directory: when named as a package, the
 * package it points to is a job (under its real path, as a package given
 * by itself); a link that leads nowhere, or not to a regular file, is a
 * job too, under its own path: reading it fails and records why.  Links
 * to other files are left to their targets (the tree reads files, not
 * links). */
static int add_linked_package(pkg_jobs *jobs, const FTSENT *e, ehelf_err *err)
{
	int f = pkg_format_of_name(e->fts_name);
	if (f < 0)
		return 0;
	char real[PATH_MAX];
	struct stat st;
	if (realpath(e->fts_path, real) && stat(real, &st) == 0 &&
	    S_ISREG(st.st_mode))
		return add(jobs, (pkg_format)f, real, NULL, NULL,
			   (uint64_t)st.st_size, err);
	return add(jobs, (pkg_format)f, e->fts_path, NULL, NULL, 0, err);
}

int pkg_jobs_add_source(pkg_jobs *jobs, const char *given, ehelf_err *err)
{
	/* packages are identified by absolute path, whatever the cwd */
	char source[PATH_MAX];
	struct stat st;
	if (!realpath(given, source) || stat(source, &st) < 0)
		return err_set(err, ERR_IO, "%s: %s", given, strerror(errno));
	if (S_ISREG(st.st_mode)) {
		int f = pkg_format_of_name(source);
		int elf = f < 0 ? pkg_probe_elf(source) : 0;
		if (elf < 0)
			return err_set(err, ERR_IO, "%s: cannot be read: %s", source,
				       strerror(-elf));
		if (elf)
			f = PKG_FILE;
		if (f < 0)
			return err_set(err, ERR_UNSUPPORTED, "%s: not a package "
				       "(.deb, .ddeb, .udeb, .rpm, .pkg.tar.zst, "
				       ".pkg.tar.xz), an ELF file nor a directory",
				       source);
		return add(jobs, (pkg_format)f, source, NULL, NULL,
			   (uint64_t)st.st_size, err);
	}
	if (!S_ISDIR(st.st_mode))
		return err_set(err, ERR_UNSUPPORTED, "%s: not a file or directory",
			       source);
	/* package files are jobs of their own; the rest is one tree */
	char *const roots[] = { (char *)source, NULL };
	FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
	if (!fts)
		return err_set(err, ERR_IO, "%s: cannot walk", source);
	bool others = false;
	uint64_t other_bytes = 0;
	int rc = 0;
	FTSENT *e;
	while (rc == 0 && (e = fts_read(fts)) != NULL) {
		if (e->fts_info == FTS_SL || e->fts_info == FTS_SLNONE) {
			rc = add_linked_package(jobs, e, err);
			continue;
		}
		if (e->fts_info != FTS_F)
			continue;
		int f = pkg_format_of_name(e->fts_name);
		if (f >= 0) {
			rc = add(jobs, (pkg_format)f, e->fts_path, NULL, NULL,
				 (uint64_t)e->fts_statp->st_size, err);
		} else {
			others = true;
			other_bytes += (uint64_t)e->fts_statp->st_size;
		}
	}
	fts_close(fts);
	if (rc == 0 && others)
		rc = add(jobs, PKG_DIR, source, NULL, NULL, other_bytes, err);
	return rc;
}

int pkg_jobs_add_installed(pkg_jobs *jobs, ehelf_err *err)
{
	FILE *p = popen("dpkg-query -W -f '${db:Status-Abbrev}\\t${binary:Package}"
			"\\t${Version}\\t${Architecture}\\t${Installed-Size}\\n' "
			"2>/dev/null", "r");
	if (!p)
		return err_set(err, ERR_IO, "cannot run dpkg-query");
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	size_t before = jobs->n;
	while (rc == 0 && getline(&line, &cap, p) > 0) {
		char *f[5] = { 0 };
		char *save = NULL;
		f[0] = strtok_r(line, "\t\n", &save);
		for (int i = 1; i < 5; i++)
			f[i] = strtok_r(NULL, "\t\n", &save);
		if (!f[0] || !f[3] || strncmp(f[0], "ii", 2) != 0)
			continue; /* only fully installed packages */
		uint64_t kib = f[4] ? strtoull(f[4], NULL, 10) : 0;
		rc = add(jobs, PKG_INSTALLED, f[1], f[2], f[3], kib * 1024, err);
	}
	free(line);
	int st = pclose(p);
	if (rc == 0 && (st != 0 || jobs->n == before))
		rc = err_set(err, ERR_IO, "dpkg-query found no installed packages "
			     "(is this a Debian system?)");
	return rc;
}

static int cmp_job(const void *a, const void *b)
{
	const pkg_job *x = a, *y = b;
	if (x->format != y->format)
		return x->format < y->format ? -1 : 1;
	return strcmp(x->path, y->path);
}

void pkg_jobs_sort(pkg_jobs *jobs)
{
	qsort(jobs->v, jobs->n, sizeof *jobs->v, cmp_job);
	/* a source given twice (a directory and a package in it): one job,
	 * else two workers would read it at once */
	size_t k = 0;
	for (size_t i = 0; i < jobs->n; i++) {
		if (k && cmp_job(&jobs->v[k - 1], &jobs->v[i]) == 0) {
			free(jobs->v[i].path);
			free(jobs->v[i].version);
			free(jobs->v[i].arch);
			continue;
		}
		jobs->v[k++] = jobs->v[i];
	}
	jobs->n = k;
}

void pkg_jobs_free(pkg_jobs *jobs)
{
	for (size_t i = 0; i < jobs->n; i++) {
		free(jobs->v[i].path);
		free(jobs->v[i].version);
		free(jobs->v[i].arch);
	}
	free(jobs->v);
	memset(jobs, 0, sizeof *jobs);
}
