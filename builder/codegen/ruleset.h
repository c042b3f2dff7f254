/*
 * ruleset.h - interning the distinct rule sets of an ELF's unwind table.
 *
 * A rule set is what one row says (the CFA rule, the 17 register rules)
 * plus whether its FDE is a signal frame.  Real binaries have few distinct
 * ones (hundreds for libc, about a thousand for libLLVM's 900,000 rows), so
 * the code generator compiles each once and rows refer to it by index.
 * Index 0 is reserved for "no row covers this address".
 *
 * Ownership: rules are copied; expression bytes are not (they point into
 * the ELF file being compiled, which must stay open).
 */
#ifndef EHELF_CODEGEN_RULESET_H
#define EHELF_CODEGEN_RULESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../cfi/unwind_ir.h"

typedef struct ruleset {
	uw_rules r;
	bool signal_frame;
	uint64_t hash;
	uint64_t nrows;   /* rows that use it */
} ruleset;

typedef struct ruleset_table {
	ruleset *v;       /* v[0] is the "not covered" placeholder */
	size_t n, cap;
	uint32_t *slots;  /* open addressing: index into v, 0 = empty */
	size_t nslots;
} ruleset_table;

/* Initialise with the placeholder 0.  Returns 0 or ERR_NOMEM. */
int ruleset_table_init(ruleset_table *t);
void ruleset_table_free(ruleset_table *t);

/* Index of the rule set (R, SIGNAL), adding it if new.  Returns the index
 * (>= 1) or ERR_NOMEM. */
int64_t ruleset_intern(ruleset_table *t, const uw_rules *r, bool signal);

#endif
