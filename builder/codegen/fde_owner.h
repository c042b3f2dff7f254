/*
 * fde_owner.h - which FDE an address belongs to where FDEs overlap.
 *
 * The rule (docs/eh_elf.md, "Overlapping FDEs"), the one libgcc, libunwind
 * and libdw follow when they search the sorted table of .eh_frame_hdr:
 * within one section, an address belongs to the FDE with the greatest
 * start at or before it (the first in the section among FDEs of that same
 * start); if the address is at or past that FDE's end, the section does
 * not cover it, even when an FDE that starts earlier does.  FDEs of no
 * length describe no address and are ignored.  .eh_frame comes first:
 * .debug_frame's FDEs, by the same rule among themselves, only fill the
 * addresses .eh_frame does not cover.
 *
 * Equivalently, FDE f owns [f.lo, min(f.hi, next)), next being the
 * smallest start above f.lo among the other FDEs of its section.
 */
#ifndef EHELF_CODEGEN_FDE_OWNER_H
#define EHELF_CODEGEN_FDE_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lookup_table.h"

/* One FDE and its rows: IV[first, first + nrows) of the row array. */
typedef struct fde_span {
	uint64_t lo, hi;     /* [lo, hi) */
	bool debug_frame;    /* from .debug_frame, else .eh_frame */
	uint32_t seq;        /* position in the input: ties go to the lower */
	size_t first, nrows;
} fde_span;

/* The rows of IV (grouped by FDE as the NF spans of F say) cut to the addresses their FDE owns, into a new
 * malloc'd array *OUT of *NOUT intervals (rule and seq kept; the pieces
 * do not overlap).  F is reordered.  *CUT counts the rows shortened or
 * hidden.  Returns 0 or ERR_NOMEM. */
int fde_owner_clip(fde_span *f, size_t nf, const lt_interval *iv,
		   lt_interval **out, size_t *nout, uint64_t *cut);

#endif
