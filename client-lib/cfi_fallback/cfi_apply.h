/*
 * cfi_apply.h - one frame from a row of call-frame rules (cfi_row.h): the
 * caller's registers, as an eh_elf's step entry point gives them
 * (ehelf_abi.h: a register without a rule is kept, rsp is the CFA, a
 * signal frame's step sets EHELF_SIGNAL_FRAME), and the row's summary in
 * ehelf_describe's format when it has one, so that the step cache holds
 * rows of modules without an eh_elf as it holds eh_elf rows.
 */
#ifndef EHELF_CLIENT_CFI_APPLY_H
#define EHELF_CLIENT_CFI_APPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/ehelf_abi.h"
#include "cfi_row.h"

/* Apply ROW (SIGNAL: its CIE's 'S' augmentation) to IN into OUT (not IN),
 * memory read through READ(ARG, ...).  LENIENT: a callee-saved register
 * whose slot cannot be read becomes invalid instead of failing the step
 * (summary_step_lenient's rule, for snapshots).  Returns EHELF_STEP,
 * EHELF_OUTERMOST (the return address has no rule or is undefined),
 * EHELF_E_BADREG, EHELF_E_READ, EHELF_E_EXPR or EHELF_E_UNSUPPORTED. */
int cfi_row_apply(const cfi_row *row, bool signal, const ehelf_regs *in,
		  ehelf_regs *out, ehelf_read_fn read, void *arg, bool lenient);

/* ROW's summary word (ehelf_abi.h's ehelf_describe), or 0 when the row is
 * not of the summarised kinds or SIGNAL is set. */
uint64_t cfi_row_summary(const cfi_row *row, bool signal);

#endif
