/*
 * symbol_tree.h - inside perfdata's symbol tables: the table's layout, and
 * the builder that replays perf 6.1's red-black tree of symbols, for the
 * files that fill a table (elf_symbols.c, kallsyms_perfmap.c) or save and
 * map one (saved_table.c); and the table's lookups (symtab_find, ...),
 * which users reach through symbols.h, as the rest is not for them.
 *
 * A loader fills a `struct builder` (zeroed, root -1, its flags set) with
 * symtree_insert() in perf's insertion order, runs perf's passes where
 * perf does (symtree_fixup_end, symtree_fixup_duplicate), and ends with
 * symtree_finish(), which makes the table and frees the builder (or
 * symtree_builder_free() to drop it).  Names are borrowed from the
 * loader's buffers until symtree_finish() copies them.
 */
#ifndef EHELF_PERFDATA_SYMBOL_TREE_H
#define EHELF_PERFDATA_SYMBOL_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../../common/err.h"

/* ---- the table ---------------------------------------------------------- */

typedef struct symtab symtab;

/* The symbol covering ADDR (link-time address for an ELF, as in its
 * symbols; a kernel address for kallsyms): its name, with *OFF set to ADDR
 * minus the symbol's start; NULL if none covers it. */
const char *symtab_find(const symtab *s, uint64_t addr, uint64_t *off);

void symtab_free(symtab *s);

/* Number of symbols (for tests). */
size_t symtab_size(const symtab *s);

/* The I-th symbol in address order, I < symtab_size(): its name, with
 * *START and *SIZE (after the size-0 extension) set (for tests). */
const char *symtab_symbol(const symtab *s, size_t i, uint64_t *start,
			  uint64_t *size);

/* Without pointers, so that a saved table (symtab_save) is used as
 * mapped: this layout is the saved file's (saved_table.c's SAVED_VERSION
 * goes up when it changes). */
struct sym {
	uint64_t start, end;	/* [start, end); end == start: size 0 */
	uint32_t raw;		/* name as stored (PLT: the target): offset
				 * in pool */
	uint32_t plt;		/* name is demangle(raw) + "@plt" */
};

struct symtab {
	struct sym *syms;	/* address order */
	size_t nsyms;
	uint64_t *iv_start;	/* intervals: [iv_start[i], iv_start[i+1]) */
	int32_t *iv_sym;	/* ... resolve to syms[iv_sym[i]], -1: none */
	size_t niv;
	char *pool;
	size_t pool_size;
	/* printed names, NULL until computed (atomic); the table itself
	 * when every name is printed as stored (kallsyms) */
	const char **names;
	void *map;		/* a saved table mapped: everything above is
				 * in it (but names) */
	size_t map_size;
};

/* ---- candidates in perf's red-black tree --------------------------------- */

/* A node of perf's tree: what its search reads, packed. */
struct node {
	uint64_t start, end;	/* perf: end = start + size */
	int32_t left, right, parent;
	uint8_t red;
};

/* The rest of a candidate symbol. */
struct cand {
	const char *raw;	/* borrowed from the ELF or kallsyms buffer */
	char *dem;		/* demangled name, once computed (NULL: raw) */
	uint8_t bind, plt, dem_done;
};

struct builder {
	struct node *t;
	struct cand *c;
	size_t n, cap;
	int32_t root;
	int32_t *ord;		/* the live nodes in the tree's order */
	size_t nord, ordered;	/* nodes [0, ordered) are in ord or erased */
	int32_t *log;		/* tree operations: node i inserted (i) or
				 * erased (-1 - i), replayed when needed */
	size_t nlog, caplog;
	bool kernel;		/* kallsyms: module-aware ends, "\t[module]"
				 * cut off */
	bool plain;		/* names as stored (kallsyms, JIT maps) */
	bool aliases;		/* keep every alias (SYMTAB_ALIASES) */
	bool oom;
};

/* perf inserts a symbol [START, START + SIZE) of binding BIND (STB_*)
 * named RAW (borrowed) into its tree; PLT: named demangle(RAW) + "@plt".
 * Its index, or -1 when out of memory (B->oom set). */
int32_t symtree_insert(struct builder *b, uint64_t start, uint64_t size,
		       uint8_t bind, const char *raw, bool plt);

/* perf's symbols__fixup_end() and symbols__fixup_duplicate() over the
 * symbols inserted so far. */
void symtree_fixup_end(struct builder *b);
void symtree_fixup_duplicate(struct builder *b);

/* The table of B's symbols (NULL with ERR set when out of memory); frees
 * B either way. */
symtab *symtree_finish(struct builder *b, ehelf_err *err);

/* Free B without making a table. */
void symtree_builder_free(struct builder *b);

#endif
