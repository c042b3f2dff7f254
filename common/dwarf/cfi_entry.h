/*
 * cfi_entry.h - CIE and FDE headers of .eh_frame and .debug_frame.
 *
 * Knows the entry framing (32- and 64-bit lengths, zero terminators, CIE
 * ids and pointers of both sections), CIE versions 1, 3 and 4, and the
 * augmentations z, R, P, L, S and "eh".  It does not run instructions:
 * builder/cfi/cfi_program.h does.  Everything returned points into the section data.
 * Errors name the file, the section and the entry's offset.
 */
#ifndef EHELF_DWARF_CFI_ENTRY_H
#define EHELF_DWARF_CFI_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../err.h"

/* One CFI section of one file. */
typedef struct cfi_section {
	const char *file;     /* for messages */
	const char *name;     /* ".eh_frame" or ".debug_frame" */
	bool is_eh;           /* .eh_frame conventions (CIE id 0, relative CIE pointers) */
	const uint8_t *data;
	size_t size;
	uint64_t vaddr;       /* sh_addr (pcrel base); 0 for .debug_frame */
	/* For DW_EH_PE_indirect initial locations; may be NULL. */
	int (*read_u64)(void *arg, uint64_t addr, uint64_t *value);
	void *arg;
} cfi_section;

typedef enum cfi_entry_kind {
	CFI_ENTRY_CIE,
	CFI_ENTRY_FDE,
	CFI_ENTRY_ZERO,  /* a zero length word: terminator or padding */
} cfi_entry_kind;

typedef struct cfi_entry {
	cfi_entry_kind kind;
	uint64_t offset;      /* of the length field */
	uint64_t next;        /* offset of the following entry */
	uint64_t cie_offset;  /* FDE: offset of its CIE */
	const uint8_t *body;  /* after the CIE id / CIE pointer */
	size_t body_len;
} cfi_entry;

typedef struct cfi_cie {
	uint64_t offset;
	uint8_t version;         /* 1, 3 or 4 */
	const char *aug;         /* augmentation string, NUL-terminated */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_col;
	uint8_t fde_enc;         /* DW_EH_PE_* of FDE addresses */
	uint8_t lsda_enc;        /* DW_EH_PE_omit without 'L' */
	uint8_t personality_enc; /* DW_EH_PE_omit without 'P' */
	uint8_t segment_size;    /* version 4 */
	bool has_aug_data;       /* 'z' */
	bool signal_frame;       /* 'S' */
	uint64_t personality;    /* as encoded (indirect not followed) */
	const uint8_t *insns;    /* initial instructions */
	size_t insns_len;
} cfi_cie;

typedef struct cfi_fde_hdr {
	uint64_t offset;
	uint64_t cie_offset;
	uint64_t lo, hi;         /* [initial_location, + address_range) */
	bool has_lsda;
	uint64_t lsda;           /* as encoded (indirect not followed) */
	const uint8_t *insns;
	size_t insns_len;
} cfi_fde_hdr;

/* Frame the entry at OFF.  Returns 1 and fills E, 0 at the end of the
 * section, or ERR_FORMAT. */
int cfi_entry_read(const cfi_section *s, uint64_t off, cfi_entry *e,
		   ehelf_err *err);

/* Parse a CIE entry.  Returns 0, ERR_FORMAT or ERR_UNSUPPORTED. */
int cfi_cie_parse(const cfi_section *s, const cfi_entry *e, cfi_cie *cie,
		  ehelf_err *err);

/* Parse an FDE entry against its CIE.  Returns 0, ERR_FORMAT or
 * ERR_UNSUPPORTED. */
int cfi_fde_parse(const cfi_section *s, const cfi_entry *e,
		  const cfi_cie *cie, cfi_fde_hdr *fde, ehelf_err *err);

/* err_set() with the "FILE: SECTION+0xOFF: " prefix. */
int cfi_error(ehelf_err *err, int code, const cfi_section *s, uint64_t off,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
