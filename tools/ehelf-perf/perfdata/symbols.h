/*
 * symbols.h - function names for addresses, as `perf script` prints them;
 * the public face of perfdata's symbol tables, in the headers it includes:
 *
 *   symbol_tree.h       the table and its lookups (symtab_find, ...); the
 *                       rest of it, the table's layout and the builder,
 *                       is for the loaders below
 *   elf_symbols.h       an ELF file's table (debug-file search included),
 *                       made or mapped back from a saved one
 *   kallsyms_perfmap.h  the kernel's table (/proc/kallsyms), a JIT's map
 *   saved_table.h       a table saved to a file, mapped back
 *   demangle.h          the names perf prints (rust_v0.h for Rust v0)
 *
 * The names come, for user code, from an ELF file's .symtab and .dynsym,
 * or from its separate debug file (.gnu_debuglink, /usr/lib/debug/
 * .build-id/XX/REST.debug and the path mirrored under /usr/lib/debug) when
 * there is one; for the kernel from /proc/kallsyms; for JIT code from
 * perf map files.
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
#ifndef EHELF_PERFDATA_SYMBOLS_H
#define EHELF_PERFDATA_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "demangle.h"
#include "elf_symbols.h"
#include "kallsyms_perfmap.h"
#include "saved_table.h"
#include "symbol_tree.h"

#endif
