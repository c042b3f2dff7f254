/*
 * entry_tables.h - the data of an eh_elf's blob after its code
 * (entry_tables.c).
 * Internal to the code generator's entry points; the blob's layout:
 * entry_layout.h.
 */
#ifndef EHELF_CODEGEN_ENTRY_TABLES_H
#define EHELF_CODEGEN_ENTRY_TABLES_H

#include "entry_layout.h"

/* The data after the code, from ehelf_info (INFO's counts filled in from
 * T, RS and NUNSUPPORTED, its offset in the blob into *OFF_INFO) to the
 * escape tables. */
void emit_tables(x86_asm *a, const lookup_table *t, const ruleset_table *rs,
		 const tables *tb, const blob_plan *plan, struct ehelf_info *info,
		 size_t nunsupported, size_t *off_info);

#endif
