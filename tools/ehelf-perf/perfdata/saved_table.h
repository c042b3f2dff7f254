/*
 * saved_table.h - symbol tables saved to files, and mapped back: what
 * ehelf-perf keeps in its cache directory so that a table is parsed once
 * (elf_symbols.h's symtab_load_elf_saved does it for ELF files).
 */
#ifndef EHELF_PERFDATA_SAVED_TABLE_H
#define EHELF_PERFDATA_SAVED_TABLE_H

#include <stdint.h>

#include "../../../common/err.h"

typedef struct symtab symtab;

/* Saving a table, and mapping it back: the saved form is the table
 * itself, so that loading it costs one mmap instead of parsing again (25
 * ms for kallsyms, 15 ms for cc1plus's symbols).  Names still to be
 * demangled are demangled again on first use after loading.  KEY
 * identifies what the table was made from; it is stored with the table
 * and must match at load.
 *
 * The file is written atomically, mode 0600 (kernel addresses are
 * private), and not flushed: a cache.  After a power loss a table may be
 * empty or zeroed, which the load detects, or (on a file system that does
 * not order data before metadata) partly zeroed, which gives wrong names
 * until its sources change.  A damaged file that passes the load checks
 * gives wrong names, never a read out of bounds.
 *
 * symtab_save returns 0 or a negative ERR_*; symtab_load_saved returns
 * NULL with ERR set: ERR_NOTFOUND for a file that is absent, of another
 * version or for another KEY (make it again), ERR_FORMAT for a damaged
 * one, ERR_IO. */
enum { SYMTAB_KEY_WORDS = 4 };
int symtab_save(const symtab *s, const uint64_t key[SYMTAB_KEY_WORDS],
		const char *path, ehelf_err *err);
symtab *symtab_load_saved(const char *path,
			  const uint64_t key[SYMTAB_KEY_WORDS], ehelf_err *err);

#endif
