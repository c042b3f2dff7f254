/*
 * summary.h - the ehelf_describe word of a rule set (see ehelf_abi.h): the
 * common rows (CFA = rsp/rbp + N, return address and callee-saved
 * registers saved at CFA + M) packed into 64 bits, so that an unwinder can
 * cache them and step such frames without the eh_elf.
 */
#ifndef EHELF_CODEGEN_SUMMARY_H
#define EHELF_CODEGEN_SUMMARY_H

#include <stdint.h>

#include "ruleset.h"

/* RS's summary, or 0 when its rules are not all of the summarised kinds. */
uint64_t ruleset_summary(const ruleset *rs);

#endif
