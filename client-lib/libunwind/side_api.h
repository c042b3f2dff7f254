/*
 * side_api.h - the side libunwind's functions (side.h) that
 * libehelf-unwind calls, looked up once by a constructor (dlsym takes the
 * loader's lock: never inside an unwind).  A NULL pointer: the side
 * libunwind could not be loaded (side_error() says why); callers answer
 * -UNW_EUNSPEC then.
 */
#ifndef EHELF_LIBUNWIND_SIDE_API_H
#define EHELF_LIBUNWIND_SIDE_API_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>

typedef struct side_api_t {
	int (*init_local2)(unw_cursor_t *, unw_context_t *, int);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
	int (*is_signal_frame)(unw_cursor_t *);
	int (*get_proc_info)(unw_cursor_t *, unw_proc_info_t *);
	int (*get_proc_name)(unw_cursor_t *, char *, size_t, unw_word_t *);
	int (*reg_states_iterate)(unw_cursor_t *, unw_reg_states_callback, void *);
	int (*apply_reg_state)(unw_cursor_t *, void *);
	int (*get_proc_info_by_ip)(unw_addr_space_t, unw_word_t,
				   unw_proc_info_t *, void *);
	unw_accessors_t *(*get_accessors)(unw_addr_space_t);
	void (*flush_cache)(unw_addr_space_t, unw_word_t, unw_word_t);
	int (*set_caching_policy)(unw_addr_space_t, unw_caching_policy_t);
	int (*set_cache_size)(unw_addr_space_t, size_t, int);
	unw_addr_space_t *local_addr_space; /* the side's own local space */
} side_api_t;

extern side_api_t side_api;

/* The side's symbol NAME in libunwind.so.8 (its local API), or NULL; for
 * constructors only (see above). */
void *side_api_sym(const char *name);

#endif
