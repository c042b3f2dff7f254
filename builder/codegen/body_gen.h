/*
 * body_gen.h - the machine code of one rule set ("rule body").
 *
 * A body runs after the entry point has copied *in to *out and found the
 * rule set; it computes the CFA, writes the registers that have rules into
 * *out, updates out->valid and leaves through one of the entry's exits with
 * the status in eax.  Register semantics (client-lib/include/ehelf_abi.h):
 * rsp is the CFA unless a rule says otherwise, a register without a rule
 * keeps its input value, "undefined" clears its valid bit, an undefined
 * return address is the outermost frame, and registers an expression or
 * the CFA needs must be valid in the input (else EHELF_E_BADREG).
 */
#ifndef EHELF_CODEGEN_BODY_GEN_H
#define EHELF_CODEGEN_BODY_GEN_H

#include <stddef.h>

#include "gen_ctx.h"
#include "ruleset.h"

/* Emit RS's body in G's mode.  Returns 0, ERR_UNSUPPORTED with a reason in
 * WHY (the assembler is then rolled back to where it was), or ERR_NOMEM. */
int body_emit(gen_ctx *g, const ruleset *rs, char *why, size_t whylen);

/* Emit a body that returns STATUS (for unsupported rule sets). */
void body_emit_status(gen_ctx *g, int status);

#endif
