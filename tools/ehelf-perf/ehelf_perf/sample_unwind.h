/*
 * sample_unwind.h - the user stack of one perf sample, unwound with
 * libehelf's remote path: the sample's user registers (PERF_SAMPLE_REGS_USER)
 * as the first frame, memory read from the sample's copy of the stack
 * (PERF_SAMPLE_STACK_USER) and, outside it, from the mapped ELF files
 * (static data; a value a mapping does not back from its file cannot be
 * read, as in perf).
 */
#ifndef EHELF_PERF_TOOL_SAMPLE_UNWIND_H
#define EHELF_PERF_TOOL_SAMPLE_UNWIND_H

#include "../../../client-lib/include/ehelf.h"
#include "../perfdata/perf_data.h"
#include "procs.h"

/* The sample's user registers in DWARF order (ehelf_regs); -1 when the
 * sample has none (regs_abi 0, or no ip and sp among them). */
int sample_regs(const perf_event *ev, ehelf_regs *out);

/* Where a sample's memory comes from, for sample_read. */
typedef struct sample_mem {
	const uint8_t *stack;  /* the copy, starting at the sample's sp */
	uint64_t sp, size;
	uint64_t full;         /* a cut copy (perf_reader_partial_stacks):
				* its whole size, else 0 */
	bool cut_read;         /* a read fell in the part cut off (then it
				* failed: the unwinding must be done again
				* with the whole copy) */
	const proc *pr;
} sample_mem;

/* ehelf_read_fn over a sample_mem. */
int sample_read(void *arg, uint64_t addr, uint64_t *value);

/* Unwind EV (a sample of process PR) into FRAMES (at most MAX).  A cut
 * stack copy is read whole from R when the unwinding reaches beyond the
 * part given (R may be NULL for a sample with its whole copy).  Returns
 * the number of frames (0 when the sample has no user registers or no
 * stack copy, as perf shows none then, or its whole copy could not be
 * read). */
int sample_unwind(proc *pr, const perf_reader *r, const perf_event *ev,
		  ehelf_frame *frames, int max);

#endif
