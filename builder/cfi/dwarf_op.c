/* dwarf_op.c - see dwarf_op.h. */
#include "dwarf_op.h"

#include <dwarf.h>
#include <elfutils/known-dwarf.h>
#include <inttypes.h>
#include <stdio.h>

#include "unwind_ir.h"

const char *dwop_name(uint8_t op)
{
	/* elfutils' list of every known opcode and its name */
#define DWARF_ONE_KNOWN_DW_OP(NAME, CODE) [CODE] = "DW_OP_" #NAME,
	static const char *const names[256] = { DWARF_ALL_KNOWN_DW_OP };
#undef DWARF_ONE_KNOWN_DW_OP
	return names[op];
}

static int read_block(cursor *c, uint64_t len, dwop *op)
{
	if (len > cur_left(c) || len > UINT32_MAX)
		return -1;
	op->block = c->p;
	op->block_len = (uint32_t)len;
	c->p += len;
	return 1;
}

int dwop_next(cursor *c, const uint8_t *start, dwop *op)
{
	if (!cur_left(c))
		return 0;
	*op = (dwop){ .offset = (uint32_t)(c->p - start) };
	uint8_t o = op->op = cur_u8(c);
	if (o >= DW_OP_lit0 && o <= DW_OP_reg31)
		return 1; /* lit0..31, reg0..31: no operand */
	if (o >= DW_OP_breg0 && o <= DW_OP_breg31) {
		op->n1 = (uint64_t)cur_sleb(c);
		return c->bad ? -1 : 1;
	}
	switch (o) {
	case DW_OP_deref: case DW_OP_dup: case DW_OP_drop: case DW_OP_over:
	case DW_OP_swap: case DW_OP_rot: case DW_OP_xderef: case DW_OP_abs:
	case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod:
	case DW_OP_mul: case DW_OP_neg: case DW_OP_not: case DW_OP_or:
	case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
	case DW_OP_xor: case DW_OP_eq: case DW_OP_ge: case DW_OP_gt:
	case DW_OP_le: case DW_OP_lt: case DW_OP_ne: case DW_OP_nop:
	case DW_OP_push_object_address: case DW_OP_form_tls_address:
	case DW_OP_call_frame_cfa: case DW_OP_stack_value:
	case DW_OP_GNU_push_tls_address: case DW_OP_GNU_uninit:
		return 1;
	case DW_OP_addr: case DW_OP_const8u:
		op->n1 = cur_u64(c);
		break;
	case DW_OP_const8s:
		op->n1 = (uint64_t)cur_s64(c);
		break;
	case DW_OP_const1u: case DW_OP_pick: case DW_OP_deref_size:
	case DW_OP_xderef_size:
		op->n1 = cur_u8(c);
		break;
	case DW_OP_const1s:
		op->n1 = (uint64_t)(int64_t)(int8_t)cur_u8(c);
		break;
	case DW_OP_const2u: case DW_OP_call2:
		op->n1 = cur_u16(c);
		break;
	case DW_OP_const2s: case DW_OP_skip: case DW_OP_bra:
		op->n1 = (uint64_t)(int64_t)cur_s16(c);
		break;
	case DW_OP_const4u: case DW_OP_call4: case DW_OP_call_ref:
	case DW_OP_GNU_parameter_ref: case DW_OP_GNU_variable_value:
		op->n1 = cur_u32(c);
		break;
	case DW_OP_const4s:
		op->n1 = (uint64_t)(int64_t)cur_s32(c);
		break;
	case DW_OP_constu: case DW_OP_plus_uconst: case DW_OP_regx:
	case DW_OP_piece: case DW_OP_addrx: case DW_OP_constx:
	case DW_OP_convert: case DW_OP_reinterpret: case DW_OP_GNU_convert:
	case DW_OP_GNU_reinterpret: case DW_OP_GNU_addr_index:
	case DW_OP_GNU_const_index:
		op->n1 = cur_uleb(c);
		break;
	case DW_OP_consts: case DW_OP_fbreg:
		op->n1 = (uint64_t)cur_sleb(c);
		break;
	case DW_OP_bregx:
		op->n1 = cur_uleb(c);
		op->n2 = (uint64_t)cur_sleb(c);
		break;
	case DW_OP_bit_piece: case DW_OP_regval_type:
	case DW_OP_GNU_regval_type:
		op->n1 = cur_uleb(c);
		op->n2 = cur_uleb(c);
		break;
	case DW_OP_deref_type: case DW_OP_xderef_type:
	case DW_OP_GNU_deref_type:
		op->n1 = cur_u8(c);
		op->n2 = cur_uleb(c);
		break;
	case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer:
		op->n1 = cur_u32(c);
		op->n2 = (uint64_t)cur_sleb(c);
		break;
	case DW_OP_implicit_value: case DW_OP_entry_value:
	case DW_OP_GNU_entry_value:
		op->n1 = cur_uleb(c);
		if (c->bad)
			return -1;
		return read_block(c, op->n1, op);
	case DW_OP_const_type: case DW_OP_GNU_const_type:
		op->n1 = cur_uleb(c);
		op->n2 = cur_u8(c);
		if (c->bad)
			return -1;
		return read_block(c, op->n2, op);
	default:
		return -1;
	}
	return c->bad ? -1 : 1;
}

int dwop_format(const dwop *op, char *buf, size_t n)
{
	char unk[16], rn[16];
	const char *name = dwop_name(op->op);
	if (!name) {
		snprintf(unk, sizeof unk, "DW_OP_0x%02x", op->op);
		name = unk;
	}
	uint8_t o = op->op;
	int64_t s1 = (int64_t)op->n1, s2 = (int64_t)op->n2;
	if (o >= DW_OP_breg0 && o <= DW_OP_breg31)
		return snprintf(buf, n, "%s (%s): %" PRId64, name,
				uw_reg_name(o - DW_OP_breg0, rn), s1);
	if (o >= DW_OP_reg0 && o <= DW_OP_reg31)
		return snprintf(buf, n, "%s (%s)", name,
				uw_reg_name(o - DW_OP_reg0, rn));
	switch (o) {
	case DW_OP_bregx:
		return snprintf(buf, n, "%s: %" PRIu64 " (%s) %" PRId64, name,
				op->n1, uw_reg_name((unsigned)op->n1, rn), s2);
	case DW_OP_regx:
		return snprintf(buf, n, "%s: %" PRIu64 " (%s)", name, op->n1,
				uw_reg_name((unsigned)op->n1, rn));
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
	case DW_OP_const8s: case DW_OP_consts: case DW_OP_fbreg:
		return snprintf(buf, n, "%s: %" PRId64, name, s1);
	case DW_OP_skip: case DW_OP_bra:
		return snprintf(buf, n, "%s: %" PRId64 " (to +%" PRId64 ")",
				name, s1, (int64_t)op->offset + 3 + s1);
	case DW_OP_addr: case DW_OP_const8u:
		return snprintf(buf, n, "%s: 0x%" PRIx64, name, op->n1);
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
	case DW_OP_constu: case DW_OP_plus_uconst: case DW_OP_pick:
	case DW_OP_deref_size: case DW_OP_xderef_size: case DW_OP_piece:
	case DW_OP_call2: case DW_OP_call4: case DW_OP_call_ref:
	case DW_OP_addrx: case DW_OP_constx: case DW_OP_convert:
	case DW_OP_reinterpret: case DW_OP_implicit_value:
	case DW_OP_entry_value:
		return snprintf(buf, n, "%s: %" PRIu64, name, op->n1);
	case DW_OP_bit_piece: case DW_OP_regval_type: case DW_OP_deref_type:
	case DW_OP_xderef_type: case DW_OP_const_type:
		return snprintf(buf, n, "%s: %" PRIu64 ", %" PRIu64, name,
				op->n1, op->n2);
	case DW_OP_implicit_pointer:
		return snprintf(buf, n, "%s: 0x%" PRIx64 ", %" PRId64, name,
				op->n1, s2);
	}
	return snprintf(buf, n, "%s", name);
}
