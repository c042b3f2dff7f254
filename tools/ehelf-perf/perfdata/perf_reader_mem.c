/*
 * perf_reader_mem.c - see perf_reader_mem.h.
 */
#include "perf_reader_mem.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int pr_fmt_err(ehelf_err *err, const perf_reader *r, uint64_t off,
	       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(err, ERR_FORMAT, fmt, ap);
	va_end(ap);
	err_prefix(err, "%s: offset %" PRIu64, r->name, off);
	return ERR_FORMAT;
}

int pr_nomem(ehelf_err *err, const perf_reader *r)
{
	return err_set(err, ERR_NOMEM, "%s: out of memory", r->name);
}

bool pr_reserve(void *pp, size_t *cap, size_t n, size_t elem)
{
	if (n <= *cap)
		return true;
	size_t c = *cap ? *cap : 16;
	while (c < n)
		c *= 2;
	void *p;
	memcpy(&p, pp, sizeof p);
	p = realloc(p, c * elem);
	if (!p)
		return false;
	memcpy(pp, &p, sizeof p);
	*cap = c;
	return true;
}

void *pr_arena_alloc(perf_reader *r, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	struct chunk *c = r->arena;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 16384 ? n : 16384;
		c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->next = r->arena;
		c->used = 0;
		c->cap = cap;
		r->arena = c;
	}
	void *p = c->data + c->used;
	c->used += n;
	return p;
}

char *pr_arena_str(perf_reader *r, const uint8_t *s, size_t max)
{
	size_t n = strnlen((const char *)s, max);
	char *p = pr_arena_alloc(r, n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}
