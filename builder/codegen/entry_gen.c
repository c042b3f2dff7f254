/*
 * entry_gen.c - see entry_gen.h: gen_blob_build plans each rule set's body
 * (shapes shared by the rule sets that differ only in offsets, their
 * parameters, the rule sets' numbering by use), emits the code of the form
 * it chooses (entry_compact.c, or entry_full.c) and the bodies
 * (body_gen.h), then the tables after the code (entry_tables.c).  The
 * layout and the parts: entry_layout.h.
 */
#include "entry_gen.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/err.h"
#include "body_gen.h"
#include "entry_compact.h"
#include "entry_full.h"
#include "entry_layout.h"
#include "entry_lookup.h"
#include "entry_summary.h"
#include "entry_tables.h"
#include "summary.h"

static gen_ctx make_ctx(x86_asm *a, gen_mode mode)
{
	gen_ctx g = { .a = a, .mode = mode, .read_reg = XNONE };
	if (mode == GEN_LOCAL) {
		g.in = RSI;
		g.out = RDI;
		g.cfa = R11;
		g.stack_lo = R8;
		g.stack_hi_minus_8 = R9;
		g.params_reg = RBX;
	} else {
		g.in = R12;
		g.out = R13;
		g.cfa = RBX;
		g.stack_lo = g.stack_hi_minus_8 = XNONE;
		g.params_reg = XNONE;
		g.params_slot = M(RBP, 8 * GEN_MAX_STACK);
	}
	g.l_done = x86_label(a);
	g.l_badreg = x86_label(a);
	g.l_bounds = x86_label(a);
	g.l_expr = x86_label(a);
	g.l_read = x86_label(a);
	return g;
}

static int emit_shape_bodies(gen_blob *b, gen_ctx *g, shape *sh, size_t nsh,
			     int mode, bool record)
{
	x86_asm *a = g->a;
	char why[120];
	for (size_t i = 0; i < nsh; i++) {
		if (mode == 1 && !sh[i].remote)
			continue;
		sh[i].label[mode] = x86_label(a);
		x86_bind(a, sh[i].label[mode]);
		g->params16 = !sh[i].wide;
		int rc = body_emit(g, &sh[i].rs, sh[i].parametric, why, sizeof why);
		if (rc == ERR_NOMEM)
			return rc;
		if (rc == ERR_UNSUPPORTED) {
			body_emit_status(g, EHELF_E_UNSUPPORTED);
			if (record) {
				gen_unsupported *u = realloc(b->unsupported,
					(b->nunsupported + 1) * sizeof *u);
				if (!u)
					return ERR_NOMEM;
				b->unsupported = u;
				u[b->nunsupported].ruleset = (uint32_t)i; /* fixed up below */
				memcpy(u[b->nunsupported].why, why, sizeof why);
				b->nunsupported++;
			}
		}
	}
	return a->failed ? ERR_NOMEM : 0;
}

/* Files of at most this many entries (about 16 KiB of .eh_frame) and 256
 * rule sets are compact (emit_compact): one core for both step entry
 * points, which interprets summaries, and one body per rule set without
 * a summary.  Larger files keep an inlined lookup and compiled bodies in
 * both modes, a few ns faster a step. */
enum { COMPACT_MAX_ENTRIES = 16384, COMPACT_MAX_RULESETS = 256,
       COMPACT_SMALL_LOOKUP_MAX = 2048 };

/* Parameters all in int16's range (NP < 0: none). */
static bool fits16(const int32_t *p, int np)
{
	for (int k = 0; k < np; k++)
		if (p[k] < INT16_MIN || p[k] > INT16_MAX)
			return false;
	return true;
}

typedef struct use {
	uint64_t count;        /* entries of the rule set */
	uint32_t index;
} use;

static int cmp_use(const void *pa, const void *pb)
{
	const use *x = pa, *y = pb;
	if ((x->index == 0) != (y->index == 0)) /* "not covered" stays first */
		return x->index == 0 ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index; /* reproducible */
}

/* The rule sets ordered by the entries using them, most first, 0 first;
 * with ESCAPES, index LT_ESCAPE is left out (NO_RULESET: the escape).
 * Returns ORDER (new -> old, *NSLOTS of them), *RENUM (old -> new); NULL
 * if out of memory. */
static uint32_t *number_by_use(const lookup_table *t, size_t n, bool escapes,
			       uint32_t **renum, size_t *nslots)
{
	*nslots = escapes ? n + 1 : n;
	use *u = calloc(n, sizeof *u);
	uint32_t *order = malloc(*nslots * sizeof *order);
	*renum = malloc(n * sizeof **renum);
	if (!u || !order || !*renum) {
		free(u);
		free(order);
		free(*renum);
		*renum = NULL;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		u[i].index = (uint32_t)i;
	for (size_t i = 0; i < t->nentries; i++)
		u[t->rule[i]].count++;
	qsort(u, n, sizeof *u, cmp_use);
	for (size_t k = 0, slot = 0; k < n; k++, slot++) {
		if (escapes && slot == LT_ESCAPE)
			order[slot++] = NO_RULESET;
		order[slot] = u[k].index;
		(*renum)[u[k].index] = (uint32_t)slot;
	}
	free(u);
	return order;
}

/* The labels of the blob's tables and the form: compact or full, and the
 * compact form's lookup (the word form comes later: plan_word_form). */
static tables tables_init(x86_asm *a, const lookup_table *t,
			  const ruleset_table *rs, gen_form form)
{
	tables tb = {
		.pages = x86_label(a), .entry_offsets = x86_label(a), .entry_rules = x86_label(a),
		.records = x86_label(a), .params = x86_label(a),
		.summaries = x86_label(a),
		.byte_ones = x86_label(a), .byte_top_bits = x86_label(a),
		.byte_low_bits = x86_label(a),
		.cnt_width = t->cnt_width,
		.page_stride = t->stride,
		.escapes = rs->n > 256,
		/* small files: see emit_compact (a few ns slower a step
		 * than compiled bodies, but most of a small eh_elf was the
		 * code of its entry points and bodies) */
		.compact = form == GEN_FORM_COMPACT_LARGE ? rs->n <= COMPACT_MAX_RULESETS :
			   form == GEN_FORM_AUTO && rs->n <= COMPACT_MAX_RULESETS &&
			   t->nentries <= COMPACT_MAX_ENTRIES,
		.lookup_fn = x86_label(a), .bodies = x86_label(a),
		.bodyrefs = x86_label(a), .expand = x86_label(a),
		.esc_rank = x86_label(a), .esc_rules = x86_label(a),
		.esc_find = x86_label(a),
		.again = { x86_label(a), x86_label(a) },
		.stub = { x86_label(a), x86_label(a) },
	};
	/* compact files: one lookup subroutine (480 bytes less, 1 ns more a
	 * step) */
	tb.shared_lookup = tb.compact;
	tb.vec_lookup = tb.compact && (t->nentries > COMPACT_SMALL_LOOKUP_MAX ||
					form == GEN_FORM_COMPACT_LARGE);
	return tb;
}

/* The plan's arrays for N rule sets; 0 or ERR_NOMEM. */
static int plan_alloc(blob_plan *p, size_t n)
{
	p->code = calloc(n, sizeof *p->code);
	p->sh = calloc(n, sizeof *p->sh);
	p->params = malloc(n * BODY_MAX_PARAMS * sizeof *p->params);
	return p->code && p->sh && p->params ? 0 : ERR_NOMEM;
}

static void plan_free(blob_plan *p)
{
	free(p->code);
	free(p->sh);
	free(p->params);
	free(p->order);
	free(p->renum);
}

/* Shapes: rule sets that differ only in offsets share a body (one with
 * int16 and one with int32 parameters); each rule set's shape, its
 * parameters and their byte offsets.  COMPACT: a summarised rule set gets
 * no body, record or parameters at all.  0 or ERR_NOMEM. */
static int plan_shapes(blob_plan *plan, const ruleset_table *rs, bool compact)
{
	rs_code *code = plan->code;
	shape *sh = plan->sh;
	int32_t *params = plan->params;
	ruleset_table shapes;
	int rc = ruleset_table_init(&shapes);
	if (rc < 0)
		return rc;
	/* slot[2k], slot[2k + 1]: position in sh[] of interned shape k, with
	 * int16 and int32 parameters */
	uint32_t *slot = rc == 0 ? malloc(2 * rs->n * sizeof *slot) : NULL;
	if (rc == 0 && !slot)
		rc = ERR_NOMEM;
	size_t nsh = 0, nparams = 0;
	for (size_t i = 1; i < rs->n && rc == 0; i++) {
		code[i].summarised = ruleset_summary(&rs->v[i]) != 0;
		if (code[i].summarised && compact)
			continue; /* no body, record or parameters at all */
		int32_t p[BODY_MAX_PARAMS];
		int np = body_params(&rs->v[i], p);
		size_t si = nsh;
		if (np >= 0) {
			ruleset key;
			body_shape(&rs->v[i], &key);
			int64_t k = ruleset_intern(&shapes, &key.r, key.signal_frame);
			if (k < 0) {
				rc = ERR_NOMEM;
				break;
			}
			if ((size_t)k == shapes.n - 1 && shapes.v[k].nrows == 0) {
				shapes.v[k].nrows = 1; /* new shape */
				slot[2 * k] = slot[2 * k + 1] = UINT32_MAX;
			}
			/* its int32 variant for offsets beyond 16 bits */
			bool wide = !fits16(p, np);
			uint32_t *at = &slot[2 * k + wide];
			if (*at == UINT32_MAX) {
				*at = (uint32_t)nsh;
				sh[nsh++] = (shape){ .rs = key, .parametric = true,
						     .first_rs = (uint32_t)i,
						     .wide = wide };
			}
			si = *at;
		} else {
			/* an offset beyond 32 bits: a body of its own */
			sh[nsh++] = (shape){ .rs = rs->v[i], .parametric = false,
					     .first_rs = (uint32_t)i };
		}
		code[i].shape = (uint32_t)si;
		sh[si].remote |= !code[i].summarised;
		code[i].params_at = (uint32_t)nparams;
		if (np > 0) {
			memcpy(params + nparams, p, (size_t)np * sizeof *p);
			nparams += (size_t)np;
			code[i].nparams = (uint32_t)np;
		}
	}
	/* the parameters' byte offsets, in the order they are written */
	uint32_t params_bytes = 0;
	for (size_t i = 1; i < rs->n && rc == 0; i++) {
		code[i].params_off = params_bytes;
		params_bytes += code[i].nparams * (sh[code[i].shape].wide ? 4 : 2);
	}
	free(slot);
	ruleset_table_free(&shapes);
	plan->nsh = nsh;
	plan->nparams = nparams;
	return rc;
}

/* Compact: a shape of one rule set gets that rule set's own body, with
 * its offsets as immediates (shorter, and no parameters); the byte
 * offsets of the parameters left.  0 or ERR_NOMEM. */
static int plan_own_bodies(blob_plan *p, const ruleset_table *rs)
{
	rs_code *code = p->code;
	shape *sh = p->sh;
	uint32_t *users = calloc(p->nsh + 1, sizeof *users);
	if (!users)
		return ERR_NOMEM;
	for (size_t i = 1; i < rs->n; i++)
		if (!code[i].summarised)
			users[code[i].shape]++;
	for (size_t i = 1; i < rs->n; i++) {
		shape *x = &sh[code[i].shape];
		if (code[i].summarised || !x->parametric)
			continue;
		if (users[code[i].shape] == 1) {
			x->rs = rs->v[i];
			x->parametric = false;
		}
	}
	free(users);
	/* the rule sets that keep parameters: their byte offsets again,
	 * at their shape's width, in the order they are written */
	uint32_t params_bytes = 0;
	p->nparams = 0;
	for (size_t i = 1; i < rs->n; i++) {
		if (code[i].summarised || !sh[code[i].shape].parametric)
			code[i].nparams = 0;
		code[i].params_off = params_bytes;
		params_bytes += code[i].nparams * (sh[code[i].shape].wide ? 4 : 2);
		p->nparams += code[i].nparams;
	}
	return 0;
}

/* Compact: whether any body reads parameters, and 4-byte words when every
 * summary has that form (sum32_fits). */
static void plan_word_form(tables *tb, const blob_plan *p,
			   const ruleset_table *rs)
{
	tb->no_params = p->nparams == 0;
	tb->word32 = true;
	for (size_t i = 1; i < rs->n; i++)
		if (p->code[i].summarised &&
		    !sum32_fits(ruleset_summary(&rs->v[i])))
			tb->word32 = false;
}

/* The compact form's code: the core of both step entry points, describe,
 * the lookup subroutine, then the bodies (remote mode only). */
static int emit_compact_code(gen_blob *b, const lookup_table *t,
			     const tables *tb, blob_plan *p, gen_ctx *gr,
			     int l_local, int l_remote, int l_describe)
{
	x86_asm *a = &b->a;
	gr->params_slot = M(RBP, CF_PARAMS);
	gr->read_reg = R14;
	gr->fold = true;
	emit_compact(a, tb, gr, l_local, l_remote);
	x86_bind(a, l_describe);
	if (tb->word32)
		emit_describe_word32(a, t, tb);
	else
		emit_describe_entry(a, t, tb);
	x86_bind(a, tb->lookup_fn);
	if (tb->vec_lookup)
		emit_lookup_vec(a, t, tb);
	else
		emit_lookup_small(a, t, tb);
	x86_bind(a, tb->bodies);
	int rc = emit_shape_bodies(b, gr, p->sh, p->nsh, 1, true);
	x86_relax(a, 0); /* two-byte jumps where they reach */
	return rc;
}

/* The full form's code: both step entry points, describe, the escape
 * routine and stubs, then the bodies of both modes. */
static int emit_full_code(gen_blob *b, const lookup_table *t,
			  const tables *tb, blob_plan *p, gen_ctx *gl,
			  gen_ctx *gr, int l_local, int l_remote,
			  int l_describe)
{
	x86_asm *a = &b->a;
	x86_bind(a, l_local);
	emit_local_entry(a, t, tb, gl);
	x86_align(a, 16, 0xcc);
	x86_bind(a, l_remote);
	emit_remote_entry(a, t, tb, gr);
	x86_align(a, 16, 0xcc);
	x86_bind(a, l_describe);
	emit_describe_entry(a, t, tb);
	if (tb->escapes) {
		x86_align(a, 16, 0xcc);
		x86_bind(a, tb->esc_find);
		emit_esc_find(a, tb);
		x86_bind(a, tb->stub[0]);
		emit_esc_stub(a, tb, RDX, tb->again[0]);
		x86_bind(a, tb->stub[1]);
		emit_esc_stub(a, tb, RBX, tb->again[1]);
	}
	int rc = emit_shape_bodies(b, gl, p->sh, p->nsh, 0, true);
	if (rc == 0)
		rc = emit_shape_bodies(b, gr, p->sh, p->nsh, 1, false);
	return rc;
}

/* The unsupported shapes emit_shape_bodies recorded, reported as rule sets
 * instead (each rule set of such a shape; COMPACT: not the summarised
 * ones, which have no body).  0 or ERR_NOMEM. */
static int report_by_ruleset(gen_blob *b, const blob_plan *p,
			     const ruleset_table *rs, bool compact)
{
	int rc = 0;
	size_t nshapes_unsup = b->nunsupported;
	gen_unsupported *by_shape = b->unsupported;
	b->unsupported = NULL;
	b->nunsupported = 0;
	for (size_t i = 1; i < rs->n && rc == 0; i++)
		for (size_t k = 0; k < nshapes_unsup; k++) {
			if ((compact && p->code[i].summarised) ||
			    by_shape[k].ruleset != p->code[i].shape)
				continue;
			gen_unsupported *u = realloc(b->unsupported,
				(b->nunsupported + 1) * sizeof *u);
			if (!u) {
				rc = ERR_NOMEM;
				break;
			}
			b->unsupported = u;
			u[b->nunsupported] = by_shape[k];
			u[b->nunsupported].ruleset = (uint32_t)i;
			b->nunsupported++;
		}
	free(by_shape);
	return rc;
}

int gen_blob_build(gen_blob *b, const lookup_table *t,
		   const ruleset_table *rs, struct ehelf_info *info)
{
	return gen_blob_build_form(b, t, rs, info, GEN_FORM_AUTO);
}

int gen_blob_build_form(gen_blob *b, const lookup_table *t,
			const ruleset_table *rs, struct ehelf_info *info,
			gen_form form)
{
	memset(b, 0, sizeof *b);
	if (rs->n > 65535) /* escaped indexes are 16-bit */
		return ERR_UNSUPPORTED;
	x86_asm *a = &b->a;
	x86_init(a);
	tables tb = tables_init(a, t, rs, form);
	blob_plan p = { 0 };
	int rc = plan_alloc(&p, rs->n);
	if (rc < 0) {
		plan_free(&p);
		return rc;
	}
	rc = plan_shapes(&p, rs, tb.compact);
	if (rc == 0 && tb.compact)
		rc = plan_own_bodies(&p, rs);
	if (tb.compact)
		plan_word_form(&tb, &p, rs);
	/* rule sets renumbered by use, most used first (0 stays "not
	 * covered"): with more than 255, the entries of the first 254 take
	 * one byte and only the others are escaped */
	if (rc == 0 && !(p.order = number_by_use(t, rs->n, tb.escapes, &p.renum,
						   &p.nslots)))
		rc = ERR_NOMEM;
	gen_ctx gl = make_ctx(a, GEN_LOCAL);
	gen_ctx gr = make_ctx(a, GEN_REMOTE);
	int l_local = x86_label(a), l_remote = x86_label(a);
	int l_describe = x86_label(a);
	if (rc == 0 && tb.compact)
		rc = emit_compact_code(b, t, &tb, &p, &gr, l_local, l_remote,
				       l_describe);
	else if (rc == 0)
		rc = emit_full_code(b, t, &tb, &p, &gl, &gr, l_local, l_remote,
				    l_describe);
	if (rc == 0)
		rc = report_by_ruleset(b, &p, rs, tb.compact);
	if (rc < 0)
		goto out;
	b->code_size = a->n;
	b->code_align = tb.compact ? 8 : 64;
	b->off_local = (size_t)x86_label_offset(a, l_local);
	b->off_remote = (size_t)x86_label_offset(a, l_remote);
	b->off_describe = (size_t)x86_label_offset(a, l_describe);
	emit_tables(a, t, rs, &tb, &p, info, b->nunsupported, &b->off_info);
	if (!x86_finish(a))
		rc = a->failed ? ERR_NOMEM : ERR_FORMAT;
out:
	plan_free(&p);
	if (rc < 0)
		gen_blob_free(b);
	return rc;
}

void gen_blob_free(gen_blob *b)
{
	x86_free(&b->a);
	free(b->unsupported);
	memset(b, 0, sizeof *b);
}
