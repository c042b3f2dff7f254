/*
 * body_gen.h - the machine code of a rule set ("rule body").
 *
 * A body runs after the entry point has copied *in to *out and found the
 * rule set; it computes the CFA, writes the registers that have rules into
 * *out, updates out->valid and leaves through one of the entry's exits with
 * the status in eax.  Register semantics (abi/ehelf_abi.h):
 * rsp is the CFA unless a rule says otherwise, a register without a rule
 * keeps its input value, "undefined" clears its valid bit, an undefined
 * return address is the outermost frame, and registers an expression or
 * the CFA needs must be valid in the input (else EHELF_E_BADREG).
 *
 * Most rule sets differ only in their offsets (CFA = rsp + 8, + 16, ...;
 * rbx at CFA - 16, - 24, ...): libc has 395 rule sets but 54 "shapes".  A
 * body can therefore be parametric: the offsets are read at run time from
 * the rule set's parameters (int32), and one body serves every rule set of
 * a shape.  Parameter 0 is the CFA offset, 1 and 2 the lowest and highest
 * offset of the "saved at CFA+N" rules (for the local bounds check), then
 * one per offset or val_offset column, in column order.
 */
#ifndef EHELF_CODEGEN_BODY_GEN_H
#define EHELF_CODEGEN_BODY_GEN_H

#include <stdbool.h>
#include <stddef.h>

#include "gen_ctx.h"
#include "ruleset.h"

enum { BODY_P_CFA = 0, BODY_P_MIN = 1, BODY_P_MAX = 2, BODY_P_COLS = 3,
       BODY_MAX_PARAMS = BODY_P_COLS + 17 };

/* RS's parameters into PARAMS; returns their count, or -1 when an offset
 * does not fit in 32 bits (RS then needs an exact body). */
int body_params(const ruleset *rs, int32_t params[BODY_MAX_PARAMS]);

/* RS with every parametric offset set to 0: equal shapes share a body. */
void body_shape(const ruleset *rs, ruleset *shape);

/* Emit RS's body in G's mode, parametric or with RS's own offsets.
 * Returns 0, ERR_UNSUPPORTED with a reason in WHY (the assembler is then
 * rolled back), or ERR_NOMEM. */
int body_emit(gen_ctx *g, const ruleset *rs, bool parametric, char *why,
	      size_t whylen);

/* Emit a body that returns STATUS (for unsupported rule sets). */
void body_emit_status(gen_ctx *g, int status);

#endif
