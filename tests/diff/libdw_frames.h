/*
 * libdw_frames.h - checks IR rows against elfutils libdw's CFI evaluation
 * (dwarf_cfi_addrframe, dwarf_frame_cfa, dwarf_frame_register).
 *
 * libdw opens the file on its own; only the address to look up comes from
 * the reader under test.  Registers without a rule are compared with
 * libdw's x86_64 ABI defaults as libdw 0.188 implements them (see
 * docs/differential-testing.md: it marks rax, not rbx, as callee-saved).
 */
#ifndef EHELF_TESTS_LIBDW_FRAMES_H
#define EHELF_TESTS_LIBDW_FRAMES_H

#include <elfutils/libdw.h>
#include <stdbool.h>

#include "../../builder/cfi/unwind_ir.h"

typedef struct libdw_cfi {
	int fd;
	Elf *elf;
	Dwarf *dw;          /* for .debug_frame; NULL when absent */
	Dwarf_CFI *eh;      /* .eh_frame; NULL when absent */
	Dwarf_CFI *debug;   /* .debug_frame; NULL when absent */
} libdw_cfi;

/* Returns 0, or -1 with a message in WHY. */
int libdw_cfi_open(libdw_cfi *c, const char *path, char *why, size_t n);
void libdw_cfi_close(libdw_cfi *c);

/* Compare ROW of FDE (at the row's first address) with libdw.  Returns 0
 * when they agree, 1 with an explanation in WHY when they do not, and 2
 * when the registers agree and libdw rejects a CFA rule that uw_cfa.lax
 * marks (DW_CFA_def_cfa_register/offset after an expression, which libgcc,
 * libunwind and readelf accept and libdw 0.188 calls invalid CFI). */
int libdw_cfi_check_row(libdw_cfi *c, const uw_fde *fde, const uw_row *row,
			char *why, size_t n);

/* libdw's rule for a register that no CFI instruction mentions, as
 * uw_rule_kind: UW_SAME_VALUE, UW_VAL_OFFSET (rsp = CFA) or UW_UNDEFINED. */
int libdw_default_rule(int regno);

#endif
