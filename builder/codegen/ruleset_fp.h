/*
 * ruleset_fp.h - a rule set's fingerprint and text, the identity of a rule
 * set across ELFs (the rulesets and ruleset_texts tables of
 * store/schema.sql).
 *
 * Fingerprint: FNV-1a 64 (offset basis 0xcbf29ce484222325, prime
 * 0x100000001b3) over this byte string, integers little-endian, nothing
 * else (no pointer, no padding, no field the rule's meaning ignores):
 *
 *   signal frame          1 byte, 0 or 1
 *   CFA kind              1 byte: 0 unset, 1 register+offset, 2 expression
 *     register+offset:    register u16, offset i64
 *     expression:         length u32, the DWARF expression's bytes
 *   columns 0..16, each:  kind 1 byte (uw_rule_kind: 0 unset, 1 undefined,
 *                         2 same value, 3 offset, 4 val_offset,
 *                         5 register, 6 expression, 7 val_expression)
 *     offset, val_offset: offset i64
 *     register:           register u16
 *     expression, val_e.: length u32, the expression's bytes
 *
 * Two rule sets are equal (uw_rules_eq, and the same signal flag) exactly
 * when their encodings are, so equal fingerprints mean equal rules up to a
 * 64-bit hash collision.  The database stores it as a signed 64-bit
 * integer: (int64_t) of the uint64_t.
 *
 * Shape fingerprint: the fingerprint of body_shape(rs) (body_gen.h), the
 * rule set with its parametric offsets (CFA offset, offset and val_offset
 * columns) set to 0; rule sets of one shape share a parametric body.
 *
 * Text: readelf's frames-interp notation as uw_dump.h writes a row,
 * "cfa=rsp+16 rbx=c-16 ra=c-8", columns without a rule left out, then
 * " signal" for a signal frame.  Expressions are "exp" / "vexp" (their
 * bytes are not shown: distinct fingerprints can share a text).
 *
 * Pure functions of their arguments; thread-safe.
 */
#ifndef EHELF_CODEGEN_RULESET_FP_H
#define EHELF_CODEGEN_RULESET_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../cfi/unwind_ir.h"
#include "ruleset.h"

/* Longest text ruleset_text() writes, NUL included (a CFA and 17 columns,
 * each with a 64-bit offset, and " signal"). */
enum { RULESET_TEXT_MAX = 512 };

/* The fingerprint of rules R in a frame that is a signal frame or not. */
uint64_t ruleset_fp_rules(const uw_rules *r, bool signal_frame);

/* The fingerprint of RS (its rules and signal flag). */
uint64_t ruleset_fp(const ruleset *rs);

/* The fingerprint of RS's shape: ruleset_fp(body_shape(RS)). */
uint64_t ruleset_shape_fp(const ruleset *rs);

/* RS as text into BUF (N bytes, RULESET_TEXT_MAX always suffices; longer
 * text is cut).  Returns the text's length. */
size_t ruleset_text(const ruleset *rs, char *buf, size_t n);

#endif
