/* sym_memo.c - see sym_memo.h. */
#include "sym_memo.h"

#include <stdlib.h>

const char *sym_memo_find(sym_memo *m, const symtab *s, uint64_t addr,
			  uint64_t *off)
{
	if (!m->e && !(m->e = calloc(SYM_MEMO_SIZE, sizeof *m->e)))
		return symtab_find(s, addr, off);
	struct sym_memo_entry *e = &m->e[(addr ^ (addr >> 10)) & (SYM_MEMO_SIZE - 1)];
	if (e->key != addr + 1) {
		e->key = addr + 1;
		e->name = symtab_find(s, addr, &e->off);
	}
	*off = e->off;
	return e->name;
}

void sym_memo_free(sym_memo *m)
{
	free(m->e);
	m->e = NULL;
}
