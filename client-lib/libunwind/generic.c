/*
 * generic.c - libunwind's generic x86_64 names (_Ux86_64_*, the API of a
 * program built without UNW_LOCAL_ONLY, and of libunwind-x86_64, the
 * remote half) over the local implementation in compat_local.c.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#define COMPAT __attribute__((visibility("default")))

/* Tail calls: a symbol alias would have to live in compat_local.c's unit. */
#define GENERIC(name, ret, params, args)                                       \
	COMPAT ret _Ux86_64_##name params;                                     \
	COMPAT ret _Ux86_64_##name params { return _ULx86_64_##name args; }

GENERIC(init_local, int, (unw_cursor_t *c, unw_context_t *uc), (c, uc))
GENERIC(init_local2, int, (unw_cursor_t *c, unw_context_t *uc, int flag),
	(c, uc, flag))
GENERIC(step, int, (unw_cursor_t *c), (c))
GENERIC(get_reg, int, (unw_cursor_t *c, unw_regnum_t r, unw_word_t *v), (c, r, v))
GENERIC(set_reg, int, (unw_cursor_t *c, unw_regnum_t r, unw_word_t v), (c, r, v))
GENERIC(is_signal_frame, int, (unw_cursor_t *c), (c))
GENERIC(get_proc_info, int, (unw_cursor_t *c, unw_proc_info_t *pi), (c, pi))
GENERIC(get_proc_name, int, (unw_cursor_t *c, char *buf, size_t len, unw_word_t *off),
	(c, buf, len, off))
GENERIC(resume, int, (unw_cursor_t *c), (c))
GENERIC(set_caching_policy, int, (unw_addr_space_t as, unw_caching_policy_t p),
	(as, p))
GENERIC(set_cache_size, int, (unw_addr_space_t as, size_t size, int flag),
	(as, size, flag))
