/*
 * remote_module.h - a module of a remote address space described from
 * its memory, read through the space's access_mem: the ELF header found
 * at or below the start of its table's range (its executable mapping for
 * perf, its whole image for libunwind-ptrace), the load bias from the
 * program headers, the GNU build-ID from its PT_NOTE segments.  perf
 * serves these reads from the module's file for a --call-graph dwarf
 * recording (its data mappings are recorded); libunwind-ptrace from the
 * live process.
 */
#ifndef EHELF_LIBUNWIND_REMOTE_MODULE_H
#define EHELF_LIBUNWIND_REMOTE_MODULE_H

#include <libunwind.h>
#include <stddef.h>
#include <stdint.h>

typedef struct remote_module {
	uint64_t start, end;   /* the table's range, [start, end) */
	uint64_t bias;         /* runtime - link-time */
	uint8_t build_id[64];
	size_t build_id_len;   /* 0: none found */
} remote_module;

/* Describe the module whose table covers [START, END) in AS
 * (reads through access_mem of ACC with ARG).  0, or -1 when no ELF
 * header consistent with that mapping could be read (then only start and
 * end are set). */
int remote_module_read(unw_addr_space_t as, const unw_accessors_t *acc,
		       void *arg, uint64_t start, uint64_t end,
		       remote_module *out);

#endif
