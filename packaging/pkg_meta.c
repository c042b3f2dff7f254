/* pkg_meta.c - see pkg_meta.h. */
#include "pkg_meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "subproc.h"

/* One installed package: pointers into the dpkg-query output. */
typedef struct dpkg_row {
	const char *name, *arch, *version, *source, *source_version,
		   *maintainer, *multi_arch, *priority, *installed_size;
} dpkg_row;

struct pkg_dpkg {
	char *text;      /* dpkg-query's output, split in place */
	dpkg_row *rows;  /* sorted by name, architecture */
	size_t n;
};

enum { DPKG_FIELDS = 10 };

static int row_cmp(const void *a, const void *b)
{
	const dpkg_row *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->arch, y->arch);
}

int pkg_dpkg_load(pkg_dpkg **out, ehelf_err *err)
{
	pkg_dpkg *d = calloc(1, sizeof *d);
	if (!d)
		return err_set(err, ERR_NOMEM, "out of memory");
	size_t len;
	const char *argv[] = {
		"dpkg-query", "-W", "-f",
		"${Package}\\t${Architecture}\\t${Version}\\t${source:Package}\\t"
		"${source:Version}\\t${Maintainer}\\t${Multi-Arch}\\t${Priority}\\t"
		"${Installed-Size}\\t${db:Status-Abbrev}\\n", NULL };
	subproc_opts o = { .buf = &d->text, .len = &len };
	int rc = subproc_run(argv, &o, err);
	if (rc < 0) {
		free(d);
		return rc;
	}
	size_t lines = 0;
	for (const char *c = d->text; *c; c++)
		lines += *c == '\n';
	if (!(d->rows = calloc(lines + 1, sizeof *d->rows))) {
		pkg_dpkg_free(d);
		return err_set(err, ERR_NOMEM, "out of memory");
	}
	char *save = NULL;
	for (char *line = strtok_r(d->text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *f[DPKG_FIELDS];
		int k = 0;
		for (char *c = line; k < DPKG_FIELDS; k++) {
			f[k] = c;
			char *tab = strchr(c, '\t');
			if (!tab) {
				k++;
				break;
			}
			*tab = '\0';
			c = tab + 1;
		}
		/* installed: the second letter of the status is 'i' */
		if (k < DPKG_FIELDS || strlen(f[9]) < 2 || f[9][1] != 'i')
			continue;
		d->rows[d->n++] = (dpkg_row){ f[0], f[1], f[2], f[3], f[4], f[5],
					      f[6], f[7], f[8] };
	}
	qsort(d->rows, d->n, sizeof *d->rows, row_cmp);
	*out = d;
	return 0;
}

void pkg_dpkg_free(pkg_dpkg *d)
{
	if (!d)
		return;
	free(d->rows);
	free(d->text);
	free(d);
}

static const dpkg_row *dpkg_find(const pkg_dpkg *d, const char *name,
				 const char *arch)
{
	dpkg_row key = { .name = name, .arch = arch };
	return d && d->n ? bsearch(&key, d->rows, d->n, sizeof key, row_cmp)
			 : NULL;
}

const char *pkg_dpkg_version(const pkg_dpkg *d, const char *name,
			     const char *arch)
{
	const dpkg_row *r = dpkg_find(d, name, arch);
	return r ? r->version : NULL;
}

/* V without an epoch of 0 ("0:1.2" is "1.2", as dpkg reads it). */
static const char *without_epoch0(const char *v)
{
	return v[0] == '0' && v[1] == ':' ? v + 2 : v;
}

bool pkg_version_same(const char *a, const char *b)
{
	return strcmp(without_epoch0(a), without_epoch0(b)) == 0;
}

int pkg_priority_rank(const char *priority)
{
	static const char *const order[] = { "required", "important",
					     "standard", "optional", "extra" };
	for (int i = 0; i < 5; i++)
		if (strcmp(priority, order[i]) == 0)
			return i;
	return 3;
}

/* "Name (version)" of a Source field into the meta's source fields; the
 * version defaults to VERSION. */
static void set_source(pkg_meta *m, const char *field, const char *name,
		       const char *version)
{
	if (!*field) {
		snprintf(m->source, sizeof m->source, "%s", name);
		snprintf(m->source_version, sizeof m->source_version, "%s", version);
		return;
	}
	size_t n = strcspn(field, " (");
	snprintf(m->source, sizeof m->source, "%.*s", (int)n, field);
	const char *open = strchr(field, '(');
	const char *close = open ? strchr(open, ')') : NULL;
	if (close)
		snprintf(m->source_version, sizeof m->source_version, "%.*s",
			 (int)(close - open - 1), open + 1);
	else
		snprintf(m->source_version, sizeof m->source_version, "%s", version);
}

/* The value of FIELD in dpkg-deb --field output TEXT ("" if absent) into
 * OUT (N bytes). */
static void field(const char *text, const char *name, char *out, size_t n)
{
	size_t len = strlen(name);
	out[0] = '\0';
	for (const char *l = text; *l;) {
		if (strncmp(l, name, len) == 0 && l[len] == ':') {
			const char *v = l + len + 1;
			while (*v == ' ')
				v++;
			snprintf(out, n, "%.*s", (int)strcspn(v, "\n"), v);
			return;
		}
		const char *nl = strchr(l, '\n');
		if (!nl)
			break;
		l = nl + 1;
	}
}

static int meta_from_deb(const pkg *p, pkg_meta *m, ehelf_err *err)
{
	char *text = NULL;
	size_t len;
	const char *argv[] = { "dpkg-deb", "--field", p->deb, "Package", "Version",
			       "Architecture", "Source", "Maintainer", "Multi-Arch",
			       "Priority", "Installed-Size", NULL };
	subproc_opts o = { .buf = &text, .len = &len };
	int rc = subproc_run(argv, &o, err);
	if (rc < 0)
		return err_prefix(err, "cannot read the package file %s", p->deb);
	char name[256], version[256], arch[64], src[256], size[32];
	field(text, "Package", name, sizeof name);
	field(text, "Version", version, sizeof version);
	field(text, "Architecture", arch, sizeof arch);
	if (strcmp(name, p->name) || !pkg_version_same(version, p->version) ||
	    strcmp(arch, p->arch)) {
		free(text);
		return err_set(err, ERR_NOTFOUND, "%s now holds %s %s %s, not %s "
			       "%s %s: run ehelf-batch again", p->deb, name,
			       version, arch, p->name, p->version, p->arch);
	}
	field(text, "Source", src, sizeof src);
	set_source(m, src, p->name, p->version);
	field(text, "Maintainer", m->maintainer, sizeof m->maintainer);
	field(text, "Multi-Arch", m->multi_arch, sizeof m->multi_arch);
	field(text, "Priority", m->priority, sizeof m->priority);
	field(text, "Installed-Size", size, sizeof size);
	m->installed_size = strtoull(size, NULL, 10);
	free(text);
	return 0;
}

int pkg_meta_read(const pkg *p, const pkg_dpkg *d, pkg_meta *m,
		  ehelf_err *err)
{
	memset(m, 0, sizeof *m);
	const dpkg_row *r = p->installed ? dpkg_find(d, p->name, p->arch) : NULL;
	if (r && pkg_version_same(r->version, p->version)) {
		set_source(m, "", r->source, r->source_version);
		snprintf(m->maintainer, sizeof m->maintainer, "%s", r->maintainer);
		snprintf(m->multi_arch, sizeof m->multi_arch, "%s", r->multi_arch);
		snprintf(m->priority, sizeof m->priority, "%s", r->priority);
		m->installed_size = strtoull(r->installed_size, NULL, 10);
		return 0;
	}
	if (p->deb)
		return meta_from_deb(p, m, err);
	return err_set(err, ERR_NOTFOUND, "%s:%s %s is no longer installed (dpkg "
		       "has %s): run ehelf-batch again", p->name, p->arch,
		       p->version, r ? r->version : "none");
}
