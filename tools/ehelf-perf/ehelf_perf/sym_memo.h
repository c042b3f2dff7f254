/*
 * sym_memo.h - a memo of a symbol table's last answers.  A profile names
 * the same few thousand addresses over and over; a binary search over a
 * large table (cc1plus, kallsyms) misses the cache at every level, a
 * direct-mapped memo of the answers does not.
 *
 * Ownership: the memo allocates its entries on first use (sym_memo_free
 * releases them) and holds pointers into the table's names, so it must
 * not outlive the table.  Not thread-safe (one per script run).
 */
#ifndef EHELF_PERF_TOOL_SYM_MEMO_H
#define EHELF_PERF_TOOL_SYM_MEMO_H

#include <stdint.h>

#include "../perfdata/symbols.h"

enum { SYM_MEMO_SIZE = 4096 };

typedef struct sym_memo {
	struct sym_memo_entry {
		uint64_t key;   /* address + 1; 0: empty */
		const char *name;
		uint64_t off;
	} *e;                   /* SYM_MEMO_SIZE entries, on first use */
} sym_memo;

/* symtab_find(S, ADDR, OFF), remembered in M.  Without memory for the
 * memo, the table answers directly. */
const char *sym_memo_find(sym_memo *m, const symtab *s, uint64_t addr,
			  uint64_t *off);

void sym_memo_free(sym_memo *m);

#endif
