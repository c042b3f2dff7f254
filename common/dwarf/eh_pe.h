/*
 * eh_pe.h - DW_EH_PE pointer encodings used by .eh_frame (LSB 4.1, x86-64
 * psABI) and, with DW_EH_PE_absptr, by .debug_frame.
 *
 * Bases: pcrel is relative to the address of the encoded field; aligned
 * rounds the field's address up to 8 bytes; funcrel is relative to the
 * FDE's initial location (only for fields that follow it); datarel is
 * relative to `datarel` (0 in .eh_frame, as libgcc's x86_64 unwinder,
 * binutils and libdw have it; the start of .eh_frame_hdr there); textrel
 * uses base 0.
 * indirect dereferences the result through `read_u64`.
 */
#ifndef EHELF_DWARF_EH_PE_H
#define EHELF_DWARF_EH_PE_H

#include <stdbool.h>
#include <stdint.h>

#include "../cursor.h"

typedef struct eh_pe_ctx {
	const uint8_t *data;  /* start of the section holding the field */
	uint64_t vaddr;       /* its link-time address */
	bool has_func;        /* funcrel is allowed */
	uint64_t func;        /* base for funcrel */
	uint64_t datarel;     /* base for datarel */
	/* Reads 8 bytes at a link-time address for DW_EH_PE_indirect;
	 * returns 0 on success.  May be NULL: indirect is then unsupported. */
	int (*read_u64)(void *arg, uint64_t addr, uint64_t *value);
	void *arg;
} eh_pe_ctx;

enum eh_pe_status {
	EH_PE_OK = 0,
	EH_PE_TRUNCATED = -1,   /* field runs past the end */
	EH_PE_BAD_ENCODING = -2,/* unknown format or application bits */
	EH_PE_NO_BASE = -3,     /* funcrel without a function, or omit */
	EH_PE_UNREADABLE = -4,  /* indirect target not in the file */
};

/* Decode one value with encoding ENC at C.  DW_EH_PE_omit is the caller's
 * business and is rejected here.  Returns an eh_pe_status. */
int eh_pe_read(cursor *c, uint8_t enc, const eh_pe_ctx *ctx, uint64_t *out);

/* Decode only the value format (low 4 bits) of ENC, without applying any
 * base: used for FDE address ranges. */
int eh_pe_read_raw(cursor *c, uint8_t enc, uint64_t *out);

/* True when ENC is a value the reader knows how to decode. */
bool eh_pe_valid(uint8_t enc);

const char *eh_pe_status_str(int status);

#endif
