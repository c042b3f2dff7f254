/* dso.c - see dso.h. */
#include "dso.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../../common/buildid.h"
#include "buildid_cache.h"
#include "cache_dir.h"
#include "debuginfod_file.h"
#include "symbol_view.h"

enum { DSO_BUCKETS = 1024 };

struct dso_table {
	dso *bucket[DSO_BUCKETS];
	char saved[4096];	/* where symbol tables are saved, "" if not */
	bool use_debuginfod;
	bool dinfod_tried;
	dinfod *dinfod;		/* begun on first need */
	char dinfod_why[256];	/* why it could not begin, "" if it did */
};

dso_table *dso_table_new(void)
{
	dso_table *t = calloc(1, sizeof(dso_table));
	if (t && cache_dir("symtab", t->saved, sizeof t->saved) < 0)
		t->saved[0] = '\0';
	return t;
}

void dso_table_free(dso_table *t)
{
	if (!t)
		return;
	for (int b = 0; b < DSO_BUCKETS; b++)
		for (dso *d = t->bucket[b], *next; d; d = next) {
			next = d->next;
			if (d->usable)
				elf_file_close(&d->elf);
			symtab_free(d->syms);
			free(d->segs);
			sym_memo_free(&d->memo);
			free(d->file);
			free(d->path);
			free(d);
		}
	dinfod_free(t->dinfod);
	free(t);
}

const char *dso_table_debuginfod_failure(const dso_table *t)
{
	return t->dinfod_why[0] ? t->dinfod_why : NULL;
}

void dso_table_use_debuginfod(dso_table *t, bool on)
{
	t->use_debuginfod = on;
}

static unsigned hash_path(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % DSO_BUCKETS;
}

/* Open FILE as D's and check it against the recorded build-ID, if any.
 * True when it is D's file (then open in D->elf). */
static bool open_checked(dso *d, const char *file)
{
	ehelf_err err;
	if (elf_file_open(&d->elf, file, &err) < 0)
		return false;
	const uint8_t *id;
	int n = elf_file_build_id(&d->elf, &id);
	/* perf writes build-IDs in 20-byte fields: a shorter one (MD5's 16
	 * bytes, lld's 8) may come zero-padded; the file's own is kept */
	if (d->build_id_len && (n <= 0 || !buildid_same(id, (size_t)n, d->build_id,
							d->build_id_len))) {
		elf_file_close(&d->elf); /* another file by that name now */
		return false;
	}
	if (n > 0 && (size_t)n <= sizeof d->build_id) {
		memcpy(d->build_id, id, (size_t)n);
		d->build_id_len = (size_t)n;
	}
	return true;
}

static bool has_symtab(elf_file *f)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(f->elf, scn)) != NULL;) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	}
	return false;
}

/* D's file when it is not at its path (dso.h, 2 and 3), open in D->elf
 * with D->file set; false if none. */
static bool open_elsewhere(dso_table *t, dso *d)
{
	char file[4096], debug[4096], view[4096], hex[BUILDID_HEX_MAX + 1];
	if (!d->build_id_len || d->perf_map ||
	    buildid_to_hex(d->build_id, d->build_id_len, hex, sizeof hex) < 0)
		return false;
	const char *dbg = NULL;
	if (buildid_cache_file(d->build_id, d->build_id_len, "elf", file,
			       sizeof file) == 0 && open_checked(d, file)) {
		if (!has_symtab(&d->elf) &&
		    buildid_cache_file(d->build_id, d->build_id_len, "debug",
				       debug, sizeof debug) == 0 &&
		    access(debug, R_OK) == 0)
			dbg = debug;
	} else {
		if (t->use_debuginfod && !t->dinfod_tried) {
			t->dinfod_tried = true;
			t->dinfod = dinfod_new(t->dinfod_why, sizeof t->dinfod_why);
		}
		if (dinfod_find(t->dinfod, DINFOD_EXECUTABLE, d->build_id,
				d->build_id_len, file, sizeof file) != 0 ||
		    !open_checked(d, file))
			return false;
		if (!has_symtab(&d->elf) &&
		    dinfod_find(t->dinfod, DINFOD_DEBUGINFO, d->build_id,
				d->build_id_len, debug, sizeof debug) == 0)
			dbg = debug;
	}
	if (dbg && symbol_view(hex, file, dbg, view, sizeof view) == 0)
		d->file = strdup(view);
	else
		d->file = strdup(file);
	if (!d->file)
		elf_file_close(&d->elf);
	return d->file != NULL;
}

/* Open D's file (dso.h) and take in its segments. */
static void dso_open(dso_table *t, dso *d)
{
	if (open_checked(d, d->path)) {
		if (!(d->file = strdup(d->path))) {
			elf_file_close(&d->elf);
			return;
		}
	} else if (!open_elsewhere(t, d)) {
		return;
	}
	size_t nph, size;
	d->image = (const uint8_t *)elf_rawfile(d->elf.elf, &size);
	d->image_size = d->image ? size : 0;
	if (elf_getphdrnum(d->elf.elf, &nph) == 0 &&
	    (d->segs = calloc(nph ? nph : 1, sizeof *d->segs)) != NULL)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(d->elf.elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (ph.p_flags & PF_X)
				d->has_text = true;
			if (ph.p_offset <= d->image_size &&
			    ph.p_filesz <= d->image_size - ph.p_offset)
				d->segs[d->nsegs++] = (struct dso_seg){
					ph.p_vaddr, ph.p_offset, ph.p_filesz };
		}
	d->usable = true;
}

dso *dso_get(dso_table *t, const char *path, const uint8_t *id, size_t len)
{
	unsigned b = hash_path(path);
	for (dso *d = t->bucket[b]; d; d = d->next)
		if (!strcmp(d->path, path) &&
		    (!len || buildid_same(d->build_id, d->build_id_len, id, len)))
			return d;
	dso *d = calloc(1, sizeof *d);
	if (!d || !(d->path = strdup(path))) {
		free(d);
		return NULL;
	}
	if (len && len <= sizeof d->build_id) {
		memcpy(d->build_id, id, len);
		d->build_id_len = len;
	}
	d->saved_dir = t->saved[0] ? t->saved : NULL;
	d->perf_map = !strncmp(path, "/tmp/perf-", 10);
	dso_open(t, d);
	d->next = t->bucket[b];
	t->bucket[b] = d;
	return d;
}

int dso_bias(dso *d, uint64_t start, uint64_t pgoff, bool exec, bool writable,
	     uint64_t *bias)
{
	if (!d->usable && d->perf_map) { /* runtime addresses */
		*bias = 0;
		return 0;
	}
	return d->usable ? elf_file_load_bias(&d->elf, start, pgoff, exec,
					      writable, bias)
			 : ERR_NOTFOUND;
}

int dso_read(dso *d, uint64_t addr, uint64_t *value)
{
	for (size_t i = 0; i < d->nsegs; i++) {
		const struct dso_seg *g = &d->segs[i];
		if (addr >= g->vaddr && g->filesz >= 8 && addr - g->vaddr <= g->filesz - 8) {
			memcpy(value, d->image + g->offset + (addr - g->vaddr), 8);
			return 0;
		}
	}
	return ERR_NOTFOUND;
}

const char *dso_symbol(dso *d, uint64_t addr, uint64_t *off)
{
	if (!d->syms_tried) {
		d->syms_tried = true;
		if (d->perf_map) { /* as perf: a text file, read each run */
			ehelf_err err;
			d->syms = symtab_load_perf_map(d->path, &err);
		} else if (d->usable) {
			ehelf_err err;
			d->syms = symtab_load_elf_saved(d->file, d->build_id,
							d->build_id_len,
							d->saved_dir, &err);
		}
	}
	if (!d->syms)
		return NULL;
	return sym_memo_find(&d->memo, d->syms, addr, off);
}
