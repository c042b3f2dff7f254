/*
 * rust_v0.h - Rust symbol names of the v0 mangling ("_R..."; rustc's
 * default on stable since 2025, and the standard library's), printed as
 * perf 6.1 prints them: libiberty's demangler without DMGL_VERBOSE, i.e.
 * `<std::path::PathBuf as core::fmt::Debug>::fmt`, `m::outer::<u32>`,
 * `std::rt::lang_start::<()>::{closure#0}`: no crate disambiguators, no
 * type suffixes on const arguments, and a vendor suffix (".llvm.123")
 * ignored.
 *
 * Written from the mangling's specification (the Rust reference, "Symbol
 * Mangling v0"), checked against c++filt (the same demangler, verbose) and
 * perf itself in the tests.  Punycode identifiers (non-ASCII names) are
 * printed in UTF-8.  Not handled (the name then stays mangled): consts of
 * types other than integers, bool and char.
 */
#ifndef EHELF_PERFDATA_RUST_V0_H
#define EHELF_PERFDATA_RUST_V0_H

/* The demangled name of RAW (malloc'd), or NULL when RAW is not a v0
 * symbol this demangler prints (or on allocation failure). */
char *rust_v0_demangle(const char *raw);

#endif
