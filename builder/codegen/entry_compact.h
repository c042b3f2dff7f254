/*
 * entry_compact.h - the compact form's core of both step entry points
 * (entry_compact.c).
 * Internal to the code generator's entry points; the blob's layout:
 * entry_layout.h.
 */
#ifndef EHELF_CODEGEN_ENTRY_COMPACT_H
#define EHELF_CODEGEN_ENTRY_COMPACT_H

#include "entry_layout.h"

/* Both step entry points, their core, exits and read helpers; the local
 * entry at L_LOCAL, the remote one at L_REMOTE. */
void emit_compact(x86_asm *a, const tables *tb, gen_ctx *g, int l_local,
		  int l_remote);

#endif
