/* cfi_reader.c - see cfi_reader.h. */
#include "cfi_reader.h"

#include <stdlib.h>
#include <string.h>

#include "cfi_program.h"

enum { MAX_SECTIONS = 4 };

/* A parsed CIE with the rules its initial instructions leave. */
typedef struct cie_slot {
	uint64_t offset;
	bool used;
	cfi_cie cie;
	uw_rules init;
	cfi_counts counts;
} cie_slot;

struct cfi_reader {
	cfi_section sec[MAX_SECTIONS];
	size_t nsec;
	size_t cur;          /* section being read */
	uint64_t off;        /* next entry in it */
	bool failed;
	/* CIE cache of the current section: open addressing on the offset */
	cie_slot *cies;
	size_t cie_cap, cie_count;
	cfi_rowbuf buf;
	cfi_reader_stats stats;
	const cie_slot *last_cie;
};

cfi_reader *cfi_reader_new(void)
{
	return calloc(1, sizeof(cfi_reader));
}

void cfi_reader_free(cfi_reader *r)
{
	if (!r)
		return;
	free(r->cies);
	cfi_rowbuf_free(&r->buf);
	free(r);
}

int cfi_reader_add_section(cfi_reader *r, const cfi_section *s)
{
	if (r->nsec == MAX_SECTIONS)
		return ERR_ARG;
	r->sec[r->nsec++] = *s;
	return 0;
}

static int elf_read_u64(void *arg, uint64_t addr, uint64_t *value)
{
	return elf_file_read_u64(arg, addr, value);
}

int cfi_reader_add_elf_section(cfi_reader *r, elf_file *f, const char *name,
			       ehelf_err *err)
{
	bool is_eh = strcmp(name, ".eh_frame") == 0;
	if (!is_eh && strcmp(name, ".debug_frame") != 0)
		return err_set(err, ERR_ARG, "%s is not a CFI section", name);
	elf_section es;
	int rc = elf_file_section(f, name, &es, err);
	if (rc == ERR_NOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	if (es.nobits || es.size == 0)
		return 0;
	cfi_section s = {
		.file = f->name, .name = is_eh ? ".eh_frame" : ".debug_frame",
		.is_eh = is_eh, .data = es.data, .size = es.size,
		.vaddr = is_eh ? es.addr : 0,
		.read_u64 = elf_read_u64, .arg = f,
	};
	if (cfi_reader_add_section(r, &s) < 0)
		return err_set(err, ERR_ARG, "%s: too many CFI sections",
			       f->name);
	return 1;
}

int cfi_reader_add_elf(cfi_reader *r, elf_file *f, ehelf_err *err)
{
	int a = cfi_reader_add_elf_section(r, f, ".eh_frame", err);
	if (a < 0)
		return a;
	int b = cfi_reader_add_elf_section(r, f, ".debug_frame", err);
	return b < 0 ? b : a + b;
}

static void cie_cache_reset(cfi_reader *r)
{
	if (r->cies)
		memset(r->cies, 0, r->cie_cap * sizeof *r->cies);
	r->cie_count = 0;
	r->last_cie = NULL;
}

static size_t cie_hash(uint64_t off, size_t cap)
{
	return (size_t)((off * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

/* The slot for OFF: either the cached CIE or an empty slot to fill. */
static cie_slot *cie_lookup(cfi_reader *r, uint64_t off)
{
	if (r->cie_count * 2 >= r->cie_cap) {
		size_t cap = r->cie_cap ? 2 * r->cie_cap : 16;
		cie_slot *n = calloc(cap, sizeof *n);
		if (!n)
			return NULL;
		for (size_t i = 0; i < r->cie_cap; i++) {
			if (!r->cies[i].used)
				continue;
			size_t h = cie_hash(r->cies[i].offset, cap);
			while (n[h].used)
				h = (h + 1) & (cap - 1);
			n[h] = r->cies[i];
		}
		free(r->cies);
		r->last_cie = NULL; /* it pointed into the old table */
		r->cies = n;
		r->cie_cap = cap;
	}
	size_t h = cie_hash(off, r->cie_cap);
	while (r->cies[h].used && r->cies[h].offset != off)
		h = (h + 1) & (r->cie_cap - 1);
	return &r->cies[h];
}

static int get_cie(cfi_reader *r, const cfi_section *s, uint64_t off,
		   uint64_t fde_off, const cie_slot **out, ehelf_err *err)
{
	if (r->last_cie && r->last_cie->offset == off) {
		*out = r->last_cie;
		return 0;
	}
	cie_slot *slot = cie_lookup(r, off);
	if (!slot)
		return err_set(err, ERR_NOMEM, "out of memory");
	if (!slot->used) {
		cfi_entry e;
		int rc = cfi_entry_read(s, off, &e, err);
		if (rc == 0 || (rc > 0 && e.kind != CFI_ENTRY_CIE))
			return cfi_error(err, ERR_FORMAT, s, fde_off,
					 "CIE pointer to 0x%llx, which is not "
					 "a CIE", (unsigned long long)off);
		if (rc < 0)
			return rc;
		cie_slot tmp = { .offset = off, .used = true };
		if ((rc = cfi_cie_parse(s, &e, &tmp.cie, err)) < 0 ||
		    (rc = cfi_run_cie(s, &tmp.cie, &tmp.init, &r->buf,
				      &tmp.counts, err)) < 0)
			return rc;
		*slot = tmp;
		r->cie_count++;
		r->stats.cies++;
	}
	r->last_cie = slot;
	*out = slot;
	return 0;
}

int cfi_reader_next(cfi_reader *r, uw_fde *fde, ehelf_err *err)
{
	if (r->failed)
		return err_set(err, ERR_ARG, "CFI reader used after an error");
	int rc = 0;
	while (r->cur < r->nsec) {
		const cfi_section *s = &r->sec[r->cur];
		cfi_entry e;
		rc = cfi_entry_read(s, r->off, &e, err);
		if (rc == 0) {
			r->cur++;
			r->off = 0;
			cie_cache_reset(r);
			continue;
		}
		if (rc < 0)
			goto fail;
		r->off = e.next;
		if (e.kind == CFI_ENTRY_ZERO) {
			r->stats.zero_entries++;
			continue;
		}
		if (e.kind == CFI_ENTRY_CIE)
			continue; /* parsed when an FDE needs it */
		const cie_slot *cs = NULL;
		if ((rc = get_cie(r, s, e.cie_offset, e.offset, &cs, err)) < 0)
			goto fail;
		cfi_fde_hdr h;
		if ((rc = cfi_fde_parse(s, &e, &cs->cie, &h, err)) < 0)
			goto fail;
		if (h.lo == 0) {
			r->stats.fdes_at_zero++;
			continue;
		}
		cfi_counts counts = cs->counts;
		rc = cfi_run_fde(s, &cs->cie, &cs->init, &h, &r->buf, &counts,
				 err);
		if (rc < 0)
			goto fail;
		*fde = (uw_fde){
			.lo = h.lo, .hi = h.hi, .offset = h.offset,
			.size = e.next - e.offset,
			.cie_offset = h.cie_offset, .section = s->name,
			.signal_frame = cs->cie.signal_frame,
			.extra_cols = counts.extra_cols,
			.args_size_ops = counts.args_size_ops,
			.nrows = r->buf.n, .rows = r->buf.rows,
		};
		r->stats.fdes++;
		r->stats.rows += r->buf.n;
		return 1;
	}
	return 0;
fail:
	r->failed = true;
	return rc;
}

const cfi_reader_stats *cfi_reader_get_stats(const cfi_reader *r)
{
	return &r->stats;
}
