/*
 * expr_compile.h - DWARF expressions compiled to x86-64 code.
 *
 * The stack depth at every operation is found statically (abstract
 * interpretation over the control-flow graph of bra/skip); every path must
 * agree on it, stay within GEN_MAX_STACK and end with a value.  The DWARF
 * stack then lives in fixed slots, so each operation becomes a few
 * instructions on known slots.
 *
 * Supported: lit*, const*u/s, constu, consts, breg0..16, bregx (<= 16),
 * dup, drop, over, pick, swap, rot, deref, deref_size, abs, and, div, minus,
 * mod, mul, neg, not, or, plus, plus_uconst, shl, shr, shra, xor, eq, ge,
 * gt, le, lt, ne, bra, skip, nop and (after the CFA is known)
 * call_frame_cfa.  Semantics follow libgcc's evaluator: div is signed,
 * mod unsigned, comparisons signed, shift counts taken modulo 64; division
 * by zero exits with EHELF_E_EXPR.  Anything else (DW_OP_addr needs the
 * load bias, register location ops, typed ops) is "unsupported", with a
 * reason.
 */
#ifndef EHELF_CODEGEN_EXPR_COMPILE_H
#define EHELF_CODEGEN_EXPR_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen_ctx.h"

/* Check EXPR and return the set of DWARF registers (bit i = register i) it
 * reads, in *USED.  Returns 0, or ERR_UNSUPPORTED with a reason in WHY. */
int expr_analyse(const uint8_t *expr, uint32_t len, bool push_cfa,
		 uint32_t *used, char *why, size_t whylen);

/* Emit code leaving the expression's value in register DST.  PUSH_CFA:
 * the CFA (in g->cfa) is pushed first and DW_OP_call_frame_cfa allowed.
 * Returns 0 or ERR_UNSUPPORTED (nothing usable was emitted then). */
int expr_emit(gen_ctx *g, const uint8_t *expr, uint32_t len, bool push_cfa,
	      int dst, char *why, size_t whylen);

#endif
