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

/*
 * The remote entry applies the summary word (ehelf_abi.h) of the rule sets
 * ehelf_describe summarises itself: they have no remote body.  Each rule
 * set has one word; a word with EHELF_SUM_OK set is its summary, any
 * other is its rule index times 2 (ehelf_describe answers 0 for it).
 * The local entry still jumps to compiled bodies: interpreting the word
 * there was measured 3-4 ns (30%) slower per warm step (docs/eh_elf.md).
 *
 * rule index in RCX -> the word in RAX; to L_RECORD with the rule index
 * in RCX when it is not a summary.
 */
void emit_word(x86_asm *a, int summaries, int l_record);

/* Slot K's offset / 8 (sign-extended) from the word in SRC into RDX; to
 * SKIP when the slot says "kept" (never for slot 0, the return address). */
void emit_sum_slot(gen_ctx *g, x86_mem word, int src, int k, int skip);

/* Remote mode: apply the summary word in RAX through the read helper,
 * and leave through the exits.  The word is kept in the frame's first
 * expression slot, the CFA in the mode's CFA register. */
void emit_sum_remote(gen_ctx *g);

/* ehelf_describe(pc=rdi) -> the row's summary word, or 0 */
void emit_describe_entry(x86_asm *a, const lookup_table *t, const tables *tb);

/* ehelf_describe of compact files with 4-byte words: the word expanded
 * (see sum32), or 0. */
void emit_describe_word32(x86_asm *a, const lookup_table *t, const tables *tb);

/* whether a summary word has a 4-byte form, and that form */
bool sum32_fits(uint64_t w);

uint32_t sum32(uint64_t w);

#endif
