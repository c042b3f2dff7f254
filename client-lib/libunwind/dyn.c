/*
 * dyn.c - libunwind's dynamic unwind-info registration (_U_dyn_register,
 * _U_dyn_cancel, _U_dyn_info_list_addr: code generated at run time
 * describing itself): the side libunwind's list, which the side's answers
 * (unw_get_proc_info, and unw_step for a pc in no module: cursor.c) use.
 */
#include "forward.h"

FORWARD_VOID(side_api_sym, _U_dyn_register, (unw_dyn_info_t *di), (di))
FORWARD_VOID(side_api_sym, _U_dyn_cancel, (unw_dyn_info_t *di), (di))
FORWARD(side_api_sym, unw_word_t, _U_dyn_info_list_addr, (void), ())

__attribute__((constructor)) static void dyn_init(void)
{
	FORWARD_LOOKUP(side_api_sym, _U_dyn_register);
	FORWARD_LOOKUP(side_api_sym, _U_dyn_cancel);
	FORWARD_LOOKUP(side_api_sym, _U_dyn_info_list_addr);
}
