/*
 * dso.h - the files mapped by profiled processes, shared by every process
 * of a perf.data file: each opened once, for its program headers (load
 * biases), its static memory (reads outside a sample's stack copy) and its
 * symbols (loaded on first use).
 *
 * A dso is identified by path and build-ID.  The build-ID comes from the
 * perf.data file when it has one for the mapping, else from the file on
 * disk; a file on disk whose build-ID differs from the recorded one is not
 * used (the dso then has no memory and no symbols, as perf does).  A
 * recorded ID may be the file's zero-padded to perf's 20 bytes; a usable
 * dso keeps the file's own (the eh_elf store is keyed by it).
 */
#ifndef EHELF_PERFTOOL_DSO_H
#define EHELF_PERFTOOL_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/elf_file.h"
#include "../perf/symbols.h"
#include "sym_memo.h"

typedef struct dso {
	char *path;
	uint8_t build_id[64];
	size_t build_id_len;
	bool usable;            /* the file is readable and matches */
	bool has_text;          /* has an executable PT_LOAD */
	bool perf_map;          /* named "/tmp/perf-...": symbols from the
				 * lines of a JIT's perf map, at runtime
				 * addresses (bias 0 unless an ELF), as in
				 * perf (symtab_load_perf_map) */
	elf_file elf;           /* when usable */
	const uint8_t *image;   /* the file's bytes (libelf's mapping) */
	size_t image_size;
	struct dso_seg {        /* its PT_LOADs, for reads by address */
		uint64_t vaddr, offset, filesz;
	} *segs;
	size_t nsegs;
	symtab *syms;           /* loaded on first dso_symbol(), through the
				 * table saved in saved_dir if any */
	const char *saved_dir;  /* the table's (cache_dir.h), or NULL */
	sym_memo memo;          /* dso_symbol()'s last answers */
	bool syms_tried;
	struct dso *next;       /* hash chain */
} dso;

typedef struct dso_table dso_table;

dso_table *dso_table_new(void);
void dso_table_free(dso_table *t);

/* The dso for PATH with build-ID ID (LEN 0: unknown, take the file's).
 * Never NULL but on allocation failure; a file that cannot be opened gives
 * an unusable dso (so that it is tried once). */
dso *dso_get(dso_table *t, const char *path, const uint8_t *id, size_t len);

/* Load bias of a mapping of D at runtime address START, file offset
 * PGOFF, executable if EXEC, writable if WRITABLE (elf_file_load_bias; 0
 * for a perf map that is no ELF file).  Returns 0 or ERR_NOTFOUND. */
int dso_bias(dso *d, uint64_t start, uint64_t pgoff, bool exec, bool writable,
	     uint64_t *bias);

/* The 8 bytes at link-time address ADDR of D's file (what a PT_LOAD maps
 * from the file there).  0 or ERR_NOTFOUND. */
int dso_read(dso *d, uint64_t addr, uint64_t *value);

/* The function covering link-time address ADDR, with *OFF; NULL if none. */
const char *dso_symbol(dso *d, uint64_t addr, uint64_t *off);

#endif
