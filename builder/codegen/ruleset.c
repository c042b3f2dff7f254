/* ruleset.c - see ruleset.h. */
#include "ruleset.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/err.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t hash_bytes(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t hash_rules(const uw_rules *r, bool signal)
{
	uint64_t h = mix(0, signal);
	h = mix(h, r->cfa.kind);
	if (r->cfa.kind == UW_CFA_REG_OFF)
		h = mix(mix(h, r->cfa.reg), (uint64_t)r->cfa.off);
	else if (r->cfa.kind == UW_CFA_EXPR)
		h = hash_bytes(h, r->cfa.expr, r->cfa.expr_len);
	for (int i = 0; i < UW_NCOLS; i++) {
		const uw_rule *x = &r->reg[i];
		h = mix(h, x->kind);
		switch (x->kind) {
		case UW_OFFSET:
		case UW_VAL_OFFSET:
			h = mix(h, (uint64_t)x->off);
			break;
		case UW_REGISTER:
			h = mix(h, x->reg);
			break;
		case UW_EXPR:
		case UW_VAL_EXPR:
			h = hash_bytes(h, x->expr, x->expr_len);
			break;
		}
	}
	return h;
}

int ruleset_table_init(ruleset_table *t)
{
	memset(t, 0, sizeof *t);
	t->cap = 64;
	t->v = calloc(t->cap, sizeof *t->v);
	t->nslots = 128;
	t->slots = calloc(t->nslots, sizeof *t->slots);
	if (!t->v || !t->slots) {
		ruleset_table_free(t);
		return ERR_NOMEM;
	}
	t->n = 1; /* placeholder for "not covered" */
	return 0;
}

void ruleset_table_free(ruleset_table *t)
{
	free(t->v);
	free(t->slots);
	memset(t, 0, sizeof *t);
}

static int rehash(ruleset_table *t)
{
	size_t ns = t->nslots * 2;
	uint32_t *s = calloc(ns, sizeof *s);
	if (!s)
		return ERR_NOMEM;
	for (size_t i = 1; i < t->n; i++) {
		size_t h = t->v[i].hash & (ns - 1);
		while (s[h])
			h = (h + 1) & (ns - 1);
		s[h] = (uint32_t)i;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = ns;
	return 0;
}

int64_t ruleset_intern(ruleset_table *t, const uw_rules *r, bool signal)
{
	uint64_t h = hash_rules(r, signal);
	size_t mask = t->nslots - 1;
	size_t at = h & mask;
	while (t->slots[at]) {
		ruleset *c = &t->v[t->slots[at]];
		if (c->hash == h && c->signal_frame == signal &&
		    uw_rules_eq(&c->r, r))
			return t->slots[at];
		at = (at + 1) & mask;
	}
	if (t->n == t->cap) {
		size_t cap = 2 * t->cap;
		ruleset *v = realloc(t->v, cap * sizeof *v);
		if (!v)
			return ERR_NOMEM;
		t->v = v;
		t->cap = cap;
	}
	if (t->n >= UINT32_MAX)
		return ERR_NOMEM;
	ruleset *n = &t->v[t->n];
	memset(n, 0, sizeof *n);
	n->r = *r;
	n->signal_frame = signal;
	n->hash = h;
	t->slots[at] = (uint32_t)t->n;
	int64_t idx = (int64_t)t->n++;
	if (t->n * 2 > t->nslots && rehash(t) < 0)
		return ERR_NOMEM;
	return idx;
}
