/*
 * dwarf_op.h - decoding DWARF expressions (DW_OP_*) one operation at a time.
 *
 * Used to print expressions (ehelf-compile --dump --verbose), to compare
 * them with libdw, and by the code generator to compile them.  Operands
 * are stored as libdw's Dwarf_Op stores them: n1 and n2 in operand order,
 * signed operands sign-extended to 64 bits.
 */
#ifndef EHELF_CFI_DWARF_OP_H
#define EHELF_CFI_DWARF_OP_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/cursor.h"

typedef struct dwop {
	uint8_t op;          /* DW_OP_* */
	uint32_t offset;     /* of the opcode from the expression start */
	uint64_t n1, n2;     /* operands */
	const uint8_t *block;/* implicit_value, entry_value, const_type data */
	uint32_t block_len;
} dwop;

/* Decode the operation at C (START is the expression's first byte, for
 * offsets).  Returns 1 with *OP filled, 0 at the end of the expression, or
 * -1 for an unknown opcode or truncated operand. */
int dwop_next(cursor *c, const uint8_t *start, dwop *op);

/* "DW_OP_breg7", or NULL for unknown opcodes. */
const char *dwop_name(uint8_t op);

/* One operation as text, e.g. "DW_OP_breg7 (rsp): 160".  Returns the
 * length written (truncated to N-1). */
int dwop_format(const dwop *op, char *buf, size_t n);

#endif
