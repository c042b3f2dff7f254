/*
 * demangle.c - symbol names as perf 6.1 prints them (demangle.h): C++,
 * legacy Rust and OCaml here, Rust v0 in rust_v0.c.
 *
 * perf calls libiberty's cplus_demangle(NAME, DMGL_NO_OPTS): Rust (legacy
 * and v0) first, then the C++ ABI, and when both fail its own OCaml (and
 * Java) demanglers.  Without DMGL_PARAMS, libiberty prints the top-level
 * function's name only: no parameters, no qualifiers after them, no return
 * type, no clone suffix, and it ignores anything after the name.  libstdc++'s
 * __cxa_demangle is the same demangler with DMGL_PARAMS, so its output is
 * cut back to that form here.  Rust v0 ("_R") names: rust_v0.h.  Not done:
 * Java names (those contain ')', never seen in ELF symbols) stay as stored.
 */
#include "demangle.h"
#include "rust_v0.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler, looked up the first time a C++ name is met: a
 * program that links libstdc++ pays its loading at every start (some
 * 0.5 ms here, a tenth of ehelf-perf's fixed cost), and most runs find
 * their names already demangled in the saved symbol tables.  dlopen of the
 * library already loaded (in a C++ program) returns it. */
typedef char *cxa_demangle_fn(const char *mangled, char *buf, size_t *len,
			      int *status);

static cxa_demangle_fn *cxa_demangler(void)
{
	static _Atomic(cxa_demangle_fn *) fn;
	static atomic_bool tried;
	cxa_demangle_fn *f = atomic_load(&fn);
	if (f || atomic_load(&tried))
		return f;
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		f = (cxa_demangle_fn *)dlsym(h, "__cxa_demangle");
	atomic_store(&fn, f);
	atomic_store(&tried, true);
	return f;
}

/* __cxa_demangle, or NULL (*STATUS -1) without libstdc++ */
static char *cxa_demangle(const char *mangled, int *status)
{
	cxa_demangle_fn *f = cxa_demangler();
	if (!f) {
		*status = -1;
		return NULL;
	}
	return f(mangled, NULL, NULL, status);
}

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
		return cxa_demangle(raw, &status);
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
	char *d = cxa_demangle(buf, &status);
	/* libiberty parses no further than the name: when libstdc++'s
	 * (older) demangler rejects the whole, its longest prefix that
	 * parses (the name, with as much of the rest as parses) */
	for (size_t k = n - 1; !d && status == -2 && k > 2; k--) {
		buf[k] = '\0';
		d = cxa_demangle(buf, &status);
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

bool symtab_may_demangle(const char *raw)
{
	return (raw[0] == '_' && (raw[1] == 'Z' || raw[1] == 'G' || raw[1] == 'R')) ||
	       strncmp(raw, "caml", 4) == 0;
}

char *symtab_demangle(const char *raw)
{
	return symtab_may_demangle(raw) ? perf_demangle(raw) : NULL;
}
