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
/* the compact files' lookup subroutines (tables.lookup_fn) */
void emit_lookup_small(x86_asm *a, const lookup_table *t, const tables *tb);
void emit_lookup_vec(x86_asm *a, const lookup_table *t, const tables *tb);
/* the escape routine (tables.esc_find) and a stub of it */
void emit_esc_find(x86_asm *a, const tables *tb);
void emit_esc_stub(x86_asm *a, const tables *tb, int keep, int again);

#endif
