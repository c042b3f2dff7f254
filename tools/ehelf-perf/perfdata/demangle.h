/*
 * demangle.h - the name perf 6.1 prints for a user-space symbol: C++ (and
 * OCaml, legacy Rust) names demangled like perf's default (libiberty
 * without DMGL_PARAMS): "ns::Class::method", no parameters, no return
 * type; Rust v0 ones ("_R...") through rust_v0.h.  Kernel names and JIT
 * maps' are not demangled (the tables do not ask).
 *
 * Pure functions of the name: thread-safe.
 */
#ifndef EHELF_PERFDATA_DEMANGLE_H
#define EHELF_PERFDATA_DEMANGLE_H

#include <stdbool.h>

/* The name perf prints for a user-space symbol named RAW in an ELF file:
 * malloc'd, or NULL when perf prints RAW itself (or on allocation
 * failure).  What the tables do on first use of a name; exported for the
 * fuzzer. */
char *symtab_demangle(const char *raw);

/* Whether RAW looks mangled at all ("_Z", "_G", "_R", "caml"): when not,
 * symtab_demangle(RAW) is NULL, and a table stores RAW as its name. */
bool symtab_may_demangle(const char *raw);

#endif
