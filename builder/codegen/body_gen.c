/* body_gen.c - see body_gen.h. */
#include "body_gen.h"

#include <stdio.h>

#include "../../abi/ehelf_abi.h"
#include "../../common/err.h"
#include "expr_compile.h"

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

int body_params(const ruleset *rs, int32_t params[BODY_MAX_PARAMS])
{
	const uw_rules *r = &rs->r;
	int64_t lo = 0, hi = 0;
	bool any = false;
	int n = BODY_P_COLS;
	params[BODY_P_CFA] = 0;
	if (r->cfa.kind == UW_CFA_REG_OFF) {
		if (!fits32(r->cfa.off))
			return -1;
		params[BODY_P_CFA] = (int32_t)r->cfa.off;
	}
	for (int i = 0; i < UW_NCOLS; i++) {
		const uw_rule *x = &r->reg[i];
		if (x->kind != UW_OFFSET && x->kind != UW_VAL_OFFSET)
			continue;
		if (!fits32(x->off))
			return -1;
		params[n++] = (int32_t)x->off;
		if (x->kind == UW_OFFSET) {
			lo = !any || x->off < lo ? x->off : lo;
			hi = !any || x->off > hi ? x->off : hi;
			any = true;
		}
	}
	params[BODY_P_MIN] = (int32_t)lo;
	params[BODY_P_MAX] = (int32_t)hi;
	return n;
}

void body_shape(const ruleset *rs, ruleset *shape)
{
	*shape = *rs;
	if (shape->r.cfa.kind == UW_CFA_REG_OFF)
		shape->r.cfa.off = 0;
	for (int i = 0; i < UW_NCOLS; i++)
		if (shape->r.reg[i].kind == UW_OFFSET ||
		    shape->r.reg[i].kind == UW_VAL_OFFSET)
			shape->r.reg[i].off = 0;
}

/* DST = parameter INDEX of the rule set: int32 (gen_param), or int16 in
 * files whose parameters all fit (gen_ctx.params16). */
static void param(gen_ctx *g, int dst, int index)
{
	if (!g->params16) {
		gen_param(g, dst, index);
	} else if (g->params_reg != XNONE) {
		x86_movsx_load16(g->a, dst, M(g->params_reg, 2 * index));
	} else {
		x86_mov_load(g->a, dst, g->params_slot);
		x86_movsx_load16(g->a, dst, M(dst, 2 * index));
	}
}

/* dst = src + off for any 64-bit offset; dst != src (an offset beyond 32
 * bits is loaded into dst first). */
static void add_off(x86_asm *a, int dst, int src, int64_t off)
{
	if (fits32(off)) {
		x86_lea(a, dst, M(src, (int32_t)off));
	} else {
		x86_mov_ri(a, dst, (uint64_t)off);
		x86_alu_rr(a, ALU_ADD, dst, src);
	}
}

/* dst = src + (parametric ? params[index] : off). */
static void add_offset(gen_ctx *g, bool parametric, int dst, int src,
		       int index, int64_t off)
{
	if (parametric) {
		param(g, dst, index);
		x86_alu_rr(g->a, ALU_ADD, dst, src);
	} else {
		add_off(g->a, dst, src, off);
	}
}

static x86_mem out_reg(const gen_ctx *g, int i)
{
	return M(g->out, GEN_REG_SIZE * i);
}

void body_emit_status(gen_ctx *g, int status)
{
	x86_mov_ri(g->a, RAX, (uint64_t)(uint32_t)status);
	gen_return(g);
}

/* Registers the rule set reads from the input; ERR_UNSUPPORTED if a rule
 * cannot be compiled at all. */
static int check_rules(const ruleset *rs, uint32_t *need, char *why,
		       size_t whylen)
{
	const uw_rules *r = &rs->r;
	uint32_t used = 0;
	*need = 0;
	switch (r->cfa.kind) {
	case UW_CFA_REG_OFF:
		if (r->cfa.reg > 16) {
			snprintf(why, whylen, "CFA based on register %u",
				 r->cfa.reg);
			return ERR_UNSUPPORTED;
		}
		*need |= 1u << r->cfa.reg;
		break;
	case UW_CFA_EXPR:
		if (expr_analyse(r->cfa.expr, r->cfa.expr_len, false, &used,
				 why, whylen) < 0)
			return ERR_UNSUPPORTED;
		*need |= used;
		break;
	default:
		snprintf(why, whylen, "no CFA rule");
		return ERR_UNSUPPORTED;
	}
	for (int i = 0; i < UW_NCOLS; i++) {
		const uw_rule *x = &r->reg[i];
		if (x->kind == UW_REGISTER && x->reg > 16) {
			snprintf(why, whylen, "register %d saved in register %u",
				 i, x->reg);
			return ERR_UNSUPPORTED;
		}
		if (x->kind == UW_EXPR || x->kind == UW_VAL_EXPR) {
			if (expr_analyse(x->expr, x->expr_len, true, &used, why,
					 whylen) < 0)
				return ERR_UNSUPPORTED;
			*need |= used;
		}
	}
	return 0;
}

/* Local mode: one check that every "saved at CFA+N" slot is readable. */
static void emit_bounds(gen_ctx *g, const uw_rules *r, bool parametric)
{
	x86_asm *a = g->a;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (int i = 0; i < UW_NCOLS; i++)
		if (r->reg[i].kind == UW_OFFSET) {
			lo = r->reg[i].off < lo ? r->reg[i].off : lo;
			hi = r->reg[i].off > hi ? r->reg[i].off : hi;
		}
	if (lo > hi)
		return; /* no such rule */
	add_offset(g, parametric, RAX, g->cfa, BODY_P_MIN, lo);
	x86_alu_rr(a, ALU_CMP, RAX, g->stack_lo);
	x86_jcc(a, CC_B, g->l_bounds);
	add_offset(g, parametric, RCX, g->cfa, BODY_P_MAX, hi);
	x86_alu_rr(a, ALU_CMP, RCX, g->stack_hi_minus_8);
	x86_jcc(a, CC_A, g->l_bounds);
	x86_alu_rr(a, ALU_CMP, RCX, RAX); /* the range wrapped around */
	x86_jcc(a, CC_B, g->l_bounds);
}

/* out->valid bit I = in->valid bit SRC. */
static void emit_copy_valid_bit(gen_ctx *g, int i, int src)
{
	x86_asm *a = g->a;
	x86_mov_load32(a, RAX, M(g->in, GEN_REGS_VALID));
	if (src)
		x86_shift32_ri(a, SH_SHR, RAX, (uint8_t)src);
	x86_alu32_ri(a, ALU_AND, RAX, 1);
	if (i)
		x86_shift32_ri(a, SH_SHL, RAX, (uint8_t)i);
	x86_alu_mi32(a, ALU_AND, M(g->out, GEN_REGS_VALID), (int32_t)~(1u << i));
	x86_mov_load32(a, RCX, M(g->out, GEN_REGS_VALID));
	x86_alu32_rr(a, ALU_OR, RCX, RAX);
	x86_mov_store32(a, M(g->out, GEN_REGS_VALID), RCX);
}

int body_emit(gen_ctx *g, const ruleset *rs, bool parametric, char *why,
	      size_t whylen)
{
	x86_asm *a = g->a;
	const uw_rules *r = &rs->r;
	uint32_t need;
	if (check_rules(rs, &need, why, whylen) < 0)
		return ERR_UNSUPPORTED;
	if (r->reg[UW_RA].kind == UW_UNDEFINED) {
		/* outermost frame: nothing to compute */
		body_emit_status(g, EHELF_OUTERMOST);
		return a->failed ? ERR_NOMEM : 0;
	}
	size_t mark = a->n, fixmark = a->nfix;
	if (need) { /* registers the rules read must be valid */
		x86_mov_load32(a, RAX, M(g->in, GEN_REGS_VALID));
		x86_not(a, RAX);
		x86_test32_ri(a, RAX, need);
		x86_jcc(a, CC_NE, g->l_badreg);
	}
	if (r->cfa.kind == UW_CFA_REG_OFF) {
		if (parametric) {
			param(g, g->cfa, BODY_P_CFA);
			x86_alu_rm(a, ALU_ADD, g->cfa, M(g->in, GEN_REG_SIZE * r->cfa.reg));
		} else if (fits32(r->cfa.off)) {
			x86_mov_load(a, g->cfa, M(g->in, GEN_REG_SIZE * r->cfa.reg));
			if (r->cfa.off)
				x86_lea(a, g->cfa, M(g->cfa, (int32_t)r->cfa.off));
		} else { /* the offset first: add_off needs two registers */
			x86_mov_ri(a, g->cfa, (uint64_t)r->cfa.off);
			x86_alu_rm(a, ALU_ADD, g->cfa, M(g->in, GEN_REG_SIZE * r->cfa.reg));
		}
	} else if (expr_emit(g, r->cfa.expr, r->cfa.expr_len, false, g->cfa,
			     why, whylen) < 0) {
		goto rollback;
	}
	if (g->mode == GEN_LOCAL)
		emit_bounds(g, r, parametric);
	uint32_t set = 0, clear = 0;
	int p = BODY_P_COLS;
	for (int i = 0; i < UW_NCOLS; i++) {
		const uw_rule *x = &r->reg[i];
		switch (x->kind) {
		case UW_UNSET:
			if (i == UW_RSP) {
				x86_mov_store(a, out_reg(g, i), g->cfa);
				set |= 1u << i;
			}
			break;
		case UW_SAME_VALUE:
			break;
		case UW_UNDEFINED:
			clear |= 1u << i;
			break;
		case UW_OFFSET:
			if (g->mode == GEN_LOCAL) {
				if (parametric) {
					param(g, RAX, p);
					x86_mov_load(a, RAX, MI(g->cfa, RAX, 1, 0));
				} else if (fits32(x->off)) {
					x86_mov_load(a, RAX, M(g->cfa, (int32_t)x->off));
				} else {
					add_off(a, RAX, g->cfa, x->off);
					x86_mov_load(a, RAX, M(RAX, 0));
				}
			} else {
				add_offset(g, parametric, RAX, g->cfa, p, x->off);
				gen_load(g, RAX, RAX);
			}
			p++;
			x86_mov_store(a, out_reg(g, i), RAX);
			set |= 1u << i;
			break;
		case UW_VAL_OFFSET:
			add_offset(g, parametric, RAX, g->cfa, p++, x->off);
			x86_mov_store(a, out_reg(g, i), RAX);
			set |= 1u << i;
			break;
		case UW_REGISTER:
			x86_mov_load(a, RAX, M(g->in, GEN_REG_SIZE * x->reg));
			x86_mov_store(a, out_reg(g, i), RAX);
			emit_copy_valid_bit(g, i, x->reg);
			break;
		case UW_EXPR:
		case UW_VAL_EXPR:
			if (expr_emit(g, x->expr, x->expr_len, true, RAX, why,
				      whylen) < 0)
				goto rollback;
			if (x->kind == UW_EXPR)
				gen_load(g, RAX, RAX);
			x86_mov_store(a, out_reg(g, i), RAX);
			set |= 1u << i;
			break;
		}
	}
	if (rs->signal_frame)
		set |= EHELF_SIGNAL_FRAME;
	clear &= ~set;
	if (clear)
		x86_alu_mi32(a, ALU_AND, M(g->out, GEN_REGS_VALID),
			     (int32_t)~clear);
	if (set)
		x86_alu_mi32(a, ALU_OR, M(g->out, GEN_REGS_VALID), (int32_t)set);
	x86_alu32_rr(a, ALU_XOR, RAX, RAX);
	gen_return(g);
	return a->failed ? ERR_NOMEM : 0;
rollback:
	a->n = mark;
	a->nfix = fixmark;
	return ERR_UNSUPPORTED;
}
