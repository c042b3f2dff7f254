/*
 * kallsyms_perfmap.h - symbol tables read from text files: the kernel's
 * (/proc/kallsyms, or the copy perf record keeps) and a JIT's perf map
 * file.  Names as written, never demangled.  Lookups: symbols.h.
 */
#ifndef EHELF_PERFDATA_KALLSYMS_PERFMAP_H
#define EHELF_PERFDATA_KALLSYMS_PERFMAP_H

#include "../../../common/err.h"

typedef struct symtab symtab;

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

#endif
