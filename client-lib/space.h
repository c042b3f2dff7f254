/*
 * space.h - libehelf's internal view of address spaces and modules
 * (space.c; the public side is in include/ehelf.h).  Unwinding in a
 * space: unwind.h; the thread's last error: object.h.
 */
#ifndef EHELF_CLIENT_SPACE_H
#define EHELF_CLIENT_SPACE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfi_fallback/cfi_tables.h"
#include "include/ehelf.h"
#include "step_cache.h"

typedef struct dwarf_module dwarf_module;

typedef struct module {
	uint64_t start, end;    /* runtime, [start, end) */
	uint64_t bias;          /* runtime - link-time */
	char *path;             /* may be NULL */
	const void *image;      /* in-memory ELF (the vDSO) when no path */
	size_t image_size;
	uint8_t build_id[64];
	size_t build_id_len;
	/* shared eh_elf, or NULL; set once, when the space is built or later
	 * by module_attach while others unwind: read it with one acquire load
	 * (module_object) */
	_Atomic(struct cached_object *) eh;
	/* the module's .eh_frame_hdr and .eh_frame (cfi_tables.h), for
	 * stepping it without an eh_elf: located in memory when the space of
	 * this process is built (CFI_LOOKED set then); in other spaces on
	 * first use, from a read-only mapping of the file (map), by
	 * module_cfi().  Read cfi only after an acquire load of cfi_looked
	 * found it set. */
	cfi_tables cfi;
	atomic_bool cfi_looked;
	void *map;              /* the file's mapping behind cfi, or NULL */
	size_t map_size;
	/* set with cfi_looked, other spaces: the file has a .debug_frame
	 * (libdw may cover pcs the tables do not), or no tables at all */
	bool dw_useful;
	dwarf_module *dw;       /* libdw fallback, opened on first use */
	bool dw_tried;          /* an open of dw was tried (and failed if NULL) */
	pthread_mutex_t dw_lock; /* dw, dw_tried, and filling cfi */
} module;

struct ehelf_space {
	module **mods;          /* sorted by start */
	uint64_t *starts;       /* mods[i]->start, for a cache-friendly search */
	size_t n, cap;
	step_cache_entry *cache; /* STEP_CACHE_SIZE entries (step_cache.h) */
	atomic_bool cache_used;  /* filled since last cleared (so that building
				  * a space module by module clears nothing) */
	struct ehelf_space *retired_next; /* the process-wide space's list of
					   * replaced ones (unwind.c) */
};

/* A space is the first page of its step cache's mapping, the cache
 * (s->cache) the rest: space_cache(S) is s->cache without a load, so that
 * a walk through the cache does not touch the space's own line (a miss per
 * walk when sampling: the program's work in between evicts it). */
enum { SPACE_CACHE_OFFSET = 4096 };

static inline step_cache_entry *space_cache(const ehelf_space *s)
{
	return (step_cache_entry *)(uintptr_t)((uintptr_t)s + SPACE_CACHE_OFFSET);
}

/* Fault in every page of S's step cache now (768 KiB of memory, instead
 * of only the pages touched): for the spaces of this process
 * (ehelf_space_load_self), whose unwinds are often a sampling profiler's,
 * in signal handlers, where each page met first cost two page faults (a
 * read maps the zero page, the fill's write copies it). */
void space_cache_populate(ehelf_space *s);

/* The module containing runtime address PC, or NULL.  No allocation. */
const module *space_find(const ehelf_space *s, uint64_t pc);

/* M's own CFI tables (cfi_tables.h), or NULL when it has none.  MAY_MAP:
 * when they have not been looked for yet (a space not of this process),
 * map the module's file and locate them now (takes M's lock, opens and
 * maps a file: never from a local unwind); else NULL until then.  Once
 * looked for, no lock, no system call: async-signal-safe. */
const cfi_tables *module_cfi(const module *m, bool may_map);

/* What an exception unwinder asks of the FDE covering link-time address PC
 * of M (range, LSDA, personality, signal flag: fde_lookup.h), from M's
 * own tables (module_cfi(M, false)): no allocation, no lock, no system
 * call, for the libunwind API's unw_get_proc_info in a signal handler.
 * Returns 0, EHELF_E_NOT_COVERED (no FDE, or M's tables not located) or
 * EHELF_E_UNSUPPORTED (a malformed entry). */
int module_fde_info(const module *m, uint64_t pc, fde_info *out);

/* The eh_elf object of a module, or NULL. */
const ehelf_object *module_object(const module *m);

/* Give M, if it has none, the eh_elf of its build-ID from the resolution
 * chain (resolve.h), published atomically: unwinders of M's space meet
 * either no eh_elf or the whole one.  Returns 1 when attached, else 0.
 * Takes locks, reads files: not from an unwind. */
int module_attach(module *m);

#endif
