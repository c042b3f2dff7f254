/*
 * lenient_step.h - an eh_elf's remote step that loses a register, not the
 * frame, when the memory its rule names cannot be read.
 *
 * The compiled step fails as a whole on the first load that fails; but a
 * snapshot often misses slots its CFI still names (below the stack pointer
 * where a perf sample's copy starts: libgcc installing a catch block keeps
 * rax and rdx "saved" at CFA - 72 and - 64 once rsp has moved up past
 * them), and libunwind and libdw, which read a register only when asked
 * for it, step such frames.  Rows an eh_elf summarizes have their own
 * lenient step (summary_step.h); this one is for the others (the return
 * address in a register, expressions).
 */
#ifndef EHELF_CLIENT_LENIENT_STEP_H
#define EHELF_CLIENT_LENIENT_STEP_H

#include <stdint.h>

#include "include/ehelf.h"

/*
 * Step IN into OUT (not overlapping) through O's remote entry point at PC
 * (link-time), as ehelf_object_step, three times, every word READ cannot
 * give read as 0, then as all ones, then as 0x5a5a...: a register whose
 * value differs between them depends on unreadable memory and is marked
 * invalid in OUT (a rule that maps all three fills to one value would go
 * unnoticed: none in real CFI is known).  Returns EHELF_OUTERMOST when
 * every run says so; EHELF_STEP when every run steps and the return
 * address, the CFA (rip, rsp) and the valid set agree; EHELF_E_READ
 * otherwise (nothing was missing, the frame itself needs that memory, or
 * the runs disagree on the outcome).
 */
int lenient_object_step(const ehelf_object *o, uint64_t pc,
			const ehelf_regs *in, ehelf_regs *out,
			ehelf_read_fn read, void *arg);

#endif
