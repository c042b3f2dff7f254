/* fde_lookup.c - see fde_lookup.h. */
#include "fde_lookup.h"

#include <dwarf.h>
#include <string.h>

#include "cfi_entry.h"
#include "eh_pe.h"

static int fill(const cfi_section *s, uint64_t off, uint64_t pc,
		fde_info *out, ehelf_err *err)
{
	cfi_entry e, ce;
	cfi_cie cie;
	cfi_fde_hdr h;
	int rc = cfi_entry_read(s, off, &e, err);
	if (rc <= 0 || e.kind != CFI_ENTRY_FDE)
		return rc < 0 ? rc : ERR_NOTFOUND;
	if ((rc = cfi_entry_read(s, e.cie_offset, &ce, err)) <= 0 ||
	    ce.kind != CFI_ENTRY_CIE)
		return rc < 0 ? rc : ERR_FORMAT;
	if ((rc = cfi_cie_parse(s, &ce, &cie, err)) < 0 ||
	    (rc = cfi_fde_parse(s, &e, &cie, &h, err)) < 0)
		return rc;
	if (pc < h.lo || pc >= h.hi)
		return ERR_NOTFOUND;
	*out = (fde_info){
		.lo = h.lo, .hi = h.hi, .has_lsda = h.has_lsda, .lsda = h.lsda,
		.has_personality = cie.personality_enc != DW_EH_PE_omit,
		.personality = cie.personality,
		.personality_indirect = (cie.personality_enc & DW_EH_PE_indirect) &&
					cie.personality_enc != DW_EH_PE_omit,
		.signal_frame = cie.signal_frame,
	};
	return 0;
}

int fde_hdr_search(const elf_section *hdr, const cfi_section *eh,
		      uint64_t pc, uint64_t *fde_off)
{
	if (hdr->size < 4 || hdr->data[0] != 1)
		return ERR_NOTFOUND;
	uint8_t ptr_enc = hdr->data[1], count_enc = hdr->data[2],
		table_enc = hdr->data[3];
	eh_pe_ctx ctx = { .data = hdr->data, .vaddr = hdr->addr,
			  .datarel = hdr->addr };
	cursor c = cursor_make(hdr->data + 4, hdr->size - 4);
	uint64_t eh_ptr, count;
	if (eh_pe_read(&c, ptr_enc, &ctx, &eh_ptr) != 0 ||
	    count_enc == DW_EH_PE_omit || table_enc == DW_EH_PE_omit ||
	    eh_pe_read(&c, count_enc, &ctx, &count) != 0)
		return ERR_NOTFOUND;
	size_t width;
	switch (table_enc & 0x0f) {
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: width = 4; break;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: width = 8; break;
	default: return ERR_NOTFOUND; /* a table must be fixed-size */
	}
	const uint8_t *table = c.p;
	if (count > cur_left(&c) / (2 * width))
		return ERR_FORMAT;
	uint64_t lo = 0, hi = count;
	while (lo < hi) { /* the last entry starting at or before pc */
		uint64_t mid = lo + (hi - lo) / 2, start;
		cursor e = cursor_make(table + mid * 2 * width, width);
		if (eh_pe_read(&e, table_enc, &ctx, &start) != 0)
			return ERR_FORMAT;
		if (start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return ERR_NOTFOUND;
	uint64_t fde;
	cursor e = cursor_make(table + (lo - 1) * 2 * width + width, width);
	if (eh_pe_read(&e, table_enc, &ctx, &fde) != 0 || fde < eh->vaddr)
		return ERR_FORMAT;
	*fde_off = fde - eh->vaddr;
	return 0;
}

int fde_lookup(elf_file *f, uint64_t pc, fde_info *out, ehelf_err *err)
{
	elf_section es, hs;
	int rc = elf_file_section(f, ".eh_frame", &es, err);
	if (rc < 0 || es.nobits)
		return rc < 0 ? rc : ERR_NOTFOUND;
	cfi_section s = { .file = f->name, .name = ".eh_frame", .is_eh = true,
			  .data = es.data, .size = es.size, .vaddr = es.addr };
	uint64_t off;
	if (elf_file_section(f, ".eh_frame_hdr", &hs, NULL) == 0 && !hs.nobits &&
	    fde_hdr_search(&hs, &s, pc, &off) == 0)
		return fill(&s, off, pc, out, err);
	/* no usable table: every FDE in turn */
	cfi_entry e;
	for (off = 0; (rc = cfi_entry_read(&s, off, &e, err)) > 0; off = e.next)
		if (e.kind == CFI_ENTRY_FDE && fill(&s, off, pc, out, NULL) == 0)
			return 0;
	return rc < 0 ? rc : ERR_NOTFOUND;
}
