/*
 * remote_side.h - the side libunwind's generic API (side.h) as function
 * pointers, looked up once, by the first unw_create_addr_space or
 * unw_init_remote on the local space (dlsym takes the loader's lock:
 * never inside an unwind), for what libehelf-unwind's remote cursors and
 * spaces delegate to it.  A member is NULL when the side
 * library could not be loaded (side_error() says why); callers then
 * answer -UNW_EUNSPEC.
 */
#ifndef EHELF_LIBUNWIND_REMOTE_SIDE_H
#define EHELF_LIBUNWIND_REMOTE_SIDE_H

#include <libunwind.h>

/* libunwind's own functions of its internal headers, which
 * libunwind-x86_64.so.8 exports (callers: perf's and libunwind-ptrace's
 * find_proc_info); the structures behind the void pointers stay opaque. */
typedef int search_table_fn(unw_addr_space_t as, unw_word_t ip,
			    unw_dyn_info_t *di, unw_proc_info_t *pi,
			    int need_unwind_info, void *arg);
typedef int find_table_fn(void *edi, unw_addr_space_t as, char *path,
			  unw_word_t segbase, unw_word_t mapoff, unw_word_t ip);

typedef struct side_generic_api {
	unw_addr_space_t local_as; /* its unw_local_addr_space */
	unw_addr_space_t (*create_addr_space)(unw_accessors_t *, int);
	void (*destroy_addr_space)(unw_addr_space_t);
	void (*flush_cache)(unw_addr_space_t, unw_word_t, unw_word_t);
	int (*set_caching_policy)(unw_addr_space_t, unw_caching_policy_t);
	int (*set_cache_size)(unw_addr_space_t, size_t, int);
	int (*init_remote)(unw_cursor_t *, unw_addr_space_t, void *);
	int (*step)(unw_cursor_t *);
	int (*get_reg)(unw_cursor_t *, int, unw_word_t *);
	int (*set_reg)(unw_cursor_t *, int, unw_word_t);
	int (*get_fpreg)(unw_cursor_t *, int, unw_fpreg_t *);
	int (*set_fpreg)(unw_cursor_t *, int, unw_fpreg_t);
	int (*get_save_loc)(unw_cursor_t *, int, unw_save_loc_t *);
	int (*is_signal_frame)(unw_cursor_t *);
	int (*get_proc_info)(unw_cursor_t *, unw_proc_info_t *);
	int (*get_proc_name)(unw_cursor_t *, char *, size_t, unw_word_t *);
	int (*resume)(unw_cursor_t *);
	int (*reg_states_iterate)(unw_cursor_t *, unw_reg_states_callback,
				  void *);
	int (*apply_reg_state)(unw_cursor_t *, void *);
	int (*get_proc_info_by_ip)(unw_addr_space_t, unw_word_t,
				   unw_proc_info_t *, void *);
	search_table_fn *dwarf_search_unwind_table;
	find_table_fn *dwarf_find_unwind_table;
} side_generic_api;

/* Filled by remote_side_init(). */
extern side_generic_api side_generic;

/* Load the side libunwind if needed and fill side_generic (once;
 * thread-safe; not from an unwind). */
void remote_side_init(void);

#endif
