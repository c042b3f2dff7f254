/*
 * proc_info.c - what libunwind knows about a cursor's procedure:
 * unw_get_proc_info, unw_get_proc_name, unw_reg_states_iterate,
 * unw_apply_reg_state, and unw_get_proc_info_by_ip.  These are answered
 * by the side libunwind (side_api.h) on a side cursor made from the same
 * frame's registers (cursor_side), so they are libunwind's answers: its
 * FDE search (dl_iterate_phdr, registered dynamic info), its symbol
 * lookup, its register-state rows; none of it is in an unwind
 * (unw_step, unw_backtrace do not call these).
 */
#include <string.h>

#include "addr_space.h"
#include "cursor.h"
#include "side_api.h"

/*
 * As libunwind, with the procedure's LSDA and personality routine, which
 * libunwind's _Unwind_* need to run C++ exceptions; K's signal state
 * becomes the side's for this frame (unw_is_signal_frame after
 * unw_get_proc_info says whether this frame is one).
 */
COMPAT int _ULx86_64_get_proc_info(unw_cursor_t *c, unw_proc_info_t *pi)
{
	compat_cursor *k = compat_of(c);
	if (!k)
		return SIDE_CURSOR_CALL(get_proc_info, c, pi);
	if (!side_api.get_proc_info)
		return -UNW_EUNSPEC;
	unw_cursor_t sc;
	unw_context_t uc;
	int rc = cursor_side(k, &sc, &uc);
	if (rc < 0)
		return rc;
	rc = side_api.get_proc_info(&sc, pi);
	if (rc >= 0)
		k->signal = side_api.is_signal_frame(&sc) > 0;
	return rc;
}

COMPAT int _ULx86_64_get_proc_name(unw_cursor_t *c, char *buf, size_t len,
				   unw_word_t *off)
{
	compat_cursor *k = compat_of(c);
	if (!k)
		return SIDE_CURSOR_CALL(get_proc_name, c, buf, len, off);
	if (!side_api.get_proc_name)
		return -UNW_EUNSPEC;
	unw_cursor_t sc;
	unw_context_t uc;
	int rc = cursor_side(k, &sc, &uc);
	return rc < 0 ? rc : side_api.get_proc_name(&sc, buf, len, off);
}

COMPAT int _ULx86_64_reg_states_iterate(unw_cursor_t *c,
					unw_reg_states_callback cb, void *token)
{
	compat_cursor *k = compat_of(c);
	if (!k)
		return SIDE_CURSOR_CALL(reg_states_iterate, c, cb, token);
	if (!side_api.reg_states_iterate)
		return -UNW_EUNSPEC;
	unw_cursor_t sc;
	unw_context_t uc;
	int rc = cursor_side(k, &sc, &uc);
	return rc < 0 ? rc : side_api.reg_states_iterate(&sc, cb, token);
}

/* A step by the rules of REG_STATES_DATA (a row reg_states_iterate
 * gave): the side applies them to K's registers, which become its
 * result. */
COMPAT int _ULx86_64_apply_reg_state(unw_cursor_t *c, void *reg_states_data)
{
	compat_cursor *k = compat_of(c);
	if (!k)
		return SIDE_CURSOR_CALL(apply_reg_state, c, reg_states_data);
	if (!side_api.apply_reg_state)
		return -UNW_EUNSPEC;
	unw_cursor_t sc;
	unw_context_t uc;
	int rc = cursor_side(k, &sc, &uc);
	if (rc < 0)
		return rc;
	rc = side_api.apply_reg_state(&sc, reg_states_data);
	if (rc >= 0) {
		cursor_from_side(k, &sc);
		k->sigctx = 0;
		k->frame++;
	}
	return rc;
}

COMPAT int _ULx86_64_get_proc_info_by_ip(unw_addr_space_t as, unw_word_t ip,
					 unw_proc_info_t *pi, void *arg)
{
	if (!side_api.get_proc_info_by_ip || !side_api.local_addr_space)
		return -UNW_EUNSPEC;
	/* the local space's argument is a cursor's: the side needs none */
	return side_api.get_proc_info_by_ip(
		addr_space_is_local(as) ? *side_api.local_addr_space : as, ip,
		pi, addr_space_is_local(as) ? NULL : arg);
}
