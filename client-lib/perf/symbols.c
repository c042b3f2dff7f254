/*
 * symbols.c - perf 6.1's symbol tables for ELF files and kallsyms; the
 * rules are listed in symbols.h.
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
 * alias choice compares them.
 */
#include "symbols.h"
#include "rust_v0.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/atomic_file.h"
#include "../../common/buildid.h"
#include "../../common/elf_file.h"

/* libstdc++'s demangler (the program is linked with g++). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
			    int *status);

enum { PAGE = 4096, PLT_NAME_MAX = 1024 };

/* ---- the table ---------------------------------------------------------- */

/* Without pointers, so that a saved table (symtab_save) is used as
 * mapped. */
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

/* ---- demangling as perf 6.1 prints names --------------------------------- */

/*
 * perf calls libiberty's cplus_demangle(NAME, DMGL_NO_OPTS): Rust (legacy
 * and v0) first, then the C++ ABI, and when both fail its own OCaml (and
 * Java) demanglers.  Without DMGL_PARAMS, libiberty prints the top-level
 * function's name only: no parameters, no qualifiers after them, no return
 * type, no clone suffix, and it ignores anything after the name.  libstdc++'s
 * __cxa_demangle is the same demangler with DMGL_PARAMS, so its output is
 * cut back to that form here.  Rust v0 ("_R") names: rust_v0.h.  Not done:
 * Java names (those contain ')', never seen in ELF symbols) stay as stored.
 */

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Index of the '(' matching the ')' at S[CLOSE], or -1. */
static long match_open(const char *s, size_t close)
{
	int depth = 0;
	for (long i = (long)close; i >= 0; i--) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i;
	}
	return -1;
}

/* Length of the operator spelling after "operator" at S (libiberty's
 * spellings), 0 if none. */
static size_t operator_len(const char *s)
{
	static const char *const ops[] = {
		"->*", "<<=", ">>=", "<=>", "()", "[]", "->", "<<", ">>",
		"<=", ">=", "==", "!=", "&&", "||", "++", "--", "+=", "-=",
		"*=", "/=", "%=", "&=", "|=", "^=", "+", "-", "*", "/", "%",
		"&", "|", "^", "~", "!", "=", "<", ">", ",",
	};
	static const char *const words[] = {
		" new[]", " delete[]", " new", " delete", " co_await",
	};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		size_t k = strlen(words[i]);
		if (strncmp(s, words[i], k) == 0 && !is_ident(s[k]))
			return k;
	}
	if (s[0] == '"' && s[1] == '"') {	/* operator"" _suffix */
		size_t k = 2;
		while (s[k] == ' ')
			k++;
		while (is_ident(s[k]))
			k++;
		return k;
	}
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
		size_t k = strlen(ops[i]);
		if (strncmp(s, ops[i], k) == 0)
			return k;
	}
	return 0;
}

/* The top-level structure of PRE (N bytes), the part of a demangled
 * function before its parameter list. */
struct name_scan {
	size_t comp, prev_comp;	/* start of the last two "::" components
				 * (the same when there is one) */
	long last_space;	/* last space outside brackets and operators */
	long tmpl_close;	/* last '>' closing a top-level template */
	bool op;		/* the last component is an operator */
	bool conversion;	/* ... a conversion operator */
};

static void scan_name(const char *pre, size_t n, struct name_scan *ns)
{
	int depth = 0, parens = 0;	/* all brackets; () and {} only */
	*ns = (struct name_scan){ .last_space = -1, .tmpl_close = -1 };
	for (size_t i = 0; i < n;) {
		if (pre[i] == 'o' && strncmp(pre + i, "operator", 8) == 0 &&
		    (i == 0 || !is_ident(pre[i - 1])) && !is_ident(pre[i + 8])) {
			size_t k = operator_len(pre + i + 8);
			if (depth == 0)
				ns->op = true;
			if (k == 0 && pre[i + 8] == ' ') {
				/* conversion operator: its type runs to the
				 * end of the name */
				ns->conversion |= depth == 0;
				return;
			}
			i += 8 + k;
			if (pre[i] == ' ' && pre[i + 1] == '<')
				i++;	/* "operator< <T>" */
			continue;
		}
		char c = pre[i];
		if ((c == '<' || c == '>') && parens > 0) {
			/* an expression's operator ("->", "<"): template
			 * brackets inside () and {} balance there anyway */
		} else if (c == '(' || c == '<' || c == '[' || c == '{') {
			depth++;
			parens += c == '(' || c == '{';
		} else if (c == ')' || c == '>' || c == ']' || c == '}') {
			parens -= c == ')' || c == '}';
			if (--depth == 0 && c == '>')
				ns->tmpl_close = (long)i;
		} else if (depth == 0 && c == ' ') {
			/* after a return type: the name starts afresh */
			ns->last_space = (long)i;
			ns->comp = ns->prev_comp = i + 1;
		} else if (depth == 0 && c == ':' && pre[i + 1] == ':') {
			ns->prev_comp = ns->comp;
			ns->comp = i + 2;
			ns->op = false;
			i += 2;
			continue;
		}
		i++;
	}
}

/* Where the name starts in PRE: after the return type, which libiberty
 * prints for function templates other than constructors, destructors and
 * conversion operators. */
static size_t name_start(const char *pre, size_t n, const struct name_scan *ns)
{
	size_t comp = ns->comp, end = n;
	/* Is the last component a template (ignoring "[abi:...]" tags)? */
	while (end > comp && pre[end - 1] == ']') {
		long open = -1;
		for (long j = (long)end - 1; j >= (long)comp; j--)
			if (pre[j] == '[') {
				open = j;
				break;
			}
		if (open < 0 || strncmp(pre + open, "[abi:", 5) != 0)
			break;
		end = (size_t)open;
	}
	if (end == comp || ns->tmpl_close != (long)end - 1 || ns->conversion)
		return 0;
	if (pre[comp] == '~')
		return 0;	/* destructor */
	/* constructor: the same name as the enclosing class */
	size_t a = comp, b = ns->prev_comp;
	if (b < comp) {
		while (is_ident(pre[a]) && pre[a] == pre[b]) {
			a++;
			b++;
		}
		if (!is_ident(pre[a]) && !is_ident(pre[b]) && a > comp)
			return 0;
	}
	return ns->last_space >= 0 ? (size_t)ns->last_space + 1 : 0;
}

/* Cut the full demangled function S back to its name, in place. */
static void cxx_drop_function_type(char *s)
{
	static const char *const quals[] = {
		" const", " volatile", " restrict", " &&", " &",
		" transaction_safe",
	};
	size_t n = strlen(s);
	for (int depth = 0; depth < 4; depth++) {
		size_t e = n;
		for (bool more = true; more;) {
			more = false;
			for (size_t i = 0; i < sizeof quals / sizeof *quals; i++)
				if (ends_with(s, e, quals[i])) {
					e -= strlen(quals[i]);
					more = true;
					break;
				}
		}
		/* returns a pointer to an array: "R (*NAME(ARGS)) [N]" */
		size_t a = e;
		while (a > 0 && s[a - 1] == ']') {
			while (a > 0 && s[a - 1] != '[')
				a--;
			if (a == 0)
				return;
			a--;
			if (a > 0 && s[a - 1] == ' ')
				a--;
		}
		bool array = a < e;
		if (array)
			e = a;
		if (e == 0 || s[e - 1] != ')')
			return;		/* not a function: printed as is */
		long open = match_open(s, e - 1);
		if (open < 0)
			return;
		n = (size_t)open;
		struct name_scan ns;
		scan_name(s, n, &ns);
		if (array)
			n = e;		/* the whole "(*NAME(ARGS))" */
		if (n > 0 && s[n - 1] == ')' && (array || !ns.op)) {
			/* returns a function pointer: "R (*NAME(ARGS))(...)":
			 * the name and its parameters are inside */
			long o = match_open(s, n - 1);
			if (o < 0)
				return;
			size_t from = (size_t)o + 1;
			while (s[from] == '*' || s[from] == '&' || s[from] == ' ')
				from++;
			memmove(s, s + from, n - 1 - from);
			n = n - 1 - from;
			s[n] = '\0';
			continue;
		}
		size_t start = name_start(s, n, &ns);
		memmove(s, s + start, n - start);
		s[n - start] = '\0';
		return;
	}
}

static char *cxx_demangle(const char *raw)
{
	int status;
	if (strncmp(raw, "_GLOBAL_", 8) == 0 && raw[8] && strchr("._$", raw[8]) &&
	    (raw[9] == 'D' || raw[9] == 'I') && raw[10] == '_')
		return __cxa_demangle(raw, NULL, NULL, &status);
	if (raw[0] != '_' || raw[1] != 'Z')
		return NULL;
	/* Mangled names are [A-Za-z0-9_], and '$' inside identifiers (clang's
	 * lambdas "$_0"); what follows (".cold", "@GLIBCXX_3.4") is not
	 * printed without DMGL_PARAMS. */
	size_t n = 2;
	while (is_ident(raw[n]) || raw[n] == '$')
		n++;
	char *buf = malloc(n + 1);
	if (!buf)
		return NULL;
	memcpy(buf, raw, n);
	buf[n] = '\0';
	char *d = __cxa_demangle(buf, NULL, NULL, &status);
	/* libiberty parses no further than the name: when libstdc++'s
	 * (older) demangler rejects the whole, its longest prefix that
	 * parses (the name, with as much of the rest as parses) */
	for (size_t k = n - 1; !d && status == -2 && k > 2; k--) {
		buf[k] = '\0';
		d = __cxa_demangle(buf, NULL, NULL, &status);
		if (!d && status != -2)
			break;
	}
	free(buf);
	if (d && raw[2] != 'T' && raw[2] != 'G')	/* not a special name */
		cxx_drop_function_type(d);
	return d;
}

/* The value of lowercase hex digit C, or -1. */
static int lower_hex_digit(unsigned char c)
{
	if ((unsigned)(c - '0') < 10u)
		return c - '0';
	return (unsigned)(c - 'a') < 6u ? c - 'a' + 10 : -1;
}

/* The value of hex digit C in either case, or -1. */
static int hex_digit(unsigned char c)
{
	return (unsigned)(c - '0') < 10u ? c - '0' : lower_hex_digit(c | 0x20);
}

/* Legacy Rust: _ZN<len><ident>...17h<16 hex>E as libiberty prints it,
 * "a::b::c" without the hash, escapes decoded. */
static char *rust_legacy_demangle(const char *raw)
{
	const char *sym = raw + 3;
	size_t len = strlen(sym);
	bool dot_suffix = true;
	while (len > 0 && !(dot_suffix && sym[len - 1] == 'E')) {
		dot_suffix = sym[len - 1] == '.';
		len--;
	}
	if (len == 0 || sym[len - 1] != 'E')
		return NULL;
	len--;
	if (len <= 19 || memcmp(sym + len - 19, "17h", 3) != 0)
		return NULL;
	for (const char *p = sym; *p; p++)	/* [_0-9a-zA-Z$.:@] only */
		if (!is_ident(*p) && !strchr("$.:@", *p))
			return NULL;
	/* every path segment well-formed, the last one the hash */
	size_t i = 0, last = 0;
	while (i < len) {
		if (!isdigit((unsigned char)sym[i]) || sym[i] == '0')
			return NULL;
		size_t k = 0;
		while (i < len && isdigit((unsigned char)sym[i]))
			k = 10 * k + (size_t)(sym[i++] - '0');
		if (k > len - i)
			return NULL;
		last = i;
		i += k;
	}
	if (len - last != 17 || sym[last] != 'h')
		return NULL;
	unsigned seen = 0, distinct = 0;
	for (size_t j = 1; j < 17; j++) {
		char c = sym[last + j];
		int v = lower_hex_digit((unsigned char)c);
		if (v < 0)
			return NULL;
		seen |= 1u << v;
	}
	for (; seen; seen >>= 1)
		distinct += seen & 1;
	if (distinct < 5)
		return NULL;

	char *out = malloc(2 * len + 1), *o = out;
	if (!out)
		return NULL;
	static const struct { const char *esc; char c; } escapes[] = {
		{ "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' },
		{ "$LT$", '<' }, { "$GT$", '>' }, { "$LP$", '(' },
		{ "$RP$", ')' }, { "$C$", ',' },
	};
	for (i = 0; i < last - 2;) {	/* the segments before the hash */
		size_t k = 0;
		while (isdigit((unsigned char)sym[i]))
			k = 10 * k + (size_t)(sym[i++] - '0');
		const char *id = sym + i, *end = sym + i + k;
		i += k;
		if (o != out) {
			*o++ = ':';
			*o++ = ':';
		}
		if (end - id >= 2 && id[0] == '_' && id[1] == '$')
			id++;
		while (id < end) {
			if (*id == '.') {
				bool two = id + 1 < end && id[1] == '.';
				if (two) {
					*o++ = ':';
					*o++ = ':';
				} else {
					*o++ = '.';
				}
				id += two ? 2 : 1;
				continue;
			}
			if (*id != '$') {
				*o++ = *id++;
				continue;
			}
			size_t e = 0;
			for (; e < sizeof escapes / sizeof *escapes; e++) {
				size_t el = strlen(escapes[e].esc);
				if ((size_t)(end - id) >= el &&
				    memcmp(id, escapes[e].esc, el) == 0) {
					*o++ = escapes[e].c;
					id += el;
					break;
				}
			}
			if (e < sizeof escapes / sizeof *escapes)
				continue;
			/* $uXX$: a character by its code */
			const char *q = id + 2;
			unsigned v = 0;
			for (int h; q < end && (h = lower_hex_digit((unsigned char)*q)) >= 0;
			     q++)
				v = 16 * v + (unsigned)h;
			if (id[1] == 'u' && q > id + 2 && q < end && *q == '$' &&
			    v > 0 && v < 0x80) {
				*o++ = (char)v;
				id = q + 1;
				continue;
			}
			/* unknown escape: the rest verbatim */
			memcpy(o, id, (size_t)(end - id));
			o += end - id;
			id = end;
		}
	}
	*o = '\0';
	return out;
}

/* perf's OCaml demangler: "camlFoo__bar$3e" -> "Foo.bar>". */
static char *ocaml_demangle(const char *raw)
{
	if (strncmp(raw, "caml", 4) != 0 || !isupper((unsigned char)raw[4]))
		return NULL;
	char *out = malloc(strlen(raw) + 1), *o = out;
	if (!out)
		return NULL;
	for (const char *p = raw + 4; *p;) {
		if (p[0] == '_' && p[1] == '_') {
			*o++ = '.';
			p += 2;
		} else if (p[0] == '$' && hex_digit((unsigned char)p[1]) >= 0 &&
			   hex_digit((unsigned char)p[2]) >= 0) {
			*o++ = (char)(16 * hex_digit((unsigned char)p[1]) +
				      hex_digit((unsigned char)p[2]));
			p += 3;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/* The name perf prints for a user-space symbol stored as RAW: a malloc'd
 * string, or NULL when it prints RAW itself (or on allocation failure). */
static char *perf_demangle(const char *raw)
{
	char *d = NULL;
	if (strncmp(raw, "_R", 2) == 0)
		return rust_v0_demangle(raw);
	if (strncmp(raw, "_ZN", 3) == 0)
		d = rust_legacy_demangle(raw);
	if (!d)
		d = cxx_demangle(raw);
	if (!d)
		d = ocaml_demangle(raw);
	return d;
}

static bool may_demangle(const char *raw)
{
	return (raw[0] == '_' && (raw[1] == 'Z' || raw[1] == 'G' || raw[1] == 'R')) ||
	       strncmp(raw, "caml", 4) == 0;
}

char *symtab_demangle(const char *raw)
{
	return may_demangle(raw) ? perf_demangle(raw) : NULL;
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
static void fixup_end(struct builder *b)
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
static void fixup_duplicate(struct builder *b)
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

static void builder_free(struct builder *b)
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
static symtab *finish(struct builder *b, ehelf_err *err)
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
		builder_free(b);
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
			if (!c->plt && !c->dem_done && !may_demangle(p))
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
	builder_free(b);
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

/* ---- ELF files ---------------------------------------------------------- */

/* The first section called NAME (perf looks sections up by name): its
 * index and header, 0 if none. */
static size_t find_section(elf_file *f, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, sh))
			continue;
		const char *n = elf_strptr(f->elf, f->shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return elf_ndxscn(scn);
	}
	return 0;
}

/* The same when that section has type TYPE (a symbol table, not the
 * NOBITS placeholder a debug file keeps), else 0. */
static size_t section_index(elf_file *f, const char *name, uint32_t type,
			    GElf_Shdr *sh)
{
	size_t i = find_section(f, name, sh);
	return i != 0 && sh->sh_type == type ? i : 0;
}

/*
 * One of perf's dso__load_sym_internal() passes: the symbols of table
 * TAB (.symtab or .dynsym of SF, section header TSH) into the tree.
 * RT is the runtime file, whose section headers perf reads when SF's are
 * NOBITS (a debug file).  Returns the number added, or -1 where perf's
 * pass fails (a symbol in a section that does not exist).
 */
static long load_pass(struct builder *b, elf_file *sf, elf_file *rt,
		      size_t tab, const GElf_Shdr *tsh)
{
	Elf_Data *data = elf_getdata(elf_getscn(sf->elf, tab), NULL);
	if (!data || tsh->sh_entsize == 0)
		return -1;
	size_t count = tsh->sh_size / tsh->sh_entsize;
	long added = 0;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		unsigned type = GELF_ST_TYPE(sym.st_info);
		bool label = type == STT_NOTYPE;
		unsigned vis = GELF_ST_VISIBILITY(sym.st_other);
		if (sym.st_name == 0 || sym.st_shndx == SHN_UNDEF)
			continue;
		if (!label && type != STT_FUNC && type != STT_GNU_IFUNC &&
		    type != STT_OBJECT)
			continue;
		if (label && (vis == STV_HIDDEN || vis == STV_INTERNAL))
			continue;
		if (sym.st_shndx == SHN_ABS)
			continue;
		Elf_Scn *scn = elf_getscn(sf->elf, sym.st_shndx);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh))
			return -1;
		if (!(sh.sh_flags & SHF_ALLOC))
			continue;
		elf_file *names = sf;
		if (sh.sh_type == SHT_NOBITS) {
			scn = elf_getscn(rt->elf, sym.st_shndx);
			if (!scn || !gelf_getshdr(scn, &sh))
				return -1;
			names = rt;
		}
		if (label) {
			const char *sec = elf_strptr(names->elf,
						     names->shstrndx,
						     sh.sh_name);
			if (!sec || (!strstr(sec, "text") && !strstr(sec, "data")))
				continue;
		}
		const char *name = elf_strptr(sf->elf, tsh->sh_link,
					      sym.st_name);
		if (!name)
			continue;
		int32_t c = cand_new(b, sym.st_value, sym.st_size,
				     GELF_ST_BIND(sym.st_info), name);
		if (c < 0)
			return -1;
		tree_log(b, c, false);
		added++;
	}
	if (added > 0) {
		fixup_end(b);
		fixup_duplicate(b);
	}
	return added;
}

/* perf's dso__synthesize_plt_symbols(): one "NAME@plt" symbol per
 * .rela.plt (or .rel.plt) entry, .plt's entry size apart after a header
 * of one entry, named by the .dynsym symbol of the relocation. */
static void synthesize_plt(struct builder *b, elf_file *rt)
{
	GElf_Shdr dsh, rsh, psh;
	size_t dyn = section_index(rt, ".dynsym", SHT_DYNSYM, &dsh);
	if (dyn == 0)
		return;
	size_t rel = find_section(rt, ".rela.plt", &rsh);
	if (rel == 0)
		rel = find_section(rt, ".rel.plt", &rsh);
	if (rel == 0 || rsh.sh_link != dyn || rsh.sh_entsize == 0 ||
	    (rsh.sh_type != SHT_RELA && rsh.sh_type != SHT_REL))
		return;
	size_t plt = find_section(rt, ".plt", &psh);
	Elf_Data *rdata = elf_getdata(elf_getscn(rt->elf, rel), NULL);
	Elf_Data *syms = elf_getdata(elf_getscn(rt->elf, dyn), NULL);
	Elf_Scn *strs = elf_getscn(rt->elf, dsh.sh_link);
	Elf_Data *sdata = strs ? elf_getdata(strs, NULL) : NULL;
	if (plt == 0 || !rdata || !syms || !sdata || sdata->d_size == 0)
		return;

	uint64_t entry = psh.sh_entsize, at = psh.sh_addr + entry;
	size_t count = rsh.sh_size / rsh.sh_entsize;
	for (size_t i = 0; i < count; i++, at += entry) {
		uint64_t info;
		if (rsh.sh_type == SHT_RELA) {
			GElf_Rela r;
			if (!gelf_getrela(rdata, (int)i, &r))
				break;
			info = r.r_info;
		} else {
			GElf_Rel r;
			if (!gelf_getrel(rdata, (int)i, &r))
				break;
			info = r.r_info;
		}
		GElf_Sym sym;
		const char *name = NULL;
		if (gelf_getsym(syms, (int)GELF_R_SYM(info), &sym))
			name = elf_strptr(rt->elf, dsh.sh_link, sym.st_name);
		int32_t c = cand_new(b, at, entry, STB_GLOBAL, name ? name : "");
		if (c < 0)
			return;
		C(c).plt = 1;
		tree_log(b, c, false);
	}
}

static bool regular_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool has_table(elf_file *f, const char *name, uint32_t type)
{
	GElf_Shdr sh;
	return section_index(f, name, type, &sh) != 0;
}

/* Open PATH into F if it is a symbol file for build-ID ID: a regular
 * ELF file with that build-ID and a .symtab. */
static bool open_debug(elf_file *f, const char *path, const uint8_t *id,
		       size_t idlen)
{
	if (!regular_file(path) || elf_file_open(f, path, NULL) != 0)
		return false;
	const uint8_t *have;
	int n = elf_file_build_id(f, &have);
	bool same = n > 0 && buildid_same(id, idlen, have, (size_t)n);
	if ((idlen > 0 && !same) || !has_table(f, ".symtab", SHT_SYMTAB)) {
		elf_file_close(f);
		return false;
	}
	return true;
}

/*
 * perf's dso__load() looks for the file with the symbol table in this
 * order, taking the first with a .symtab: the .gnu_debuglink targets, its
 * build-ID cache copy (the file itself), the cached debug file (the
 * build-ID one), /usr/lib/debug/PATH.debug, /usr/lib/debug/PATH, the
 * build-ID debug file, the file itself, DIR/.debug/BASE, and /usr/lib/debug
 * with /usr/lib/X mixed up as /lib/X.  F is the opened file; OUT gets the
 * symbol file when it is another one (returns true then).
 */
static bool find_debug(elf_file *f, const char *path, const uint8_t *id,
		       size_t idlen, bool own_symtab, elf_file *out)
{
	char buf[4096], dir[4096], hex[BUILDID_HEX_MAX + 1];
	const char *slash = strrchr(path, '/');
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, sizeof dir, ".");

	elf_section link;
	if (elf_file_section(f, ".gnu_debuglink", &link, NULL) == 0 &&
	    link.data && link.size > 0 && memchr(link.data, 0, link.size)) {
		const char *name = (const char *)link.data;
		const char *fmt[] = { "%s/%s", "%s/.debug/%s",
				      "/usr/lib/debug%s/%s" };
		for (int i = 0; i < 3; i++) {
			snprintf(buf, sizeof buf, fmt[i], dir, name);
			if (open_debug(out, buf, id, idlen))
				return true;
		}
	}
	if (own_symtab)
		return false;
	if (idlen > 0 && buildid_to_hex(id, idlen, hex, sizeof hex) > 0) {
		snprintf(buf, sizeof buf, "/usr/lib/debug/.build-id/%.2s/%s.debug",
			 hex, hex + 2);
		if (open_debug(out, buf, id, idlen))
			return true;
	}
	snprintf(buf, sizeof buf, "/usr/lib/debug%s.debug", path);
	if (open_debug(out, buf, id, idlen))
		return true;
	snprintf(buf, sizeof buf, "/usr/lib/debug%s", path);
	if (open_debug(out, buf, id, idlen))
		return true;
	snprintf(buf, sizeof buf, "%s/.debug/%s", dir, slash ? slash + 1 : path);
	if (open_debug(out, buf, id, idlen))
		return true;
	if (strncmp(path, "/usr/lib/", 9) == 0) {
		snprintf(buf, sizeof buf, "/usr/lib/debug%s", path + 4);
		if (open_debug(out, buf, id, idlen))
			return true;
	}
	return false;
}

/* The files a table for PATH is made from: *RT the file itself, *DBG its
 * symbol file when another one (*OTHER set), with *ID the file's own
 * build-ID (*IDLEN bytes, 0 if none).  0, or an ERR_* with ERR set and
 * nothing left open. */
struct sources {
	elf_file rt, dbg;
	bool other;
	uint8_t id[BUILDID_MAX_BYTES];
	size_t idlen;
};

static int open_sources(struct sources *src, const char *path,
			const uint8_t *build_id, size_t build_id_len,
			ehelf_err *err)
{
	elf_file *rt = &src->rt;
	if (!path)
		return err_set(err, ERR_ARG, "symbols: no file");
	int rc = elf_file_open(rt, path, err);
	if (rc != 0)
		return rc;

	const uint8_t *own;
	int own_len = elf_file_build_id(rt, &own);
	if (build_id_len > BUILDID_MAX_BYTES)
		build_id_len = BUILDID_MAX_BYTES;
	if (build_id_len > 0 && (own_len <= 0 ||
	    !buildid_same(build_id, build_id_len, own, (size_t)own_len))) {
		char want[BUILDID_HEX_MAX + 1] = "?";
		buildid_to_hex(build_id, build_id_len, want, sizeof want);
		elf_file_close(rt);
		return err_set(err, ERR_NOTFOUND, "%s: build-ID is not the "
			       "recorded %s", path, want);
	}
	src->idlen = 0;
	if (own_len > 0 && own_len <= BUILDID_MAX_BYTES) {
		memcpy(src->id, own, (size_t)own_len);
		src->idlen = (size_t)own_len;
	}
	bool own_symtab = has_table(rt, ".symtab", SHT_SYMTAB);
	src->other = find_debug(rt, path, src->id, src->idlen, own_symtab,
				&src->dbg);
	return 0;
}

static void close_sources(struct sources *src)
{
	if (src->other)
		elf_file_close(&src->dbg);
	elf_file_close(&src->rt);
}

/* The table made from SRC's files. */
static symtab *build_table(struct sources *src, unsigned flags,
			   ehelf_err *err)
{
	elf_file *sf = src->other ? &src->dbg : &src->rt, *rt = &src->rt;
	struct builder b = { .root = -1, .aliases = flags & SYMTAB_ALIASES };
	GElf_Shdr sh;
	long total = 0, n = 0;
	size_t tab = section_index(sf, ".symtab", SHT_SYMTAB, &sh);
	if (tab != 0)
		total = n = load_pass(&b, sf, rt, tab, &sh);
	tab = section_index(sf, ".dynsym", SHT_DYNSYM, &sh);
	if (n >= 0 && tab != 0) {
		n = load_pass(&b, sf, rt, tab, &sh);
		total = n < 0 ? n : total + n;
	}
	/* PLT entries come from the runtime file: the file itself when it
	 * has a .dynsym, else (static) the symbol file */
	if (total > 0)
		synthesize_plt(&b, has_table(rt, ".dynsym", SHT_DYNSYM) ? rt
									: sf);
	return finish(&b, err);
}

symtab *symtab_load_elf_flags(const char *path, const uint8_t *build_id,
			      size_t build_id_len, unsigned flags,
			      ehelf_err *err)
{
	struct sources src;
	if (open_sources(&src, path, build_id, build_id_len, err) != 0)
		return NULL;
	symtab *s = build_table(&src, flags, err);
	close_sources(&src);
	if (!s)
		err_prefix(err, "%s", path);
	return s;
}

/* What a saved table for SRC is checked against: the files it was made
 * from, by device, inode, size and modification time (a rebuilt file or
 * a debug file installed since gives another key). */
static void sources_key(const struct sources *src,
			uint64_t key[SYMTAB_KEY_WORDS])
{
	struct stat a, d;
	memset(&d, 0, sizeof d);
	if (fstat(src->rt.fd, &a) != 0)
		memset(&a, 0, sizeof a);
	if (src->other && fstat(src->dbg.fd, &d) != 0)
		memset(&d, 0, sizeof d);
	uint64_t v[] = {
		(uint64_t)a.st_dev, (uint64_t)a.st_ino, (uint64_t)a.st_size,
		(uint64_t)a.st_mtim.tv_sec, (uint64_t)a.st_mtim.tv_nsec,
		src->other, (uint64_t)d.st_dev, (uint64_t)d.st_ino,
		(uint64_t)d.st_size, (uint64_t)d.st_mtim.tv_sec,
		(uint64_t)d.st_mtim.tv_nsec,
	};
	/* the runtime file's identity as is, the rest mixed in (splitmix64) */
	uint64_t h = 0;
	for (size_t i = 5; i < sizeof v / sizeof *v; i++) {
		h += v[i] + 0x9e3779b97f4a7c15ull;
		h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
		h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
		h ^= h >> 31;
	}
	key[0] = v[0] ^ (v[1] << 20) ^ (v[1] >> 44);
	key[1] = v[2];
	key[2] = v[3] * 1000000000u + v[4];
	key[3] = h;
}

symtab *symtab_load_elf_saved(const char *path, const uint8_t *build_id,
			      size_t build_id_len, const char *dir,
			      ehelf_err *err)
{
	struct sources src;
	if (open_sources(&src, path, build_id, build_id_len, err) != 0)
		return NULL;
	char saved[4096], hex[BUILDID_HEX_MAX + 1];
	bool can_save = dir && src.idlen > 0 &&
			buildid_to_hex(src.id, src.idlen, hex, sizeof hex) > 0 &&
			snprintf(saved, sizeof saved, "%s/%s.tab", dir, hex) <
				(int)sizeof saved;
	uint64_t key[SYMTAB_KEY_WORDS];
	sources_key(&src, key);
	ehelf_err ignored;
	symtab *s = can_save ? symtab_load_saved(saved, key, &ignored) : NULL;
	if (!s) {
		s = build_table(&src, 0, err);
		if (s && can_save)
			symtab_save(s, key, saved, &ignored); /* only a cache */
	}
	close_sources(&src);
	if (!s)
		err_prefix(err, "%s", path);
	return s;
}

symtab *symtab_load_elf(const char *path, const uint8_t *build_id,
			size_t build_id_len, ehelf_err *err)
{
	return symtab_load_elf_flags(path, build_id, build_id_len, 0, err);
}

/* ---- kallsyms ----------------------------------------------------------- */

static char *read_all(const char *path, size_t *size, ehelf_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, ERR_IO, "%s: cannot open: %s", path,
			       strerror(errno)), NULL;
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap + 1);
	for (;;) {
		if (!buf)
			break;
		if (len == cap) {
			char *nb = realloc(buf, 2 * cap + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err_set(err, ERR_IO, "%s: read: %s", path,
				strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (!buf)
		return err_set(err, ERR_NOMEM, "%s: out of memory", path), NULL;
	buf[len] = '\0';
	*size = len;
	return buf;
}

symtab *symtab_load_kallsyms_file(const char *path, ehelf_err *err)
{
	size_t size;
	char *text = read_all(path, &size, err);
	if (!text)
		return NULL;
	struct builder b = { .root = -1, .kernel = true, .plain = true };
	bool any_address = false;
	/* "ADDRESS TYPE NAME[\t[MODULE]]\n": parsed by hand, as it is
	 * 120,000 lines of it, which strtoull and friends take 3 times
	 * longer to go through */
	for (char *line = text, *end = text + size; line < end;) {
		char *eol = memchr(line, '\n', (size_t)(end - line));
		if (eol)
			*eol = '\0';
		char *next = eol ? eol + 1 : end;
		uint64_t addr = 0;
		char *p = line;
		int d;
		while ((d = hex_digit((unsigned char)*p)) >= 0 && p - line < 16) {
			addr = addr << 4 | (uint64_t)d;
			p++;
		}
		if (p != line && p[0] == ' ' && p[1] && p[2] == ' ') {
			char type = (char)toupper((unsigned char)p[1]);
			const char *name = p + 3;
			uint8_t bind = islower((unsigned char)p[1]) ? STB_LOCAL :
				       type == 'W' ? STB_WEAK : STB_GLOBAL;
			if ((type == 'T' || type == 'W' || type == 'D' ||
			     type == 'B') && name[0] != '$') {
				int32_t c = cand_new(&b, addr, 0, bind, name);
				if (c < 0)
					break;
				tree_log(&b, c, false);
				any_address |= addr != 0;
			}
		}
		line = next;
	}
	if (!any_address) {	/* addresses hidden: nothing usable */
		builder_free(&b);
		b = (struct builder){ .root = -1, .kernel = true, .plain = true };
	}
	fixup_end(&b);
	fixup_duplicate(&b);
	symtab *s = finish(&b, err);
	free(text);
	if (!s)
		err_prefix(err, "%s", path);
	return s;
}

symtab *symtab_load_kallsyms(ehelf_err *err)
{
	return symtab_load_kallsyms_file("/proc/kallsyms", err);
}

/*
 * perf 6.1's dso__load_perf_map(), quirks included: each line as getline()
 * returns it loses its last character (the newline, or the last one of a
 * final line without it); START and SIZE are what strtoull(..., 16) makes
 * of the text (leading blanks, a "0x"), each followed by one separator
 * character, and a line is skipped unless at least 3 characters follow
 * each of them (so a name has 3 or more); every symbol is inserted as it
 * comes, [START, START + SIZE), none removed.
 */
symtab *symtab_load_perf_map(const char *path, ehelf_err *err)
{
	size_t size;
	char *text = read_all(path, &size, err);
	if (!text)
		return NULL;
	struct builder b = { .root = -1, .plain = true };
	for (char *line = text, *end = text + size; line < end;) {
		char *eol = memchr(line, '\n', (size_t)(end - line));
		char *next = eol ? eol + 1 : end;
		size_t line_len = (size_t)(next - line) - 1;
		line[line_len] = '\0';
		char *p;
		uint64_t start = strtoull(line, &p, 16);
		size_t len = (size_t)(p - line) + 1;
		if (len + 2 < line_len) {
			uint64_t sym_size = strtoull(line + len, &p, 16);
			len = (size_t)(p - line) + 1;
			if (len + 2 < line_len) {
				int32_t c = cand_new(&b, start, sym_size, STB_GLOBAL,
						     line + len);
				if (c < 0)
					break;
				tree_log(&b, c, false);
			}
		}
		line = next;
	}
	symtab *s = finish(&b, err);
	free(text);
	if (!s)
		err_prefix(err, "%s", path);
	return s;
}

/* ---- saved tables ------------------------------------------------------- */

/*
 * The file: a header, then iv_start[niv], syms[nsyms], iv_sym[niv] and the
 * pool, each naturally aligned; native byte order (x86_64 only, as the
 * rest).  Mapped read-only as is; checked on load so that a damaged file
 * can give wrong names but never a read out of bounds.
 */
#define SAVED_MAGIC "ehelfsym"
/* The key names the source files only: bump the version whenever what a
 * table holds for the same files changes (symbol choice, sizes, PLT
 * entries, intervals), or old tables will be served. */
enum { SAVED_VERSION = 3 };
#define SAVED_LAZY_NAMES 1u	/* names printed as computed (sym_name) */

struct saved_header {
	char magic[8];
	uint32_t version, flags;
	uint64_t key[SYMTAB_KEY_WORDS];
	uint64_t nsyms, niv, pool_size;
};

/* The offsets of the parts in a file of H's counts; the file size, or 0
 * if the counts overflow. */
static uint64_t saved_layout(const struct saved_header *h, uint64_t *syms,
			     uint64_t *iv_sym, uint64_t *pool)
{
	if (h->nsyms > INT32_MAX || h->niv > (1ull << 32) ||
	    h->pool_size > UINT32_MAX)
		return 0;
	uint64_t off = sizeof *h + h->niv * sizeof(uint64_t);
	*syms = off;
	off += h->nsyms * sizeof(struct sym);
	*iv_sym = off;
	off += h->niv * sizeof(int32_t);
	*pool = off;
	return off + h->pool_size;
}

int symtab_save(const symtab *s, const uint64_t key[SYMTAB_KEY_WORDS],
		const char *path, ehelf_err *err)
{
	struct saved_header h = { .version = SAVED_VERSION,
				  .flags = s->names ? SAVED_LAZY_NAMES : 0,
				  .nsyms = s->nsyms,
				  .niv = s->niv, .pool_size = s->pool_size };
	memcpy(h.magic, SAVED_MAGIC, sizeof h.magic);
	memcpy(h.key, key, sizeof h.key);
	uint64_t at_syms, at_iv_sym, at_pool;
	uint64_t size = saved_layout(&h, &at_syms, &at_iv_sym, &at_pool);
	char *buf = size ? malloc(size) : NULL;
	if (!buf)
		return err_set(err, ERR_NOMEM, "%s: out of memory", path);
	memcpy(buf, &h, sizeof h);
	memcpy(buf + sizeof h, s->iv_start, s->niv * sizeof *s->iv_start);
	memcpy(buf + at_syms, s->syms, s->nsyms * sizeof *s->syms);
	memcpy(buf + at_iv_sym, s->iv_sym, s->niv * sizeof *s->iv_sym);
	memcpy(buf + at_pool, s->pool, s->pool_size);
	int rc = atomic_write_cache(path, buf, size, 0600, err);
	free(buf);
	return rc;
}

symtab *symtab_load_saved(const char *path,
			  const uint64_t key[SYMTAB_KEY_WORDS], ehelf_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, errno == ENOENT ? ERR_NOTFOUND : ERR_IO,
			       "%s: cannot open: %s", path, strerror(errno)),
		       NULL;
	struct stat st;
	struct saved_header h;
	if (fstat(fd, &st) < 0 || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
	    memcmp(h.magic, SAVED_MAGIC, sizeof h.magic) != 0 ||
	    h.version != SAVED_VERSION || (h.flags & ~SAVED_LAZY_NAMES) ||
	    memcmp(h.key, key, sizeof h.key) != 0) {
		close(fd);
		return err_set(err, ERR_NOTFOUND, "%s: not a saved table for "
			       "this source", path), NULL;
	}
	uint64_t at_syms, at_iv_sym, at_pool;
	uint64_t size = saved_layout(&h, &at_syms, &at_iv_sym, &at_pool);
	/* an empty table (an ELF file without symbols) has an empty pool */
	bool empty = h.nsyms == 0 && h.niv == 0;
	if (!size || (uint64_t)st.st_size != size || (h.pool_size == 0 && !empty)) {
		close(fd);
		return err_set(err, ERR_FORMAT, "%s: damaged (size)", path), NULL;
	}
	/* not populated: a profile's lookups touch a few of its pages */
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return err_set(err, ERR_IO, "%s: mmap: %s", path,
			       strerror(errno)), NULL;
	symtab *s = calloc(1, sizeof *s);
	if (!s) {
		munmap(map, size);
		return err_set(err, ERR_NOMEM, "%s: out of memory", path), NULL;
	}
	char *base = map;
	*s = (symtab){
		.iv_start = (uint64_t *)(base + sizeof h),
		.syms = (struct sym *)(base + at_syms),
		.iv_sym = (int32_t *)(base + at_iv_sym),
		.pool = base + at_pool,
		.nsyms = h.nsyms, .niv = h.niv, .pool_size = h.pool_size,
		.map = map, .map_size = size,
	};
	if ((h.flags & SAVED_LAZY_NAMES) &&
	    !(s->names = calloc(h.nsyms + 1, sizeof *s->names))) {
		symtab_free(s);
		return err_set(err, ERR_NOMEM, "%s: out of memory", path), NULL;
	}
	/* every name terminated (the pool ends with a NUL); indexes and
	 * offsets are checked at lookup (in_table) */
	if (!empty && (s->pool_size == 0 || s->pool[s->pool_size - 1] != '\0')) {
		symtab_free(s);
		return err_set(err, ERR_FORMAT, "%s: damaged (contents)", path),
		       NULL;
	}
	return s;
}
