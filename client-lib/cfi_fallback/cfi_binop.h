/*
 * cfi_binop.h - the binary DWARF operations (DW_OP_plus .. DW_OP_ne) on
 * the two top entries of an expression stack, Y below X, with libgcc's
 * semantics: signed division and comparisons, unsigned mod, shift counts
 * modulo 64.  Shared by the evaluators of cfi_expr.c (bytes) and
 * fallback_dwarf.c (libdw's decoded operations).
 */
#ifndef EHELF_CLIENT_CFI_BINOP_H
#define EHELF_CLIENT_CFI_BINOP_H

#include <dwarf.h>
#include <stdint.h>

#include "../../abi/ehelf_abi.h"

/* Y OP X into *R.  Returns EHELF_STEP, EHELF_E_EXPR (a division by zero)
 * or EHELF_E_UNSUPPORTED (OP is not a binary operation). */
static inline int cfi_binop(uint8_t op, uint64_t y, uint64_t x, uint64_t *r)
{
	switch (op) {
	case DW_OP_plus: *r = y + x; break;
	case DW_OP_minus: *r = y - x; break;
	case DW_OP_and: *r = y & x; break;
	case DW_OP_or: *r = y | x; break;
	case DW_OP_xor: *r = y ^ x; break;
	case DW_OP_mul: *r = y * x; break;
	case DW_OP_div:
		if (!x)
			return EHELF_E_EXPR;
		*r = (int64_t)x == -1 ? -y : (uint64_t)((int64_t)y / (int64_t)x);
		break;
	case DW_OP_mod:
		if (!x)
			return EHELF_E_EXPR;
		*r = y % x;
		break;
	case DW_OP_shl: *r = y << (x & 63); break;
	case DW_OP_shr: *r = y >> (x & 63); break;
	case DW_OP_shra: *r = (uint64_t)((int64_t)y >> (x & 63)); break;
	case DW_OP_eq: *r = y == x; break;
	case DW_OP_ne: *r = y != x; break;
	case DW_OP_lt: *r = (int64_t)y < (int64_t)x; break;
	case DW_OP_le: *r = (int64_t)y <= (int64_t)x; break;
	case DW_OP_gt: *r = (int64_t)y > (int64_t)x; break;
	case DW_OP_ge: *r = (int64_t)y >= (int64_t)x; break;
	default: return EHELF_E_UNSUPPORTED;
	}
	return EHELF_STEP;
}

/* DW_OP_swap (N 2) or DW_OP_rot (N 3) on the N entries ending at TOP (the
 * top of the stack): the top moves to the Nth place, the others up one. */
static inline void cfi_rotate(uint64_t *top, int n)
{
	uint64_t x = top[0];
	for (int i = 0; i < n - 1; i++)
		top[-i] = top[-i - 1];
	top[-(n - 1)] = x;
}

#endif
