/* expr_compile.c - see expr_compile.h. */
#include "expr_compile.h"

#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../common/err.h"
#include "../cfi/dwarf_op.h"

enum { MAX_OPS = 512 };

typedef struct xop {
	dwop op;
	int need;    /* stack entries the op reads */
	int delta;   /* change of depth */
	int target;  /* bra/skip: op index of the target (nops = end) */
	int depth;   /* depth before the op, -1 if unreachable */
} xop;

typedef struct expr {
	xop ops[MAX_OPS];
	int n;
	int end_depth;
	uint32_t used;
} expr;

/* Record why an expression cannot be compiled; returns ERR_UNSUPPORTED. */
static int unsupported(char *why, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int unsupported(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return ERR_UNSUPPORTED;
}

/* Stack effect of one operation; -1 if the operation is not supported. */
static int effect(xop *x, bool cfa_known, uint32_t *used, char *why,
		  size_t whylen)
{
	uint8_t o = x->op.op;
	x->need = 0;
	x->delta = 0;
	if ((o >= DW_OP_lit0 && o <= DW_OP_lit31) ||
	    (o >= DW_OP_breg0 && o <= DW_OP_breg16)) {
		x->delta = 1;
		if (o >= DW_OP_breg0)
			*used |= 1u << (o - DW_OP_breg0);
		return 0;
	}
	switch (o) {
	case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
	case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
	case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
	case DW_OP_consts:
		x->delta = 1;
		return 0;
	case DW_OP_bregx:
		if (x->op.n1 > 16)
			return unsupported(why, whylen,
					   "DW_OP_bregx of register %llu",
					   (unsigned long long)x->op.n1);
		*used |= 1u << x->op.n1;
		x->delta = 1;
		return 0;
	case DW_OP_call_frame_cfa:
		if (!cfa_known)
			return unsupported(why, whylen, "DW_OP_call_frame_cfa "
					   "in a CFA expression");
		x->delta = 1;
		return 0;
	case DW_OP_dup: x->need = 1; x->delta = 1; return 0;
	case DW_OP_drop: x->need = 1; x->delta = -1; return 0;
	case DW_OP_over: x->need = 2; x->delta = 1; return 0;
	case DW_OP_pick:
		x->need = (int)x->op.n1 + 1;
		x->delta = 1;
		return 0;
	case DW_OP_swap: x->need = 2; return 0;
	case DW_OP_rot: x->need = 3; return 0;
	case DW_OP_deref: case DW_OP_abs: case DW_OP_neg: case DW_OP_not:
	case DW_OP_plus_uconst:
		x->need = 1;
		return 0;
	case DW_OP_deref_size:
		if (x->op.n1 < 1 || x->op.n1 > 8)
			return unsupported(why, whylen, "DW_OP_deref_size %llu",
					   (unsigned long long)x->op.n1);
		x->need = 1;
		return 0;
	case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod:
	case DW_OP_mul: case DW_OP_or: case DW_OP_plus: case DW_OP_shl:
	case DW_OP_shr: case DW_OP_shra: case DW_OP_xor: case DW_OP_eq:
	case DW_OP_ge: case DW_OP_gt: case DW_OP_le: case DW_OP_lt:
	case DW_OP_ne:
		x->need = 2;
		x->delta = -1;
		return 0;
	case DW_OP_bra:
		x->need = 1;
		x->delta = -1;
		return 0;
	case DW_OP_skip: case DW_OP_nop:
		return 0;
	}
	const char *name = dwop_name(o);
	return unsupported(why, whylen, "%s in an expression",
			   name ? name : "unknown opcode");
}

/* Decode and analyse; fills E.  Returns 0 or ERR_UNSUPPORTED. */
static int analyse(expr *e, const uint8_t *bytes, uint32_t len, bool push_cfa,
		   char *why, size_t whylen)
{
	e->n = 0;
	e->used = 0;
	cursor c = cursor_make(bytes, len);
	int rc;
	while ((rc = dwop_next(&c, bytes, &e->ops[e->n].op)) > 0) {
		if (++e->n == MAX_OPS)
			return unsupported(why, whylen, "expression longer than "
					   "%d operations", MAX_OPS);
	}
	if (rc < 0)
		return unsupported(why, whylen, "malformed expression");
	if (e->n == 0)
		return unsupported(why, whylen, "empty expression");
	for (int i = 0; i < e->n; i++) {
		xop *x = &e->ops[i];
		x->depth = -1;
		if (effect(x, push_cfa, &e->used, why, whylen) < 0)
			return ERR_UNSUPPORTED;
		if (x->op.op == DW_OP_bra || x->op.op == DW_OP_skip) {
			int64_t to = (int64_t)x->op.offset + 3 + (int64_t)x->op.n1;
			x->target = -1;
			if (to == (int64_t)len)
				x->target = e->n;
			for (int k = 0; k < e->n && x->target < 0; k++)
				if (e->ops[k].op.offset == to)
					x->target = k;
			if (x->target < 0)
				return unsupported(why, whylen, "branch to the middle "
						   "of an operation or outside");
			if (x->target <= i) /* the only way an expression loops */
				return unsupported(why, whylen, "backward branch at "
						   "operation %d (could loop "
						   "forever)", i);
		}
	}
	/* propagate depths along the (forward-only) control flow */
	int depth_end = -1;
	int init = push_cfa ? 1 : 0;
	int work[MAX_OPS + 1], nwork = 0;
	e->ops[0].depth = init;
	work[nwork++] = 0;
	while (nwork) {
		int i = work[--nwork];
		xop *x = &e->ops[i];
		if (x->depth < x->need)
			return unsupported(why, whylen, "stack underflow at "
					   "operation %d", i);
		int after = x->depth + x->delta;
		if (after > GEN_MAX_STACK || x->depth + (x->delta > 0) > GEN_MAX_STACK)
			return unsupported(why, whylen, "stack deeper than %d",
					   GEN_MAX_STACK);
		int succ[2], ns = 0;
		if (x->op.op != DW_OP_skip)
			succ[ns++] = i + 1;
		if (x->op.op == DW_OP_bra || x->op.op == DW_OP_skip)
			succ[ns++] = x->target;
		for (int k = 0; k < ns; k++) {
			int s = succ[k];
			int *d = s == e->n ? &depth_end : &e->ops[s].depth;
			if (*d == -1) {
				*d = after;
				if (s < e->n)
					work[nwork++] = s;
			} else if (*d != after) {
				return unsupported(why, whylen, "stack depth "
						   "differs between paths at "
						   "operation %d", s);
			}
		}
	}
	if (depth_end < 1)
		return unsupported(why, whylen, depth_end < 0 ?
				   "expression never ends" :
				   "expression leaves no value");
	e->end_depth = depth_end;
	return 0;
}

int expr_analyse(const uint8_t *bytes, uint32_t len, bool push_cfa,
		 uint32_t *used, char *why, size_t whylen)
{
	expr *e = malloc(sizeof *e);
	if (!e)
		return ERR_NOMEM;
	int rc = analyse(e, bytes, len, push_cfa, why, whylen);
	*used = e->used;
	free(e);
	return rc;
}

/* Emit one operation at depth D. */
/* The divisor in RCX, the dividend in slot SECOND: RAX = SECOND / RCX,
 * signed as libgcc divides (a zero divisor exits EHELF_E_EXPR; INT64_MIN
 * / -1, which would trap, wraps to INT64_MIN).  Clobbers RDX. */
static void emit_sdiv(gen_ctx *g, x86_mem second)
{
	x86_asm *a = g->a;
	int l_neg = x86_label(a), l_done = x86_label(a);
	x86_test_rr(a, RCX, RCX);
	x86_jcc(a, CC_E, g->l_expr);
	x86_mov_load(a, RAX, second);
	x86_alu_ri(a, ALU_CMP, RCX, -1);
	x86_jcc(a, CC_E, l_neg);
	x86_cqo(a);
	x86_idiv(a, RCX);
	x86_jmp(a, l_done);
	x86_bind(a, l_neg);
	x86_neg(a, RAX);
	x86_bind(a, l_done);
}

/* The divisor in RCX, the dividend in slot SECOND: RDX = SECOND mod RCX,
 * unsigned (a zero divisor exits EHELF_E_EXPR).  Clobbers RAX. */
static void emit_umod(gen_ctx *g, x86_mem second)
{
	x86_asm *a = g->a;
	x86_test_rr(a, RCX, RCX);
	x86_jcc(a, CC_E, g->l_expr);
	x86_mov_load(a, RAX, second);
	x86_alu32_rr(a, ALU_XOR, RDX, RDX);
	x86_div(a, RCX);
}

static void emit_op(gen_ctx *g, const expr *e, const xop *x, const int *labels)
{
	x86_asm *a = g->a;
	int d = x->depth;
	uint8_t o = x->op.op;
	x86_mem top = gen_slot(g, d - 1), second = gen_slot(g, d - 2);
	x86_mem push = gen_slot(g, d);
	if (o >= DW_OP_lit0 && o <= DW_OP_lit31) {
		x86_store_imm32(a, push, o - DW_OP_lit0);
		return;
	}
	if ((o >= DW_OP_breg0 && o <= DW_OP_breg16) || o == DW_OP_bregx) {
		unsigned reg = o == DW_OP_bregx ? (unsigned)x->op.n1 : (unsigned)(o - DW_OP_breg0);
		int64_t off = (int64_t)(o == DW_OP_bregx ? x->op.n2 : x->op.n1);
		x86_mov_load(a, RAX, M(g->in, GEN_REG_SIZE * (int32_t)reg));
		if (off >= INT32_MIN && off <= INT32_MAX) {
			if (off)
				x86_alu_ri(a, ALU_ADD, RAX, (int32_t)off);
		} else {
			x86_mov_ri(a, RCX, (uint64_t)off);
			x86_alu_rr(a, ALU_ADD, RAX, RCX);
		}
		x86_mov_store(a, push, RAX);
		return;
	}
	switch (o) {
	case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
	case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
	case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
	case DW_OP_consts:
		if ((int64_t)x->op.n1 >= INT32_MIN && (int64_t)x->op.n1 <= INT32_MAX) {
			x86_store_imm32(a, push, (int32_t)x->op.n1);
		} else {
			x86_mov_ri(a, RAX, x->op.n1);
			x86_mov_store(a, push, RAX);
		}
		return;
	case DW_OP_call_frame_cfa:
		x86_mov_store(a, push, g->cfa);
		return;
	case DW_OP_dup:
		x86_mov_load(a, RAX, top);
		x86_mov_store(a, push, RAX);
		return;
	case DW_OP_drop: case DW_OP_nop:
		return;
	case DW_OP_over:
		x86_mov_load(a, RAX, second);
		x86_mov_store(a, push, RAX);
		return;
	case DW_OP_pick:
		x86_mov_load(a, RAX, gen_slot(g, d - 1 - (int)x->op.n1));
		x86_mov_store(a, push, RAX);
		return;
	case DW_OP_swap:
		x86_mov_load(a, RAX, top);
		x86_mov_load(a, RCX, second);
		x86_mov_store(a, top, RCX);
		x86_mov_store(a, second, RAX);
		return;
	case DW_OP_rot: {
		/* [.., C, B, A(top)] -> [.., A, C, B(top)] */
		x86_mem third = gen_slot(g, d - 3);
		x86_mov_load(a, RAX, top);
		x86_mov_load(a, RCX, second);
		x86_mov_load(a, RDX, third);
		x86_mov_store(a, third, RAX);
		x86_mov_store(a, second, RDX);
		x86_mov_store(a, top, RCX);
		return;
	}
	case DW_OP_deref:
	case DW_OP_deref_size:
		x86_mov_load(a, RAX, top);
		gen_load(g, RAX, RAX);
		if (o == DW_OP_deref_size && x->op.n1 < 8) {
			if (x->op.n1 == 4) {
				/* a 32-bit operation zero-extends */
				x86_alu32_rr(a, ALU_OR, RAX, RAX);
			} else {
				x86_mov_ri(a, RCX, (1ull << (8 * x->op.n1)) - 1);
				x86_alu_rr(a, ALU_AND, RAX, RCX);
			}
		}
		x86_mov_store(a, top, RAX);
		return;
	case DW_OP_abs:
		x86_mov_load(a, RAX, top);
		x86_mov_rr(a, RCX, RAX);
		x86_neg(a, RCX);
		x86_cmov(a, CC_S, RCX, RAX);
		x86_mov_store(a, top, RCX);
		return;
	case DW_OP_neg:
	case DW_OP_not:
		x86_mov_load(a, RAX, top);
		if (o == DW_OP_neg)
			x86_neg(a, RAX);
		else
			x86_not(a, RAX);
		x86_mov_store(a, top, RAX);
		return;
	case DW_OP_plus_uconst:
		x86_mov_load(a, RAX, top);
		if (x->op.n1 <= INT32_MAX) {
			x86_alu_ri(a, ALU_ADD, RAX, (int32_t)x->op.n1);
		} else {
			x86_mov_ri(a, RCX, x->op.n1);
			x86_alu_rr(a, ALU_ADD, RAX, RCX);
		}
		x86_mov_store(a, top, RAX);
		return;
	case DW_OP_and: case DW_OP_or: case DW_OP_xor: case DW_OP_plus:
	case DW_OP_minus: case DW_OP_mul: {
		x86_mov_load(a, RAX, second);
		x86_mov_load(a, RCX, top);
		if (o == DW_OP_mul)
			x86_imul_rr(a, RAX, RCX);
		else
			x86_alu_rr(a, o == DW_OP_and ? ALU_AND : o == DW_OP_or ? ALU_OR :
				   o == DW_OP_xor ? ALU_XOR : o == DW_OP_plus ? ALU_ADD
				   : ALU_SUB, RAX, RCX);
		x86_mov_store(a, second, RAX);
		return;
	}
	case DW_OP_div:
		x86_mov_load(a, RCX, top);
		emit_sdiv(g, second);
		x86_mov_store(a, second, RAX);
		return;
	case DW_OP_mod:
		x86_mov_load(a, RCX, top);
		emit_umod(g, second);
		x86_mov_store(a, second, RDX);
		return;
	case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		x86_mov_load(a, RCX, top);
		x86_mov_load(a, RAX, second);
		x86_shift_cl(a, o == DW_OP_shl ? SH_SHL : o == DW_OP_shr ? SH_SHR
						       : SH_SAR, RAX);
		x86_mov_store(a, second, RAX);
		return;
	case DW_OP_eq: case DW_OP_ne: case DW_OP_lt: case DW_OP_le:
	case DW_OP_gt: case DW_OP_ge: {
		enum x86_cc cc = o == DW_OP_eq ? CC_E : o == DW_OP_ne ? CC_NE :
				 o == DW_OP_lt ? CC_L : o == DW_OP_le ? CC_LE :
				 o == DW_OP_gt ? CC_G : CC_GE;
		x86_mov_load(a, RAX, second);
		x86_mov_load(a, RCX, top);
		x86_alu32_rr(a, ALU_XOR, RDX, RDX);
		x86_alu_rr(a, ALU_CMP, RAX, RCX);
		x86_setcc(a, cc, RDX);
		x86_mov_store(a, second, RDX);
		return;
	}
	case DW_OP_bra:
		x86_mov_load(a, RAX, top);
		x86_test_rr(a, RAX, RAX);
		x86_jcc(a, CC_NE, labels[x->target]);
		return;
	case DW_OP_skip:
		x86_jmp(a, labels[x->target]);
		return;
	}
	(void)e;
}

/*
 * With g->fold (compact eh_elfs): the top of the DWARF stack is kept in
 * RAX between operations when `cached`, its slot then stale; every other
 * entry is in its slot.  Branches and their targets see everything in
 * the slots (spilled before).  A constant followed by a binary operation
 * becomes the operation's immediate.
 */
typedef struct tos {
	gen_ctx *g;
	bool cached;
} tos;

/* The constant X pushes, when it fits 32 bits signed. */
static bool const_imm(const xop *x, int32_t *imm)
{
	uint8_t o = x->op.op;
	int64_t v;
	if (o >= DW_OP_lit0 && o <= DW_OP_lit31)
		v = o - DW_OP_lit0;
	else if ((o >= DW_OP_const1u && o <= DW_OP_const8s) ||
		 o == DW_OP_constu || o == DW_OP_consts)
		v = (int64_t)x->op.n1;
	else
		return false;
	if (v < INT32_MIN || v > INT32_MAX)
		return false;
	*imm = (int32_t)v;
	return true;
}

/* the top, at depth D, into its slot */
static void tos_spill(tos *t, int d)
{
	if (t->cached)
		x86_mov_store(t->g->a, gen_slot(t->g, d - 1), RAX);
	t->cached = false;
}

/* the top, at depth D, into RAX */
static void tos_load(tos *t, int d)
{
	if (!t->cached)
		x86_mov_load(t->g->a, RAX, gen_slot(t->g, d - 1));
	t->cached = true;
}

static enum x86_cc cmp_cc(uint8_t o)
{
	return o == DW_OP_eq ? CC_E : o == DW_OP_ne ? CC_NE : o == DW_OP_lt ? CC_L :
	       o == DW_OP_le ? CC_LE : o == DW_OP_gt ? CC_G : CC_GE;
}

static bool is_cmp(uint8_t o)
{
	return o == DW_OP_eq || o == DW_OP_ne || o == DW_OP_lt || o == DW_OP_le ||
	       o == DW_OP_gt || o == DW_OP_ge;
}

/* The binary operation X on the constant IMM pushed just before it (not
 * emitted), the top below the constant cached: false if X is not one. */
static bool tos_folded(tos *t, const xop *x, int32_t imm)
{
	x86_asm *a = t->g->a;
	uint8_t o = x->op.op;
	switch (o) {
	case DW_OP_and: case DW_OP_or: case DW_OP_xor: case DW_OP_plus:
	case DW_OP_minus:
		tos_load(t, x->depth - 1);
		x86_alu_ri(a, o == DW_OP_and ? ALU_AND : o == DW_OP_or ? ALU_OR :
			   o == DW_OP_xor ? ALU_XOR : o == DW_OP_plus ? ALU_ADD
			   : ALU_SUB, RAX, imm);
		return true;
	case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		tos_load(t, x->depth - 1);
		/* counts modulo 64, as the shift by cl does */
		x86_shift_ri(a, o == DW_OP_shl ? SH_SHL : o == DW_OP_shr ? SH_SHR
			     : SH_SAR, RAX, (uint8_t)(imm & 63));
		return true;
	default:
		if (!is_cmp(o))
			return false;
		tos_load(t, x->depth - 1);
		x86_alu_ri(a, ALU_CMP, RAX, imm);
		x86_setcc(a, cmp_cc(o), RAX);
		x86_movzx8_rr(a, RAX, RAX);
		return true;
	}
}

/* Operation X (at depth D), as emit_op does it, with the top cached. */
static void tos_op(tos *t, const xop *x, const int *labels)
{
	gen_ctx *g = t->g;
	x86_asm *a = g->a;
	int d = x->depth;
	uint8_t o = x->op.op;
	x86_mem second = gen_slot(g, d - 2);
	int32_t imm;
	if (const_imm(x, &imm)) {
		tos_spill(t, d);
		x86_mov_ri(a, RAX, (uint64_t)(int64_t)imm);
		t->cached = true;
		return;
	}
	if ((o >= DW_OP_breg0 && o <= DW_OP_breg16) || o == DW_OP_bregx) {
		unsigned reg = o == DW_OP_bregx ? (unsigned)x->op.n1 : (unsigned)(o - DW_OP_breg0);
		int64_t off = (int64_t)(o == DW_OP_bregx ? x->op.n2 : x->op.n1);
		tos_spill(t, d);
		x86_mov_load(a, RAX, M(g->in, GEN_REG_SIZE * (int32_t)reg));
		if (off >= INT32_MIN && off <= INT32_MAX) {
			if (off)
				x86_alu_ri(a, ALU_ADD, RAX, (int32_t)off);
		} else {
			x86_mov_ri(a, RCX, (uint64_t)off);
			x86_alu_rr(a, ALU_ADD, RAX, RCX);
		}
		t->cached = true;
		return;
	}
	switch (o) {
	case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
	case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
	case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
	case DW_OP_consts: /* beyond 32 bits */
		tos_spill(t, d);
		x86_mov_ri(a, RAX, x->op.n1);
		t->cached = true;
		return;
	case DW_OP_call_frame_cfa:
		tos_spill(t, d);
		x86_mov_rr(a, RAX, g->cfa);
		t->cached = true;
		return;
	case DW_OP_dup:
		tos_load(t, d);
		x86_mov_store(a, gen_slot(g, d - 1), RAX);
		return;
	case DW_OP_drop:
		t->cached = false;
		return;
	case DW_OP_nop:
		return;
	case DW_OP_over:
		tos_spill(t, d);
		x86_mov_load(a, RAX, second);
		t->cached = true;
		return;
	case DW_OP_pick:
		tos_spill(t, d);
		x86_mov_load(a, RAX, gen_slot(g, d - 1 - (int)x->op.n1));
		t->cached = true;
		return;
	case DW_OP_swap:
		tos_load(t, d);
		x86_mov_load(a, RCX, second);
		x86_mov_store(a, second, RAX);
		x86_mov_rr(a, RAX, RCX);
		return;
	case DW_OP_rot:
		tos_spill(t, d);
		emit_op(g, NULL, x, labels);
		return;
	case DW_OP_deref:
	case DW_OP_deref_size:
		tos_load(t, d);
		gen_load(g, RAX, RAX);
		if (o == DW_OP_deref_size && x->op.n1 < 8) {
			if (x->op.n1 == 4) {
				x86_alu32_rr(a, ALU_OR, RAX, RAX);
			} else {
				x86_mov_ri(a, RCX, (1ull << (8 * x->op.n1)) - 1);
				x86_alu_rr(a, ALU_AND, RAX, RCX);
			}
		}
		return;
	case DW_OP_abs:
		tos_load(t, d);
		x86_mov_rr(a, RCX, RAX);
		x86_neg(a, RCX);
		x86_cmov(a, CC_S, RCX, RAX);
		x86_mov_rr(a, RAX, RCX);
		return;
	case DW_OP_neg:
	case DW_OP_not:
		tos_load(t, d);
		if (o == DW_OP_neg)
			x86_neg(a, RAX);
		else
			x86_not(a, RAX);
		return;
	case DW_OP_plus_uconst:
		tos_load(t, d);
		if (x->op.n1 <= INT32_MAX) {
			x86_alu_ri(a, ALU_ADD, RAX, (int32_t)x->op.n1);
		} else {
			x86_mov_ri(a, RCX, x->op.n1);
			x86_alu_rr(a, ALU_ADD, RAX, RCX);
		}
		return;
	case DW_OP_and: case DW_OP_or: case DW_OP_xor: case DW_OP_plus:
	case DW_OP_mul:
		tos_load(t, d);                         /* second op= top */
		if (o == DW_OP_mul)
			x86_imul_rm(a, RAX, second);
		else
			x86_alu_rm(a, o == DW_OP_and ? ALU_AND : o == DW_OP_or ?
				   ALU_OR : o == DW_OP_xor ? ALU_XOR : ALU_ADD,
				   RAX, second);
		return;
	case DW_OP_minus:
		tos_load(t, d);
		x86_neg(a, RAX);
		x86_alu_rm(a, ALU_ADD, RAX, second);
		return;
	case DW_OP_div:
		tos_load(t, d);
		x86_mov_rr(a, RCX, RAX);
		emit_sdiv(g, second);
		return;
	case DW_OP_mod:
		tos_load(t, d);
		x86_mov_rr(a, RCX, RAX);
		emit_umod(g, second);
		x86_mov_rr(a, RAX, RDX);
		return;
	case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		tos_load(t, d);
		x86_mov_rr(a, RCX, RAX);
		x86_mov_load(a, RAX, second);
		x86_shift_cl(a, o == DW_OP_shl ? SH_SHL : o == DW_OP_shr ? SH_SHR
						       : SH_SAR, RAX);
		return;
	case DW_OP_bra:
		tos_load(t, d);                         /* popped: the rest */
		t->cached = false;                      /* is in the slots */
		x86_test_rr(a, RAX, RAX);
		x86_jcc(a, CC_NE, labels[x->target]);
		return;
	case DW_OP_skip:
		tos_spill(t, d);
		x86_jmp(a, labels[x->target]);
		return;
	default:
		if (is_cmp(o)) {
			tos_load(t, d);
			x86_mov_load(a, RCX, second);
			x86_alu32_rr(a, ALU_XOR, RDX, RDX);
			x86_alu_rr(a, ALU_CMP, RCX, RAX);
			x86_setcc(a, cmp_cc(o), RDX);
			x86_mov_rr(a, RAX, RDX);
		}
		return;
	}
}

/* expr_emit's loop with the top cached (g->fold). */
static void emit_cached(gen_ctx *g, const expr *e, bool push_cfa, int dst,
			const int *labels)
{
	x86_asm *a = g->a;
	bool target[MAX_OPS + 1] = { false };
	for (int i = 0; i < e->n; i++)
		if (e->ops[i].op.op == DW_OP_bra || e->ops[i].op.op == DW_OP_skip)
			target[e->ops[i].target] = true;
	tos t = { .g = g };
	if (push_cfa) {
		x86_mov_rr(a, RAX, g->cfa);
		t.cached = true;
	}
	for (int i = 0; i < e->n; i++) {
		const xop *x = &e->ops[i];
		if (target[i] && x->depth >= 0)
			tos_spill(&t, x->depth);
		x86_bind(a, labels[i]);
		if (x->depth < 0)
			continue;
		int32_t imm;
		/* a constant and the operation on it, nothing branching in
		 * between */
		if (i + 1 < e->n && !target[i + 1] && const_imm(x, &imm) &&
		    x->depth >= 1 && tos_folded(&t, &e->ops[i + 1], imm)) {
			x86_bind(a, labels[++i]);
			continue;
		}
		tos_op(&t, x, labels);
	}
	if (target[e->n])
		tos_spill(&t, e->end_depth);
	x86_bind(a, labels[e->n]);
	if (t.cached)
		x86_mov_rr(a, dst, RAX);
	else
		x86_mov_load(a, dst, gen_slot(g, e->end_depth - 1));
}

int expr_emit(gen_ctx *g, const uint8_t *bytes, uint32_t len, bool push_cfa,
	      int dst, char *why, size_t whylen)
{
	expr *e = malloc(sizeof *e);
	if (!e)
		return ERR_NOMEM;
	int rc = analyse(e, bytes, len, push_cfa, why, whylen);
	if (rc < 0) {
		free(e);
		return rc;
	}
	x86_asm *a = g->a;
	int labels[MAX_OPS + 1];
	for (int i = 0; i <= e->n; i++)
		labels[i] = x86_label(a);
	if (g->fold) {
		emit_cached(g, e, push_cfa, dst, labels);
		free(e);
		return 0;
	}
	if (push_cfa)
		x86_mov_store(a, gen_slot(g, 0), g->cfa);
	for (int i = 0; i < e->n; i++) {
		x86_bind(a, labels[i]);
		if (e->ops[i].depth >= 0)
			emit_op(g, e, &e->ops[i], labels);
	}
	x86_bind(a, labels[e->n]);
	x86_mov_load(a, dst, gen_slot(g, e->end_depth - 1));
	free(e);
	return 0;
}
