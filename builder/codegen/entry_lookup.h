/*
 * entry_lookup.h - the pc's lookup in an eh_elf's code (inlined, or the
 * compact files' subroutines) and the escape routine (entry_lookup.c).
 * Internal to the code generator's entry points; the blob's layout:
 * entry_layout.h.
 */
#ifndef EHELF_CODEGEN_ENTRY_LOOKUP_H
#define EHELF_CODEGEN_ENTRY_LOOKUP_H

#include "entry_layout.h"

/* pc -> rule-set index in RCX, or a jump to NOT_COVERED (see the file):
 * inlined, or a call of tables.lookup_fn in compact files (pc in RDI) */
void emit_lookup(x86_asm *a, const lookup_table *t, const tables *tb,
		 int not_covered, int keep);

/* The lookup subroutine of compact files (tables.lookup_fn): the same
 * search as emit_lookup_inline, but the subpage's entries are counted one
 * at a time (a short loop: a subpage usually has under 8), in about half
 * the code.  pc in RDI -> rule index in RCX, 0 (and ZF set) when no row
 * covers the pc.  Callers assume the union of both variants' clobbers:
 * RAX, RDX, RDI, R9, R10, R11, XMM0, XMM1 (never RBX: ehelf_describe
 * saves nothing). */
void emit_lookup_small(x86_asm *a, const lookup_table *t, const tables *tb);

/* emit_lookup_small's contract with emit_lookup_inline's search, for
 * compact files of more entries (tables.vec_lookup): a few ns faster
 * a step than counting one entry at a time, and longer. */
void emit_lookup_vec(x86_asm *a, const lookup_table *t, const tables *tb);

/* the escape routine (tables.esc_find) and a stub of it */
void emit_esc_find(x86_asm *a, const tables *tb);

/* An escape stub: the entry number from KEEP, its index, then to AGAIN
 * (the entry's dispatch) with it in RCX. */
void emit_esc_stub(x86_asm *a, const tables *tb, int keep, int again);

#endif
