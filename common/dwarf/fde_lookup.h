/*
 * fde_lookup.h - the FDE covering an address, found through .eh_frame_hdr's
 * sorted table (binary search), or by a scan of .eh_frame when there is no
 * table: what an exception unwinder asks (region start and end, LSDA,
 * personality), not the rows.
 */
#ifndef EHELF_DWARF_FDE_LOOKUP_H
#define EHELF_DWARF_FDE_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>

#include "../elf_file.h"
#include "cfi_entry.h"

typedef struct fde_info {
	uint64_t lo, hi;          /* link-time [initial location, + range) */
	bool has_lsda;
	uint64_t lsda;            /* link-time address */
	bool has_personality;
	uint64_t personality;     /* link-time: the function, or with
				   * personality_indirect the pointer to it */
	bool personality_indirect;
	bool signal_frame;
} fde_info;

/* The FDE of F's .eh_frame covering link-time address PC.  Returns 0,
 * ERR_NOTFOUND, or another negative ERR_* for malformed sections. */
int fde_lookup(elf_file *f, uint64_t pc, fde_info *out, ehelf_err *err);

/* The binary search of .eh_frame_hdr HDR's table (fixed-size entries) for
 * the last FDE starting at or before link-time PC: its offset in EH into
 * *FDE_OFF.  Returns 0, ERR_NOTFOUND (no table, or PC before the first)
 * or ERR_FORMAT.  Reads only HDR's bytes: no allocation, no system call. */
int fde_hdr_search(const elf_section *hdr, const cfi_section *eh, uint64_t pc,
		   uint64_t *fde_off);

#endif
