/*
 * addr_space.c - see addr_space.h.  The side libunwind's answers stand
 * for libunwind's where the call has one to give (the cache size's
 * refusal, the accessors); ehelf itself keeps no per-space cache: a flush
 * rebuilds the process space when libraries came or went.
 */
#include "addr_space.h"

#include "../unwind.h"
#include "cursor.h"
#include "side_api.h"

/* the local space: its accessors first, as libunwind's unw_get_accessors
 * returns the address of a space's */
static struct local_space {
	unw_accessors_t acc;
} local_space;

COMPAT unw_addr_space_t _ULx86_64_local_addr_space =
	(unw_addr_space_t)&local_space;
COMPAT unw_addr_space_t _Ux86_64_local_addr_space =
	(unw_addr_space_t)&local_space;

bool addr_space_is_local(unw_addr_space_t as)
{
	return as == (unw_addr_space_t)&local_space;
}

__attribute__((constructor)) static void local_space_init(void)
{
	if (side_api.get_accessors && side_api.local_addr_space)
		local_space.acc = *side_api.get_accessors(*side_api.local_addr_space);
}

static unw_addr_space_t side_local(void)
{
	return side_api.local_addr_space ? *side_api.local_addr_space : NULL;
}

COMPAT unw_accessors_t *_Ux86_64_get_accessors(unw_addr_space_t as)
{
	/* another library's space: libunwind's layout, accessors first */
	return addr_space_is_local(as) ? &local_space.acc : (unw_accessors_t *)as;
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

COMPAT void _Ux86_64_flush_cache(unw_addr_space_t as, unw_word_t lo,
				 unw_word_t hi)
{
	/* libraries may have come or gone: rebuild the space, if there is
	 * one yet (before the first unwind there is nothing to flush; a
	 * build there would load eh_elfs inside whatever the caller holds).
	 * A rebuild here, in the caller's context, allocates, reads and
	 * maps new eh_elfs (no dlopen: trust.h).  The side's caches too:
	 * its answers (unw_get_proc_info) must see the same libraries. */
	if (process_space_built())
		ehelf_backtrace_init();
	if (side_api.flush_cache && side_local())
		side_api.flush_cache(side_local(), lo, hi);
	(void)as;
}

COMPAT int _ULx86_64_set_caching_policy(unw_addr_space_t as,
					unw_caching_policy_t p)
{
	(void)as; /* eh_elfs need no cache; the side's takes the policy */
	return side_api.set_caching_policy && side_local()
	       ? side_api.set_caching_policy(side_local(), p) : 0;
}

COMPAT int _ULx86_64_set_cache_size(unw_addr_space_t as, size_t size,
				    int flag)
{
	(void)as; /* libunwind's answer (it refuses with a per-thread cache) */
	return side_api.set_cache_size && side_local()
	       ? side_api.set_cache_size(side_local(), size, flag) : 0;
}
