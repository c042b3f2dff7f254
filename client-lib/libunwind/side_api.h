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
	int (*step)(unw_cursor_t *);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
	int (*set_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t);
	int (*get_fpreg)(unw_cursor_t *, unw_regnum_t, unw_fpreg_t *);
	int (*set_fpreg)(unw_cursor_t *, unw_regnum_t, unw_fpreg_t);
	int (*get_save_loc)(unw_cursor_t *, int, unw_save_loc_t *);
	int (*resume)(unw_cursor_t *);
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
	/* libunwind-x86_64.so.8's (the generic API's) local space */
	unw_accessors_t *(*generic_get_accessors)(unw_addr_space_t);
	unw_addr_space_t *generic_local_addr_space;
} side_api_t;

extern side_api_t side_api;

/*
 * A cursor without libehelf-unwind's mark (cursor.h) given to one of its
 * cursor functions is the side's: when a program drops the side's
 * RTLD_DEEPBIND (heaptrack's dlopen interception does), the side's calls
 * to its own public functions reach libehelf-unwind's, which hand them
 * back with SIDE_CURSOR_CALL(fn, args): the side's FN, or -UNW_EINVAL.
 */
#define SIDE_CURSOR_CALL(fn, ...)                                              \
	(side_api.fn ? side_api.fn(__VA_ARGS__) : -UNW_EINVAL)

/* The side's symbol NAME in libunwind.so.8 (its local API), or NULL; for
 * constructors only (see above). */
void *side_api_sym(const char *name);

#endif
