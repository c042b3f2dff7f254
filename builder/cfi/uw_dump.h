/*
 * uw_dump.h - the IR as text, in binutils readelf's frames-interp notation.
 *
 *   FDE pc=0000000000001040..0000000000001066
 *   0000000000001040 cfa=rsp+8 ra=c-8
 *   0000000000001041 cfa=rsp+16 rbp=c-16 ra=c-8
 *
 * CFA: "REG+OFF" or "exp" ("u" when a CIE never defines it).  Registers:
 * "c-16" offset, "v+8" val_offset, a register name, "exp", "vexp", "s" same
 * value, "u" undefined; registers without a rule are not listed; column 16
 * is "ra".  Verbose output adds the FDE's section offset and every
 * expression as DW_OP text on indented lines.
 */
#ifndef EHELF_CFI_UW_DUMP_H
#define EHELF_CFI_UW_DUMP_H

#include <stdbool.h>
#include <stdio.h>

#include "unwind_ir.h"

/* "rsp+8", "exp" or "u". */
void uw_format_cfa(const uw_cfa *cfa, char *buf, size_t n);

/* "c-16", "v+8", "rbx", "exp", "vexp", "s", "u"; "" for UW_UNSET. */
void uw_format_rule(const uw_rule *rule, char *buf, size_t n);

/* Print one FDE.  Returns 0, or -1 if writing failed. */
int uw_dump_fde(FILE *out, const uw_fde *fde, bool verbose);

#endif
