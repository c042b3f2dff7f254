/*
 * libunwind_remote.h - libunwind's remote API over a perf sample, the
 * "libunwind" baseline of ehelf-perf's benchmark and cross-check, set up as
 * perf sets it up (tools/perf/util/unwind-libunwind-local.c, read for the
 * facts): one address space per process with global caching; procedures
 * found through each file's .eh_frame_hdr with
 * dwarf_search_unwind_table; memory from the sample's stack copy and the
 * mapped files (sample_read); registers from the sample.
 */
#ifndef EHELF_BENCH_LIBUNWIND_REMOTE_H
#define EHELF_BENCH_LIBUNWIND_REMOTE_H

#include <stdint.h>

#include "../tools/ehelf-perf/ehelf_perf/procs.h"
#include "../tools/ehelf-perf/ehelf_perf/sample_unwind.h"

typedef struct lu_remote lu_remote;

/* An address space for one process; NULL if libunwind refuses. */
lu_remote *lu_remote_new(void);
void lu_remote_free(lu_remote *u);

/* Unwind the sample with registers REGS and memory MEM of process PR: up
 * to MAX pcs (frame 0's, then return addresses) into PCS; their number. */
int lu_remote_unwind(lu_remote *u, const proc *pr, const ehelf_regs *regs,
		     const sample_mem *mem, uint64_t *pcs, int max);

#endif
