/* remote_side.c - see remote_side.h. */
#define _GNU_SOURCE
#include "remote_side.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "side.h"

side_generic_api side_generic;

#define LOOK(member, name) \
	(*(void **)&side_generic.member = side_sym(SIDE_GENERIC, "_Ux86_64_" name))

static void look_up(void)
{
	if (side_load() < 0) {
		const char *v = secure_getenv("EHELF_VERBOSE");
		if (v && *v && strcmp(v, "0") != 0)
			fprintf(stderr, "libehelf-unwind: the side libunwind: %s; "
				"remote frames without an eh_elf will not unwind\n",
				side_error());
		return;
	}
	unw_addr_space_t *local = side_sym(SIDE_GENERIC, "_Ux86_64_local_addr_space");
	side_generic.local_as = local ? *local : NULL;
	LOOK(create_addr_space, "create_addr_space");
	LOOK(destroy_addr_space, "destroy_addr_space");
	LOOK(flush_cache, "flush_cache");
	LOOK(set_caching_policy, "set_caching_policy");
	LOOK(set_cache_size, "set_cache_size");
	LOOK(init_remote, "init_remote");
	LOOK(step, "step");
	LOOK(get_reg, "get_reg");
	LOOK(set_reg, "set_reg");
	LOOK(get_fpreg, "get_fpreg");
	LOOK(set_fpreg, "set_fpreg");
	LOOK(get_save_loc, "get_save_loc");
	LOOK(is_signal_frame, "is_signal_frame");
	LOOK(get_proc_info, "get_proc_info");
	LOOK(get_proc_name, "get_proc_name");
	LOOK(resume, "resume");
	LOOK(reg_states_iterate, "reg_states_iterate");
	LOOK(apply_reg_state, "apply_reg_state");
	LOOK(get_proc_info_by_ip, "get_proc_info_by_ip");
	LOOK(dwarf_search_unwind_table, "dwarf_search_unwind_table");
	LOOK(dwarf_find_unwind_table, "dwarf_find_unwind_table");
}

void remote_side_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, look_up);
}
