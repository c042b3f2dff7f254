/*
 * remote_space.h - libehelf-unwind's remote address spaces: what
 * unw_create_addr_space returns.  One holds the caller's accessors (perf's,
 * libunwind-ptrace's _UPT_accessors, ...), an ehelf_space of the modules
 * learned so far, each with the eh_elf of its build-ID from the resolution
 * chain (resolve.h), and a twin space of the side libunwind over the same
 * accessors (remote_delegate.h), which unwinds what ehelf cannot.
 *
 * Modules are learned from the unwind tables the caller's find_proc_info
 * hands to dwarf_search_unwind_table (their address range), their
 * build-IDs read through access_mem (remote_module.h), else from the
 * file perf has open for the table (remote_file.h).  Not thread-safe:
 * a space is used by one thread at a time, as libunwind's remote spaces
 * with perf and strace.
 */
#ifndef EHELF_LIBUNWIND_REMOTE_SPACE_H
#define EHELF_LIBUNWIND_REMOTE_SPACE_H

#include <libunwind.h>
#include <stdbool.h>
#include <stdint.h>

#include "../include/ehelf.h"

enum { REMOTE_SPACE_MAGIC = 0x65687273 /* "ehrs" */ };

/* pcs (4 KiB pages) where the caller's find_proc_info knew no table: not
 * asked again until a flush (direct-mapped, by page) */
enum { REMOTE_NO_TABLE_SLOTS = 64 };

typedef struct remote_space {
	uint32_t magic;
	unw_accessors_t acc;         /* the caller's */
	int byte_order;
	unw_caching_policy_t policy;
	unw_addr_space_t twin;       /* the side libunwind's, or NULL */
	ehelf_space *space;          /* the modules learned */
	uint64_t no_table[REMOTE_NO_TABLE_SLOTS]; /* page + 1, 0: empty */
	uint64_t learning_pc;        /* the pc being learned (remote_learn),
				      * 0 outside */
	bool learned;                /* a table was seen while learning */
	unsigned fetch_seen;         /* remote_fetch_generation() when the
				      * modules last looked for eh_elfs */
} remote_space;

/* S as one of ours, or NULL (the local space, a side space, garbage). */
remote_space *remote_space_of(unw_addr_space_t s);

/* unw_create_addr_space / unw_destroy_addr_space. */
unw_addr_space_t remote_space_create(const unw_accessors_t *a, int byte_order);
void remote_space_destroy(remote_space *rs);

/* unw_flush_cache: forget every module (they may have changed: an exec),
 * and the side's caches. */
void remote_space_flush(remote_space *rs, unw_word_t lo, unw_word_t hi);

/* Learn the module of the table DI (its [start_ip, end_ip) range), read
 * through RS's access_mem with ARG, if no module holds start_ip yet.
 * Allocates and reads files (its eh_elf): called from
 * dwarf_search_unwind_table, never from an eh_elf step. */
void remote_space_learn_table(remote_space *rs, const unw_dyn_info_t *di,
			      void *arg);

/* Ask the caller's find_proc_info about PC (which learns its module
 * through remote_space_learn_table), unless it knew nothing about PC's
 * page before.  True when a module now holds PC. */
bool remote_space_learn_pc(remote_space *rs, uint64_t pc, void *arg);

/* Attach the eh_elfs fetched since the last call (remote_fetch.h) to the
 * modules that lack one.  Opens files: from unw_init_remote, not a step. */
void remote_space_pickup(remote_space *rs);

#endif
