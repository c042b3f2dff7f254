/*
 * cfi_row.h - the row of call-frame rules at one pc: the CIE's initial
 * instructions, then the FDE's up to the pc, run into a fixed-size state
 * (DWARF 5 section 6.4; every DW_CFA_* of DWARF 5 plus GNU_args_size,
 * GNU_negative_offset_extended and MIPS_advance_loc8, as libgcc and libdw
 * accept them).  No allocation: the state, its remember_state stack
 * (CFI_ROW_DEPTH rows deep) and the CIE's initial row live in the
 * caller's frame.  Rules for columns above 16 (vector and x87 registers)
 * are outside ehelf's register model and ignored; expressions are kept
 * as pointers into the section.
 */
#ifndef EHELF_CLIENT_CFI_ROW_H
#define EHELF_CLIENT_CFI_ROW_H

#include <stdint.h>

#include "cfi_tables.h"

enum { CFI_NCOLS = 17, CFI_RA = 16, CFI_ROW_DEPTH = 8 };

typedef enum cfi_rule_kind {
	CFI_UNSET = 0,   /* no rule: the value is kept */
	CFI_UNDEFINED,   /* the caller's value cannot be recovered */
	CFI_SAME,        /* unchanged */
	CFI_OFFSET,      /* saved at CFA + off */
	CFI_VAL_OFFSET,  /* the value CFA + off */
	CFI_REGISTER,    /* the value of register reg; the CFA: reg + off */
	CFI_EXPR,        /* saved at the value of expr (CFA pushed); the CFA:
			  * the value of expr */
	CFI_VAL_EXPR,    /* the value of expr (CFA pushed) */
} cfi_rule_kind;

typedef struct cfi_rule {
	uint8_t kind;        /* cfi_rule_kind */
	uint8_t reg;         /* CFI_REGISTER: 0..16 */
	uint16_t expr_len;   /* CFI_EXPR, CFI_VAL_EXPR */
	int32_t off;         /* CFI_OFFSET, CFI_VAL_OFFSET, the CFA's offset */
	const uint8_t *expr; /* into the section */
} cfi_rule;

typedef struct cfi_row {
	cfi_rule cfa;        /* CFI_REGISTER (reg + off) or CFI_EXPR */
	cfi_rule col[CFI_NCOLS];
} cfi_row;

/* The row of F's FDE at link-time PC (inside its range) into *ROW.
 * Returns 0, or EHELF_E_UNSUPPORTED: malformed or out of the model
 * (an unknown instruction, a CFA on a register above 16, an offset or
 * expression beyond the fields above, remember_state deeper than
 * CFI_ROW_DEPTH, no CFA rule). */
int cfi_row_at(const cfi_fde *f, uint64_t pc, cfi_row *row);

#endif
