/*
 * elf_file.h - one x86_64 ELF file opened through libelf.
 *
 * Shared by every component that looks inside an ELF: the CFI reader, the
 * batch builder, the statistics.  The file is either a path (mapped by
 * libelf) or a caller-owned memory image (e.g. read out of a package by
 * libarchive), which must outlive the elf_file.
 *
 * Ownership: elf_file_open*() fill a caller-provided struct; release it with
 * elf_file_close().  Section data returned by elf_file_section() points into
 * libelf's buffers and stays valid until elf_file_close().
 */
#ifndef EHELF_COMMON_ELF_FILE_H
#define EHELF_COMMON_ELF_FILE_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "err.h"

typedef struct elf_file {
	const char *name; /* path or display name, borrowed */
	int fd;           /* -1 for memory images */
	Elf *elf;
	uint16_t type;    /* ET_EXEC, ET_DYN */
	size_t shstrndx;
} elf_file;

typedef struct elf_section {
	const char *name;
	const uint8_t *data; /* NULL for SHT_NOBITS */
	uint64_t size;       /* bytes at data (decompressed size if it was compressed) */
	uint64_t addr;       /* sh_addr: link-time virtual address */
	uint64_t offset;     /* sh_offset in the file */
	uint32_t type;       /* sh_type */
	uint64_t flags;      /* sh_flags */
	bool nobits;         /* SHT_NOBITS: present in headers, no contents */
} elf_section;

/* Open PATH read-only.  Accepts 64-bit little-endian x86_64 executables
 * and shared objects (including separate debug files).  Returns 0, ERR_IO
 * (cannot open), ERR_FORMAT (not an ELF, or corrupt headers) or
 * ERR_UNSUPPORTED (other class, machine or type). */
int elf_file_open(elf_file *f, const char *path, ehelf_err *err);

/* Same from a memory image of SIZE bytes; NAME is used in messages. */
int elf_file_open_mem(elf_file *f, const void *image, size_t size,
		      const char *name, ehelf_err *err);

void elf_file_close(elf_file *f);

/* Find the first section called NAME.  Compressed sections (SHF_COMPRESSED)
 * are decompressed.  Returns 0, ERR_NOTFOUND, or ERR_FORMAT. */
int elf_file_section(elf_file *f, const char *name, elf_section *out,
		     ehelf_err *err);

/* Raw NT_GNU_BUILD_ID bytes: sets *id to point into the file and returns
 * the length (> 0), or ERR_NOTFOUND when the file has no build-ID. */
int elf_file_build_id(elf_file *f, const uint8_t **id);

/* Read the 8-byte value stored at link-time address ADDR in the file's
 * allocated, non-NOBITS sections.  Returns 0 or ERR_NOTFOUND. */
int elf_file_read_u64(elf_file *f, uint64_t addr, uint64_t *value);

/* The load bias of a mapping of F at runtime address START of file offset
 * PGOFF (a PT_LOAD's page-aligned offset, as ld.so maps it), executable if
 * EXEC, writable if WRITABLE: from the PT_LOAD it maps.  Segments may
 * share file pages (lld lays them all out in one, GNU ld with -z
 * noseparate-code and rustc's links some): preferred is the one whose
 * first page is PGOFF's, then whose executability is EXEC's, then whose
 * writability is WRITABLE's.  0, or ERR_NOTFOUND when no PT_LOAD holds
 * PGOFF. */
int elf_file_load_bias(elf_file *f, uint64_t start, uint64_t pgoff, bool exec,
		       bool writable, uint64_t *bias);

#endif
