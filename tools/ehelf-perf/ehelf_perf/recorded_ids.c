/* recorded_ids.c - see recorded_ids.h. */
#define _GNU_SOURCE
#include "recorded_ids.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../../common/elf_file.h"
#include "../../../common/u64_map.h"
#include "../perfdata/perf_data.h"
#include "vdso_file.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}

/* The array V of *CAP elements of SIZE bytes, N of them used, with room
 * for one more: V, or a larger copy (*CAP updated), or NULL if out of
 * memory (V unchanged). */
static void *room(void *v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return v;
	size_t c = *cap ? 2 * *cap : 32;
	void *w = realloc(v, c * size);
	if (w)
		*cap = c;
	return w;
}

/* IDs so far, with an index by hash (value: position + 1). */
struct ids {
	id_list *list;
	u64_map seen;
};

static int add_id(struct ids *s, const uint8_t *id, size_t len)
{
	char hex[BUILDID_HEX_MAX + 1];
	if (buildid_to_hex(id, len, hex, sizeof hex) < 0)
		return 0;
	uint64_t h = fnv(14695981039346656037ull, hex, strlen(hex));
	uintptr_t at = u64_map_get(&s->seen, h);
	id_list *l = s->list;
	if (at && !strcmp(l->hex[at - 1], hex))
		return 0;
	void *v = room(l->hex, &l->cap, l->n, sizeof *l->hex);
	if (!v)
		return ERR_NOMEM;
	l->hex = v;
	memcpy(l->hex[l->n++], hex, sizeof hex);
	/* on a hash collision (another ID) the first keeps the slot: a
	 * later duplicate of this one is only listed twice */
	return u64_map_put(&s->seen, h, l->n, true);
}

/* The build-ID of the file at PATH (the vDSO: ours, vdso_file.h), if any:
 * what the unwinding takes for a mapping whose build-ID was not recorded
 * (dso.h). */
static int add_file_id(struct ids *s, const char *path)
{
	elf_file f;
	const uint8_t *id;
	int n, rc = 0;
	char vdso[4096];
	if (!strcmp(path, "[vdso]") && vdso_file(NULL, 0, vdso, sizeof vdso) == 0)
		path = vdso;
	if (path[0] != '/' || elf_file_open(&f, path, NULL) != 0)
		return 0;
	if ((n = elf_file_build_id(&f, &id)) > 0)
		rc = add_id(s, id, (size_t)n);
	elf_file_close(&f);
	return rc;
}

/* Mappings whose build-ID is to be looked up once all is read. */
struct pending {
	struct pend {
		uint32_t pid;
		char *file;
	} *v;
	size_t n, cap;
	u64_map seen;   /* hash of pid and file name */
};

static int add_pending(struct pending *p, uint32_t pid, const char *file)
{
	uint64_t h = fnv(fnv(14695981039346656037ull, &pid, sizeof pid), file,
			 strlen(file));
	if (u64_map_get(&p->seen, h))
		return 0; /* (or a collision: that mapping's ID then missed) */
	void *v = room(p->v, &p->cap, p->n, sizeof *p->v);
	if (!v)
		return ERR_NOMEM;
	p->v = v;
	char *c = strdup(file);
	if (!c)
		return ERR_NOMEM;
	p->v[p->n++] = (struct pend){ pid, c };
	return u64_map_put(&p->seen, h, 1, true);
}

/* One record: an executable mapping of a file (or the vDSO) by a
 * process. */
static int take(struct ids *s, struct pending *p, const perf_event *ev)
{
	if (ev->kind != PERF_EV_MMAP || ev->pid == (uint32_t)-1 || !ev->mmap.exec)
		return 0;
	const char *f = ev->mmap.filename;
	if (f[0] != '/' && strcmp(f, "[vdso]") != 0)
		return 0;
	if (ev->mmap.build_id_len)
		return add_id(s, ev->mmap.build_id, ev->mmap.build_id_len);
	return add_pending(p, ev->pid, f);
}

int recorded_ids(const char *input, id_list *out, ehelf_err *err)
{
	bool is_stdin = !strcmp(input, "-");
	off_t at = is_stdin ? lseek(0, 0, SEEK_CUR) : 0;
	if (at < 0)
		return err_set(err, ERR_ARG, "standard input: not seekable");
	perf_reader *r = perf_reader_open(input, err);
	if (!r)
		return err->code;
	/* no stack copy is needed here: as little of them read as can be
	 * (when out of memory, the whole file is read as before) */
	(void)perf_reader_partial_stacks(r, 64);
	struct ids s = { .list = out };
	struct pending p = { 0 };
	perf_event ev;
	int rc;
	while ((rc = perf_reader_next(r, &ev, err)) > 0)
		if ((rc = take(&s, &p, &ev)) < 0) {
			err_set(err, rc, "out of memory");
			break;
		}
	/* the BUILD_ID feature is complete now, a pipe's too */
	for (size_t i = 0; i < p.n; i++) {
		const uint8_t *id;
		size_t n = perf_reader_build_id(r, p.v[i].pid, p.v[i].file, &id);
		if (rc >= 0 && (rc = n ? add_id(&s, id, n)
				       : add_file_id(&s, p.v[i].file)) < 0)
			err_set(err, rc, "out of memory");
		free(p.v[i].file);
	}
	free(p.v);
	u64_map_free(&p.seen);
	u64_map_free(&s.seen);
	perf_reader_close(r);
	if (is_stdin && lseek(0, at, SEEK_SET) < 0 && rc >= 0)
		rc = err_set(err, ERR_IO, "standard input: cannot seek back");
	return rc < 0 ? rc : 0;
}

void id_list_free(id_list *l)
{
	free(l->hex);
	l->hex = NULL;
	l->n = l->cap = 0;
}
