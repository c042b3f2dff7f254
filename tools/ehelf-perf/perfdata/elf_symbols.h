/*
 * elf_symbols.h - the symbol table of an ELF file, as perf 6.1 makes it
 * for user code (the rules: symbols.h): from the file's .symtab and
 * .dynsym, or from its separate debug file when there is one, plus its
 * PLT entries.  Lookups: symbols.h.
 */
#ifndef EHELF_PERFDATA_ELF_SYMBOLS_H
#define EHELF_PERFDATA_ELF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "../../../common/err.h"

typedef struct symtab symtab;

/* The function symbols of the ELF file at PATH, whose GNU build-ID is
 * BUILD_ID (BUILD_ID_LEN bytes, trailing zero padding allowed; 0 to take
 * the file's).  The symbol file is the one perf reads (its build-ID cache
 * holding PATH, as perf record leaves it): a .gnu_debuglink target, else
 * PATH itself if it has a .symtab, else its debug file for that build-ID
 * (/usr/lib/debug/.build-id/XX/REST.debug, /usr/lib/debug/PATH.debug,
 * /usr/lib/debug/PATH), else PATH's .dynsym; debug files must carry the
 * same build-ID and a .symtab.  An ELF without any symbol gives an empty
 * table, not an error.  NULL on failure (unreadable, not an x86_64
 * executable or shared object, or PATH's build-ID is not BUILD_ID:
 * ERR_NOTFOUND) with ERR set. */
symtab *symtab_load_elf(const char *path, const uint8_t *build_id,
			size_t build_id_len, ehelf_err *err);

/* symtab_load_elf() with FLAGS: SYMTAB_ALIASES keeps every symbol at the
 * same address (perf's symbol_conf.allow_aliases, as `perf probe -F`
 * lists them) instead of perf's one-per-address choice. */
enum { SYMTAB_ALIASES = 1 };
symtab *symtab_load_elf_flags(const char *path, const uint8_t *build_id,
			      size_t build_id_len, unsigned flags,
			      ehelf_err *err);

/* symtab_load_elf() through a table saved in directory DIR (it must
 * exist) as BUILDID.tab, named by the file's own build-ID: mapped back
 * when it was made from the same files (the ELF file and its symbol file,
 * by device, inode, size and modification time), else made now and saved
 * (failing to save is not an error).  DIR NULL, or a file without a
 * build-ID: no saved table. */
symtab *symtab_load_elf_saved(const char *path, const uint8_t *build_id,
			      size_t build_id_len, const char *dir,
			      ehelf_err *err);

#endif
