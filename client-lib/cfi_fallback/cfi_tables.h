/*
 * cfi_tables.h - a module's .eh_frame_hdr and .eh_frame where they already
 * lie in memory (the loaded module's segments, or a read-only mapping of
 * its file), and the FDE covering a pc found there: a binary search of
 * .eh_frame_hdr's table, then the FDE's and its CIE's headers parsed in
 * place (common/dwarf/cfi_entry.h).  Finding an FDE allocates nothing,
 * takes no lock and makes no system call: usable in a signal handler.
 *
 * Located once, outside any unwind (when a space's modules are added):
 * from the program headers, PT_GNU_EH_FRAME giving .eh_frame_hdr and its
 * eh_frame_ptr the start of .eh_frame.  Both must lie in the one PT_LOAD
 * segment that holds .eh_frame_hdr (every linker puts them together);
 * reads stay inside that segment.  A module without PT_GNU_EH_FRAME, or
 * whose table is not of fixed-size entries, has no tables (its
 * .debug_frame, if any, is libdw's business: fallback_dwarf.h).
 */
#ifndef EHELF_CLIENT_CFI_TABLES_H
#define EHELF_CLIENT_CFI_TABLES_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/dwarf/cfi_entry.h"
#include "../../common/dwarf/fde_lookup.h"

typedef struct cfi_tables {
	bool ok;               /* located; everything below is then set */
	const uint8_t *base;   /* the bytes of link-time address seg_lo */
	uint64_t seg_lo, seg_hi; /* the readable segment, link-time */
	uint64_t hdr_vaddr;    /* .eh_frame_hdr */
	uint64_t eh_vaddr;     /* .eh_frame */
} cfi_tables;

/* Locate the tables of an object loaded at BIAS (dl_iterate_phdr's
 * dlpi_addr) from its program headers PH[0..PHNUM).  Returns true with *T
 * set, else false (*T zeroed: no tables). */
bool cfi_tables_from_memory(cfi_tables *t, const ElfW(Phdr) *ph, int phnum,
			    uint64_t bias);

/* The same for an ELF file's image MAP of SIZE bytes (a read-only mapping
 * of the whole file), through its ELF and program headers. */
bool cfi_tables_from_file(cfi_tables *t, const uint8_t *map, size_t size);

/* Whether the ELF file image MAP of SIZE bytes has a section called NAME
 * (its section headers read in place; false for a malformed file). */
bool cfi_file_has_section(const uint8_t *map, size_t size, const char *name);

/* The FDE covering link-time address PC, with its CIE and the section
 * they were read from (pointing into the tables' memory). */
typedef struct cfi_fde {
	cfi_section sec;
	cfi_cie cie;
	cfi_fde_hdr fde;
} cfi_fde;

/* Returns 0 with *OUT filled, EHELF_E_NOT_COVERED (no FDE covers PC) or
 * EHELF_E_UNSUPPORTED (malformed or unsupported entries). */
int cfi_tables_find(const cfi_tables *t, uint64_t pc, cfi_fde *out);

/* What an exception unwinder asks of the FDE covering link-time PC (its
 * range, LSDA, personality, signal flag: fde_lookup.h's fde_info), from the
 * tables in memory, with cfi_tables_find's returns.  For the libunwind
 * API's procedure info without opening the ELF. */
int cfi_tables_proc_info(const cfi_tables *t, uint64_t pc, fde_info *out);

#endif
