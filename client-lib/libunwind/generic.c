/*
 * generic.c - libunwind's generic x86_64 names (_Ux86_64_*: the API of a
 * program built without UNW_LOCAL_ONLY, and all of libunwind-x86_64.so.8,
 * the remote half, which perf, libunwind-ptrace and libunwind-coredump
 * call), dispatched by what they are given:
 *  - a local cursor (cursor.h's, its first word CURSOR_MAGIC) or the
 *    local address space (addr_space.h): the local _ULx86_64_* functions;
 *  - a remote cursor or space of ours (remote_cursor.h, remote_space.h):
 *    ehelf's remote unwinding, with the side libunwind for the rest;
 *  - another cursor or space: the side libunwind's own (met when its
 *    code calls these names), handed back to it; unw_init_remote refuses
 *    a space that is neither (-UNW_EINVAL).
 * The generic names of the local space's own calls (unw_local_addr_space,
 * unw_regname, unw_strerror, unw_is_fpreg, unw_get_elf_image, ...) are in
 * addr_space.c, strerror.c and image.c.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdint.h>

#include "addr_space.h"
#include "remote_cursor.h"
#include "remote_delegate.h"
#include "remote_side.h"
#include "remote_space.h"

#include "exported.h"

enum { CURSOR_MAGIC = 0x65686c66 }; /* compat_local.c's local cursors */

static inline bool is_local(unw_cursor_t *c)
{
	return *(const uint32_t *)c == CURSOR_MAGIC;
}

/* the local space: unw_local_addr_space in either API (addr_space.h) */
static bool local_space(unw_addr_space_t as)
{
	return addr_space_is_local(as);
}

/* ---- cursors -------------------------------------------------------------- */


/* A cursor function: LOCAL_CALL for a local cursor, REMOTE_CALL for a
 * remote one (K), else the side libunwind's SIDE_FN (a cursor of its own,
 * met when its code calls these names: see addr_space.c), -UNW_EINVAL
 * without the side. */
#define DISPATCH(c, local_call, remote_call, side_fn, side_args)               \
	do {                                                                   \
		if (is_local(c))                                               \
			return local_call;                                     \
		remote_cursor *k = remote_cursor_of(c);                        \
		if (k)                                                         \
			return remote_call;                                    \
		remote_side_init();                                            \
		return side_generic.side_fn ? side_generic.side_fn side_args   \
					    : -UNW_EINVAL;                     \
	} while (0)

COMPAT int _Ux86_64_init_local(unw_cursor_t *c, unw_context_t *uc);
COMPAT int _Ux86_64_init_local(unw_cursor_t *c, unw_context_t *uc)
{
	return _ULx86_64_init_local(c, uc);
}

COMPAT int _Ux86_64_init_local2(unw_cursor_t *c, unw_context_t *uc, int flag);
COMPAT int _Ux86_64_init_local2(unw_cursor_t *c, unw_context_t *uc, int flag)
{
	return _ULx86_64_init_local2(c, uc, flag);
}

COMPAT int _Ux86_64_init_remote(unw_cursor_t *c, unw_addr_space_t as, void *arg);
COMPAT int _Ux86_64_init_remote(unw_cursor_t *c, unw_addr_space_t as, void *arg)
{
	if (local_space(as)) /* ARG is the unw_context_t */
		return _ULx86_64_init_remote(c, as, arg);
	remote_space *rs = remote_space_of(as);
	return rs ? remote_init(c, rs, arg) : -UNW_EINVAL;
}

COMPAT int _Ux86_64_step(unw_cursor_t *c);
COMPAT int _Ux86_64_step(unw_cursor_t *c)
{
	DISPATCH(c, _ULx86_64_step(c), remote_step(k), step, (c));
}

COMPAT int _Ux86_64_get_reg(unw_cursor_t *c, unw_regnum_t r, unw_word_t *v);
COMPAT int _Ux86_64_get_reg(unw_cursor_t *c, unw_regnum_t r, unw_word_t *v)
{
	DISPATCH(c, _ULx86_64_get_reg(c, r, v), remote_get_reg(k, r, v), get_reg,
		 (c, r, v));
}

COMPAT int _Ux86_64_set_reg(unw_cursor_t *c, unw_regnum_t r, unw_word_t v);
COMPAT int _Ux86_64_set_reg(unw_cursor_t *c, unw_regnum_t r, unw_word_t v)
{
	DISPATCH(c, _ULx86_64_set_reg(c, r, v), remote_set_reg(k, r, v), set_reg,
		 (c, r, v));
}

COMPAT int _Ux86_64_get_fpreg(unw_cursor_t *c, unw_regnum_t r, unw_fpreg_t *v);
COMPAT int _Ux86_64_get_fpreg(unw_cursor_t *c, unw_regnum_t r, unw_fpreg_t *v)
{
	DISPATCH(c, _ULx86_64_get_fpreg(c, r, v), remote_get_fpreg(k, r, v),
		 get_fpreg, (c, r, v));
}

COMPAT int _Ux86_64_set_fpreg(unw_cursor_t *c, unw_regnum_t r, unw_fpreg_t v);
COMPAT int _Ux86_64_set_fpreg(unw_cursor_t *c, unw_regnum_t r, unw_fpreg_t v)
{
	DISPATCH(c, _ULx86_64_set_fpreg(c, r, v), remote_set_fpreg(k, r, v),
		 set_fpreg, (c, r, v));
}

COMPAT int _Ux86_64_get_save_loc(unw_cursor_t *c, int r, unw_save_loc_t *loc);
COMPAT int _Ux86_64_get_save_loc(unw_cursor_t *c, int r, unw_save_loc_t *loc)
{
	DISPATCH(c, _ULx86_64_get_save_loc(c, r, loc),
		 remote_get_save_loc(k, r, loc), get_save_loc, (c, r, loc));
}

COMPAT int _Ux86_64_is_signal_frame(unw_cursor_t *c);
COMPAT int _Ux86_64_is_signal_frame(unw_cursor_t *c)
{
	DISPATCH(c, _ULx86_64_is_signal_frame(c), k->signal, is_signal_frame, (c));
}

COMPAT int _Ux86_64_get_proc_info(unw_cursor_t *c, unw_proc_info_t *pi);
COMPAT int _Ux86_64_get_proc_info(unw_cursor_t *c, unw_proc_info_t *pi)
{
	DISPATCH(c, _ULx86_64_get_proc_info(c, pi), remote_get_proc_info(k, pi),
		 get_proc_info, (c, pi));
}

COMPAT int _Ux86_64_get_proc_name(unw_cursor_t *c, char *buf, size_t len,
				  unw_word_t *off);
COMPAT int _Ux86_64_get_proc_name(unw_cursor_t *c, char *buf, size_t len,
				  unw_word_t *off)
{
	DISPATCH(c, _ULx86_64_get_proc_name(c, buf, len, off),
		 remote_get_proc_name(k, buf, len, off), get_proc_name,
		 (c, buf, len, off));
}

COMPAT int _Ux86_64_resume(unw_cursor_t *c);
COMPAT int _Ux86_64_resume(unw_cursor_t *c)
{
	DISPATCH(c, _ULx86_64_resume(c), remote_resume(k), resume, (c));
}

COMPAT int _Ux86_64_reg_states_iterate(unw_cursor_t *c,
				       unw_reg_states_callback cb, void *token);
COMPAT int _Ux86_64_reg_states_iterate(unw_cursor_t *c,
				       unw_reg_states_callback cb, void *token)
{
	DISPATCH(c, _ULx86_64_reg_states_iterate(c, cb, token),
		 remote_reg_states_iterate(k, cb, token), reg_states_iterate,
		 (c, cb, token));
}

COMPAT int _Ux86_64_apply_reg_state(unw_cursor_t *c, void *reg_states_data);
COMPAT int _Ux86_64_apply_reg_state(unw_cursor_t *c, void *reg_states_data)
{
	DISPATCH(c, _ULx86_64_apply_reg_state(c, reg_states_data),
		 remote_apply_reg_state(k, reg_states_data), apply_reg_state,
		 (c, reg_states_data));
}

/* ---- address spaces --------------------------------------------------------- */

COMPAT unw_addr_space_t _Ux86_64_create_addr_space(unw_accessors_t *a,
						   int byte_order);
COMPAT unw_addr_space_t _Ux86_64_create_addr_space(unw_accessors_t *a,
						   int byte_order)
{
	unw_addr_space_t as = remote_space_create(a, byte_order);
	remote_space *rs = remote_space_of(as);
	/* its twin: the side libunwind over the same accessors, but the
	 * frame's registers (remote_delegate.h) */
	if (rs && side_generic.create_addr_space) {
		unw_accessors_t twin;
		remote_twin_accessors(rs, &twin);
		rs->twin = side_generic.create_addr_space(&twin, byte_order);
	}
	return as;
}

COMPAT void _Ux86_64_destroy_addr_space(unw_addr_space_t as);
COMPAT void _Ux86_64_destroy_addr_space(unw_addr_space_t as)
{
	remote_space_destroy(remote_space_of(as));
}

/* AS for the side libunwind: a remote space's twin, the side's local
 * space for the local one, else AS itself (one of the side's). */
static unw_addr_space_t side_space(unw_addr_space_t as)
{
	remote_space *rs = remote_space_of(as);
	if (rs)
		return rs->twin;
	remote_side_init(); /* a first use of the side without a space */
	return local_space(as) ? side_generic.local_as : as;
}

COMPAT unw_accessors_t *_Ux86_64_get_accessors(unw_addr_space_t as);
COMPAT unw_accessors_t *_Ux86_64_get_accessors(unw_addr_space_t as)
{
	remote_space *rs = remote_space_of(as);
	return rs ? &rs->acc : local_get_accessors(as);
}

COMPAT void _Ux86_64_flush_cache(unw_addr_space_t as, unw_word_t lo,
				 unw_word_t hi);
COMPAT void _Ux86_64_flush_cache(unw_addr_space_t as, unw_word_t lo,
				 unw_word_t hi)
{
	remote_space *rs = remote_space_of(as);
	if (rs)
		remote_space_flush(rs, lo, hi);
	else
		local_flush_cache(as, lo, hi, __builtin_return_address(0));
}

COMPAT int _Ux86_64_set_caching_policy(unw_addr_space_t as,
				       unw_caching_policy_t p);
COMPAT int _Ux86_64_set_caching_policy(unw_addr_space_t as,
				       unw_caching_policy_t p)
{
	remote_space *rs = remote_space_of(as);
	if (!rs)
		return _ULx86_64_set_caching_policy(as, p);
	rs->policy = p;
	return rs->twin ? side_generic.set_caching_policy(rs->twin, p) : 0;
}

COMPAT int _Ux86_64_set_cache_size(unw_addr_space_t as, size_t size, int flag);
COMPAT int _Ux86_64_set_cache_size(unw_addr_space_t as, size_t size, int flag)
{
	remote_space *rs = remote_space_of(as);
	if (!rs)
		return _ULx86_64_set_cache_size(as, size, flag);
	return rs->twin ? side_generic.set_cache_size(rs->twin, size, flag) : 0;
}

COMPAT int _Ux86_64_get_proc_info_by_ip(unw_addr_space_t as, unw_word_t ip,
					unw_proc_info_t *pi, void *arg);
COMPAT int _Ux86_64_get_proc_info_by_ip(unw_addr_space_t as, unw_word_t ip,
					unw_proc_info_t *pi, void *arg)
{
	if (local_space(as))
		return _ULx86_64_get_proc_info_by_ip(as, ip, pi, arg);
	unw_addr_space_t s = side_space(as);
	return s && side_generic.get_proc_info_by_ip
		       ? side_generic.get_proc_info_by_ip(s, ip, pi, arg)
		       : -UNW_EINVAL;
}

/* ---- libunwind's table functions (perf's, libunwind-ptrace's
 * find_proc_info call them) ------------------------------------------------ */

COMPAT int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as,
					      unw_word_t ip,
					      unw_dyn_info_t *di,
					      unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
COMPAT int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as,
					      unw_word_t ip,
					      unw_dyn_info_t *di,
					      unw_proc_info_t *pi,
					      int need_unwind_info, void *arg)
{
	/* the module of the table is learned here, whoever asked: ehelf
	 * (remote_space_learn_pc) or the side for a delegated step */
	remote_space *rs = remote_space_of(as);
	if (!rs)
		rs = remote_delegating_for(as);
	if (rs && di)
		remote_space_learn_table(rs, di, arg);
	unw_addr_space_t s = side_space(as);
	return s && side_generic.dwarf_search_unwind_table
		       ? side_generic.dwarf_search_unwind_table(s, ip, di, pi,
								need_unwind_info,
								arg)
		       : -UNW_ENOINFO;
}

COMPAT int _Ux86_64_dwarf_find_unwind_table(void *edi, unw_addr_space_t as,
					    char *path, unw_word_t segbase,
					    unw_word_t mapoff, unw_word_t ip);
COMPAT int _Ux86_64_dwarf_find_unwind_table(void *edi, unw_addr_space_t as,
					    char *path, unw_word_t segbase,
					    unw_word_t mapoff, unw_word_t ip)
{
	unw_addr_space_t s = side_space(as);
	return s && side_generic.dwarf_find_unwind_table
		       ? side_generic.dwarf_find_unwind_table(edi, s, path, segbase,
							      mapoff, ip)
		       : -UNW_ENOINFO;
}
