/*
 * eh_elf_writer.h - wraps a generated code+data blob into the eh_elf shared
 * object of ehelf_abi.h: ELF header, program headers (PT_LOAD R+X for
 * everything but .dynamic, PT_LOAD RW for .dynamic, PT_DYNAMIC, PT_NOTE,
 * PT_GNU_STACK non-executable), the ehelf note, DT_HASH/.dynsym/.dynstr
 * for the four exported symbols, and, when asked for, section headers
 * for inspection tools (readelf -S, objdump -d); every byte outside the
 * blob as common/eh_elf_format.h lays it out.  It fills ehelf_info's
 * code_size, off_remote, off_describe and check in the file (the blob's
 * copy of ehelf_info has them 0).
 *
 * The output depends only on the inputs: no time, path or host enters it.
 */
#ifndef EHELF_CODEGEN_EH_ELF_WRITER_H
#define EHELF_CODEGEN_EH_ELF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct eh_elf_parts {
	const uint8_t *blob;      /* code, then read-only data */
	size_t blob_size;
	size_t code_size;         /* [0, code_size) is .text, the rest .rodata */
	size_t off_local, off_remote, off_describe, off_info, info_size;
	const uint8_t *build_id;  /* source build-ID (may be NULL if len 0) */
	size_t build_id_len;
	size_t code_align;        /* the blob's file offset: a multiple of
				   * this (8, 16, 32 or 64; 0 means 64) */
	bool section_headers;     /* add section headers (for inspection) */
} eh_elf_parts;

/* Build the file image in *OUT (malloc'd, *LEN bytes).  Returns 0 or
 * ERR_NOMEM / ERR_ARG (a build-ID longer than 64 bytes, or parts not laid
 * out as the code generator does: ehelf_step_local at 0, then
 * ehelf_step_remote and ehelf_describe inside the code, ehelf_info of
 * sizeof(struct ehelf_info) bytes at the first multiple of 8 after it). */
int eh_elf_write(const eh_elf_parts *p, uint8_t **out, size_t *len);

#endif
