/* ruleset_fp.c - see ruleset_fp.h. */
#include "ruleset_fp.h"

#include <stdio.h>

#include "../cfi/uw_dump.h"
#include "body_gen.h"

static const uint64_t fnv_basis = 0xcbf29ce484222325ull;
static const uint64_t fnv_prime = 0x100000001b3ull;

static uint64_t fnv_byte(uint64_t h, uint8_t b)
{
	return (h ^ b) * fnv_prime;
}

/* V's low NBYTES bytes, little-endian. */
static uint64_t fnv_le(uint64_t h, uint64_t v, int nbytes)
{
	for (int i = 0; i < nbytes; i++)
		h = fnv_byte(h, (uint8_t)(v >> (8 * i)));
	return h;
}

static uint64_t fnv_expr(uint64_t h, const uint8_t *e, uint32_t len)
{
	h = fnv_le(h, len, 4);
	for (uint32_t i = 0; i < len; i++)
		h = fnv_byte(h, e[i]);
	return h;
}

uint64_t ruleset_fp_rules(const uw_rules *r, bool signal_frame)
{
	uint64_t h = fnv_byte(fnv_basis, signal_frame ? 1 : 0);
	h = fnv_byte(h, r->cfa.kind);
	if (r->cfa.kind == UW_CFA_REG_OFF)
		h = fnv_le(fnv_le(h, r->cfa.reg, 2), (uint64_t)r->cfa.off, 8);
	else if (r->cfa.kind == UW_CFA_EXPR)
		h = fnv_expr(h, r->cfa.expr, r->cfa.expr_len);
	for (int i = 0; i < UW_NCOLS; i++) {
		const uw_rule *x = &r->reg[i];
		h = fnv_byte(h, x->kind);
		switch (x->kind) {
		case UW_OFFSET:
		case UW_VAL_OFFSET:
			h = fnv_le(h, (uint64_t)x->off, 8);
			break;
		case UW_REGISTER:
			h = fnv_le(h, x->reg, 2);
			break;
		case UW_EXPR:
		case UW_VAL_EXPR:
			h = fnv_expr(h, x->expr, x->expr_len);
			break;
		}
	}
	return h;
}

uint64_t ruleset_fp(const ruleset *rs)
{
	return ruleset_fp_rules(&rs->r, rs->signal_frame);
}

uint64_t ruleset_shape_fp(const ruleset *rs)
{
	ruleset shape;
	body_shape(rs, &shape);
	return ruleset_fp(&shape);
}

size_t ruleset_text(const ruleset *rs, char *buf, size_t n)
{
	if (n == 0)
		return 0;
	char part[64], rn[16];
	uw_format_cfa(&rs->r.cfa, part, sizeof part);
	size_t len = (size_t)snprintf(buf, n, "cfa=%s", part);
	for (int col = 0; col < UW_NCOLS && len < n; col++) {
		const uw_rule *x = &rs->r.reg[col];
		if (x->kind == UW_UNSET)
			continue;
		uw_format_rule(x, part, sizeof part);
		len += (size_t)snprintf(buf + len, n - len, " %s=%s",
					col == UW_RA ? "ra"
						     : uw_reg_name((unsigned)col, rn),
					part);
	}
	if (rs->signal_frame && len < n)
		len += (size_t)snprintf(buf + len, n - len, " signal");
	return len < n ? len : n - 1;
}
