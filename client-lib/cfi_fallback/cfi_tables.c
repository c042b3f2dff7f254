/* cfi_tables.c - see cfi_tables.h. */
#include "cfi_tables.h"

#include <dwarf.h>
#include <elf.h>
#include <string.h>

#include "../../common/cursor.h"
#include "../../common/dwarf/eh_pe.h"
#include "../../abi/ehelf_abi.h"

/* The segment of PH[0..PHNUM) (PT_LOAD) holding link-time address A:
 * its [lo, hi) of bytes present (memory: p_memsz; a file: p_filesz). */
static const ElfW(Phdr) *segment_of(const ElfW(Phdr) *ph, int phnum,
				    uint64_t a, bool file)
{
	for (int i = 0; i < phnum; i++) {
		uint64_t size = file ? ph[i].p_filesz : ph[i].p_memsz;
		if (ph[i].p_type == PT_LOAD && a >= ph[i].p_vaddr &&
		    a - ph[i].p_vaddr < size)
			return &ph[i];
	}
	return NULL;
}

/* Fill *T from PH[0..PHNUM)'s PT_GNU_EH_FRAME, BYTES(segment, ARG) giving
 * where a PT_LOAD segment's bytes are (NULL: not present); FILE: only
 * p_filesz bytes of a segment are. */
static bool locate(cfi_tables *t, const ElfW(Phdr) *ph, int phnum,
		   const uint8_t *(*bytes)(const ElfW(Phdr) *, const void *),
		   const void *arg, bool file)
{
	memset(t, 0, sizeof *t);
	const ElfW(Phdr) *eh = NULL;
	for (int i = 0; i < phnum; i++)
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			eh = &ph[i];
	if (!eh)
		return false;
	const ElfW(Phdr) *seg = segment_of(ph, phnum, eh->p_vaddr, file);
	if (!seg)
		return false;
	const uint8_t *base = bytes(seg, arg);
	if (!base)
		return false;
	uint64_t lo = seg->p_vaddr, hi = lo + (file ? seg->p_filesz : seg->p_memsz);
	uint64_t hv = eh->p_vaddr;
	if (hi - hv < 4)
		return false;
	const uint8_t *h = base + (hv - lo);
	if (h[0] != 1)
		return false;
	/* version 1, then eh_frame_ptr (encoding h[1]) */
	eh_pe_ctx ctx = { .data = h, .vaddr = hv, .datarel = hv };
	cursor c = cursor_make(h + 4, hi - hv - 4);
	uint64_t ev;
	if (eh_pe_read(&c, h[1], &ctx, &ev) != EH_PE_OK || ev < lo || ev >= hi)
		return false;
	*t = (cfi_tables){ .ok = true, .base = base, .seg_lo = lo, .seg_hi = hi,
			   .hdr_vaddr = hv, .eh_vaddr = ev };
	return true;
}

static const uint8_t *memory_bytes(const ElfW(Phdr) *seg, const void *arg)
{
	return (const uint8_t *)(uintptr_t)(*(const uint64_t *)arg + seg->p_vaddr);
}

bool cfi_tables_from_memory(cfi_tables *t, const ElfW(Phdr) *ph, int phnum,
			    uint64_t bias)
{
	return locate(t, ph, phnum, memory_bytes, &bias, false);
}

typedef struct file_image {
	const uint8_t *map;
	size_t size;
} file_image;

static const uint8_t *file_bytes(const ElfW(Phdr) *seg, const void *arg)
{
	const file_image *f = arg;
	if (seg->p_offset > f->size || f->size - seg->p_offset < seg->p_filesz)
		return NULL;
	return f->map + seg->p_offset;
}

bool cfi_tables_from_file(cfi_tables *t, const uint8_t *map, size_t size)
{
	memset(t, 0, sizeof *t);
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)map;
	if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phoff > size ||
	    (size - eh->e_phoff) / sizeof(ElfW(Phdr)) < eh->e_phnum ||
	    eh->e_phoff % _Alignof(ElfW(Phdr)))
		return false;
	file_image f = { map, size };
	return locate(t, (const ElfW(Phdr) *)(map + eh->e_phoff), eh->e_phnum,
		      file_bytes, &f, true);
}

bool cfi_file_has_section(const uint8_t *map, size_t size, const char *name)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)map;
	if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(ElfW(Shdr)) < eh->e_shnum ||
	    eh->e_shoff % _Alignof(ElfW(Shdr)) || eh->e_shstrndx >= eh->e_shnum)
		return false;
	const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(map + eh->e_shoff);
	const ElfW(Shdr) *str = &sh[eh->e_shstrndx];
	if (str->sh_offset > size || size - str->sh_offset < str->sh_size)
		return false;
	const char *names = (const char *)map + str->sh_offset;
	size_t len = strlen(name);
	for (int i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_name < str->sh_size &&
		    str->sh_size - sh[i].sh_name > len &&
		    !memcmp(names + sh[i].sh_name, name, len + 1))
			return true;
	return false;
}

int cfi_tables_find(const cfi_tables *t, uint64_t pc, cfi_fde *out)
{
	if (!t->ok)
		return EHELF_E_NOT_COVERED;
	elf_section hs = { .data = t->base + (t->hdr_vaddr - t->seg_lo),
			   .size = t->seg_hi - t->hdr_vaddr, .addr = t->hdr_vaddr };
	out->sec = (cfi_section){ .file = "module", .name = ".eh_frame",
				  .is_eh = true,
				  .data = t->base + (t->eh_vaddr - t->seg_lo),
				  .size = t->seg_hi - t->eh_vaddr,
				  .vaddr = t->eh_vaddr };
	uint64_t off;
	int rc = fde_hdr_search(&hs, &out->sec, pc, &off);
	if (rc == ERR_NOTFOUND)
		return EHELF_E_NOT_COVERED;
	if (rc < 0)
		return EHELF_E_UNSUPPORTED;
	cfi_entry e, ce;
	if (cfi_entry_read(&out->sec, off, &e, NULL) <= 0 ||
	    e.kind != CFI_ENTRY_FDE ||
	    cfi_entry_read(&out->sec, e.cie_offset, &ce, NULL) <= 0 ||
	    ce.kind != CFI_ENTRY_CIE ||
	    cfi_cie_parse(&out->sec, &ce, &out->cie, NULL) < 0 ||
	    cfi_fde_parse(&out->sec, &e, &out->cie, &out->fde, NULL) < 0)
		return EHELF_E_UNSUPPORTED;
	if (pc < out->fde.lo || pc >= out->fde.hi)
		return EHELF_E_NOT_COVERED;
	return 0;
}

int cfi_tables_proc_info(const cfi_tables *t, uint64_t pc, fde_info *out)
{
	cfi_fde f;
	int rc = cfi_tables_find(t, pc, &f);
	if (rc < 0)
		return rc;
	uint8_t penc = f.cie.personality_enc;
	*out = (fde_info){
		.lo = f.fde.lo, .hi = f.fde.hi, .has_lsda = f.fde.has_lsda,
		.lsda = f.fde.lsda, .has_personality = penc != DW_EH_PE_omit,
		.personality = f.cie.personality,
		.personality_indirect = penc != DW_EH_PE_omit &&
					(penc & DW_EH_PE_indirect),
		.signal_frame = f.cie.signal_frame,
	};
	return 0;
}
