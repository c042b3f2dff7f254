/* cfi_row.c - see cfi_row.h. */
#include "cfi_row.h"

#include <dwarf.h>
#include <string.h>

#include "../../common/cursor.h"
#include "../../common/dwarf/eh_pe.h"
#include "../../abi/ehelf_abi.h"

#ifndef DW_CFA_MIPS_advance_loc8
#define DW_CFA_MIPS_advance_loc8 0x1d
#endif

/* The running state of one instruction sequence. */
typedef struct run {
	const cfi_fde *f;
	cfi_row *row;
	const cfi_row *init; /* the CIE's row (NULL while running the CIE) */
	cfi_row stack[CFI_ROW_DEPTH];
	int depth;
	uint64_t loc;        /* the address the current row starts at */
	uint64_t pc;         /* stop before the first row starting above it */
} run;

/* Set column REG (ignored above 16) to KIND with offset OFF. */
static bool set_off(cfi_row *row, uint64_t reg, uint8_t kind, int64_t off)
{
	if (reg >= CFI_NCOLS)
		return true;
	if (off < INT32_MIN || off > INT32_MAX)
		return false;
	row->col[reg] = (cfi_rule){ .kind = kind, .off = (int32_t)off };
	return true;
}

/* An expression block at C into *R as KIND. */
static bool set_expr(cursor *c, cfi_rule *r, uint8_t kind)
{
	uint64_t len = cur_uleb(c);
	if (c->bad || len > cur_left(c) || len > UINT16_MAX)
		return false;
	*r = (cfi_rule){ .kind = kind, .expr_len = (uint16_t)len, .expr = c->p };
	c->p += len;
	return true;
}

/* Advance the location by DELTA code units; false (stop) past the pc. */
static bool advance(run *r, uint64_t delta)
{
	uint64_t to = r->loc + delta * r->f->cie.code_align;
	if (to > r->pc)
		return false;
	r->loc = to;
	return true;
}

/* Run the instructions [P, P + LEN).  Returns 0 (end, or the pc reached)
 * or EHELF_E_UNSUPPORTED. */
static int execute(run *r, const uint8_t *p, size_t len)
{
	cursor c = cursor_make(p, len);
	cfi_row *row = r->row;
	const int64_t da = r->f->cie.data_align;
	while (cur_left(&c)) {
		uint8_t op = cur_u8(&c), low = op & 0x3f;
		uint64_t reg, a;
		int64_t s;
		bool ok = true;
		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			if (!advance(r, low))
				return 0;
			continue;
		case DW_CFA_offset:
			a = cur_uleb(&c);
			ok = set_off(row, low, CFI_OFFSET, (int64_t)a * da);
			goto next;
		case DW_CFA_restore:
			reg = low;
			goto restore;
		}
		switch (op) {
		case DW_CFA_nop:
			break;
		case DW_CFA_set_loc: {
			eh_pe_ctx ctx = { .data = r->f->sec.data,
					  .vaddr = r->f->sec.vaddr };
			uint64_t to;
			if (eh_pe_read(&c, r->f->cie.fde_enc, &ctx, &to) != EH_PE_OK)
				return EHELF_E_UNSUPPORTED;
			if (to > r->pc)
				return 0;
			r->loc = to;
			break;
		}
		case DW_CFA_advance_loc1:
			if (!advance(r, cur_u8(&c)))
				return 0;
			break;
		case DW_CFA_advance_loc2:
			if (!advance(r, cur_u16(&c)))
				return 0;
			break;
		case DW_CFA_advance_loc4:
			if (!advance(r, cur_u32(&c)))
				return 0;
			break;
		case DW_CFA_MIPS_advance_loc8:
			if (!advance(r, cur_u64(&c)))
				return 0;
			break;
		case DW_CFA_offset_extended:
			reg = cur_uleb(&c);
			a = cur_uleb(&c);
			ok = set_off(row, reg, CFI_OFFSET, (int64_t)a * da);
			break;
		case DW_CFA_offset_extended_sf:
			reg = cur_uleb(&c);
			s = cur_sleb(&c);
			ok = set_off(row, reg, CFI_OFFSET, s * da);
			break;
		case DW_CFA_GNU_negative_offset_extended:
			reg = cur_uleb(&c);
			a = cur_uleb(&c);
			ok = set_off(row, reg, CFI_OFFSET, -(int64_t)a * da);
			break;
		case DW_CFA_val_offset:
			reg = cur_uleb(&c);
			a = cur_uleb(&c);
			ok = set_off(row, reg, CFI_VAL_OFFSET, (int64_t)a * da);
			break;
		case DW_CFA_val_offset_sf:
			reg = cur_uleb(&c);
			s = cur_sleb(&c);
			ok = set_off(row, reg, CFI_VAL_OFFSET, s * da);
			break;
		case DW_CFA_restore_extended:
			reg = cur_uleb(&c);
			goto restore;
		case DW_CFA_undefined:
			ok = set_off(row, cur_uleb(&c), CFI_UNDEFINED, 0);
			break;
		case DW_CFA_same_value:
			ok = set_off(row, cur_uleb(&c), CFI_SAME, 0);
			break;
		case DW_CFA_register:
			reg = cur_uleb(&c);
			a = cur_uleb(&c);
			if (reg < CFI_NCOLS) {
				if (a >= CFI_NCOLS)
					return EHELF_E_UNSUPPORTED;
				row->col[reg] = (cfi_rule){ .kind = CFI_REGISTER,
							    .reg = (uint8_t)a };
			}
			break;
		case DW_CFA_remember_state:
			if (r->depth == CFI_ROW_DEPTH)
				return EHELF_E_UNSUPPORTED;
			r->stack[r->depth++] = *row;
			break;
		case DW_CFA_restore_state:
			if (r->depth == 0)
				return EHELF_E_UNSUPPORTED;
			*row = r->stack[--r->depth];
			break;
		case DW_CFA_def_cfa:
			reg = cur_uleb(&c);
			a = cur_uleb(&c);
			if (reg >= CFI_NCOLS || a > INT32_MAX)
				return EHELF_E_UNSUPPORTED;
			row->cfa = (cfi_rule){ .kind = CFI_REGISTER, .reg = (uint8_t)reg,
					       .off = (int32_t)a };
			break;
		case DW_CFA_def_cfa_sf:
			reg = cur_uleb(&c);
			s = cur_sleb(&c) * da;
			if (reg >= CFI_NCOLS || s < INT32_MIN || s > INT32_MAX)
				return EHELF_E_UNSUPPORTED;
			row->cfa = (cfi_rule){ .kind = CFI_REGISTER, .reg = (uint8_t)reg,
					       .off = (int32_t)s };
			break;
		case DW_CFA_def_cfa_register:
			/* after an expression: the last register and offset
			 * (libgcc and libunwind keep them; cfi_program.h) */
			reg = cur_uleb(&c);
			if (reg >= CFI_NCOLS)
				return EHELF_E_UNSUPPORTED;
			row->cfa.kind = CFI_REGISTER;
			row->cfa.reg = (uint8_t)reg;
			break;
		case DW_CFA_def_cfa_offset:
			a = cur_uleb(&c);
			if (a > INT32_MAX)
				return EHELF_E_UNSUPPORTED;
			row->cfa.kind = CFI_REGISTER;
			row->cfa.off = (int32_t)a;
			break;
		case DW_CFA_def_cfa_offset_sf:
			s = cur_sleb(&c) * da;
			if (s < INT32_MIN || s > INT32_MAX)
				return EHELF_E_UNSUPPORTED;
			row->cfa.kind = CFI_REGISTER;
			row->cfa.off = (int32_t)s;
			break;
		case DW_CFA_def_cfa_expression: {
			cfi_rule e;
			if (!set_expr(&c, &e, CFI_EXPR))
				return EHELF_E_UNSUPPORTED;
			/* the register and offset stay, for a later
			 * def_cfa_register or _offset */
			row->cfa.kind = CFI_EXPR;
			row->cfa.expr = e.expr;
			row->cfa.expr_len = e.expr_len;
			break;
		}
		case DW_CFA_expression:
		case DW_CFA_val_expression: {
			reg = cur_uleb(&c);
			cfi_rule e;
			if (!set_expr(&c, &e, op == DW_CFA_expression ? CFI_EXPR
								      : CFI_VAL_EXPR))
				return EHELF_E_UNSUPPORTED;
			if (reg < CFI_NCOLS)
				row->col[reg] = e;
			break;
		}
		case DW_CFA_GNU_args_size:
			(void)cur_uleb(&c);
			break;
		default:
			return EHELF_E_UNSUPPORTED;
		}
		goto next;
	restore:
		if (reg < CFI_NCOLS)
			row->col[reg] = r->init ? r->init->col[reg] : (cfi_rule){ 0 };
	next:
		if (!ok || c.bad)
			return EHELF_E_UNSUPPORTED;
	}
	return 0;
}

int cfi_row_at(const cfi_fde *f, uint64_t pc, cfi_row *row)
{
	run r;
	cfi_row init;
	memset(&init, 0, sizeof init);
	r.f = f;
	r.row = &init;
	r.init = NULL;
	r.depth = 0;
	r.loc = 0;
	r.pc = UINT64_MAX; /* the CIE's instructions all apply */
	int rc = execute(&r, f->cie.insns, f->cie.insns_len);
	if (rc < 0)
		return rc;
	*row = init;
	r.row = row;
	r.init = &init;
	r.depth = 0;
	r.loc = f->fde.lo;
	r.pc = pc;
	rc = execute(&r, f->fde.insns, f->fde.insns_len);
	if (rc < 0)
		return rc;
	return row->cfa.kind == CFI_UNSET ? EHELF_E_UNSUPPORTED : 0;
}
