/*
 * rust_v0.c - see rust_v0.h.
 *
 * A recursive-descent parser over the mangled name that prints as it
 * goes.  Grammar (the Rust reference, "Symbol Mangling v0"), in short:
 *
 *   symbol   = "_R" [decimal] path [path] ["." suffix]
 *   path     = "C" ident                  crate root
 *            | "M" impl-path type         <T>
 *            | "X" impl-path type path    <T as Trait>
 *            | "Y" type path              <T as Trait>
 *            | "N" ns path ident          a::b, a::{closure#0}
 *            | "I" path {arg} "E"         a::<T>, in types a<T>
 *            | backref
 *   type     = basic letter | path | "A" type const | "S" type
 *            | "T" {type} "E" | "R"/"Q" [lifetime] type | "P"/"O" type
 *            | "F" fn-sig | "D" dyn-bounds lifetime | backref
 *   backref  = "B" base62      a position from the start after "_R"
 *
 * Printing follows libiberty without DMGL_VERBOSE (what perf shows).
 * Nesting, output and work are bounded, so that no input makes it recurse,
 * allocate or run without limit.
 */
#include "rust_v0.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* bounds: nesting, output bytes, and parsing steps (backrefs re-parse
 * what they point to, muted ones print nothing: without a bound on the
 * work, a crafted name could take exponential time) */
enum { MAX_DEPTH = 200, MAX_OUT = 1 << 16, MAX_STEPS = 1 << 20 };

typedef struct v0 {
	const char *s;     /* the symbol after "_R" */
	size_t n, pos;
	bool err;
	int depth;
	unsigned steps;
	int mute;          /* > 0: parse without printing */
	uint64_t binders;  /* lifetimes bound by the enclosing for<...> */
	char *out;
	size_t len, cap;
	char *ident;       /* the last punycode identifier, decoded (UTF-8) */
	size_t ident_cap;
	size_t ident_raw;  /* the last identifier's bytes as mangled: an
			    * empty decoding of some still prints "::" */
} v0;

/* ---- output ------------------------------------------------------------- */

static void put(v0 *v, const char *p, size_t k)
{
	if (v->err || v->mute)
		return;
	if (v->len + k + 1 > v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 128;
		while (cap < v->len + k + 1)
			cap *= 2;
		char *o = cap <= MAX_OUT ? realloc(v->out, cap) : NULL;
		if (!o) {
			v->err = true;
			return;
		}
		v->out = o;
		v->cap = cap;
	}
	memcpy(v->out + v->len, p, k);
	v->len += k;
}

static void puts_(v0 *v, const char *p)
{
	put(v, p, strlen(p));
}

static void put_u64(v0 *v, uint64_t x)
{
	char b[24];
	snprintf(b, sizeof b, "%" PRIu64, x);
	puts_(v, b);
}

/* ---- input -------------------------------------------------------------- */

static char peek(const v0 *v)
{
	return v->pos < v->n ? v->s[v->pos] : 0;
}

static bool eat(v0 *v, char c)
{
	if (peek(v) != c)
		return false;
	v->pos++;
	return true;
}

static char next(v0 *v)
{
	char c = peek(v);
	if (!c)
		v->err = true;
	else
		v->pos++;
	return c;
}

/* base62 number: "_" is 0, "<digits>_" the digits' value plus 1 */
static uint64_t base62(v0 *v)
{
	if (eat(v, '_'))
		return 0;
	uint64_t x = 0;
	for (;;) {
		char c = next(v);
		if (v->err)
			return 0;
		if (c == '_')
			break;
		int d = c >= '0' && c <= '9' ? c - '0'
		      : c >= 'a' && c <= 'z' ? c - 'a' + 10
		      : c >= 'A' && c <= 'Z' ? c - 'A' + 36 : -1;
		if (d < 0 || x > (UINT64_MAX - (uint64_t)d) / 62) {
			v->err = true;
			return 0;
		}
		x = x * 62 + (uint64_t)d;
	}
	if (x == UINT64_MAX) {
		v->err = true;
		return 0;
	}
	return x + 1;
}

/* TAG base62, or 0 without TAG; plus one when present (disambiguators:
 * absent is 0, "s_" is 1) */
static uint64_t opt_base62(v0 *v, char tag)
{
	if (!eat(v, tag))
		return 0;
	uint64_t x = base62(v);
	if (x == UINT64_MAX)
		v->err = true;
	return x + 1;
}

static uint64_t decimal(v0 *v)
{
	char c = next(v);
	if (v->err || c < '0' || c > '9') {
		v->err = true;
		return 0;
	}
	uint64_t x = (uint64_t)(c - '0');
	if (c == '0')
		return 0;
	while (peek(v) >= '0' && peek(v) <= '9') {
		if (x > UINT64_MAX / 10 - 1) {
			v->err = true;
			return 0;
		}
		x = x * 10 + (uint64_t)(next(v) - '0');
	}
	return x;
}

/* Punycode (RFC 3492) parameters. */
enum { PUNY_BASE = 36, PUNY_TMIN = 1, PUNY_TMAX = 26, PUNY_SKEW = 38,
       PUNY_DAMP = 700, PUNY_BIAS = 72, PUNY_N = 0x80,
       PUNY_MAX_POINTS = 4096 };

static uint32_t puny_adapt(uint32_t delta, uint32_t points, bool first)
{
	delta = first ? delta / PUNY_DAMP : delta / 2;
	delta += delta / points;
	uint32_t k = 0;
	while (delta > ((PUNY_BASE - PUNY_TMIN) * PUNY_TMAX) / 2) {
		delta /= PUNY_BASE - PUNY_TMIN;
		k += PUNY_BASE;
	}
	return k + (PUNY_BASE - PUNY_TMIN + 1) * delta / (delta + PUNY_SKEW);
}

/*
 * A punycode identifier's K bytes at P, decoded into v->ident as UTF-8
 * (*P, *K replaced).  In v0 the basic code points come before the last
 * '_' (punycode's '-'), the encoded ones after it; none before when there
 * is no '_'.  Malformed input (nothing after the '_', a bad digit,
 * overflow): an error, as in libiberty; input ending inside a delta leaves
 * the identifier empty, as libiberty prints it.  A decoded code point that
 * is no Unicode scalar value is an error here, where libiberty prints
 * bytes that are no UTF-8 (rustc never makes either).
 */
static void punycode(v0 *v, const char **p, size_t *k)
{
	const char *s = *p;
	size_t n = *k, basic = 0, pos = 0;
	for (size_t j = n; j > 0; j--)
		if (s[j - 1] == '_') {
			basic = j - 1;
			pos = j;
			break;
		}
	if (n > PUNY_MAX_POINTS || pos == n) { /* too long; nothing encoded */
		v->err = true;
		return;
	}
	uint32_t cp[PUNY_MAX_POINTS];
	size_t len = 0;
	for (; len < basic; len++)
		cp[len] = (unsigned char)s[len];
	uint32_t code = PUNY_N, bias = PUNY_BIAS, i = 0;
	bool bad = false; /* a code point that is no scalar value */
	for (bool cut = false; pos < n && !cut;) {
		uint32_t old = i, w = 1;
		for (uint32_t kk = PUNY_BASE;; kk += PUNY_BASE) {
			if (pos >= n) {
				cut = true;
				break;
			}
			char c = s[pos++];
			uint32_t d = c >= 'a' && c <= 'z' ? (uint32_t)(c - 'a') :
				     c >= '0' && c <= '9' ? (uint32_t)(c - '0') + 26 :
				     PUNY_BASE;
			if (d >= PUNY_BASE || d > (UINT32_MAX - i) / w) {
				v->err = true;
				return;
			}
			i += d * w;
			uint32_t t = kk <= bias ? PUNY_TMIN :
				     kk >= bias + PUNY_TMAX ? PUNY_TMAX : kk - bias;
			if (d < t)
				break;
			if (w > UINT32_MAX / (PUNY_BASE - t)) {
				v->err = true;
				return;
			}
			w *= PUNY_BASE - t;
		}
		if (cut) {
			len = 0;
			break;
		}
		bias = puny_adapt(i - old, (uint32_t)len + 1, old == 0);
		if (i / (len + 1) > UINT32_MAX - code || len >= PUNY_MAX_POINTS) {
			v->err = true;
			return;
		}
		code += i / (uint32_t)(len + 1);
		i %= (uint32_t)(len + 1);
		bad |= code > 0x10ffff || (code >= 0xd800 && code < 0xe000);
		memmove(&cp[i + 1], &cp[i], (len - i) * sizeof *cp);
		cp[i++] = code;
		len++;
	}
	if (bad && len) {
		v->err = true;
		return;
	}
	if (v->ident_cap < 4 * len + 1) {
		char *b = realloc(v->ident, 4 * len + 1);
		if (!b) {
			v->err = true;
			return;
		}
		v->ident = b;
		v->ident_cap = 4 * len + 1;
	}
	char *o = v->ident;
	for (size_t j = 0; j < len; j++) {
		uint32_t c = cp[j];
		if (c < 0x80) {
			*o++ = (char)c;
		} else if (c < 0x800) {
			*o++ = (char)(0xc0 | c >> 6);
			*o++ = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			*o++ = (char)(0xe0 | c >> 12);
			*o++ = (char)(0x80 | (c >> 6 & 0x3f));
			*o++ = (char)(0x80 | (c & 0x3f));
		} else {
			*o++ = (char)(0xf0 | c >> 18);
			*o++ = (char)(0x80 | (c >> 12 & 0x3f));
			*o++ = (char)(0x80 | (c >> 6 & 0x3f));
			*o++ = (char)(0x80 | (c & 0x3f));
		}
	}
	*p = v->ident;
	*k = (size_t)(o - v->ident);
}

/* An identifier's bytes: [s<base62>] ["u"] <decimal> ["_"] <bytes>, "u"
 * marking punycode (decoded: *P then points into v->ident, valid until
 * the next identifier). */
static void ident(v0 *v, uint64_t *dis, const char **p, size_t *k)
{
	*dis = opt_base62(v, 's');
	bool puny = eat(v, 'u');
	uint64_t len = decimal(v);
	eat(v, '_');
	if (v->err || len > v->n - v->pos) {
		v->err = true;
		return;
	}
	*p = v->s + v->pos;
	*k = (size_t)len;
	v->ident_raw = (size_t)len;
	v->pos += (size_t)len;
	if (puny)
		punycode(v, p, k);
}

/* ---- the grammar ----------------------------------------------------------- */

static void path(v0 *v, bool in_value);
static void type(v0 *v);
static void konst(v0 *v);
static void generic_arg(v0 *v);

static bool enter(v0 *v)
{
	if (++v->depth > MAX_DEPTH || ++v->steps > MAX_STEPS)
		v->err = true;
	return !v->err;
}

/* Parse (and print) from the earlier position a backref names, then come
 * back.  The position must lie before the backref itself. */
static void backref(v0 *v, void (*what)(v0 *, bool), bool arg)
{
	size_t at = v->pos - 1;
	uint64_t to = base62(v);
	if (v->err || to >= at) {
		v->err = true;
		return;
	}
	size_t back = v->pos;
	v->pos = (size_t)to;
	what(v, arg);
	v->pos = back;
}

static void type_adapter(v0 *v, bool unused)
{
	(void)unused;
	type(v);
}

static void konst_adapter(v0 *v, bool unused)
{
	(void)unused;
	konst(v);
}

/* 'a, 'b, ... for lifetimes bound by for<...>; '_ for an erased one */
static void lifetime(v0 *v, uint64_t lt)
{
	if (lt == 0) {
		puts_(v, "'_");
		return;
	}
	if (lt > v->binders) {
		v->err = true;
		return;
	}
	uint64_t depth = v->binders - lt;
	if (depth < 26) {
		char b[3] = { '\'', (char)('a' + depth), 0 };
		puts_(v, b);
	} else {
		puts_(v, "'_");
		put_u64(v, depth);
	}
}

/* [G<base62>]: for<'a, ...> (printed), the count added to the binders */
static uint64_t binder(v0 *v)
{
	uint64_t k = opt_base62(v, 'G');
	if (v->err || k == 0)
		return 0;
	puts_(v, "for<");
	for (uint64_t i = 0; i < k && !v->err; i++) {
		if (i)
			puts_(v, ", ");
		v->binders++;
		lifetime(v, 1);
	}
	puts_(v, "> ");
	return k;
}

static void generic_arg(v0 *v)
{
	if (eat(v, 'L'))
		lifetime(v, base62(v));
	else if (eat(v, 'K'))
		konst(v);
	else
		type(v);
}

static const char *basic(char c)
{
	switch (c) {
	case 'a': return "i8";
	case 'b': return "bool";
	case 'c': return "char";
	case 'd': return "f64";
	case 'e': return "str";
	case 'f': return "f32";
	case 'h': return "u8";
	case 'i': return "isize";
	case 'j': return "usize";
	case 'l': return "i32";
	case 'm': return "u32";
	case 'n': return "i128";
	case 'o': return "u128";
	case 'p': return "_";
	case 's': return "i16";
	case 't': return "u16";
	case 'u': return "()";
	case 'v': return "...";
	case 'x': return "i64";
	case 'y': return "u64";
	case 'z': return "!";
	}
	return NULL;
}

static void fn_sig(v0 *v)
{
	uint64_t bound = binder(v);
	if (eat(v, 'U'))
		puts_(v, "unsafe ");
	if (eat(v, 'K')) {
		puts_(v, "extern \"");
		if (eat(v, 'C')) {
			puts_(v, "C");
		} else {
			uint64_t dis;
			const char *p = NULL;
			size_t k = 0;
			ident(v, &dis, &p, &k);
			for (size_t i = 0; i < k && !v->err; i++)
				put(v, p[i] == '_' ? "-" : &p[i], 1);
		}
		puts_(v, "\" ");
	}
	puts_(v, "fn(");
	for (int i = 0; !v->err && !eat(v, 'E'); i++) {
		if (i)
			puts_(v, ", ");
		type(v);
	}
	if (peek(v) == 'u') {
		v->pos++;
	} else {
		puts_(v, ") -> ");
		type(v);
		v->binders -= bound;
		return;
	}
	puts_(v, ")");
	v->binders -= bound;
}

/* A path whose generic arguments, if it has any, stay open ("Fn<(u8,)"),
 * so that associated-type bindings can join them; true if so. */
static bool path_maybe_open(v0 *v)
{
	if (!enter(v))
		return false;
	bool open = false;
	if (eat(v, 'B')) {
		size_t at = v->pos - 1;
		uint64_t to = base62(v);
		if (!v->err && to < at) {
			size_t back = v->pos;
			v->pos = (size_t)to;
			open = path_maybe_open(v);
			v->pos = back;
		} else {
			v->err = true;
		}
	} else if (eat(v, 'I')) {
		path(v, false);
		puts_(v, "<");
		for (int i = 0; !v->err && !eat(v, 'E'); i++) {
			if (i)
				puts_(v, ", ");
			generic_arg(v);
		}
		open = true;
	} else {
		path(v, false);
	}
	v->depth--;
	return open;
}

/* dyn [for<...>] Trait<Args, Assoc = T> + ... ['lifetime] */
static void dyn_bounds(v0 *v)
{
	puts_(v, "dyn ");
	uint64_t bound = binder(v);
	for (int i = 0; !v->err && !eat(v, 'E'); i++) {
		if (i)
			puts_(v, " + ");
		bool open = path_maybe_open(v);
		while (!v->err && eat(v, 'p')) {
			puts_(v, open ? ", " : "<");
			open = true;
			uint64_t dis;
			const char *p = NULL;
			size_t k = 0;
			ident(v, &dis, &p, &k);
			put(v, p, k);
			puts_(v, " = ");
			type(v);
		}
		if (open)
			puts_(v, ">");
	}
	v->binders -= bound;
	if (!eat(v, 'L')) {
		v->err = true;
		return;
	}
	uint64_t lt = base62(v);
	if (lt) {
		puts_(v, " + ");
		lifetime(v, lt);
	}
}

static void type(v0 *v)
{
	if (!enter(v))
		return;
	char c = peek(v);
	const char *b = basic(c);
	if (b) {
		v->pos++;
		puts_(v, b);
	} else if (c == 'R' || c == 'Q') {
		v->pos++;
		puts_(v, "&");
		if (eat(v, 'L')) {
			uint64_t lt = base62(v);
			if (lt) {
				lifetime(v, lt);
				puts_(v, " ");
			}
		}
		if (c == 'Q')
			puts_(v, "mut ");
		type(v);
	} else if (c == 'P' || c == 'O') {
		v->pos++;
		puts_(v, c == 'P' ? "*const " : "*mut ");
		type(v);
	} else if (c == 'A' || c == 'S') {
		v->pos++;
		puts_(v, "[");
		type(v);
		if (c == 'A') {
			puts_(v, "; ");
			konst(v);
		}
		puts_(v, "]");
	} else if (c == 'T') {
		v->pos++;
		puts_(v, "(");
		int i = 0;
		for (; !v->err && !eat(v, 'E'); i++) {
			if (i)
				puts_(v, ", ");
			type(v);
		}
		puts_(v, i == 1 ? ",)" : ")");
	} else if (c == 'F') {
		v->pos++;
		fn_sig(v);
	} else if (c == 'D') {
		v->pos++;
		dyn_bounds(v);
	} else if (c == 'B') {
		v->pos++;
		backref(v, type_adapter, false);
	} else {
		path(v, false);
	}
	v->depth--;
}

/* <hex digits>_ as an unsigned number; false if longer than 64 bits */
static bool hex_value(v0 *v, uint64_t *x)
{
	*x = 0;
	int digits = 0;
	for (;;) {
		char c = next(v);
		if (v->err)
			return false;
		if (c == '_')
			return true;
		int d = c >= '0' && c <= '9' ? c - '0'
		      : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0 || ++digits > 16) {
			v->err = true;
			return false;
		}
		*x = *x << 4 | (uint64_t)d;
	}
}

static void konst(v0 *v)
{
	if (!enter(v))
		return;
	char c = next(v);
	uint64_t x;
	if (c == 'p') {
		puts_(v, "_");
	} else if (c == 'B') {
		backref(v, konst_adapter, false);
	} else if (strchr("hmtyjo", c) && c) {       /* unsigned */
		if (hex_value(v, &x))
			put_u64(v, x);
	} else if (strchr("alsxni", c) && c) {       /* signed */
		bool neg = eat(v, 'n');
		if (hex_value(v, &x)) {
			if (neg)
				puts_(v, "-");
			put_u64(v, x);
		}
	} else if (c == 'b') {
		if (hex_value(v, &x) && x <= 1)
			puts_(v, x ? "true" : "false");
		else
			v->err = true;
	} else if (c == 'c') {
		if (hex_value(v, &x) && x >= 0x20 && x < 0x7f && x != '\'' &&
		    x != '\\') {
			char q[4] = { '\'', (char)x, '\'', 0 };
			puts_(v, q);
		} else {
			v->err = true;  /* escapes and non-ASCII: not handled */
		}
	} else {
		v->err = true;
	}
	v->depth--;
}

static void path(v0 *v, bool in_value)
{
	if (!enter(v))
		return;
	char c = next(v);
	uint64_t dis;
	const char *p = NULL;
	size_t k = 0;
	switch (c) {
	case 'C':
		ident(v, &dis, &p, &k);
		put(v, p, k);
		break;
	case 'N': {
		char ns = next(v);
		if (!((ns >= 'a' && ns <= 'z') || (ns >= 'A' && ns <= 'Z'))) {
			v->err = true;
			break;
		}
		path(v, in_value);
		ident(v, &dis, &p, &k);
		if (ns >= 'A' && ns <= 'Z') {
			puts_(v, "::{");
			puts_(v, ns == 'C' ? "closure" : ns == 'S' ? "shim" : "");
			if (ns != 'C' && ns != 'S')
				put(v, &ns, 1);
			if (v->ident_raw) {
				puts_(v, ":");
				put(v, p, k);
			}
			puts_(v, "#");
			put_u64(v, dis);
			puts_(v, "}");
		} else if (v->ident_raw) {
			puts_(v, "::");
			put(v, p, k);
		}
		break;
	}
	case 'M':
	case 'X':
	case 'Y':
		if (c != 'Y') { /* the impl's own path is not printed */
			opt_base62(v, 's');
			v->mute++;
			path(v, false);
			v->mute--;
		}
		puts_(v, "<");
		type(v);
		if (c != 'M') {
			puts_(v, " as ");
			path(v, false);
		}
		puts_(v, ">");
		break;
	case 'I':
		path(v, in_value);
		puts_(v, in_value ? "::<" : "<");
		for (int i = 0; !v->err && !eat(v, 'E'); i++) {
			if (i)
				puts_(v, ", ");
			generic_arg(v);
		}
		puts_(v, ">");
		break;
	case 'B':
		backref(v, path, in_value);
		break;
	default:
		v->err = true;
	}
	v->depth--;
}

char *rust_v0_demangle(const char *raw)
{
	if (strncmp(raw, "_R", 2) != 0)
		return NULL;
	v0 v = { .s = raw + 2 };
	/* [_0-9a-zA-Z] up to a vendor suffix, which is ignored */
	size_t n = 0;
	for (; v.s[n] && v.s[n] != '.'; n++) {
		char c = v.s[n];
		if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z')))
			return NULL;
	}
	v.n = n;
	if (peek(&v) >= '0' && peek(&v) <= '9') /* encoding version */
		decimal(&v);
	path(&v, true);
	if (!v.err && v.pos < v.n) { /* the instantiating crate */
		v.mute++;
		path(&v, false);
		v.mute--;
	}
	free(v.ident);
	if (v.err || v.pos != v.n || !v.out) {
		free(v.out);
		return NULL;
	}
	v.out[v.len] = '\0';
	return v.out;
}
