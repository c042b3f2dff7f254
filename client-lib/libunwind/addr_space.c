/*
 * addr_space.c - see addr_space.h.  The local space is the side
 * libunwind's own: _ULx86_64_local_addr_space holds the value of the
 * side libunwind.so.8's, so that a space libunwind's code is handed, or
 * reads through this symbol (the side's, when a program drops its
 * RTLD_DEEPBIND; a preloaded-over libunwind's), is a real one.  Without
 * the side, it names a space of accessors only.  ehelf itself keeps no
 * per-space cache: a flush rebuilds the process space when libraries
 * came or went, and flushes the side's.
 */
#define _GNU_SOURCE
#include "addr_space.h"

#include <dlfcn.h>

#include "../unwind.h"
#include "exported.h"
#include "side_api.h"

static struct local_space {
	unw_accessors_t acc; /* first, as in libunwind's spaces */
} no_side_space;

COMPAT unw_addr_space_t _ULx86_64_local_addr_space =
	(unw_addr_space_t)&no_side_space;
/* the generic API's name for it */
COMPAT unw_addr_space_t _Ux86_64_local_addr_space =
	(unw_addr_space_t)&no_side_space;

/* (side_api_ready() sets it to the side's) */

/* Whether code address PC is in the side libunwind.so.8 (dladdr: not in
 * an unwind). */
static bool from_side(const void *pc)
{
	Dl_info a, b;
	return side_api.step && dladdr(pc, &a) && dladdr((const void *)side_api.step, &b) &&
	       a.dli_fbase == b.dli_fbase;
}

bool addr_space_is_local(unw_addr_space_t as)
{
	return as && (as == _ULx86_64_local_addr_space ||
		      as == _Ux86_64_local_addr_space);
}

unw_accessors_t *local_get_accessors(unw_addr_space_t as)
{
	/* the side's initializes its local space's accessors first */
	side_api_ready();
	if (as == (unw_addr_space_t)&no_side_space)
		return &no_side_space.acc;
	if (as == _ULx86_64_local_addr_space && side_api.get_accessors)
		return side_api.get_accessors(as);
	return (unw_accessors_t *)as; /* libunwind's layout: accessors first */
}

/* the local API's (UNW_LOCAL_ONLY) libunwind has no other space */
COMPAT unw_addr_space_t _ULx86_64_create_addr_space(unw_accessors_t *a, int order)
{
	(void)a;
	(void)order;
	return NULL;
}

COMPAT void _ULx86_64_destroy_addr_space(unw_addr_space_t as)
{
	(void)as;
}

void local_flush_cache(unw_addr_space_t as, unw_word_t lo, unw_word_t hi,
		       const void *caller)
{
	/* libraries may have come or gone: rebuild the space, if there is
	 * one yet (before the first unwind there is nothing to flush; a
	 * build there would load eh_elfs inside whatever the caller holds).
	 * A rebuild here, in the caller's context, allocates, reads and
	 * maps new eh_elfs (no dlopen: trust.h).  The side's caches too:
	 * its answers (unw_get_proc_info) must see the same libraries. */
	/* a call from the side itself (its own initialization flushes its
	 * cache: this is reached when a program dropped its RTLD_DEEPBIND)
	 * flushes only the side's: it may be inside an unwind */
	side_api_ready();
	if (process_space_built() && !from_side(caller))
		ehelf_backtrace_init();
	if (side_api.flush_cache && _ULx86_64_local_addr_space != (unw_addr_space_t)&no_side_space)
		side_api.flush_cache(_ULx86_64_local_addr_space, lo, hi);
	(void)as;
}

/* As libunwind's answers, without its caches: eh_elfs need none, and
 * the side's are not set up here (a program sets them in its own setup,
 * under its own locks: heaptrack's dlopen hook; the side's first use
 * initializes it there) */
COMPAT int _ULx86_64_set_caching_policy(unw_addr_space_t as,
					unw_caching_policy_t p)
{
	(void)as;
	(void)p; /* any policy: 0 */
	return 0;
}

COMPAT int _ULx86_64_set_cache_size(unw_addr_space_t as, size_t size,
				    int flag)
{
	(void)as;
	(void)size;
	return flag != 0 ? -1 : 0; /* no flag is defined */
}
