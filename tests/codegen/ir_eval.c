/* ir_eval.c - see ir_eval.h.  Written independently of the code generator:
 * straight from the DWARF 5 text and the ABI header. */
#include "ir_eval.h"

#include <dwarf.h>
#include <string.h>

#include "../../builder/cfi/dwarf_op.h"

static int load(const ir_mem *m, uint64_t addr, uint64_t *v)
{
	if (m->local) {
		if (addr < m->lo || m->hi < 8 || addr > m->hi - 8)
			return EHELF_E_BOUNDS;
		memcpy(v, (const void *)(uintptr_t)addr, 8);
		return 0;
	}
	return m->read(m->arg, addr, v) == 0 ? 0 : EHELF_E_READ;
}

enum { MAXSTACK = 64 };

/* Evaluate EXPR; *RESULT is the top of the stack at the end. */
static int eval_expr(const uint8_t *expr, uint32_t len, const uint64_t *cfa,
		     const ehelf_regs *in, const ir_mem *m, uint64_t *result)
{
	uint64_t st[MAXSTACK];
	int sp = 0;
	if (cfa)
		st[sp++] = *cfa;
	cursor c = cursor_make(expr, len);
	dwop op;
	int steps = 0;
	while (c.p < c.end) {
		if (++steps > 100000)
			return EHELF_E_UNSUPPORTED;
		if (dwop_next(&c, expr, &op) <= 0)
			return EHELF_E_UNSUPPORTED;
		uint8_t o = op.op;
		uint64_t a, b;
#define NEED(n) do { if (sp < (n)) return EHELF_E_UNSUPPORTED; } while (0)
#define PUSH(v) do { uint64_t v_ = (v); if (sp == MAXSTACK) return EHELF_E_UNSUPPORTED; st[sp++] = v_; } while (0)
		if (o >= DW_OP_lit0 && o <= DW_OP_lit31) {
			PUSH((uint64_t)(o - DW_OP_lit0));
			continue;
		}
		if ((o >= DW_OP_breg0 && o <= DW_OP_breg31) || o == DW_OP_bregx) {
			uint64_t reg = o == DW_OP_bregx ? op.n1 : (uint64_t)(o - DW_OP_breg0);
			uint64_t off = o == DW_OP_bregx ? op.n2 : op.n1;
			if (reg > 16)
				return EHELF_E_UNSUPPORTED;
			PUSH(in->r[reg] + off);
			continue;
		}
		switch (o) {
		case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
		case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
		case DW_OP_consts:
			PUSH(op.n1);
			break;
		case DW_OP_call_frame_cfa:
			if (!cfa)
				return EHELF_E_UNSUPPORTED;
			PUSH(*cfa);
			break;
		case DW_OP_dup: NEED(1); PUSH(st[sp - 1]); break;
		case DW_OP_drop: NEED(1); sp--; break;
		case DW_OP_over: NEED(2); PUSH(st[sp - 2]); break;
		case DW_OP_pick:
			NEED((int)op.n1 + 1);
			PUSH(st[sp - 1 - (int)op.n1]);
			break;
		case DW_OP_swap:
			NEED(2);
			a = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = a;
			break;
		case DW_OP_rot:
			NEED(3);
			a = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = st[sp - 3];
			st[sp - 3] = a;
			break;
		case DW_OP_deref:
		case DW_OP_deref_size: {
			NEED(1);
			int rc = load(m, st[sp - 1], &a);
			if (rc)
				return rc;
			if (o == DW_OP_deref_size) {
				if (op.n1 < 1 || op.n1 > 8)
					return EHELF_E_UNSUPPORTED;
				if (op.n1 < 8)
					a &= (1ull << (8 * op.n1)) - 1;
			}
			st[sp - 1] = a;
			break;
		}
		case DW_OP_abs:
			NEED(1);
			if ((int64_t)st[sp - 1] < 0)
				st[sp - 1] = -st[sp - 1];
			break;
		case DW_OP_neg: NEED(1); st[sp - 1] = -st[sp - 1]; break;
		case DW_OP_not: NEED(1); st[sp - 1] = ~st[sp - 1]; break;
		case DW_OP_plus_uconst: NEED(1); st[sp - 1] += op.n1; break;
		case DW_OP_and: case DW_OP_or: case DW_OP_xor: case DW_OP_plus:
		case DW_OP_minus: case DW_OP_mul: case DW_OP_div: case DW_OP_mod:
		case DW_OP_shl: case DW_OP_shr: case DW_OP_shra: case DW_OP_eq:
		case DW_OP_ne: case DW_OP_lt: case DW_OP_le: case DW_OP_gt:
		case DW_OP_ge: {
			NEED(2);
			b = st[--sp];       /* former top */
			a = st[sp - 1];     /* former second */
			int64_t sa = (int64_t)a, sb = (int64_t)b;
			uint64_t r;
			switch (o) {
			case DW_OP_and: r = a & b; break;
			case DW_OP_or: r = a | b; break;
			case DW_OP_xor: r = a ^ b; break;
			case DW_OP_plus: r = a + b; break;
			case DW_OP_minus: r = a - b; break;
			case DW_OP_mul: r = a * b; break;
			case DW_OP_div:
				if (b == 0)
					return EHELF_E_EXPR;
				r = sb == -1 ? -a : (uint64_t)(sa / sb);
				break;
			case DW_OP_mod:
				if (b == 0)
					return EHELF_E_EXPR;
				r = a % b;
				break;
			case DW_OP_shl: r = a << (b & 63); break;
			case DW_OP_shr: r = a >> (b & 63); break;
			case DW_OP_shra: r = (uint64_t)(sa >> (b & 63)); break;
			case DW_OP_eq: r = a == b; break;
			case DW_OP_ne: r = a != b; break;
			case DW_OP_lt: r = sa < sb; break;
			case DW_OP_le: r = sa <= sb; break;
			case DW_OP_gt: r = sa > sb; break;
			default: r = sa >= sb; break;
			}
			st[sp - 1] = r;
			break;
		}
		case DW_OP_bra:
			NEED(1);
			if (st[--sp] == 0)
				break;
			/* fall through */
		case DW_OP_skip: {
			int64_t to = (int64_t)op.offset + 3 + (int64_t)op.n1;
			/* backward branches are refused, as the compiler
			 * does (docs/eh_elf.md): no expression loops */
			if (to <= (int64_t)op.offset || to > (int64_t)len)
				return EHELF_E_UNSUPPORTED;
			c.p = expr + to;
			break;
		}
		case DW_OP_nop:
			break;
		default:
			return EHELF_E_UNSUPPORTED;
		}
#undef NEED
#undef PUSH
	}
	if (sp < 1)
		return EHELF_E_UNSUPPORTED;
	*result = st[sp - 1];
	return 0;
}

static bool valid(const ehelf_regs *r, unsigned reg)
{
	return reg < 17 && (r->valid >> reg) & 1;
}

/* Registers an expression reads (breg/bregx operands). */
static uint32_t expr_regs(const uint8_t *expr, uint32_t len)
{
	uint32_t m = 0;
	cursor c = cursor_make(expr, len);
	dwop op;
	while (dwop_next(&c, expr, &op) > 0) {
		if (op.op >= DW_OP_breg0 && op.op <= DW_OP_breg16)
			m |= 1u << (op.op - DW_OP_breg0);
		else if (op.op == DW_OP_bregx && op.n1 <= 16)
			m |= 1u << op.n1;
	}
	return m;
}

int ir_eval_row(const uw_rules *r, bool signal, const ehelf_regs *in,
		ehelf_regs *out, const ir_mem *m)
{
	*out = *in;
	out->valid &= EHELF_VALID_REGS;
	if (r->reg[UW_RA].kind == UW_UNDEFINED)
		return EHELF_OUTERMOST;
	/* registers the CFA and the expressions need */
	uint32_t need = 0;
	if (r->cfa.kind == UW_CFA_REG_OFF)
		need |= r->cfa.reg <= 16 ? 1u << r->cfa.reg : 0;
	else if (r->cfa.kind == UW_CFA_EXPR)
		need |= expr_regs(r->cfa.expr, r->cfa.expr_len);
	for (int i = 0; i < UW_NCOLS; i++)
		if (r->reg[i].kind == UW_EXPR || r->reg[i].kind == UW_VAL_EXPR)
			need |= expr_regs(r->reg[i].expr, r->reg[i].expr_len);
	if ((in->valid & need) != need)
		return EHELF_E_BADREG;
	uint64_t cfa;
	if (r->cfa.kind == UW_CFA_REG_OFF) {
		if (r->cfa.reg > 16)
			return EHELF_E_UNSUPPORTED;
		cfa = in->r[r->cfa.reg] + (uint64_t)r->cfa.off;
	} else if (r->cfa.kind == UW_CFA_EXPR) {
		int rc = eval_expr(r->cfa.expr, r->cfa.expr_len, NULL, in, m, &cfa);
		if (rc)
			return rc;
	} else {
		return EHELF_E_UNSUPPORTED;
	}
	uint32_t set = 0, clear = 0;
	for (unsigned i = 0; i < UW_NCOLS; i++) {
		const uw_rule *x = &r->reg[i];
		uint64_t v;
		int rc;
		switch (x->kind) {
		case UW_UNSET:
			if (i == UW_RSP) {
				out->r[i] = cfa;
				set |= 1u << i;
			}
			break;
		case UW_SAME_VALUE:
			break;
		case UW_UNDEFINED:
			clear |= 1u << i;
			break;
		case UW_OFFSET:
			if ((rc = load(m, cfa + (uint64_t)x->off, &v)))
				return rc;
			out->r[i] = v;
			set |= 1u << i;
			break;
		case UW_VAL_OFFSET:
			out->r[i] = cfa + (uint64_t)x->off;
			set |= 1u << i;
			break;
		case UW_REGISTER:
			if (x->reg > 16)
				return EHELF_E_UNSUPPORTED;
			out->r[i] = in->r[x->reg];
			if (valid(in, x->reg))
				set |= 1u << i;
			else
				clear |= 1u << i;
			break;
		case UW_EXPR:
		case UW_VAL_EXPR:
			if ((rc = eval_expr(x->expr, x->expr_len, &cfa, in, m, &v)))
				return rc;
			if (x->kind == UW_EXPR && (rc = load(m, v, &v)))
				return rc;
			out->r[i] = v;
			set |= 1u << i;
			break;
		}
	}
	if (signal)
		set |= EHELF_SIGNAL_FRAME;
	out->valid = (out->valid & ~clear) | set;
	return EHELF_STEP;
}
