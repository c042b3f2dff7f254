/*
 * entry_gen.h - the code and tables of an eh_elf: both step entry points
 * (copy in to out, look the pc up, jump to the rule body), the describe
 * entry point (look the pc up, return its summary), their exits, the
 * remote read helper, every rule body in both modes, and the lookup tables
 * and ehelf_info they use, as one position-independent blob.  Small files
 * get a compact form instead: one core for both step entry points, which
 * interprets summaries, and one body per rule set without a summary
 * (entry_compact.c; docs/eh_elf.md).
 */
#ifndef EHELF_CODEGEN_ENTRY_GEN_H
#define EHELF_CODEGEN_ENTRY_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "../../abi/ehelf_abi.h"
#include "lookup_table.h"
#include "ruleset.h"
#include "x86_asm.h"

/* Why a rule set could not be compiled. */
typedef struct gen_unsupported {
	uint32_t ruleset;
	char why[120];
} gen_unsupported;

typedef struct gen_blob {
	x86_asm a;              /* code then data; a.buf/a.n is the blob */
	size_t code_size;       /* the code part, then tables */
	size_t off_local, off_remote, off_describe, off_info;
	size_t code_align;      /* the alignment the blob needs: 64, or 8
				 * for compact eh_elfs (no aligned code) */
	gen_unsupported *unsupported; /* one per unsupported rule set */
	size_t nunsupported;
} gen_blob;

/* The code's form: chosen by the table's size (GEN_FORM_AUTO), or, for
 * tests, forced: compiled bodies in both modes (the form of files of more
 * than 16,384 entries or 256 rule sets), or the compact form of larger
 * files (entry_gen.c) whatever the size. */
typedef enum gen_form { GEN_FORM_AUTO, GEN_FORM_FULL, GEN_FORM_COMPACT_LARGE } gen_form;

/* Generate.  INFO is copied into the blob (entries, rulesets, unsupported
 * and page_bits are filled in here).  Returns 0 or ERR_NOMEM/ERR_FORMAT. */
int gen_blob_build(gen_blob *b, const lookup_table *t,
		   const ruleset_table *rs, struct ehelf_info *info);
int gen_blob_build_form(gen_blob *b, const lookup_table *t,
			const ruleset_table *rs, struct ehelf_info *info,
			gen_form form);
void gen_blob_free(gen_blob *b);

#endif
