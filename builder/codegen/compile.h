/*
 * compile.h - an ELF's unwind tables to an eh_elf, as a library call (used
 * by ehelf-compile and the batch builder).
 *
 * Pipeline: CFI reader (every FDE of .eh_frame, then .debug_frame) -> rule
 * sets interned, rows as intervals -> rows cut to the addresses their FDE
 * owns where FDEs overlap (fde_owner.h; .debug_frame only fills what
 * .eh_frame does not cover) -> lookup table -> machine code for both entry
 * points and every rule body -> eh_elf file image.
 */
#ifndef EHELF_CODEGEN_COMPILE_H
#define EHELF_CODEGEN_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/elf_file.h"
#include "../../common/err.h"
#include "../cfi/unwind_ir.h"
#include "sframe_est.h"

/* The code generator's version, recorded with each eh_elf in the batch
 * database: bump it when the code generator's output changes for the same
 * input (ehelf-batch then rebuilds the eh_elfs of older versions). */
#define EHELF_GENERATOR_VERSION 4

/* The largest eh_elf the loader accepts (client-lib/eh_elf_check.h's
 * EH_ELF_MAX_BYTES; a unit test holds them equal): larger are refused. */
#define EHELF_COMPILE_MAX_BYTES (512u << 20)

typedef struct ehelf_unsupported {
	uint32_t ruleset;
	uint64_t rows;          /* rows using it */
	uint64_t example_pc;    /* first address of one such row */
	char why[120];
} ehelf_unsupported;

enum { EHELF_FDE_ROWS_BUCKETS = 65 }; /* 0..63 rows, then 64 or more */

/* What the unwind table is made of (for the batch builder's statistics). */
typedef struct ehelf_coverage {
	/* rows by rule kind, per column: [0..16] registers, [17] the CFA
	 * (counted as UW_OFFSET for register+offset, UW_EXPR for expressions,
	 * UW_UNSET when undefined) */
	uint64_t kinds[UW_NCOLS + 1][UW_RULE_KINDS];
	uint64_t ops[256];         /* DW_OP opcodes in the rows' expressions */
	uint64_t fde_rows[EHELF_FDE_ROWS_BUCKETS];
	uint64_t signal_fdes, extra_cols, args_size_ops;
} ehelf_coverage;

enum { EHELF_FDE_SIZE_BUCKETS = 64 }; /* log2 of an FDE's size in bytes */

/* Where a rule set's CFA comes from (the rulesets table's cfa_base). */
typedef enum ehelf_cfa_base {
	EHELF_CFA_RSP,    /* "rsp": register 7 + offset */
	EHELF_CFA_RBP,    /* "rbp": register 6 + offset */
	EHELF_CFA_REG,    /* "reg": another register + offset */
	EHELF_CFA_EXPR,   /* "expr": a DWARF expression */
	EHELF_CFA_NONE,   /* "none": no CFA rule (UW_CFA_UNSET) */
} ehelf_cfa_base;

/* The name the database gives B ("rsp", "rbp", "reg", "expr", "none"). */
const char *ehelf_cfa_base_name(ehelf_cfa_base b);

/* One distinct rule set of the table (ruleset_fp.h). */
typedef struct ehelf_ruleset_stat {
	uint64_t fingerprint;   /* ruleset_fp() */
	uint64_t shape;         /* ruleset_shape_fp() */
	uint64_t rows;          /* rows using it */
	bool summarised;        /* it has an ehelf_describe summary (summary.h) */
	bool supported;         /* compiled (not in the unsupported list) */
	uint8_t cfa_base;       /* ehelf_cfa_base */
	uint8_t saved_regs;     /* columns 0..15 with an offset, val_offset,
				 * register, expression or val_expression rule */
	uint16_t cfa_reg;       /* EHELF_CFA_RSP/RBP/REG: the register */
	int64_t cfa_offset;     /* EHELF_CFA_RSP/RBP/REG: the offset */
	const char *text;       /* ruleset_text(), in the detail's text pool */
} ehelf_ruleset_stat;

/* What the batch database records beyond ehelf_compile_stats (the
 * statistics of schema.sql version 3), filled only when asked for
 * (ehelf_compile_opts.detail): it costs clock reads per FDE and a pass
 * over the rule sets.
 *
 * Ownership: rulesets and the text pool they point into are malloc'd by
 * the compile and belong to the caller, who frees them with
 * ehelf_compile_detail_free() (a failed compile has freed them already:
 * NULL; freeing again is harmless). */
typedef struct ehelf_compile_detail {
	ehelf_ruleset_stat *rulesets;  /* one per distinct rule set, in the
					* order of their first row; the
					* "not covered" placeholder left out */
	size_t nrulesets;
	char *texts;                   /* their texts, NUL-separated */
	/* FDEs by size (the whole entry, uw_fde.size): bucket b holds sizes
	 * 2^b .. 2^(b+1)-1, with their total in bytes */
	uint64_t fde_size_fdes[EHELF_FDE_SIZE_BUCKETS];
	uint64_t fde_size_bytes[EHELF_FDE_SIZE_BUCKETS];
	/* FDEs and rows read from each section (uw_fde.section) */
	uint64_t eh_frame_fdes, eh_frame_rows, debug_frame_fdes, debug_frame_rows;
	uint64_t summarised_rows;      /* rows whose rule set is summarised */
	uint64_t shapes;               /* distinct shape fingerprints */
	/* wall time (CLOCK_MONOTONIC) in ms: inside cfi_reader_next();
	 * interning rule sets and building the lookup table; generating the
	 * code (gen_blob_build); writing the ELF image (eh_elf_write) */
	double read_ms, rules_ms, codegen_ms, image_ms;
	sframe_est sframe;             /* SFrame estimate (sframe_est.h) */
} ehelf_compile_detail;

/* Free D's lists (D itself is the caller's); D stays valid and empty. */
void ehelf_compile_detail_free(ehelf_compile_detail *d);

typedef struct ehelf_compile_stats {
	uint64_t eh_frame_bytes, eh_frame_hdr_bytes, debug_frame_bytes;
	uint64_t fdes, rows;        /* IR rows read */
	uint64_t entries;           /* lookup-table entries written */
	uint32_t rulesets;          /* distinct rule sets (with "none") */
	uint64_t overlaps;          /* rows hidden by earlier FDEs */
	uint64_t unsupported_rows;
	ehelf_unsupported *unsupported;  /* malloc'd, free with the stats */
	size_t nunsupported;
	uint64_t code_bytes, table_bytes, output_bytes;
} ehelf_compile_stats;

typedef struct ehelf_compile_opts {
	/* Build-ID to record; NULL: the file's own NT_GNU_BUILD_ID. */
	const uint8_t *build_id;
	size_t build_id_len;
	/* If set: zeroed, then filled with what the table is made of. */
	ehelf_coverage *coverage;
	/* If set: zeroed, then filled with the detail above (its lists
	 * freed by the caller with ehelf_compile_detail_free). */
	ehelf_compile_detail *detail;
	/* If set (ehelf_compile_elf only): a separate debug file of the same
	 * build-ID as the ELF, whose .debug_frame fills addresses the ELF's
	 * own tables do not cover; one of another build-ID is refused
	 * (ERR_ARG).  Its .debug_frame counts in debug_frame_bytes. */
	elf_file *debug_file;
	/* Add section headers (.text, .rodata, ...) for inspection tools;
	 * the loader does not need them (docs/eh_elf.md). */
	bool section_headers;
	/* Tests: 0, or a gen_form (entry_gen.h) forcing the code's form. */
	int code_form;
} ehelf_compile_opts;

/* Compile F into a file image (*IMAGE malloc'd, *LEN bytes).  Returns 0,
 * ERR_NOTFOUND (no unwind tables), ERR_FORMAT / ERR_UNSUPPORTED (from the
 * CFI reader, with the file and offset), ERR_UNSUPPORTED for a table whose
 * address span is out of proportion to its rows (docs/eh_elf.md,
 * "Bounds": refused before anything of the span's size is allocated, the
 * message naming the span and the widest FDE) or an image larger than
 * EHELF_COMPILE_MAX_BYTES, or ERR_NOMEM.  OPTS and STATS may be NULL. */
int ehelf_compile_elf(elf_file *f, const ehelf_compile_opts *opts,
		      uint8_t **image, size_t *len, ehelf_compile_stats *stats,
		      ehelf_err *err);

typedef struct cfi_reader cfi_reader;

/* The same from a CFI reader with its sections already queued (NAME is
 * used in messages); the build-ID comes only from OPTS. */
int ehelf_compile_reader(cfi_reader *r, const char *name,
			 const ehelf_compile_opts *opts, uint8_t **image,
			 size_t *len, ehelf_compile_stats *stats,
			 ehelf_err *err);

void ehelf_compile_stats_free(ehelf_compile_stats *s);

#endif
