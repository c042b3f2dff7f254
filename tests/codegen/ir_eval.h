/*
 * ir_eval.h - reference semantics of one IR row, in plain C, for checking
 * generated eh_elf code: what ehelf_step_local / ehelf_step_remote must
 * produce for a row's rules (abi/ehelf_abi.h), with a DWARF
 * expression interpreter that follows libgcc's evaluator (signed div and
 * comparisons, unsigned mod, shift counts modulo 64).
 */
#ifndef EHELF_TESTS_IR_EVAL_H
#define EHELF_TESTS_IR_EVAL_H

#include <stdbool.h>

#include "../../builder/cfi/unwind_ir.h"
#include "../../abi/ehelf_abi.h"

/* How memory is read: LOCAL checks [lo, hi) then reads directly; otherwise
 * READ(ARG, addr, &value). */
typedef struct ir_mem {
	bool local;
	uint64_t lo, hi;
	ehelf_read_fn read;
	void *arg;
} ir_mem;

/* Apply R (with SIGNAL for signal-frame FDEs) to IN; returns an
 * EHELF_STEP... status and fills OUT as the ABI says. */
int ir_eval_row(const uw_rules *r, bool signal, const ehelf_regs *in,
		ehelf_regs *out, const ir_mem *mem);

#endif
