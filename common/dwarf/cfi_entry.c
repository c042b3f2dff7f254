/* cfi_entry.c - see cfi_entry.h. */
#include "cfi_entry.h"

#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../cursor.h"
#include "eh_pe.h"

int cfi_error(ehelf_err *err, int code, const cfi_section *s, uint64_t off,
	      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(err, code, fmt, ap);
	va_end(ap);
	err_prefix(err, "%s: %s+0x%llx", s->file, s->name,
		   (unsigned long long)off);
	return code;
}

int cfi_entry_read(const cfi_section *s, uint64_t off, cfi_entry *e,
		   ehelf_err *err)
{
	if (off >= s->size)
		return 0;
	cursor c = cursor_make(s->data + off, s->size - off);
	if (cur_left(&c) < 4) {
		/* a few bytes of alignment padding may end a section */
		while (cur_left(&c))
			if (cur_u8(&c) != 0)
				return cfi_error(err, ERR_FORMAT, s, off,
						 "truncated entry length");
		return 0;
	}
	memset(e, 0, sizeof *e);
	e->offset = off;
	uint64_t len = cur_u32(&c);
	unsigned idsize = 4;
	if (len == 0) {
		e->kind = CFI_ENTRY_ZERO;
		e->next = off + 4;
		return 1;
	}
	if (len == 0xffffffff) {
		len = cur_u64(&c);
		idsize = 8;
		if (c.bad)
			return cfi_error(err, ERR_FORMAT, s, off,
					 "truncated 64-bit entry length");
	} else if (len >= 0xfffffff0) {
		return cfi_error(err, ERR_FORMAT, s, off,
				 "reserved entry length 0x%llx",
				 (unsigned long long)len);
	}
	if (len > cur_left(&c) || len < idsize)
		return cfi_error(err, ERR_FORMAT, s, off,
				 "entry length 0x%llx runs past the end of "
				 "the section (0x%zx bytes)",
				 (unsigned long long)len, s->size);
	uint64_t id_off = (uint64_t)(c.p - s->data);
	e->next = id_off + len;
	uint64_t id = idsize == 4 ? cur_u32(&c) : cur_u64(&c);
	e->body = c.p;
	e->body_len = len - idsize;
	bool is_cie;
	if (s->is_eh)
		is_cie = id == 0;
	else
		is_cie = idsize == 4 ? id == DW_CIE_ID_32 : id == DW_CIE_ID_64;
	if (is_cie) {
		e->kind = CFI_ENTRY_CIE;
		return 1;
	}
	e->kind = CFI_ENTRY_FDE;
	if (s->is_eh) {
		/* pointer back from the CIE pointer field to the CIE */
		if (id > id_off)
			return cfi_error(err, ERR_FORMAT, s, off,
					 "CIE pointer 0x%llx points before the "
					 "section", (unsigned long long)id);
		e->cie_offset = id_off - id;
	} else {
		e->cie_offset = id;
	}
	if (e->cie_offset >= s->size)
		return cfi_error(err, ERR_FORMAT, s, off,
				 "CIE offset 0x%llx is outside the section",
				 (unsigned long long)e->cie_offset);
	return 1;
}

static const char *pe_error(int st)
{
	return eh_pe_status_str(st);
}

/*
 * Parse the augmentation letters of a CIE from LETTERS, their data from A.
 * With 'z', A is the bounded augmentation data and an unknown letter ends
 * the parsing (its data is skipped with the rest), as libgcc does; without
 * 'z' (gas writes "S" alone in .debug_frame), A is the CIE body itself and
 * an unknown letter is an error since its data cannot be skipped.
 */
static int cie_aug_letters(const cfi_section *s, cfi_cie *cie,
			   const char *letters, cursor *a, ehelf_err *err)
{
	eh_pe_ctx ctx = { .data = s->data, .vaddr = s->vaddr };
	for (const char *p = letters; *p; p++) {
		switch (*p) {
		case 'L':
			cie->lsda_enc = cur_u8(a);
			if (!eh_pe_valid(cie->lsda_enc))
				goto bad_enc;
			break;
		case 'R':
			cie->fde_enc = cur_u8(a);
			if (!eh_pe_valid(cie->fde_enc) ||
			    cie->fde_enc == DW_EH_PE_omit)
				goto bad_enc;
			break;
		case 'P': {
			cie->personality_enc = cur_u8(a);
			uint8_t enc = cie->personality_enc & ~DW_EH_PE_indirect;
			int st = eh_pe_read(a, enc, &ctx, &cie->personality);
			if (st != EH_PE_OK)
				return cfi_error(err, ERR_FORMAT, s, cie->offset,
						 "personality pointer: %s",
						 pe_error(st));
			break;
		}
		case 'S':
			cie->signal_frame = true;
			break;
		default:
			if (cie->has_aug_data)
				return 0;
			return cfi_error(err, ERR_UNSUPPORTED, s, cie->offset,
					 "unknown augmentation '%c' in \"%s\" "
					 "without 'z'", *p, cie->aug);
		}
		if (a->bad)
			return cfi_error(err, ERR_FORMAT, s, cie->offset,
					 "augmentation data too short for \"%s\"",
					 cie->aug);
	}
	return 0;
bad_enc:
	return cfi_error(err, ERR_FORMAT, s, cie->offset,
			 "invalid pointer encoding in augmentation \"%s\"",
			 cie->aug);
}

int cfi_cie_parse(const cfi_section *s, const cfi_entry *e, cfi_cie *cie,
		  ehelf_err *err)
{
	memset(cie, 0, sizeof *cie);
	cie->offset = e->offset;
	cie->fde_enc = DW_EH_PE_absptr;
	cie->lsda_enc = DW_EH_PE_omit;
	cie->personality_enc = DW_EH_PE_omit;
	cursor c = cursor_make(e->body, e->body_len);
	cie->version = cur_u8(&c);
	if (c.bad)
		return cfi_error(err, ERR_FORMAT, s, e->offset, "empty CIE");
	if (cie->version != 1 && cie->version != 3 && cie->version != 4)
		return cfi_error(err, ERR_UNSUPPORTED, s, e->offset,
				 "CIE version %u (1, 3 and 4 are supported)",
				 cie->version);
	const uint8_t *nul = memchr(c.p, 0, cur_left(&c));
	if (!nul)
		return cfi_error(err, ERR_FORMAT, s, e->offset,
				 "unterminated augmentation string");
	cie->aug = (const char *)c.p;
	c.p = nul + 1;
	bool eh_aug = strncmp(cie->aug, "eh", 2) == 0;
	if (eh_aug) /* old GCC: the address of the exception table follows */
		cur_skip(&c, 8);
	if (cie->version == 4) {
		uint8_t asize = cur_u8(&c);
		cie->segment_size = cur_u8(&c);
		if (!c.bad && asize != 8)
			return cfi_error(err, ERR_UNSUPPORTED, s, e->offset,
					 "CIE address size %u (only 8)", asize);
	}
	cie->code_align = cur_uleb(&c);
	cie->data_align = cur_sleb(&c);
	cie->ra_col = cie->version == 1 ? cur_u8(&c) : cur_uleb(&c);
	if (c.bad)
		return cfi_error(err, ERR_FORMAT, s, e->offset,
				 "CIE header runs past its end");
	const char *letters = eh_aug ? cie->aug + 2 : cie->aug;
	int rc;
	if (letters[0] == 'z') {
		cie->has_aug_data = true;
		uint64_t alen = cur_uleb(&c);
		if (c.bad || alen > cur_left(&c))
			return cfi_error(err, ERR_FORMAT, s, e->offset,
					 "augmentation data runs past the CIE");
		cursor a = cursor_make(c.p, alen);
		c.p += alen;
		rc = cie_aug_letters(s, cie, letters + 1, &a, err);
	} else {
		rc = cie_aug_letters(s, cie, letters, &c, err);
	}
	if (rc < 0)
		return rc;
	if (cie->ra_col != 16)
		return cfi_error(err, ERR_UNSUPPORTED, s, e->offset,
				 "return address column %llu (x86_64 uses 16)",
				 (unsigned long long)cie->ra_col);
	if (!s->is_eh && (cie->fde_enc & 0x70) == DW_EH_PE_pcrel)
		return cfi_error(err, ERR_UNSUPPORTED, s, e->offset,
				 "pc-relative addresses in .debug_frame");
	cie->insns = c.p;
	cie->insns_len = cur_left(&c);
	return 0;
}

int cfi_fde_parse(const cfi_section *s, const cfi_entry *e,
		  const cfi_cie *cie, cfi_fde_hdr *fde, ehelf_err *err)
{
	memset(fde, 0, sizeof *fde);
	fde->offset = e->offset;
	fde->cie_offset = e->cie_offset;
	cursor c = cursor_make(e->body, e->body_len);
	cur_skip(&c, cie->segment_size);
	eh_pe_ctx ctx = { .data = s->data, .vaddr = s->vaddr,
			  .read_u64 = s->read_u64, .arg = s->arg };
	int st = eh_pe_read(&c, cie->fde_enc, &ctx, &fde->lo);
	if (st != EH_PE_OK)
		return cfi_error(err, st == EH_PE_UNREADABLE ? ERR_UNSUPPORTED
							      : ERR_FORMAT,
				 s, e->offset, "initial location: %s",
				 pe_error(st));
	uint64_t range;
	st = eh_pe_read_raw(&c, cie->fde_enc, &range);
	if (st != EH_PE_OK)
		return cfi_error(err, ERR_FORMAT, s, e->offset,
				 "address range: %s", pe_error(st));
	if (__builtin_add_overflow(fde->lo, range, &fde->hi))
		return cfi_error(err, ERR_FORMAT, s, e->offset,
				 "address range 0x%llx+0x%llx wraps around",
				 (unsigned long long)fde->lo,
				 (unsigned long long)range);
	if (cie->has_aug_data) {
		uint64_t alen = cur_uleb(&c);
		if (c.bad || alen > cur_left(&c))
			return cfi_error(err, ERR_FORMAT, s, e->offset,
					 "augmentation data runs past the FDE");
		cursor a = cursor_make(c.p, alen);
		c.p += alen;
		if (cie->lsda_enc != DW_EH_PE_omit) {
			ctx.has_func = true;
			ctx.func = fde->lo;
			uint8_t enc = cie->lsda_enc & ~DW_EH_PE_indirect;
			st = eh_pe_read(&a, enc, &ctx, &fde->lsda);
			if (st != EH_PE_OK)
				return cfi_error(err, ERR_FORMAT, s, e->offset,
						 "LSDA pointer: %s", pe_error(st));
			fde->has_lsda = true;
		}
	}
	if (c.bad)
		return cfi_error(err, ERR_FORMAT, s, e->offset,
				 "FDE header runs past its end");
	fde->insns = c.p;
	fde->insns_len = cur_left(&c);
	return 0;
}
