/*
 * dso.h - the files mapped by profiled processes, shared by every process
 * of a perf.data file: each opened once, for its program headers (load
 * biases), its static memory (reads outside a sample's stack copy) and its
 * symbols (loaded on first use).
 *
 * A dso is identified by path and build-ID.  The build-ID comes from the
 * perf.data file when it has one for the mapping, else from the file on
 * disk.  The file read for it is, as perf finds it, the first of:
 *   1. PATH itself, if its build-ID is the recorded one (or none was
 *      recorded);
 *   2. perf's copy in its build-ID cache (buildid_cache.h: .build-id/XX/
 *      REST/elf, which perf record makes of the files its samples hit),
 *      with the copy of its debug file ("debug") for symbols;
 *   3. with debuginfod enabled (dso_table_use_debuginfod) and
 *      $DEBUGINFOD_URLS set, the executable from debuginfod servers
 *      (debuginfod_file.h), with its debuginfo for symbols when it has no
 *      .symtab of its own: a recording from another machine.
 * A file in a debug file's company is read through a symbol view
 * (symbol_view.h).  Without any, the dso has no memory and no symbols, as
 * in perf.  A recorded ID may be the file's zero-padded to perf's 20 bytes;
 * a usable dso keeps the file's own (the eh_elf store is keyed by it).
 */
#ifndef EHELF_PERF_TOOL_DSO_H
#define EHELF_PERF_TOOL_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../../common/elf_file.h"
#include "../perfdata/symbols.h"
#include "sym_memo.h"

typedef struct dso {
	char *path;             /* as recorded (the vDSO: its file) */
	char *file;             /* the file read (1-3 above), when usable */
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

/* Whether files missing here are asked of debuginfod servers (3 above):
 * off in a new table. */
void dso_table_use_debuginfod(dso_table *t, bool on);

/* When files were to be asked of debuginfod ($DEBUGINFOD_URLS set) but
 * libdebuginfod could not be loaded or started: why (owned by T); else
 * NULL. */
const char *dso_table_debuginfod_failure(const dso_table *t);

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
