/*
 * summary_step.h - one frame from an eh_elf row summary (ehelf_describe's
 * word, see ehelf_abi.h), computed here without calling the eh_elf: the
 * CFA from rsp or rbp, then rip and the saved callee-saved registers
 * loaded from the CFA.  The result is the one the step entry points give.
 */
#ifndef EHELF_CLIENT_SUMMARY_STEP_H
#define EHELF_CLIENT_SUMMARY_STEP_H

#include <stdint.h>

#include "../abi/ehelf_abi.h"

/* Apply SUM (nonzero) to IN into OUT (may be IN itself: everything is read
 * before anything is written).  Memory is read directly where the address
 * lies in [lo, hi - 8], else through READ(ARG, ...) when READ is not NULL.
 * Returns EHELF_STEP, EHELF_E_BADREG (the CFA register is not valid),
 * EHELF_E_READ, or EHELF_E_BOUNDS (outside [lo, hi) and READ is NULL). */
int summary_step(uint64_t sum, const ehelf_regs *in, ehelf_regs *out,
		 uint64_t lo, uint64_t hi, ehelf_read_fn read, void *arg);

/* The same, except that a callee-saved register whose slot cannot be read
 * is marked invalid instead of failing the step (the return address must
 * still be read).  A snapshot often misses a slot that is still named
 * after the register was popped (in epilogues, CFI often keeps "saved at
 * CFA-24" after the pop, below the stack pointer where the copy starts);
 * libunwind and libdw, which read registers only when needed, unwind
 * such frames.  Only READ is used (no direct loads). */
int summary_step_lenient(uint64_t sum, const ehelf_regs *in, ehelf_regs *out,
			 ehelf_read_fn read, void *arg);

#endif
