/*
 * libdw_unwind.h - libdw's own unwinder (libdwfl: dwfl_attach_state and
 * dwfl_getthread_frames, as perf uses it) driven from given registers and a
 * memory reader, the "libdw" baseline of the benchmarks.  The modules come
 * from /proc/PID/maps.  Not async-signal-safe (libdw allocates).
 */
#ifndef EHELF_BENCH_LIBDW_UNWIND_H
#define EHELF_BENCH_LIBDW_UNWIND_H

#include <stdint.h>
#include <sys/types.h>

#include "../client-lib/include/ehelf.h"

typedef struct libdw_unwinder libdw_unwinder;

/* An unwinder for the address space of process PID (its mappings now).
 * NULL on failure, with a message on stderr. */
libdw_unwinder *libdw_unwinder_new(pid_t pid);

/* An unwinder for a snapshot's address space: N files mapped with the
 * given load biases (what perf.data's mmap records say), reported with
 * dwfl_report_elf as perf does.  PID only names the thread. */
typedef struct libdw_module {
	const char *path;
	uint64_t bias;       /* runtime address - link-time address */
} libdw_module;
libdw_unwinder *libdw_unwinder_new_modules(const libdw_module *mods, size_t n,
					   pid_t pid);
void libdw_unwinder_free(libdw_unwinder *u);

/* Unwind from REGS (all 17 valid) reading memory through READ(ARG, ...);
 * stores up to MAX pcs (frame 0's pc first, then return addresses) and
 * returns their number, or -1 when libdw could not start. */
int libdw_unwind(libdw_unwinder *u, const ehelf_regs *regs, ehelf_read_fn read,
		 void *arg, uint64_t *pcs, int max);

#endif
