/*
 * symbol_tree.c - perf 6.1's symbol tree, replayed, and the finished
 * table's lookups; the rules are listed in symbols.h, the loaders' side
 * in symbol_tree.h.
 *
 * How: perf inserts the symbols into a red-black tree, walks it in order
 * to extend size-0 symbols and to drop aliases, and searches it.  The walk
 * is done here on a sorted array (start, then insertion order, as the
 * tree's order).  The tree's shape matters only where symbols overlap (a
 * label inside a function, a size-0 _init extended over the PLT): perf
 * returns the first covering symbol on its search path.  There the same
 * insertions and erasures are replayed into a red-black tree shaped
 * exactly like perf's (Linux's lib/rbtree.c is the textbook algorithm;
 * equal keys go right).  The table is a list of sorted address intervals,
 * each with the symbol perf's search returns anywhere inside it; a lookup
 * is a binary search.
 *
 * Names are copied into one pool.  C++, OCaml and Rust names are
 * demangled on first lookup (published with an atomic compare-and-swap, so
 * that concurrent lookups are safe), and at build time only when perf's
 * alias choice compares them (demangle.h).
 */
#include "symbol_tree.h"
#include "demangle.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { PAGE = 4096, PLT_NAME_MAX = 1024 };

#define T(i) (b->t[(i)])
#define C(i) (b->c[(i)])

static int32_t cand_new(struct builder *b, uint64_t start, uint64_t size,
			uint8_t bind, const char *raw)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 1024;
		struct node *t = cap <= INT32_MAX ?
				 realloc(b->t, cap * sizeof *t) : NULL;
		if (t)
			b->t = t;
		struct cand *c = t ? realloc(b->c, cap * sizeof *c) : NULL;
		if (c)
			b->c = c;
		int32_t *o = c ? realloc(b->ord, cap * sizeof *o) : NULL;
		if (!o) {
			b->oom = true;
			return -1;
		}
		b->ord = o;
		b->cap = cap;
	}
	int32_t i = (int32_t)b->n++;
	T(i) = (struct node){ .start = start, .end = start + size,
			      .left = -1, .right = -1, .parent = -1 };
	C(i) = (struct cand){ .raw = raw, .bind = bind };
	return i;
}

/* perf inserts node I into its tree (ERASE: erases it).  Only logged:
 * the tree's shape matters where symbols overlap, rare enough that the
 * tree is built only then (tree_build). */
static void tree_log(struct builder *b, int32_t i, bool erase)
{
	if (b->nlog == b->caplog) {
		size_t cap = b->caplog ? 2 * b->caplog : 2048;
		int32_t *l = realloc(b->log, cap * sizeof *l);
		if (!l) {
			b->oom = true;
			return;
		}
		b->log = l;
		b->caplog = cap;
	}
	b->log[b->nlog++] = erase ? -1 - i : i;
}

static void rotate_left(struct builder *b, int32_t x)
{
	int32_t y = T(x).right;
	T(x).right = T(y).left;
	if (T(y).left >= 0)
		T(T(y).left).parent = x;
	T(y).parent = T(x).parent;
	if (T(x).parent < 0)
		b->root = y;
	else if (T(T(x).parent).left == x)
		T(T(x).parent).left = y;
	else
		T(T(x).parent).right = y;
	T(y).left = x;
	T(x).parent = y;
}

static void rotate_right(struct builder *b, int32_t x)
{
	int32_t y = T(x).left;
	T(x).left = T(y).right;
	if (T(y).right >= 0)
		T(T(y).right).parent = x;
	T(y).parent = T(x).parent;
	if (T(x).parent < 0)
		b->root = y;
	else if (T(T(x).parent).right == x)
		T(T(x).parent).right = y;
	else
		T(T(x).parent).left = y;
	T(y).right = x;
	T(x).parent = y;
}

/* perf's __symbols__insert(): smaller starts to the left, equal ones to
 * the right, then Linux's rb_insert_color(). */
static void tree_insert(struct builder *b, int32_t z)
{
	int32_t parent = -1, *link = &b->root;
	uint64_t key = T(z).start;
	while (*link >= 0) {
		parent = *link;
		link = key < T(parent).start ? &T(parent).left
					     : &T(parent).right;
	}
	*link = z;
	T(z).parent = parent;
	T(z).red = 1;
	while (T(z).parent >= 0 && T(T(z).parent).red) {
		int32_t p = T(z).parent, g = T(p).parent;
		if (p == T(g).left) {
			int32_t u = T(g).right;
			if (u >= 0 && T(u).red) {
				T(p).red = T(u).red = 0;
				T(g).red = 1;
				z = g;
				continue;
			}
			if (z == T(p).right) {
				z = p;
				rotate_left(b, z);
				p = T(z).parent;
			}
			T(p).red = 0;
			T(g).red = 1;
			rotate_right(b, g);
		} else {
			int32_t u = T(g).left;
			if (u >= 0 && T(u).red) {
				T(p).red = T(u).red = 0;
				T(g).red = 1;
				z = g;
				continue;
			}
			if (z == T(p).left) {
				z = p;
				rotate_right(b, z);
				p = T(z).parent;
			}
			T(p).red = 0;
			T(g).red = 1;
			rotate_left(b, g);
		}
	}
	T(b->root).red = 0;
}

static void transplant(struct builder *b, int32_t u, int32_t v)
{
	int32_t p = T(u).parent;
	if (p < 0)
		b->root = v;
	else if (T(p).left == u)
		T(p).left = v;
	else
		T(p).right = v;
	if (v >= 0)
		T(v).parent = p;
}

static bool is_black(const struct builder *b, int32_t x)
{
	return x < 0 || !T(x).red;
}

/* Linux's rb_erase(): a node with two children is replaced by its
 * successor, then the textbook rebalancing from the removed position. */
static void tree_erase(struct builder *b, int32_t z)
{
	int32_t x, xp;
	bool removed_black;

	if (T(z).left < 0 || T(z).right < 0) {
		x = T(z).left < 0 ? T(z).right : T(z).left;
		xp = T(z).parent;
		removed_black = !T(z).red;
		transplant(b, z, x);
	} else {
		int32_t y = T(z).right;
		while (T(y).left >= 0)
			y = T(y).left;
		removed_black = !T(y).red;
		x = T(y).right;
		if (T(y).parent == z) {
			xp = y;
		} else {
			xp = T(y).parent;
			transplant(b, y, x);
			T(y).right = T(z).right;
			T(T(y).right).parent = y;
		}
		transplant(b, z, y);
		T(y).left = T(z).left;
		T(T(y).left).parent = y;
		T(y).red = T(z).red;
	}
	if (!removed_black)
		return;
	while (x != b->root && is_black(b, x)) {
		if (x == T(xp).left) {
			int32_t w = T(xp).right;
			if (T(w).red) {
				T(w).red = 0;
				T(xp).red = 1;
				rotate_left(b, xp);
				w = T(xp).right;
			}
			if (is_black(b, T(w).left) && is_black(b, T(w).right)) {
				T(w).red = 1;
				x = xp;
				xp = T(x).parent;
				continue;
			}
			if (is_black(b, T(w).right)) {
				T(T(w).left).red = 0;
				T(w).red = 1;
				rotate_right(b, w);
				w = T(xp).right;
			}
			T(w).red = T(xp).red;
			T(xp).red = 0;
			T(T(w).right).red = 0;
			rotate_left(b, xp);
			x = b->root;
		} else {
			int32_t w = T(xp).left;
			if (T(w).red) {
				T(w).red = 0;
				T(xp).red = 1;
				rotate_right(b, xp);
				w = T(xp).left;
			}
			if (is_black(b, T(w).left) && is_black(b, T(w).right)) {
				T(w).red = 1;
				x = xp;
				xp = T(x).parent;
				continue;
			}
			if (is_black(b, T(w).left)) {
				T(T(w).right).red = 0;
				T(w).red = 1;
				rotate_left(b, w);
				w = T(xp).left;
			}
			T(w).red = T(xp).red;
			T(xp).red = 0;
			T(T(w).left).red = 0;
			rotate_right(b, xp);
			x = b->root;
		}
	}
	if (x >= 0)
		T(x).red = 0;
}

/* Build perf's tree from the log. */
static void tree_build(struct builder *b)
{
	for (size_t k = 0; k < b->nlog; k++) {
		if (b->log[k] >= 0)
			tree_insert(b, b->log[k]);
		else
			tree_erase(b, -1 - b->log[k]);
	}
	b->nlog = 0;
}

/* perf's symbols__find(): the first node on the search path covering IP;
 * a size-0 symbol covers its own start. */
static int32_t tree_find(const struct builder *b, uint64_t ip)
{
	int32_t n = b->root;
	while (n >= 0) {
		const struct node *s = &T(n);
		if (ip < s->start)
			n = s->left;
		else if (ip > s->end || (ip == s->end && ip != s->start))
			n = s->right;
		else
			return n;
	}
	return -1;
}

/* The tree's in-order sequence (start, then insertion order: rotations
 * keep it) is also kept as a sorted array, so that perf's walks over the
 * tree are walks over the array. */
struct keyed {
	uint64_t start;
	int32_t node;
};

/* Sort A (N keys) by start, stably, with TMP as scratch: an LSD radix
 * sort over the bytes in which the starts differ (three or four for an
 * ELF file's addresses). */
static void radix_sort(struct keyed *a, struct keyed *tmp, size_t n)
{
	uint64_t all_or = 0, all_and = ~0ull;
	for (size_t i = 0; i < n; i++) {
		all_or |= a[i].start;
		all_and &= a[i].start;
	}
	for (int shift = 0; shift < 64; shift += 8) {
		if ((((all_or ^ all_and) >> shift) & 0xff) == 0)
			continue;	/* the same byte everywhere */
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[((a[i].start >> shift) & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++)
			tmp[count[(a[i].start >> shift) & 0xff]++] = a[i];
		memcpy(a, tmp, n * sizeof *a);
	}
}

/* Merge the nodes inserted since the last call into ord. */
static void order_update(struct builder *b)
{
	size_t old = b->nord, add = b->n - b->ordered;
	if (add == 0 || b->oom)
		return;
	struct keyed *fresh = malloc(2 * add * sizeof *fresh);
	if (!fresh) {
		b->oom = true;
		return;
	}
	for (size_t i = 0; i < add; i++)	/* in insertion order */
		fresh[i] = (struct keyed){ T(b->ordered + i).start,
					   (int32_t)(b->ordered + i) };
	radix_sort(fresh, fresh + add, add);
	/* from the back, in place (ord has room for every node); for equal
	 * starts the older nodes stay first */
	size_t i = old, j = add, k = old + add;
	while (j > 0) {
		if (i > 0 && T(b->ord[i - 1]).start > fresh[j - 1].start)
			b->ord[--k] = b->ord[--i];
		else
			b->ord[--k] = fresh[--j].node;
	}
	free(fresh);
	b->nord = old + add;
	b->ordered = b->n;
}

int32_t symtree_insert(struct builder *b, uint64_t start, uint64_t size,
		       uint8_t bind, const char *raw, bool plt)
{
	int32_t c = cand_new(b, start, size, bind, raw);
	if (c < 0)
		return -1;
	C(c).plt = plt;
	tree_log(b, c, false);
	return c;
}

/* ---- perf's passes over the tree ----------------------------------------- */

static const char *cand_name(struct builder *b, int32_t i)
{
	struct cand *c = &C(i);
	if (b->plain)
		return c->raw;
	if (!c->dem_done) {
		c->dem = symtab_demangle(c->raw);
		c->dem_done = 1;
	}
	return c->dem ? c->dem : c->raw;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): true to keep A, false to keep B. */
static bool keep_first(struct builder *b, int32_t ia, int32_t ib)
{
	const struct cand *a = &C(ia), *c = &C(ib);
	bool sa = T(ia).end != T(ia).start, sb = T(ib).end != T(ib).start;
	if (sa != sb)
		return sa;
	bool wa = a->bind == STB_WEAK, wb = c->bind == STB_WEAK;
	if (wa != wb)
		return wb;
	bool ga = a->bind == STB_GLOBAL, gb = c->bind == STB_GLOBAL;
	if (ga != gb)
		return ga;
	/* the same name stored twice (.symtab and .dynsym): the same
	 * printed name, no need to demangle it to know */
	if (strcmp(a->raw, c->raw) == 0 && !strstr(a->raw, "SyS"))
		return true;
	const char *na = cand_name(b, ia), *nb = cand_name(b, ib);
	size_t ua = leading_underscores(na), ub = leading_underscores(nb);
	if (ua != ub)
		return ua < ub;
	size_t la = strlen(na), lb = strlen(nb);
	if (la != lb)
		return la > lb;
	if (strncmp(na, "SyS", 3) == 0 || strncmp(na, "compat_SyS", 10) == 0)
		return false;
	return true;
}

static uint64_t page_roundup(uint64_t x)
{
	return (x + PAGE - 1) / PAGE * PAGE;
}

/* perf's symbols__fixup_end(): a size-0 symbol ends where the next one
 * starts (kallsyms: at the next page when the next one is in another
 * module), the last one at the end of the page after its start. */
void symtree_fixup_end(struct builder *b)
{
	order_update(b);
	if (b->nord == 0)
		return;
	for (size_t k = 0; k + 1 < b->nord; k++) {
		int32_t prev = b->ord[k], cur = b->ord[k + 1];
		struct node *p = &T(prev);
		if (p->end != p->start)
			continue;
		if (b->kernel &&
		    !strchr(C(prev).raw, '[') != !strchr(C(cur).raw, '['))
			p->end = page_roundup(p->end + PAGE);
		else
			p->end = T(cur).start;
	}
	struct node *last = &T(b->ord[b->nord - 1]);
	if (last->end == last->start)
		last->end = page_roundup(last->start) + PAGE;
}

/* perf's symbols__fixup_duplicate(): one symbol per start address, the
 * losers erased from the tree in perf's order. */
void symtree_fixup_duplicate(struct builder *b)
{
	order_update(b);
	if (b->aliases)
		return;
	size_t w = 0;
	for (size_t k = 0; k < b->nord; k++) {
		int32_t next = b->ord[k];
		int32_t cur = w ? b->ord[w - 1] : -1;
		if (cur < 0 || T(cur).start != T(next).start) {
			b->ord[w++] = next;
		} else if (keep_first(b, cur, next)) {
			tree_log(b, next, true);
		} else {
			tree_log(b, cur, true);
			b->ord[w - 1] = next;
		}
	}
	b->nord = w;
}

/* ---- the finished table ------------------------------------------------- */

void symtree_builder_free(struct builder *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->c[i].dem);
	free(b->t);
	free(b->c);
	free(b->ord);
	free(b->log);
}

/* Does node S cover IP, as perf's search tests it? */
static bool covers(const struct node *s, uint64_t ip)
{
	return ip >= s->start && (ip < s->end || ip == s->start);
}

/* The table of the tree's symbols; frees the builder. */
symtab *symtree_finish(struct builder *b, ehelf_err *err)
{
	order_update(b);
	size_t n = b->nord, pool = 0;
	for (size_t k = 0; k < n; k++)
		pool += strlen(C(b->ord[k]).raw) + 1;
	symtab *s = calloc(1, sizeof *s);
	int32_t *rank = malloc((b->n + 1) * sizeof *rank);
	struct keyed *bounds = malloc((4 * n + 1) * sizeof *bounds);
	uint64_t *reach = malloc((n + 1) * sizeof *reach);
	if (s) {
		s->syms = malloc((n + 1) * sizeof *s->syms);
		s->pool = malloc(pool + 1);
		s->iv_start = malloc((2 * n + 1) * sizeof *s->iv_start);
		s->iv_sym = malloc((2 * n + 1) * sizeof *s->iv_sym);
		if (!b->plain)
			s->names = calloc(n + 1, sizeof *s->names);
	}
	if (!s || !rank || !bounds || !reach || !s->syms || !s->pool ||
	    !s->iv_start || !s->iv_sym || (!b->plain && !s->names) ||
	    pool > UINT32_MAX || b->oom) {
		free(rank);
		free(bounds);
		free(reach);
		symtab_free(s);
		symtree_builder_free(b);
		err_set(err, ERR_NOMEM, "symbol table: out of memory");
		return NULL;
	}

	char *p = s->pool;
	size_t nb = 0;
	for (size_t k = 0; k < n; k++) {
		int32_t i = b->ord[k];
		const struct node *t = &T(i);
		struct cand *c = &C(i);
		struct sym *y = &s->syms[k];
		rank[i] = (int32_t)k;
		size_t len = b->kernel ? strcspn(c->raw, "\t") : strlen(c->raw);
		memcpy(p, c->raw, len);
		p[len] = '\0';
		y->raw = (uint32_t)(p - s->pool);
		y->start = t->start;
		y->end = t->end;
		y->plt = c->plt;
		if (!b->plain) {		/* else computed on first use */
			if (!c->plt && !c->dem_done && !symtab_may_demangle(p))
				s->names[k] = p;
			else if (!c->plt && c->dem_done) {
				s->names[k] = c->dem ? c->dem : p;
				c->dem = NULL;	/* now the table's */
			}
		}
		p += len + 1;
		/* how far the symbols so far reach: past it, only the
		 * next symbols can cover an address */
		uint64_t r = t->end > t->start ? t->end :
			     t->end == t->start ? t->start + 1 : 0;
		reach[k] = k && reach[k - 1] > r ? reach[k - 1] : r;
		bounds[nb++].start = t->start;
		if (t->end != t->start)
			bounds[nb++].start = t->end;
		else if (t->start != UINT64_MAX)
			bounds[nb++].start = t->start + 1;
	}
	s->nsyms = n;
	s->pool_size = (size_t)(p - s->pool);

	/* Intervals between consecutive bounds resolve alike.  An address
	 * that no symbol before the last one starting at or below it
	 * reaches is that symbol's or nobody's; elsewhere (overlaps) perf's
	 * tree decides. */
	radix_sort(bounds, bounds + nb, nb);
	size_t f = 0;	/* symbols [0, f) start at or below the bound */
	for (size_t i = 0; i < nb; i++) {
		uint64_t at = bounds[i].start;
		if (i > 0 && at == bounds[i - 1].start)
			continue;
		while (f < n && T(b->ord[f]).start <= at)
			f++;
		int32_t r = -1;
		if (f >= 2 && reach[f - 2] > at) {
			if (b->nlog)
				tree_build(b);
			int32_t hit = tree_find(b, at);
			r = hit < 0 ? -1 : rank[hit];
		} else if (f >= 1 && covers(&T(b->ord[f - 1]), at)) {
			r = (int32_t)(f - 1);
		}
		if (s->niv > 0 && s->iv_sym[s->niv - 1] == r)
			continue;
		s->iv_start[s->niv] = at;
		s->iv_sym[s->niv++] = r;
	}
	free(rank);
	free(bounds);
	free(reach);
	symtree_builder_free(b);
	return s;
}

/* Is symbol K (>= 0) of S whole?  Always for a table made here; a saved
 * table (mapped as is, possibly damaged) is checked at each lookup rather
 * than all at load, so that loading touches only the pages used. */
static inline bool in_table(const symtab *s, int32_t k)
{
	return !s->map || ((size_t)k < s->nsyms && s->syms[k].raw < s->pool_size);
}

/* The printed name of symbol K of S. */
static const char *sym_name(const symtab *s, size_t k)
{
	const struct sym *y = &s->syms[k];
	const char *raw = s->pool + y->raw;
	if (!s->names)
		return raw;
	/* the lazy names only: the table is otherwise read-only */
	const char **slot = (const char **)&s->names[k];
	const char *name = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (name)
		return name;
	char *d = symtab_demangle(raw);
	char *made = d;
	if (y->plt) {
		/* perf formats "%s@plt" into a char[1024] */
		const char *base = d ? d : raw;
		made = malloc(PLT_NAME_MAX);
		if (made)
			snprintf(made, PLT_NAME_MAX, "%s@plt", base);
		free(d);
	}
	const char *want = made ? made : raw, *expected = NULL;
	if (!__atomic_compare_exchange_n(slot, &expected, want, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		free(made);
		return expected;
	}
	return want;
}

const char *symtab_find(const symtab *s, uint64_t addr, uint64_t *off)
{
	if (!s || s->niv == 0 || addr < s->iv_start[0])
		return NULL;
	size_t lo = 0, hi = s->niv;	/* last interval starting <= addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->iv_start[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	int32_t k = s->iv_sym[lo];
	if (k < 0 || !in_table(s, k))
		return NULL;
	const struct sym *y = &s->syms[k];
	if (off)
		*off = addr - y->start;
	return sym_name(s, (size_t)k);
}

size_t symtab_size(const symtab *s)
{
	return s ? s->nsyms : 0;
}

const char *symtab_symbol(const symtab *s, size_t i, uint64_t *start,
			  uint64_t *size)
{
	if (!s || i >= s->nsyms || !in_table(s, (int32_t)i))
		return NULL;
	const struct sym *y = &s->syms[i];
	if (start)
		*start = y->start;
	if (size)
		*size = y->end - y->start;
	return sym_name(s, i);
}

void symtab_free(symtab *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->names && i < s->nsyms; i++) {
		const char *n = s->names[i];
		if (n && n != s->pool + s->syms[i].raw)
			free((char *)n);
	}
	free(s->names);
	if (s->map) {
		munmap(s->map, s->map_size);
	} else {
		free(s->syms);
		free(s->iv_start);
		free(s->iv_sym);
		free(s->pool);
	}
	free(s);
}
