/*
 * cfi_reader.h - the CFI reader: every FDE of an ELF as unwind-table IR.
 *
 * Reads .eh_frame and then .debug_frame (either may be absent), entry by
 * entry, and yields one uw_fde per FDE with its rows.  FDEs whose initial
 * location is 0 (functions discarded by the linker) are skipped and
 * counted.  Addresses are link-time virtual addresses.
 *
 * Usage:
 *     cfi_reader *r = cfi_reader_new();
 *     cfi_reader_add_elf(r, &file, &err);
 *     while ((rc = cfi_reader_next(r, &fde, &err)) > 0) use(&fde);
 *     cfi_reader_free(r);
 *
 * Ownership: the reader borrows the sections (and the elf_file) it was given;
 * they must outlive it.  fde.rows belongs to the reader and is overwritten
 * by the next cfi_reader_next() call.  Not thread-safe; use one reader per
 * thread.
 */
#ifndef EHELF_CFI_READER_H
#define EHELF_CFI_READER_H

#include "../../common/elf_file.h"
#include "../../common/dwarf/cfi_entry.h"
#include "unwind_ir.h"

typedef struct cfi_reader cfi_reader;

typedef struct cfi_reader_stats {
	uint64_t cies;            /* CIEs parsed */
	uint64_t fdes;            /* FDEs returned */
	uint64_t fdes_at_zero;    /* FDEs skipped because they start at 0 */
	uint64_t zero_entries;    /* zero terminators / padding words */
	uint64_t rows;            /* rows returned (after merging) */
} cfi_reader_stats;

/* NULL when out of memory. */
cfi_reader *cfi_reader_new(void);
void cfi_reader_free(cfi_reader *r);

/* Queue one section (at most 4 per reader).  Returns 0 or ERR_ARG. */
int cfi_reader_add_section(cfi_reader *r, const cfi_section *s);

/* Queue F's .eh_frame and .debug_frame.  Returns the number of sections
 * queued (0: the file has no unwind tables), or a negative ERR_*. */
int cfi_reader_add_elf(cfi_reader *r, elf_file *f, ehelf_err *err);

/* Queue only F's section NAME (".eh_frame" or ".debug_frame").  Returns 1,
 * 0 when the file has no such section with contents, or a negative ERR_*. */
int cfi_reader_add_elf_section(cfi_reader *r, elf_file *f, const char *name,
			       ehelf_err *err);

/* Next FDE into *FDE.  Returns 1, 0 at the end, or a negative ERR_* with a
 * message naming the file, section and offset.  After an error the reader
 * can only be freed. */
int cfi_reader_next(cfi_reader *r, uw_fde *fde, ehelf_err *err);

const cfi_reader_stats *cfi_reader_get_stats(const cfi_reader *r);

#endif
