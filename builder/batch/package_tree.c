/*
 * package_tree.c - packages whose files are on disk: a plain directory tree
 * (walked with fts; package files in it are jobs of their own and skipped
 * here), a package dpkg says is installed (its file list,
 * /var/lib/dpkg/info/NAME.list), and a single ELF file (under its absolute
 * path).  Only regular files starting with the ELF magic are returned;
 * they are read in place.  A regular file that cannot be opened or read is
 * returned as a member with a problem (reported, its package not done).
 */
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "package_impl.h"
#include "package_tree.h"

#ifndef EHELF_DPKG_INFO
#define EHELF_DPKG_INFO "/var/lib/dpkg/info"
#endif

typedef struct tree_reader {
	pkg_reader base;
	FTS *fts;          /* PKG_DIR */
	size_t root_len;
	FILE *list;        /* PKG_INSTALLED */
	const char *file;  /* PKG_FILE: its path, NULL once returned */
	bool single;       /* PKG_FILE */
	char *line;
	size_t line_cap;
	char disk[4096];
} tree_reader;

/* Member M: the file at DISK, PATH in the package; read in place.  1, or
 * ERR_NOMEM. */
static int member(tree_reader *r, pkg_member *m, const char *path,
		  const char *disk, ehelf_err *err)
{
	int rc = pkg_member_name(&r->base, 0, path, &m->path, err);
	if (rc < 0)
		return rc;
	pkg_set(r->disk, sizeof r->disk, disk);
	m->disk_path = r->disk;
	m->data = NULL;
	m->size = 0;
	return 1;
}

/* Member M at PATH, the file at DISK (which pkg_probe_elf gave -ERRNO):
 * not read, reported with the reason.  1, or ERR_NOMEM. */
static int unreadable(tree_reader *r, pkg_member *m, const char *path,
		      int errno_, ehelf_err *err)
{
	int rc = pkg_member_name(&r->base, 0, path, &m->path, err);
	if (rc < 0)
		return rc;
	snprintf(r->base.problem, sizeof r->base.problem, "cannot be read (%s)",
		 strerror(errno_));
	m->problem = r->base.problem;
	return 1;
}

static int tree_next(pkg_reader *base, pkg_member *m, ehelf_err *err)
{
	tree_reader *r = (tree_reader *)base;
	if (r->single) {
		const char *f = r->file;
		if (!f)
			return 0;
		r->file = NULL;
		int elf = pkg_probe_elf(f);
		if (elf < 0)
			return err_set(err, ERR_IO, "%s: cannot be read: %s", f,
				       strerror(-elf));
		if (!elf)
			return err_set(err, ERR_IO, "%s: no longer an ELF file", f);
		return member(r, m, f, f, err);
	}
	if (r->fts) {
		FTSENT *e;
		while ((e = fts_read(r->fts)) != NULL) {
			if (e->fts_info == FTS_DNR || e->fts_info == FTS_ERR)
				return err_set(err, ERR_IO, "%s: cannot read",
					       e->fts_path);
			if (e->fts_info != FTS_F || pkg_is_package_name(e->fts_name))
				continue;
			int elf = pkg_probe_elf(e->fts_path);
			if (elf < 0)
				return unreadable(r, m, e->fts_path + r->root_len,
						  -elf, err);
			if (!elf)
				continue;
			return member(r, m, e->fts_path + r->root_len, e->fts_path,
				      err);
		}
		return 0;
	}
	ssize_t n;
	while ((n = getline(&r->line, &r->line_cap, r->list)) > 0) {
		if (r->line[n - 1] == '\n')
			r->line[--n] = '\0';
		int elf = pkg_probe_elf(r->line);
		if (elf < 0)
			return unreadable(r, m, r->line, -elf, err);
		if (!elf)
			continue;
		return member(r, m, r->line, r->line, err);
	}
	return 0;
}

static void tree_close(pkg_reader *base)
{
	tree_reader *r = (tree_reader *)base;
	if (r->fts)
		fts_close(r->fts);
	if (r->list)
		fclose(r->list);
	free(r->line);
	free(r);
}

int pkg_open_tree(const pkg_job *job, pkg_reader **out, ehelf_err *err)
{
	tree_reader *r = calloc(1, sizeof *r);
	if (!r)
		return err_set(err, ERR_NOMEM, "out of memory");
	r->base.next = tree_next;
	r->base.close = tree_close;
	pkg_meta *m = &r->base.meta;
	m->format = job->format;
	if (job->format == PKG_FILE || job->format == PKG_DIR) {
		/* named after the file or directory */
		pkg_set(m->source, sizeof m->source, job->path);
		const char *slash = strrchr(job->path, '/');
		pkg_set(m->name, sizeof m->name,
			slash && slash[1] ? slash + 1 : job->path);
	}
	if (job->format == PKG_FILE) {
		r->file = job->path;
		r->single = true;
	} else if (job->format == PKG_DIR) {
		char *const roots[] = { job->path, NULL };
		r->fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
		r->root_len = strlen(job->path);
		if (!r->fts) {
			tree_close(&r->base);
			return err_set(err, ERR_IO, "%s: cannot walk", job->path);
		}
	} else {
		snprintf(m->source, sizeof m->source, "dpkg:%s", job->path);
		pkg_set(m->name, sizeof m->name, job->path);
		char *colon = strchr(m->name, ':');
		if (colon)
			*colon = '\0';
		pkg_set(m->version, sizeof m->version, job->version ? job->version : "");
		pkg_set(m->arch, sizeof m->arch, job->arch ? job->arch : "");
		char list[4200];
		snprintf(list, sizeof list, "%s/%s.list", EHELF_DPKG_INFO, job->path);
		r->list = fopen(list, "re");
		if (!r->list) { /* M-A: same packages list as NAME:ARCH */
			snprintf(list, sizeof list, "%s/%s:%s.list", EHELF_DPKG_INFO,
				 m->name, m->arch);
			r->list = fopen(list, "re");
		}
		if (!r->list) {
			tree_close(&r->base);
			return err_set(err, ERR_IO, "%s: no dpkg file list (%s)",
				       job->path, list);
		}
	}
	*out = &r->base;
	return 0;
}
