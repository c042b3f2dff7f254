/*
 * cfi_program.h - runs DWARF call-frame instructions into IR rows.
 *
 * Implements every DWARF 5 DW_CFA_* instruction plus DW_CFA_GNU_args_size,
 * DW_CFA_GNU_negative_offset_extended and DW_CFA_MIPS_advance_loc8 (a
 * 64-bit advance, accepted as libdw does).  remember/restore_state save and
 * restore the whole row, CFA included (DWARF 5 6.4.2.4); DW_CFA_restore
 * returns a column to the rule the CIE's initial instructions left.
 *
 * Rows are clipped to the FDE's range; empty rows are dropped and
 * neighbouring rows with identical rules are merged.
 */
#ifndef EHELF_CFI_PROGRAM_H
#define EHELF_CFI_PROGRAM_H

#include "../../common/dwarf/cfi_entry.h"
#include "unwind_ir.h"

/* Reusable buffers; zero-initialise, release with cfi_rowbuf_free(). */
typedef struct cfi_rowbuf {
	uw_row *rows;
	size_t n, cap;
	uw_rules *stack;  /* remember_state stack */
	size_t stack_cap;
} cfi_rowbuf;

typedef struct cfi_counts {
	uint32_t extra_cols;     /* rules for columns > 16, ignored */
	uint32_t args_size_ops;  /* DW_CFA_GNU_args_size seen */
} cfi_counts;

/* Run CIE's initial instructions from an all-UNSET state into *INIT.
 * Returns 0, ERR_FORMAT, ERR_UNSUPPORTED or ERR_NOMEM. */
int cfi_run_cie(const cfi_section *s, const cfi_cie *cie, uw_rules *init,
		cfi_rowbuf *buf, cfi_counts *counts, ehelf_err *err);

/* Run an FDE's instructions from INIT (its CIE's initial rules); on
 * success BUF->rows[0 .. BUF->n) are the FDE's rows. */
int cfi_run_fde(const cfi_section *s, const cfi_cie *cie,
		const uw_rules *init, const cfi_fde_hdr *fde, cfi_rowbuf *buf,
		cfi_counts *counts, ehelf_err *err);

void cfi_rowbuf_free(cfi_rowbuf *buf);

#endif
