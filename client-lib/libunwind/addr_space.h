/*
 * addr_space.h - libunwind's local address space in libehelf-unwind:
 * the data symbols _ULx86_64_local_addr_space and
 * _Ux86_64_local_addr_space (one space, for unw_init_remote and the cache
 * calls), its accessors (the side libunwind's local ones), and the
 * space-wide calls (flush_cache, caching policy, cache size, the local
 * API's create/destroy_addr_space).
 */
#ifndef EHELF_LIBUNWIND_ADDR_SPACE_H
#define EHELF_LIBUNWIND_ADDR_SPACE_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdbool.h>

/* Whether AS is libehelf-unwind's local space (either data symbol). */
bool addr_space_is_local(unw_addr_space_t as);

/* unw_get_accessors and unw_flush_cache for every space but
 * libehelf-unwind's remote ones (generic.c dispatches).  CALLER: the
 * return address of unw_flush_cache (a flush from the side libunwind's
 * own initialization flushes only the side's caches). */
unw_accessors_t *local_get_accessors(unw_addr_space_t as);
void local_flush_cache(unw_addr_space_t as, unw_word_t lo, unw_word_t hi,
		       const void *caller);

#endif
