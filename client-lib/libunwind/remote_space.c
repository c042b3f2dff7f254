/* remote_space.c - see remote_space.h. */
#define _GNU_SOURCE
#include "remote_space.h"

#include <stdlib.h>
#include <string.h>

#include "../space.h"
#include "remote_fetch.h"
#include "remote_file.h"
#include "remote_module.h"
#include "remote_side.h"

remote_space *remote_space_of(unw_addr_space_t s)
{
	remote_space *rs = (remote_space *)s;
	return rs && rs->magic == REMOTE_SPACE_MAGIC ? rs : NULL;
}

unw_addr_space_t remote_space_create(const unw_accessors_t *a, int byte_order)
{
	/* x86_64 is little-endian; libunwind refuses the others */
	if (!a || (byte_order != 0 && byte_order != __LITTLE_ENDIAN))
		return NULL;
	remote_space *rs = calloc(1, sizeof *rs);
	if (!rs)
		return NULL;
	remote_side_init();
	remote_fetch_start();
	rs->magic = REMOTE_SPACE_MAGIC;
	rs->acc = *a;
	rs->byte_order = byte_order;
	rs->policy = UNW_CACHE_GLOBAL;
	rs->space = ehelf_space_new();
	if (!rs->space) {
		free(rs);
		return NULL;
	}
	return (unw_addr_space_t)rs;
}

void remote_space_destroy(remote_space *rs)
{
	if (!rs)
		return;
	if (rs->twin)
		side_generic.destroy_addr_space(rs->twin);
	ehelf_space_free(rs->space);
	rs->magic = 0;
	free(rs);
}

void remote_space_flush(remote_space *rs, unw_word_t lo, unw_word_t hi)
{
	if (rs->twin)
		side_generic.flush_cache(rs->twin, lo, hi);
	ehelf_space *fresh = ehelf_space_new();
	if (fresh) { /* else the modules stay: out of memory */
		ehelf_space_free(rs->space);
		rs->space = fresh;
	}
	memset(rs->no_table, 0, sizeof rs->no_table);
}

void remote_space_learn_table(remote_space *rs, const unw_dyn_info_t *di,
			      void *arg)
{
	if (rs->learning_pc && di->start_ip <= rs->learning_pc &&
	    rs->learning_pc < di->end_ip)
		rs->learned = true;
	if (di->start_ip >= di->end_ip || space_find(rs->space, di->start_ip))
		return;
	remote_module m;
	/* no ELF header in memory (perf top: running processes' executable
	 * mappings alone): the file perf opened for the table */
	if (remote_module_read((unw_addr_space_t)rs, &rs->acc, arg, di->start_ip,
			       di->end_ip, &m) < 0 &&
	    di->format == UNW_INFO_FORMAT_REMOTE_TABLE)
		remote_file_find(di->start_ip, di->end_ip, di->u.rti.segbase, &m);
	ehelf_module_desc d = {
		.start = m.start, .end = m.end, .bias = m.bias, .path = NULL,
		.build_id = m.build_id, .build_id_len = m.build_id_len,
	};
	if (ehelf_space_add_module(rs->space, &d) == 0 && m.build_id_len) {
		const module *added = space_find(rs->space, m.start);
		if (added && !module_object(added))
			remote_fetch_want(m.build_id, m.build_id_len);
	}
}

static uint64_t *no_table_slot(remote_space *rs, uint64_t pc)
{
	return &rs->no_table[(pc >> 12) % REMOTE_NO_TABLE_SLOTS];
}

bool remote_space_learn_pc(remote_space *rs, uint64_t pc, void *arg)
{
	uint64_t *slot = no_table_slot(rs, pc);
	if (*slot == (pc >> 12) + 1)
		return false;
	unw_proc_info_t pi;
	memset(&pi, 0, sizeof pi);
	rs->learning_pc = pc;
	rs->learned = false;
	int rc = rs->acc.find_proc_info((unw_addr_space_t)rs, pc, &pi, 0, arg);
	if (rc >= 0 && rs->acc.put_unwind_info && pi.unwind_info)
		rs->acc.put_unwind_info((unw_addr_space_t)rs, &pi, arg);
	rs->learning_pc = 0;
	if (!rs->learned)
		*slot = (pc >> 12) + 1;
	return space_find(rs->space, pc) != NULL;
}

void remote_space_pickup(remote_space *rs)
{
	unsigned g = remote_fetch_generation();
	if (g == rs->fetch_seen)
		return;
	rs->fetch_seen = g;
	for (size_t i = 0; i < rs->space->n; i++)
		module_attach(rs->space->mods[i]);
}
