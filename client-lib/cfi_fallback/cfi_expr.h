/*
 * cfi_expr.h - evaluating the DWARF expressions of call-frame rules
 * (DW_CFA_def_cfa_expression, DW_CFA_expression, DW_CFA_val_expression:
 * the PLT's CFA, glibc's signal trampoline, hand-written assembly), bounded:
 * a stack of CFI_EXPR_STACK values and at most CFI_EXPR_STEPS operations
 * executed (branches may loop).  No allocation; memory is read through the
 * caller's read function.  The operations a CFI expression may use (DWARF
 * 5 section 6.4.2: no DW_OP_call*, no object address, no TLS, no typed
 * stack) are evaluated; any other is EHELF_E_UNSUPPORTED.
 */
#ifndef EHELF_CLIENT_CFI_EXPR_H
#define EHELF_CLIENT_CFI_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../abi/ehelf_abi.h"

enum { CFI_EXPR_STACK = 32, CFI_EXPR_STEPS = 256 };

/* The value of the expression [EXPR, EXPR + LEN) with IN's registers
 * (DW_OP_breg*), PUSH first on the stack when HAS_PUSH (the CFA, for
 * register rules), into *OUT.  Returns EHELF_STEP, EHELF_E_BADREG (a
 * register that is not valid), EHELF_E_READ (a DW_OP_deref that failed),
 * EHELF_E_EXPR (stack underflow or overflow, division by zero, too many
 * steps, a branch outside) or EHELF_E_UNSUPPORTED. */
int cfi_expr_eval(const uint8_t *expr, size_t len, const ehelf_regs *in,
		  uint64_t push, bool has_push, ehelf_read_fn read, void *arg,
		  uint64_t *out);

#endif
