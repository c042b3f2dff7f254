/*
 * sframe_est.h - what the same unwind table would cost as SFrame (binutils'
 * .sframe, format version 2, AMD64 ABI), for comparing eh_elf sizes with
 * it (the sframe_* columns of eh_elfs, store/schema.sql).
 *
 * The method, per FDE, over the rows the CFI reader returns for it:
 *
 *  - A row is representable iff its CFA is rsp+N or rbp+N (DWARF register
 *    7 or 6), the return address (column 16) is saved at CFA-8 (rule
 *    offset, -8), and rbp (column 6) has no rule or "same value" (no FP
 *    offset) or is saved at CFA+M (rule offset: FP offset M), with N and
 *    M fitting in 32 bits.  Other columns are ignored: SFrame does not
 *    track them.
 *  - An FDE with any row that is not representable is skipped entirely
 *    (GNU as emits no SFrame FDE for such a function): it counts in
 *    skipped_fdes and its rows in skipped_rows.  An FDE without rows is
 *    represented (no FREs).
 *  - A represented FDE's FREs are its rows after merging consecutive rows
 *    with the same (base register, CFA offset, FP offset or none).  Each
 *    FRE costs: start address, 1 byte if the FDE's pc range (hi - lo) is
 *    below 256 bytes, 2 if below 65536, else 4; 1 info byte; and (1 + 1
 *    if it has an FP offset) offsets of one width, the smallest of 1, 2
 *    or 4 signed bytes holding every offset of that FRE (the return
 *    address offset is fixed on AMD64: not stored).
 *  - Each SFrame FDE costs 20 bytes, the section a 28-byte header:
 *        bytes = 28 + 20 * fdes + sum of the FREs' bytes
 *    (28 also when no FDE is represented).
 *
 * Usage: zero an sframe_est, sframe_est_fde() on every FDE, then
 * sframe_est_bytes().  Not thread-safe per sframe_est; no allocation.
 */
#ifndef EHELF_CODEGEN_SFRAME_EST_H
#define EHELF_CODEGEN_SFRAME_EST_H

#include <stdint.h>

#include "../cfi/unwind_ir.h"

enum { SFRAME_HEADER_BYTES = 28, SFRAME_FDE_BYTES = 20 };

typedef struct sframe_est {
	uint64_t fdes;          /* FDEs represented */
	uint64_t fres;          /* their FREs */
	uint64_t fre_bytes;     /* bytes of those FREs */
	uint64_t skipped_fdes;  /* FDEs with a row SFrame cannot represent */
	uint64_t skipped_rows;  /* the rows of those FDEs */
} sframe_est;

/* Count FDE (with its rows) into E. */
void sframe_est_fde(sframe_est *e, const uw_fde *fde);

/* The estimated size of the .sframe section in bytes. */
uint64_t sframe_est_bytes(const sframe_est *e);

#endif
