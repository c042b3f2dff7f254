/*
 * entry_full.h - the full form's two step entry points (entry_full.c).
 * Internal to the code generator's entry points; the blob's layout:
 * entry_layout.h.
 */
#ifndef EHELF_CODEGEN_ENTRY_FULL_H
#define EHELF_CODEGEN_ENTRY_FULL_H

#include "entry_layout.h"

/* ehelf_step_local(pc=rdi, in=rsi, out=rdx, stack_lo=rcx, stack_hi=r8) */
void emit_local_entry(x86_asm *a, const lookup_table *t, const tables *tb,
		      gen_ctx *g);

/* ehelf_step_remote(pc=rdi, in=rsi, out=rdx, read=rcx, arg=r8) */
void emit_remote_entry(x86_asm *a, const lookup_table *t, const tables *tb,
		       gen_ctx *g);

#endif
