/*
 * entry_layout.h - internal to the code generator's entry points
 * (entry_gen.c and the parts below; not for other callers): the blob's
 * layout, the labels of its tables (tables), the rule records' and the
 * compact frame's fields, each rule set's body plan (rs_code, shape,
 * blob_plan).  Each part declares its emitters in its own header:
 *
 *   entry_lookup.c   pc -> rule-set index: the inlined lookup, the compact
 *                    files' lookup subroutines, the escape routine
 *   entry_summary.c  summary words: the remote entry's application of
 *                    them, ehelf_describe, the 4-byte words of compact files
 *   entry_full.c     the full form's two step entry points and dispatch
 *   entry_compact.c  the compact form: one core for both step entry points
 *   entry_tables.c   the data after the code: ehelf_info and every table
 *   entry_gen.c      gen_blob_build: plans the bodies, emits code, tables
 *
 * Emitters append to the assembler (x86_asm.h: a failed allocation is
 * sticky in x86_asm.failed, checked by the caller at the end); the
 * registers each one takes and clobbers are in its comment.
 */
#ifndef EHELF_CODEGEN_ENTRY_LAYOUT_H
#define EHELF_CODEGEN_ENTRY_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../abi/ehelf_abi.h"
#include "gen_ctx.h"
#include "lookup_table.h"
#include "ruleset.h"
#include "x86_asm.h"

/*
 * Blob layout: [local entry][remote entry][read helper][describe]
 * [escape routine and stubs?][bodies, local then remote] [ehelf_info][constants (escapes only)][page records][rule-set
 * words][rule records][params][entry offsets][entry rule bytes][escape
 * ranks and indexes]; compact files (emit_compact, never escapes):
 * [entries, core, exits, helpers, summary][describe][lookup][bodies]
 * [ehelf_info][page records][words][body references][describe's
 * table?][params?][entry offsets][entry rule indexes].
 *
 * Rule record (12 bytes): int32 local body - record, int32 remote body -
 * record, uint32 params - params base.  Parameters are int16, int32 for
 * the shapes with an offset beyond 16 bits (gen_ctx.params16), in both
 * forms.
 */
typedef struct tables {
	/* labels of the blob's tables */
	int pages, entry_offsets, entry_rules, records, params, summaries;
	/* the escape routine's byte counts (emit_count_zero_bytes) */
	int byte_ones;          /* 0x0101010101010101: each byte 1 */
	int byte_top_bits;      /* 0x8080808080808080: each byte's top bit */
	int byte_low_bits;      /* 0x7f7f7f7f7f7f7f7f: the others */
	unsigned page_stride;   /* lookup_table.stride */
	unsigned cnt_width;     /* 1 or 2 */
	bool escapes;           /* more than 255 rule sets: entries of rule
				 * sets numbered 255 and up are escaped */
	int esc_rank, esc_rules, esc_find;  /* their tables and routine */
	int again[2];           /* local, remote: dispatch of index RCX */
	bool compact;           /* small files: one core for both step
				 * entry points (emit_compact) */
	bool shared_lookup;     /* one lookup subroutine (with compact) */
	int lookup_fn;
	int bodies;             /* compact: the first body */
	bool word32;            /* compact: 4-byte words (sum32_fits) */
	int bodyrefs, expand;   /* word32: body references, describe's table */
	bool no_params;         /* compact: no body reads parameters */
	bool vec_lookup;       /* compact: emit_lookup_vec, not _small */
	int stub[2];            /* local, remote escape stubs */
} tables;

/* a rule record's fields */
enum { RECORD_LOCAL_BODY = 0, RECORD_REMOTE_BODY = 4, RECORD_PARAMS = 8,
       RECORD_SIZE = 12 };

/* the compact core's frame, at rbp (entry_compact.c) */
enum { CF_PARAMS = 0, CF_A = 8, CF_B = 16, CF_SAVED = 24 };

/*
 * 4-byte words (tables.word32): compact files whose summaries all have the
 * return address at CFA - 8 and the other registers kept or at CFA - 8k,
 * k in 1..7 (every small file of this machine) store each summary in 32
 * bits: bits 0..13 as in the ABI's word, then a field of SUM32_BITS per
 * slot 1..6, 0 for "kept", else k.  ehelf_describe expands it.  A rule
 * set without a summary has the word 2j: its 8-byte word (emit_compact)
 * is the j-th of the body words.
 */
enum { SUM32_BITS = 3, SUM32_SHIFT = EHELF_SUM_SLOT_SHIFT };

/* the registers of a summary word's slots, slot 0 first */
static const int sum_slot_regs[EHELF_SUM_SLOTS] = EHELF_SUM_SLOT_REGS;

/* The body of each rule set: a shape (shared) or its own. */
typedef struct rs_code {
	uint32_t shape;        /* index in the shape list */
	uint32_t params_at;    /* its first parameter's index in params[] */
	uint32_t nparams;
	uint32_t params_off;   /* its parameters' byte offset in the area */
	bool summarised;       /* no remote body: the remote entry applies
				* its summary */
} rs_code;

typedef struct shape {
	ruleset rs;            /* the shape itself, or an exact rule set */
	bool parametric;
	uint32_t first_rs;     /* a rule set using it (for messages) */
	int label[2];          /* local, remote bodies */
	bool remote;           /* a rule set without a summary uses it: it
				* needs a remote body */
	bool wide;             /* int32 parameters (the rule sets using it
				* have an offset beyond 16 bits: frames of 32
				* KiB and more), else int16 */
} shape;

/* A blob's plan: each rule set's body and parameters, the shapes, and the
 * rule sets' numbering by use (entry_gen.c owns and frees it). */
typedef struct blob_plan {
	rs_code *code;          /* per rule set (index 0, "not covered": unused) */
	shape *sh;              /* the bodies to emit */
	size_t nsh;
	int32_t *params;        /* every rule set's parameters, at rs_code.params_at */
	size_t nparams;         /* those the bodies read */
	uint32_t *order;        /* new number -> rule set (NO_RULESET: the escape) */
	uint32_t *renum;        /* rule set -> new number */
	size_t nslots;          /* entries of order */
} blob_plan;

#define NO_RULESET UINT32_MAX

#endif
