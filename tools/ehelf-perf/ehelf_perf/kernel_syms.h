/*
 * kernel_syms.h - the kernel's symbol table for a recording, from the
 * same sources perf uses for kallsyms:
 *
 *   1. the copy of /proc/kallsyms that perf record keeps in perf's build-ID
 *      cache (buildid_cache.h) for the recorded kernel,
 *      "[kernel.kallsyms]/BUILD-ID/kallsyms" (a plain file: reading it
 *      costs a few milliseconds, where the kernel takes 40 to format
 *      /proc/kallsyms; and it holds the modules as they were when
 *      recording);
 *   2. /proc/kallsyms, when the running kernel is the recorded one (its
 *      build-ID, from /sys/kernel/notes, matches) or the recording does not
 *      say which kernel it was.
 *
 * Otherwise there is none: kernel frames keep their addresses without
 * names, as perf prints them then.
 *
 * The table made from perf's copy is saved, for the next runs, in
 * $XDG_CACHE_HOME/ehelf/kallsyms/BUILD-ID.tab (~/.cache by default; mode
 * 0600), keyed by the copy's device, inode, size and modification time:
 * loading it is one mmap (symtab_load_saved).  A table that cannot be
 * saved is only not cached.  /proc/kallsyms changes with the modules
 * loaded and has no such key: it is parsed every time.
 */
#ifndef EHELF_PERF_TOOL_KERNEL_SYMS_H
#define EHELF_PERF_TOOL_KERNEL_SYMS_H

#include <stddef.h>
#include <stdint.h>

#include "../perfdata/symbols.h"

/* The table for a kernel of build-ID ID (LEN bytes; LEN 0: unknown).
 * NULL with ERR set when there is none (ERR_NOTFOUND) or it cannot be
 * read.  The caller owns the table (symtab_free). */
symtab *kernel_syms_load(const uint8_t *id, size_t len, ehelf_err *err);

/* The path of perf's build-ID cache copy for ID, written into BUF (CAP
 * bytes), whether or not it exists; -1 if it does not fit or there is no
 * home directory. */
int kernel_syms_cache_path(const uint8_t *id, size_t len, char *buf,
			   size_t cap);

#endif
