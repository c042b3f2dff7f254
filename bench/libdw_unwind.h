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
void libdw_unwinder_free(libdw_unwinder *u);

/* Unwind from REGS (all 17 valid) reading memory through READ(ARG, ...);
 * stores up to MAX pcs (frame 0's pc first, then return addresses) and
 * returns their number, or -1 when libdw could not start. */
int libdw_unwind(libdw_unwinder *u, const ehelf_regs *regs, ehelf_read_fn read,
		 void *arg, uint64_t *pcs, int max);

#endif
