/*
 * remote_cursor.h - libehelf-unwind's remote cursors: what
 * unw_init_remote makes of an unw_cursor_t for one of its remote spaces
 * (remote_space.h).  A frame whose module has an eh_elf is stepped with it
 * (reads through the space's access_mem); any other frame, and every query
 * ehelf does not answer itself (procedure info and names, save locations,
 * register states, floating-point registers), goes to the side libunwind
 * on the same frame's registers (remote_delegate.h), with libunwind's
 * results; the queries whose answer depends on the walk so far (where a
 * register was saved, by which callee: unw_get_save_loc, the
 * floating-point registers) by the side walking again from frame 0.  The functions have libunwind's contracts and error codes.
 */
#ifndef EHELF_LIBUNWIND_REMOTE_CURSOR_H
#define EHELF_LIBUNWIND_REMOTE_CURSOR_H

#include <libunwind.h>
#include <stdbool.h>
#include <stdint.h>

#include "remote_cursor_state.h"

int remote_init(unw_cursor_t *c, remote_space *rs, void *arg);
int remote_step(remote_cursor *k);
int remote_get_reg(remote_cursor *k, int reg, unw_word_t *v);
int remote_set_reg(remote_cursor *k, int reg, unw_word_t v);
int remote_get_fpreg(remote_cursor *k, int reg, unw_fpreg_t *v);
int remote_set_fpreg(remote_cursor *k, int reg, unw_fpreg_t v);
int remote_get_save_loc(remote_cursor *k, int reg, unw_save_loc_t *loc);
int remote_get_proc_info(remote_cursor *k, unw_proc_info_t *pi);
int remote_get_proc_name(remote_cursor *k, char *buf, size_t len,
			 unw_word_t *off);
int remote_reg_states_iterate(remote_cursor *k, unw_reg_states_callback cb,
			      void *token);
int remote_apply_reg_state(remote_cursor *k, void *reg_states_data);
int remote_resume(remote_cursor *k);

#endif
