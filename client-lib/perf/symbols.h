/*
 * symbols.h - function names for addresses, as `perf script` prints them:
 * for user code from an ELF file's .symtab and .dynsym, or from its
 * separate debug file (.gnu_debuglink, /usr/lib/debug/.build-id/XX/
 * REST.debug and the path mirrored under /usr/lib/debug) when there is
 * one; for the kernel from /proc/kallsyms.
 *
 * Symbol choice is perf 6.1's (tools/perf/util/symbol.c, symbol-elf.c), as
 * /usr/bin/perf on Debian 12 prints it (tests/perf/run-symbols-tests.sh
 * checks every sampled frame against it):
 *  - symbols: STT_FUNC, STT_GNU_IFUNC and STT_OBJECT, and STT_NOTYPE labels
 *    (not hidden or internal) in sections whose name contains "text" or
 *    "data"; named, defined, not SHN_ABS, in an SHF_ALLOC section;
 *  - the symbol file's .symtab, then its .dynsym (both when it has both);
 *    each pass extends size-0 symbols to the next symbol (the last one to
 *    roundup(start, 4096) + 4096), then keeps one symbol per address
 *    (perf's choose_best_symbol: sized, then non-weak, then global, then
 *    fewer leading underscores, then the longer name, then the first);
 *  - then PLT entries "NAME@plt" from .rela.plt and .plt, added as is;
 *  - overlapping symbols resolve as perf's red-black tree search does;
 *  - C++ (and OCaml, legacy Rust) names are demangled like perf's default
 *    (libiberty without DMGL_PARAMS): "ns::Class::method", no parameters,
 *    no return type; Rust v0 ones ("_R...") too (rust_v0.h); kernel names
 *    and JIT maps' are not demangled.
 *
 * Ownership: a symtab owns its strings.  Thread-safe for lookups once built
 * (names are demangled on first use, published atomically).
 */
#ifndef EHELF_PERF_SYMBOLS_H
#define EHELF_PERF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/err.h"

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

/* The kernel's symbols from /proc/kallsyms (types T, W, D and B in either
 * case, as perf 6.1 keeps; module symbols without their "[module]" tag).
 * Without permission to see addresses (all zero), an empty table. */
symtab *symtab_load_kallsyms(ehelf_err *err);

/* The same from a copy of /proc/kallsyms at PATH (such as the one perf
 * record keeps in its build-ID cache). */
symtab *symtab_load_kallsyms_file(const char *path, ehelf_err *err);

/*
 * The symbols a JIT lists in a perf map file ("/tmp/perf-PID.map": lines
 * "START SIZE NAME", START and SIZE in hex, runtime addresses), as perf 6.1
 * reads them for an executable mapping of anonymous memory: every line
 * kept in file order (a later entry at the same address as an earlier one
 * lies beside it in perf's tree, as code regenerated in place), names as
 * written, a line with a name shorter than 3 characters skipped (perf's
 * bounds).  NULL when the file cannot be read, with ERR set.
 */
symtab *symtab_load_perf_map(const char *path, ehelf_err *err);

void symtab_free(symtab *s);

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

/* symtab_load_elf() through a table saved in directory DIR (it must
 * exist) as BUILDID.tab, named by the file's own build-ID: mapped back
 * when it was made from the same files (the ELF file and its symbol file,
 * by device, inode, size and modification time), else made now and saved
 * (failing to save is not an error).  DIR NULL, or a file without a
 * build-ID: no saved table. */
symtab *symtab_load_elf_saved(const char *path, const uint8_t *build_id,
			      size_t build_id_len, const char *dir,
			      ehelf_err *err);

/* The symbol covering ADDR (link-time address for an ELF, as in its
 * symbols; a kernel address for kallsyms): its name, with *OFF set to ADDR
 * minus the symbol's start; NULL if none covers it. */
const char *symtab_find(const symtab *s, uint64_t addr, uint64_t *off);

/* The name perf prints for a user-space symbol named RAW in an ELF file:
 * malloc'd, or NULL when perf prints RAW itself (or on allocation
 * failure).  What the tables do on first use of a name; exported for the
 * fuzzer. */
char *symtab_demangle(const char *raw);

/* Number of symbols (for tests). */
size_t symtab_size(const symtab *s);

/* The I-th symbol in address order, I < symtab_size(): its name, with
 * *START and *SIZE (after the size-0 extension) set (for tests). */
const char *symtab_symbol(const symtab *s, size_t i, uint64_t *start,
			  uint64_t *size);

#endif
