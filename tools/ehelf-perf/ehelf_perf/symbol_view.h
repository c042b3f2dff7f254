/*
 * symbol_view.h - an ELF file and its debug file, both kept elsewhere
 * under names of their own (perf's build-ID cache: .../elf and
 * .../debug; libdebuginfod's cache: .../executable and .../debuginfo),
 * put where the symbol file search of symbols.h finds the one from the
 * other: a directory of ehelf-perf's cache (cache_dir.h), "files/HEX/",
 * holding the symbolic links "elf" to the ELF file and ".debug/elf" to
 * its debug file.  Symbols are then read as perf reads them when it has
 * both (the debug file's .symtab, the ELF file's PLT entries).
 */
#ifndef EHELF_PERF_TOOL_SYMBOL_VIEW_H
#define EHELF_PERF_TOOL_SYMBOL_VIEW_H

#include <stddef.h>

/* Make (or keep) the view of ELF and DEBUG (existing files) for build-ID
 * HEX, and put the path of its "elf" into BUF (CAP bytes).  0, or -1 when
 * it cannot be made (no cache directory, a path too long). */
int symbol_view(const char *hex, const char *elf, const char *debug,
		char *buf, size_t cap);

#endif
