/* cfi_expr.c - see cfi_expr.h. */
#include "cfi_expr.h"

#include <dwarf.h>

#include "../../common/cursor.h"
#include "cfi_binop.h"

/* Read SIZE (1, 2, 4 or 8) bytes at ADDR through READ, zero-extended. */
static int deref(ehelf_read_fn read, void *arg, uint64_t addr, uint64_t size,
		 uint64_t *v)
{
	if (size == 0 || size > 8 || (size & (size - 1)))
		return EHELF_E_UNSUPPORTED;
	if (read(arg, addr, v) != 0)
		return EHELF_E_READ;
	if (size < 8)
		*v &= (1ull << (8 * size)) - 1;
	return EHELF_STEP;
}

int cfi_expr_eval(const uint8_t *expr, size_t len, const ehelf_regs *in,
		  uint64_t push, bool has_push, ehelf_read_fn read, void *arg,
		  uint64_t *out)
{
	uint64_t st[CFI_EXPR_STACK];
	int sp = 0, rc;
	if (has_push)
		st[sp++] = push;
	cursor c = cursor_make(expr, len);
	for (int steps = 0; cur_left(&c); steps++) {
		if (steps == CFI_EXPR_STEPS)
			return EHELF_E_EXPR;
		uint8_t op = cur_u8(&c);
		uint64_t v = 0, reg;
		/* operations that push */
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			v = op - DW_OP_lit0;
			goto push;
		}
		if ((op >= DW_OP_breg0 && op <= DW_OP_breg31) || op == DW_OP_bregx) {
			reg = op == DW_OP_bregx ? cur_uleb(&c) : (uint64_t)(op - DW_OP_breg0);
			int64_t off = cur_sleb(&c);
			if (c.bad)
				return EHELF_E_EXPR;
			if (reg >= EHELF_NREGS || !((in->valid >> reg) & 1))
				return EHELF_E_BADREG;
			v = in->r[reg] + (uint64_t)off;
			goto push;
		}
		switch (op) {
		case DW_OP_const1u: v = cur_u8(&c); goto push;
		case DW_OP_const1s: v = (uint64_t)(int64_t)(int8_t)cur_u8(&c); goto push;
		case DW_OP_const2u: v = cur_u16(&c); goto push;
		case DW_OP_const2s: v = (uint64_t)(int64_t)cur_s16(&c); goto push;
		case DW_OP_const4u: v = cur_u32(&c); goto push;
		case DW_OP_const4s: v = (uint64_t)(int64_t)cur_s32(&c); goto push;
		case DW_OP_const8u: case DW_OP_const8s: v = cur_u64(&c); goto push;
		case DW_OP_constu: v = cur_uleb(&c); goto push;
		case DW_OP_consts: v = (uint64_t)cur_sleb(&c); goto push;
		case DW_OP_dup:
			if (sp < 1)
				return EHELF_E_EXPR;
			v = st[sp - 1];
			goto push;
		case DW_OP_over:
			if (sp < 2)
				return EHELF_E_EXPR;
			v = st[sp - 2];
			goto push;
		case DW_OP_pick: {
			uint8_t i = cur_u8(&c);
			if (i >= sp)
				return EHELF_E_EXPR;
			v = st[sp - 1 - i];
			goto push;
		}
		case DW_OP_nop:
			continue;
		case DW_OP_skip: case DW_OP_bra: {
			int16_t d = cur_s16(&c);
			if (c.bad)
				return EHELF_E_EXPR;
			if (op == DW_OP_bra) {
				if (sp < 1)
					return EHELF_E_EXPR;
				if (st[--sp] == 0)
					continue;
			}
			ptrdiff_t at = (c.p - expr) + d;
			if (at < 0 || (size_t)at > len)
				return EHELF_E_EXPR;
			c.p = expr + at;
			continue;
		}
		}
		/* operations on the top of the stack */
		if (sp < 1)
			return EHELF_E_EXPR;
		uint64_t x = st[sp - 1];
		switch (op) {
		case DW_OP_drop: sp--; continue;
		case DW_OP_deref:
		case DW_OP_deref_size:
			rc = deref(read, arg, x,
				   op == DW_OP_deref ? 8 : cur_u8(&c), &st[sp - 1]);
			if (rc != EHELF_STEP)
				return rc;
			continue;
		case DW_OP_plus_uconst: st[sp - 1] = x + cur_uleb(&c); goto check;
		case DW_OP_neg: st[sp - 1] = -x; continue;
		case DW_OP_not: st[sp - 1] = ~x; continue;
		case DW_OP_abs: st[sp - 1] = (int64_t)x < 0 ? -x : x; continue;
		}
		/* binary operations: Y op X */
		if (sp < 2)
			return EHELF_E_EXPR;
		uint64_t y = st[sp - 2], r;
		switch (op) {
		case DW_OP_swap: cfi_rotate(&st[sp - 1], 2); continue;
		case DW_OP_rot:
			if (sp < 3)
				return EHELF_E_EXPR;
			cfi_rotate(&st[sp - 1], 3);
			continue;
		}
		rc = cfi_binop(op, y, x, &r);
		if (rc != EHELF_STEP)
			return rc;
		st[--sp - 1] = r;
		continue;
	push:
		if (sp == CFI_EXPR_STACK)
			return EHELF_E_EXPR;
		st[sp++] = v;
	check:
		if (c.bad)
			return EHELF_E_EXPR;
	}
	if (c.bad || sp < 1)
		return EHELF_E_EXPR;
	*out = st[sp - 1];
	return EHELF_STEP;
}
