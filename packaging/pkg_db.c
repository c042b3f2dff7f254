/* pkg_db.c - see pkg_db.h. */
#include "pkg_db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../store/index_db.h"

const char *pkg_skip_reason_str(enum pkg_skip_reason reason)
{
	switch (reason) {
	case SKIP_FORMAT:
		return "not Debian packages (rpm, arch, dir, file, and "
		       "ehelf-server's debuginfod builds)";
	case SKIP_UDEB: return "installer packages (.udeb)";
	case SKIP_DEBUG: return "-dbgsym and -ehelf packages";
	case SKIP_UNFINISHED: return "not finished by ehelf-batch";
	case SKIP_NO_EHELF: return "without any eh_elf";
	case SKIP_COUNT: break;
	}
	return "?";
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Why the packages row (FORMAT, SOURCE, NAME, STATUS) is left out, or -1. */
static int skip_reason(const char *format, const char *source,
		       const char *name, const char *status)
{
	if (strcmp(format, "deb") != 0 && strcmp(format, "installed") != 0)
		return SKIP_FORMAT;
	if (ends_with(source, ".udeb"))
		return SKIP_UDEB;
	if (ends_with(name, "-dbgsym") || ends_with(name, "-ehelf"))
		return SKIP_DEBUG;
	if (strcmp(status, "done") != 0)
		return SKIP_UNFINISHED;
	return -1;
}

typedef struct row_map {
	int64_t id;
	size_t pkg;
} row_map;

static int by_id(const void *a, const void *b)
{
	int64_t x = ((const row_map *)a)->id, y = ((const row_map *)b)->id;
	return x < y ? -1 : x > y;
}

static const char *col(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);
	return t ? t : "";
}

/* ARR (N elements of SIZE bytes, room for *CAP) with room for one more:
 * the same or a moved array, or NULL when out of memory (ARR kept). */
static void *reserve(void *arr, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return arr;
	size_t c = *cap ? 2 * *cap : 64;
	void *q = realloc(arr, c * size);
	if (q)
		*cap = c;
	return q;
}

static int db_error(sqlite3 *h, const char *path, ehelf_err *err)
{
	return err_set(err, ERR_IO, "%s: %s", path, sqlite3_errmsg(h));
}

/* The packages rows: accepted ones merged into SET->pkgs, their ids in
 * *MAP (sorted by id). */
static int load_packages(sqlite3 *h, const char *path, pkg_set *set,
			 row_map **map, size_t *n_map, ehelf_err *err)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(h, "SELECT id, name, version, architecture, source,"
			       " format, status FROM packages ORDER BY name,"
			       " version, architecture, source", -1, &s, NULL)
	    != SQLITE_OK)
		return db_error(h, path, err);
	size_t cap = 0, map_cap = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = col(s, 1), *version = col(s, 2),
			   *arch = col(s, 3), *source = col(s, 4),
			   *format = col(s, 5);
		int why = skip_reason(format, source, name, col(s, 6));
		if (why >= 0) {
			set->skipped[why]++;
			continue;
		}
		pkg *p = set->n ? &set->pkgs[set->n - 1] : NULL;
		if (!p || strcmp(p->name, name) || strcmp(p->version, version) ||
		    strcmp(p->arch, arch)) {
			pkg *a = reserve(set->pkgs, set->n, &cap, sizeof *a);
			if (!a)
				goto nomem;
			set->pkgs = a;
			p = memset(&a[set->n++], 0, sizeof *p);
			if (!(p->name = strdup(name)) ||
			    !(p->version = strdup(version)) ||
			    !(p->arch = strdup(arch)))
				goto nomem;
		}
		if (strcmp(format, "installed") == 0)
			p->installed = true;
		else if (!p->deb && !(p->deb = strdup(source)))
			goto nomem;
		row_map *m = reserve(*map, *n_map, &map_cap, sizeof *m);
		if (!m)
			goto nomem;
		*map = m;
		m[(*n_map)++] = (row_map){ sqlite3_column_int64(s, 0), set->n - 1 };
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return db_error(h, path, err);
	if (*n_map)
		qsort(*map, *n_map, sizeof **map, by_id);
	return 0;
nomem:
	sqlite3_finalize(s);
	return err_set(err, ERR_NOMEM, "out of memory");
}

/* The eh_elfs of the ELF files of the accepted packages. */
static int load_elfs(sqlite3 *h, const char *path, pkg_set *set,
		     const row_map *map, size_t n_map, ehelf_err *err)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(h, "SELECT f.package_id, f.build_id, min(f.path),"
			       " e.build_id IS NOT NULL, e.ehelf_bytes, e.sha256,"
			       " e.signed_by, max(coalesce(f.eh_frame_bytes, 0)),"
			       " max(coalesce(f.eh_frame_hdr_bytes, 0))"
			       " FROM files f LEFT JOIN eh_elfs e"
			       " ON e.build_id = f.build_id"
			       " WHERE f.status IN ('built', 'present')"
			       " AND f.build_id IS NOT NULL"
			       " GROUP BY f.package_id, f.build_id"
			       " ORDER BY f.build_id", -1, &s, NULL) != SQLITE_OK)
		return db_error(h, path, err);
	size_t cap = 0;
	size_t *caps = calloc(set->n ? set->n : 1, sizeof *caps);
	if (!caps)
		goto nomem;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		row_map key = { .id = sqlite3_column_int64(s, 0) };
		const row_map *m = n_map ? bsearch(&key, map, n_map, sizeof key,
						   by_id) : NULL;
		if (!m)
			continue;   /* a package left out */
		const char *hex = col(s, 1);
		pkg_elf *e = set->n_elfs ? &set->elfs[set->n_elfs - 1] : NULL;
		if (!e || strncmp(e->build_id, hex, sizeof e->build_id) != 0) {
			pkg_elf *a = reserve(set->elfs, set->n_elfs, &cap, sizeof *a);
			if (!a)
				goto nomem;
			set->elfs = a;
			e = memset(&a[set->n_elfs++], 0, sizeof *e);
			if (!(e->path = strdup(col(s, 2))))
				goto nomem;
			snprintf(e->build_id, sizeof e->build_id, "%s", hex);
			e->has_row = sqlite3_column_int(s, 3);
			e->size = (uint64_t)sqlite3_column_int64(s, 4);
			snprintf(e->sha256, sizeof e->sha256, "%s", col(s, 5));
			snprintf(e->signed_by, sizeof e->signed_by, "%s", col(s, 6));
		}
		uint64_t ef = (uint64_t)sqlite3_column_int64(s, 7),
			 hdr = (uint64_t)sqlite3_column_int64(s, 8);
		e->eh_frame = ef > e->eh_frame ? ef : e->eh_frame;
		e->eh_frame_hdr = hdr > e->eh_frame_hdr ? hdr : e->eh_frame_hdr;
		pkg *p = &set->pkgs[m->pkg];
		size_t idx = set->n_elfs - 1;
		if (p->n_elf && p->elf[p->n_elf - 1] == idx)
			continue;   /* the same build-ID from another source */
		size_t *a = reserve(p->elf, p->n_elf, &caps[m->pkg], sizeof *a);
		if (!a)
			goto nomem;
		p->elf = a;
		a[p->n_elf++] = idx;
	}
	free(caps);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_error(h, path, err);
nomem:
	free(caps);
	sqlite3_finalize(s);
	return err_set(err, ERR_NOMEM, "out of memory");
}

static void pkg_free(pkg *p)
{
	free(p->name);
	free(p->version);
	free(p->arch);
	free(p->deb);
	free(p->elf);
}

int pkg_db_load(pkg_set *set, const char *path, ehelf_err *err)
{
	memset(set, 0, sizeof *set);
	sqlite3 *h;
	int rc = index_db_open_read(&h, path, err);
	if (rc < 0)
		return rc;
	row_map *map = NULL;
	size_t n_map = 0;
	if ((rc = load_packages(h, path, set, &map, &n_map, err)) == 0)
		rc = load_elfs(h, path, set, map, n_map, err);
	free(map);
	sqlite3_close(h);
	if (rc < 0) {
		pkg_set_free(set);
		return rc;
	}
	pkg_set_drop_empty(set);
	return 0;
}

void pkg_set_drop_empty(pkg_set *set)
{
	size_t k = 0;
	for (size_t i = 0; i < set->n; i++) {
		if (set->pkgs[i].n_elf == 0) {
			set->skipped[SKIP_NO_EHELF]++;
			pkg_free(&set->pkgs[i]);
		} else {
			set->pkgs[k++] = set->pkgs[i];
		}
	}
	set->n = k;
}

void pkg_set_free(pkg_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		pkg_free(&set->pkgs[i]);
	for (size_t i = 0; i < set->n_elfs; i++)
		free(set->elfs[i].path);
	free(set->pkgs);
	free(set->elfs);
	memset(set, 0, sizeof *set);
}
