/*
 * entry_summary.h - summary words in an eh_elf's code: applied by the
 * remote entry, returned by ehelf_describe, stored in 4 bytes in compact
 * files (entry_summary.c).
 * Internal to the code generator's entry points; the blob's layout:
 * entry_layout.h.
 */
#ifndef EHELF_CODEGEN_ENTRY_SUMMARY_H
#define EHELF_CODEGEN_ENTRY_SUMMARY_H

#include "entry_layout.h"

void emit_word(x86_asm *a, int summaries, int l_record);
void emit_sum_slot(gen_ctx *g, x86_mem word, int src, int k, int skip);
void emit_sum_remote(gen_ctx *g);
void emit_describe_entry(x86_asm *a, const lookup_table *t, const tables *tb);
void emit_describe_word32(x86_asm *a, const lookup_table *t, const tables *tb);
/* whether a summary word has a 4-byte form, and that form */
bool sum32_fits(uint64_t w);
uint32_t sum32(uint64_t w);

#endif
