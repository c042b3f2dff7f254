/*
 * cache_dir.h - where ehelf-perf keeps what it made from files that do
 * not change (parsed symbol tables): $XDG_CACHE_HOME/ehelf/SUB, or
 * ~/.cache/ehelf/SUB, private (mode 0700).  Everything there is only a
 * cache: keyed by the files it was made from, remade when they change,
 * and safe to delete.
 */
#ifndef EHELF_PERF_TOOL_CACHE_DIR_H
#define EHELF_PERF_TOOL_CACHE_DIR_H

#include <stddef.h>

/* The directory for SUB ("kallsyms", "symtab", "vdso") into BUF (CAP
 * bytes), created with its parents if missing; the first time in a
 * process, the temporary files that killed writers left there (".tmp-*",
 * an hour old) are removed.  0, or -1 when there is no home
 * directory, the path does not fit, it cannot be created, or it is not a
 * directory of this user's that others cannot write to (then nothing is
 * saved or read there). */
int cache_dir(const char *sub, char *buf, size_t cap);

#endif
