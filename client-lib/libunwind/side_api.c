/* side_api.c - see side_api.h. */
#include "side_api.h"

#include <stddef.h>

#include "side.h"

side_api_t side_api;

void *side_api_sym(const char *name)
{
	return side_load() == 0 ? side_sym(SIDE_LOCAL, name) : NULL;
}

/* a constructor, before those of the files that use side_api */
__attribute__((constructor(200))) static void side_api_init(void)
{
	side_api_t a = {
		side_api_sym("_ULx86_64_init_local2"),
		side_api_sym("_ULx86_64_step"),
		side_api_sym("_ULx86_64_get_reg"),
		side_api_sym("_ULx86_64_set_reg"),
		side_api_sym("_ULx86_64_get_fpreg"),
		side_api_sym("_ULx86_64_set_fpreg"),
		side_api_sym("_ULx86_64_get_save_loc"),
		side_api_sym("_ULx86_64_resume"),
		side_api_sym("_ULx86_64_is_signal_frame"),
		side_api_sym("_ULx86_64_get_proc_info"),
		side_api_sym("_ULx86_64_get_proc_name"),
		side_api_sym("_ULx86_64_reg_states_iterate"),
		side_api_sym("_ULx86_64_apply_reg_state"),
		side_api_sym("_ULx86_64_get_proc_info_by_ip"),
		side_api_sym("_Ux86_64_get_accessors"),
		side_api_sym("_Ux86_64_flush_cache"),
		side_api_sym("_ULx86_64_set_caching_policy"),
		side_api_sym("_ULx86_64_set_cache_size"),
		side_api_sym("_ULx86_64_local_addr_space"),
		side_load() == 0 ? side_sym(SIDE_GENERIC, "_Ux86_64_get_accessors") : NULL,
		side_load() == 0 ? side_sym(SIDE_GENERIC, "_Ux86_64_local_addr_space") : NULL,
	};
	side_api = a;
}
