/*
 * image.c - libunwind's ELF image helpers that libunwind.so.8 exports
 * (_Ux86_64_get_elf_image: the mapping of a process's ELF around an ip;
 * _Ux86_64_get_exe_image_path), the side libunwind's: the struct
 * elf_image they fill is libunwind's own (opaque here).
 */
#include <sys/types.h>

#include "addr_space.h"
#include "cursor.h"
#include "forward.h"

FORWARD(side_api_sym, int, _Ux86_64_get_elf_image,
	(void *ei, pid_t pid, unw_word_t ip, unsigned long *segbase,
	 unsigned long *mapoff, char *path, size_t pathlen),
	(ei, pid, ip, segbase, mapoff, path, pathlen))
FORWARD(side_api_sym, int, _Ux86_64_get_exe_image_path, (char *path), (path))

/* the local API's DWARF table search, called from a find_proc_info: on
 * the side's local space for libehelf-unwind's */
static unw_addr_space_t side_space(unw_addr_space_t as)
{
	return addr_space_is_local(as) && side_api.local_addr_space
	       ? *side_api.local_addr_space : as;
}
static int (*side_find_table)(void *, unw_addr_space_t, char *, unw_word_t,
			      unw_word_t, unw_word_t);
static int (*side_search_table)(unw_addr_space_t, unw_word_t, unw_dyn_info_t *,
				unw_proc_info_t *, int, void *);
COMPAT int _ULx86_64_dwarf_find_unwind_table(void *, unw_addr_space_t, char *,
					     unw_word_t, unw_word_t, unw_word_t);
COMPAT int _ULx86_64_dwarf_search_unwind_table(unw_addr_space_t, unw_word_t,
					       unw_dyn_info_t *, unw_proc_info_t *,
					       int, void *);
COMPAT int _ULx86_64_dwarf_find_unwind_table(void *edi, unw_addr_space_t as,
					     char *path, unw_word_t segbase,
					     unw_word_t mapoff, unw_word_t ip)
{
	if (!side_find_table)
		return -UNW_EUNSPEC;
	return side_find_table(edi, side_space(as), path, segbase, mapoff, ip);
}
COMPAT int _ULx86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
					       unw_dyn_info_t *di,
					       unw_proc_info_t *pi,
					       int need_unwind_info, void *arg)
{
	if (!side_search_table)
		return -UNW_EUNSPEC;
	return side_search_table(side_space(as), ip, di, pi, need_unwind_info, arg);
}

__attribute__((constructor)) static void image_init(void)
{
	FORWARD_LOOKUP(side_api_sym, _Ux86_64_get_elf_image);
	FORWARD_LOOKUP(side_api_sym, _Ux86_64_get_exe_image_path);
	side_find_table = side_api_sym("_ULx86_64_dwarf_find_unwind_table");
	side_search_table = side_api_sym("_ULx86_64_dwarf_search_unwind_table");
}
