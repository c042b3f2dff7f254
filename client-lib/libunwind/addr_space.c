/*
 * addr_space.c - see addr_space.h.  The local spaces are the side
 * libunwind's own: _ULx86_64_local_addr_space holds the value of the
 * side libunwind.so.8's, _Ux86_64_local_addr_space that of the side
 * libunwind-x86_64.so.8's, so that a space libunwind's code is handed, or
 * reads through these symbols (the side's, when a program drops its
 * RTLD_DEEPBIND; a preloaded-over libunwind's), is a real one.  Without
 * the side, both name a space of accessors only.  ehelf itself keeps no
 * per-space cache: a flush rebuilds the process space when libraries
 * came or went; the side's answers stand for libunwind's where the call
 * has one to give (the cache size's refusal, the accessors).
 */
#include "addr_space.h"

#include "../unwind.h"
#include "cursor.h"
#include "side_api.h"

static struct local_space {
	unw_accessors_t acc; /* first, as in libunwind's spaces */
} no_side_space;

COMPAT unw_addr_space_t _ULx86_64_local_addr_space =
	(unw_addr_space_t)&no_side_space;
COMPAT unw_addr_space_t _Ux86_64_local_addr_space =
	(unw_addr_space_t)&no_side_space;

/* after side_api_init (200), before the other constructors */
__attribute__((constructor(201))) static void local_spaces_init(void)
{
	if (side_api.local_addr_space)
		_ULx86_64_local_addr_space = *side_api.local_addr_space;
	if (side_api.generic_local_addr_space)
		_Ux86_64_local_addr_space = *side_api.generic_local_addr_space;
}

bool addr_space_is_local(unw_addr_space_t as)
{
	return as && (as == _ULx86_64_local_addr_space ||
		      as == _Ux86_64_local_addr_space);
}

unw_accessors_t *local_get_accessors(unw_addr_space_t as)
{
	/* the side's initialize their local spaces' accessors first */
	if (as == (unw_addr_space_t)&no_side_space)
		return &no_side_space.acc;
	if (as == _ULx86_64_local_addr_space && side_api.get_accessors)
		return side_api.get_accessors(as);
	if (as == _Ux86_64_local_addr_space && side_api.generic_get_accessors)
		return side_api.generic_get_accessors(as);
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

void local_flush_cache(unw_addr_space_t as, unw_word_t lo, unw_word_t hi)
{
	/* libraries may have come or gone: rebuild the space, if there is
	 * one yet (before the first unwind there is nothing to flush; a
	 * build there would load eh_elfs inside whatever the caller holds).
	 * A rebuild here, in the caller's context, allocates, reads and
	 * maps new eh_elfs (no dlopen: trust.h).  The side's caches too:
	 * its answers (unw_get_proc_info) must see the same libraries. */
	if (process_space_built())
		ehelf_backtrace_init();
	if (side_api.flush_cache && _ULx86_64_local_addr_space != (unw_addr_space_t)&no_side_space)
		side_api.flush_cache(_ULx86_64_local_addr_space, lo, hi);
	(void)as;
}

COMPAT int _ULx86_64_set_caching_policy(unw_addr_space_t as,
					unw_caching_policy_t p)
{
	(void)as; /* eh_elfs need no cache; the side's takes the policy */
	return side_api.set_caching_policy && side_api.local_addr_space
	       ? side_api.set_caching_policy(_ULx86_64_local_addr_space, p) : 0;
}

COMPAT int _ULx86_64_set_cache_size(unw_addr_space_t as, size_t size,
				    int flag)
{
	(void)as; /* libunwind's answer (it refuses with a per-thread cache) */
	return side_api.set_cache_size && side_api.local_addr_space
	       ? side_api.set_cache_size(_ULx86_64_local_addr_space, size, flag) : 0;
}
