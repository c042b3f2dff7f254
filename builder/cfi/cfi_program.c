/* cfi_program.c - see cfi_program.h. */
#include "cfi_program.h"

#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/cursor.h"
#include "../../common/dwarf/eh_pe.h"

enum { MAX_REMEMBER_DEPTH = 1024, MAX_REGNO = 0xffff };

/* Everything one run of a program needs. */
typedef struct vm {
	const cfi_section *s;
	const cfi_cie *cie;
	const uw_rules *init;  /* NULL while running the CIE itself */
	const cfi_fde_hdr *fde;/* NULL while running the CIE itself */
	cfi_rowbuf *buf;
	cfi_counts *counts;
	ehelf_err *err;
	uint64_t entry_off;    /* for messages */
	uw_rules st;           /* current row's rules */
	uint64_t loc;
	size_t depth;          /* remember_state depth */
} vm;

static int vm_error(vm *m, int code, uint64_t at, const char *what)
{
	return cfi_error(m->err, code, m->s, m->entry_off,
			 "instruction at +0x%llx: %s",
			 (unsigned long long)(at - m->entry_off), what);
}

static int emit_row(vm *m, uint64_t lo, uint64_t hi)
{
	if (hi > m->fde->hi)
		hi = m->fde->hi;
	if (lo >= hi)
		return 0;
	cfi_rowbuf *b = m->buf;
	if (b->n && b->rows[b->n - 1].hi == lo &&
	    uw_rules_eq(&b->rows[b->n - 1].r, &m->st)) {
		b->rows[b->n - 1].hi = hi;
		return 0;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		uw_row *r = realloc(b->rows, cap * sizeof *r);
		if (!r)
			return err_set(m->err, ERR_NOMEM, "out of memory");
		b->rows = r;
		b->cap = cap;
	}
	uw_row *r = &b->rows[b->n++];
	r->lo = lo;
	r->hi = hi;
	r->r = m->st;
	return 0;
}

/* Move to NEWLOC, closing the current row. */
static int advance_to(vm *m, uint64_t at, uint64_t newloc)
{
	if (!m->fde)
		return vm_error(m, ERR_FORMAT, at,
				"location change in CIE initial instructions");
	if (newloc < m->loc)
		return vm_error(m, ERR_FORMAT, at, "location moves backwards");
	int rc = emit_row(m, m->loc, newloc);
	m->loc = newloc;
	return rc;
}

static int advance_by(vm *m, uint64_t at, uint64_t delta)
{
	uint64_t bytes, newloc;
	if (__builtin_mul_overflow(delta, m->cie->code_align, &bytes) ||
	    __builtin_add_overflow(m->loc, bytes, &newloc))
		return vm_error(m, ERR_FORMAT, at, "location advance overflows");
	return advance_to(m, at, newloc);
}

/* Set column REG (any DWARF register number) to RULE. */
static int set_rule(vm *m, uint64_t at, uint64_t reg, const uw_rule *rule)
{
	if (reg > MAX_REGNO)
		return vm_error(m, ERR_FORMAT, at, "register number too large");
	if (reg < UW_NCOLS)
		m->st.reg[reg] = *rule;
	else
		m->counts->extra_cols++;
	return 0;
}

static int factored(vm *m, uint64_t at, int64_t n, int64_t *out)
{
	if (__builtin_mul_overflow(n, m->cie->data_align, out))
		return vm_error(m, ERR_FORMAT, at, "factored offset overflows");
	return 0;
}

static int ufactored(vm *m, uint64_t at, uint64_t n, int64_t *out)
{
	if (n > INT64_MAX)
		return vm_error(m, ERR_FORMAT, at, "offset overflows");
	return factored(m, at, (int64_t)n, out);
}

/* DW_CFA_def_cfa_register and _offset on a CFA that is not register+offset
 * follow libgcc: the register (and the offset last given) are kept across
 * an expression, and the change is flagged in uw_cfa.lax. */
static void note_lax_cfa(vm *m)
{
	if (m->st.cfa.kind != UW_CFA_REG_OFF)
		m->st.cfa.lax = 1;
}

/* An expression block: ULEB length and bytes. */
static int read_block(vm *m, cursor *c, uint64_t at, const uint8_t **p,
		      uint32_t *len)
{
	uint64_t n = cur_uleb(c);
	if (c->bad || n > cur_left(c) || n > UINT32_MAX)
		return vm_error(m, ERR_FORMAT, at,
				"expression runs past the entry");
	*p = c->p;
	*len = (uint32_t)n;
	c->p += n;
	return 0;
}

static int restore_col(vm *m, uint64_t at, uint64_t reg)
{
	if (!m->init)
		return vm_error(m, ERR_FORMAT, at,
				"DW_CFA_restore in CIE initial instructions");
	if (reg > MAX_REGNO)
		return vm_error(m, ERR_FORMAT, at, "register number too large");
	if (reg < UW_NCOLS)
		m->st.reg[reg] = m->init->reg[reg];
	else
		m->counts->extra_cols++;
	return 0;
}

static int remember(vm *m, uint64_t at)
{
	cfi_rowbuf *b = m->buf;
	if (m->depth == MAX_REMEMBER_DEPTH)
		return vm_error(m, ERR_UNSUPPORTED, at,
				"DW_CFA_remember_state nested too deep");
	if (m->depth == b->stack_cap) {
		size_t cap = b->stack_cap ? 2 * b->stack_cap : 8;
		uw_rules *s = realloc(b->stack, cap * sizeof *s);
		if (!s)
			return err_set(m->err, ERR_NOMEM, "out of memory");
		b->stack = s;
		b->stack_cap = cap;
	}
	b->stack[m->depth++] = m->st;
	return 0;
}

static int run(vm *m, const uint8_t *insns, size_t len)
{
	cursor c = cursor_make(insns, len);
	const cfi_cie *cie = m->cie;
	int rc = 0;
	while (rc == 0 && cur_left(&c)) {
		uint64_t at = (uint64_t)(c.p - m->s->data);
		uint8_t op = cur_u8(&c);
		uint64_t reg, u;
		int64_t off;
		uw_rule rule = { 0 };
		if ((op & 0xc0) == DW_CFA_advance_loc) {
			rc = advance_by(m, at, op & 0x3f);
			continue;
		}
		if ((op & 0xc0) == DW_CFA_offset) {
			reg = op & 0x3f;
			u = cur_uleb(&c);
			if (c.bad)
				break;
			if ((rc = ufactored(m, at, u, &off)))
				break;
			rule.kind = UW_OFFSET;
			rule.off = off;
			rc = set_rule(m, at, reg, &rule);
			continue;
		}
		if ((op & 0xc0) == DW_CFA_restore) {
			rc = restore_col(m, at, op & 0x3f);
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
			break;
		case DW_CFA_set_loc: {
			uint64_t newloc;
			eh_pe_ctx ctx = { .data = m->s->data, .vaddr = m->s->vaddr,
					  .read_u64 = m->s->read_u64,
					  .arg = m->s->arg };
			int st = eh_pe_read(&c, cie->fde_enc, &ctx, &newloc);
			if (st != EH_PE_OK)
				return vm_error(m, ERR_FORMAT, at,
						eh_pe_status_str(st));
			rc = advance_to(m, at, newloc);
			break;
		}
		case DW_CFA_advance_loc1:
			u = cur_u8(&c);
			goto advance;
		case DW_CFA_advance_loc2:
			u = cur_u16(&c);
			goto advance;
		case DW_CFA_advance_loc4:
			u = cur_u32(&c);
			goto advance;
		case DW_CFA_MIPS_advance_loc8:
			u = cur_u64(&c);
		advance:
			if (!c.bad)
				rc = advance_by(m, at, u);
			break;
		case DW_CFA_offset_extended:
			reg = cur_uleb(&c);
			u = cur_uleb(&c);
			if (c.bad || (rc = ufactored(m, at, u, &off)))
				break;
			rule.kind = UW_OFFSET;
			rule.off = off;
			rc = set_rule(m, at, reg, &rule);
			break;
		case DW_CFA_offset_extended_sf:
		case DW_CFA_val_offset_sf:
			reg = cur_uleb(&c);
			off = cur_sleb(&c);
			if (c.bad || (rc = factored(m, at, off, &off)))
				break;
			rule.kind = op == DW_CFA_val_offset_sf ? UW_VAL_OFFSET
							       : UW_OFFSET;
			rule.off = off;
			rc = set_rule(m, at, reg, &rule);
			break;
		case DW_CFA_val_offset:
			reg = cur_uleb(&c);
			u = cur_uleb(&c);
			if (c.bad || (rc = ufactored(m, at, u, &off)))
				break;
			rule.kind = UW_VAL_OFFSET;
			rule.off = off;
			rc = set_rule(m, at, reg, &rule);
			break;
		case DW_CFA_GNU_negative_offset_extended:
			reg = cur_uleb(&c);
			u = cur_uleb(&c);
			if (c.bad || (rc = ufactored(m, at, u, &off)))
				break;
			rule.kind = UW_OFFSET;
			rule.off = -off;
			rc = set_rule(m, at, reg, &rule);
			break;
		case DW_CFA_restore_extended:
			reg = cur_uleb(&c);
			if (!c.bad)
				rc = restore_col(m, at, reg);
			break;
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			reg = cur_uleb(&c);
			rule.kind = op == DW_CFA_undefined ? UW_UNDEFINED
							   : UW_SAME_VALUE;
			if (!c.bad)
				rc = set_rule(m, at, reg, &rule);
			break;
		case DW_CFA_register:
			reg = cur_uleb(&c);
			u = cur_uleb(&c);
			if (c.bad)
				break;
			if (u > MAX_REGNO)
				return vm_error(m, ERR_FORMAT, at,
						"register number too large");
			rule.kind = UW_REGISTER;
			rule.reg = (uint16_t)u;
			rc = set_rule(m, at, reg, &rule);
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			reg = cur_uleb(&c);
			if (c.bad)
				break;
			rule.kind = op == DW_CFA_expression ? UW_EXPR : UW_VAL_EXPR;
			if ((rc = read_block(m, &c, at, &rule.expr, &rule.expr_len)))
				break;
			rc = set_rule(m, at, reg, &rule);
			break;
		case DW_CFA_remember_state:
			rc = remember(m, at);
			break;
		case DW_CFA_restore_state:
			if (m->depth == 0)
				return vm_error(m, ERR_FORMAT, at,
						"DW_CFA_restore_state without "
						"DW_CFA_remember_state");
			m->st = m->buf->stack[--m->depth];
			break;
		case DW_CFA_def_cfa:
		case DW_CFA_def_cfa_sf:
			reg = cur_uleb(&c);
			if (op == DW_CFA_def_cfa) {
				u = cur_uleb(&c);
				if (!c.bad && u > INT64_MAX)
					return vm_error(m, ERR_FORMAT, at,
							"CFA offset overflows");
				off = (int64_t)u;
			} else {
				off = cur_sleb(&c);
				if (!c.bad && (rc = factored(m, at, off, &off)))
					break;
			}
			if (c.bad)
				break;
			if (reg > MAX_REGNO)
				return vm_error(m, ERR_FORMAT, at,
						"register number too large");
			m->st.cfa.kind = UW_CFA_REG_OFF;
			m->st.cfa.lax = 0;
			m->st.cfa.reg = (uint16_t)reg;
			m->st.cfa.off = off;
			break;
		case DW_CFA_def_cfa_register:
			reg = cur_uleb(&c);
			if (c.bad)
				break;
			if (reg > MAX_REGNO)
				return vm_error(m, ERR_FORMAT, at,
						"register number too large");
			note_lax_cfa(m);
			m->st.cfa.kind = UW_CFA_REG_OFF;
			m->st.cfa.reg = (uint16_t)reg;
			break;
		case DW_CFA_def_cfa_offset:
			u = cur_uleb(&c);
			if (c.bad)
				break;
			if (u > INT64_MAX)
				return vm_error(m, ERR_FORMAT, at,
						"CFA offset overflows");
			note_lax_cfa(m);
			m->st.cfa.off = (int64_t)u;
			break;
		case DW_CFA_def_cfa_offset_sf:
			off = cur_sleb(&c);
			if (c.bad || (rc = factored(m, at, off, &off)))
				break;
			note_lax_cfa(m);
			m->st.cfa.off = off;
			break;
		case DW_CFA_def_cfa_expression:
			rc = read_block(m, &c, at, &m->st.cfa.expr,
					&m->st.cfa.expr_len);
			if (rc == 0) {
				m->st.cfa.kind = UW_CFA_EXPR;
				m->st.cfa.lax = 0;
			}
			break;
		case DW_CFA_GNU_args_size:
			cur_uleb(&c);
			m->counts->args_size_ops++;
			break;
		case DW_CFA_GNU_window_save:
			return vm_error(m, ERR_UNSUPPORTED, at,
					"DW_CFA_GNU_window_save is SPARC/AArch64 only");
		default: {
			char what[64];
			snprintf(what, sizeof what, "unknown opcode 0x%02x", op);
			return vm_error(m, ERR_FORMAT, at, what);
		}
		}
		if (c.bad)
			return vm_error(m, ERR_FORMAT, at,
					"instruction runs past the entry");
	}
	return rc;
}

int cfi_run_cie(const cfi_section *s, const cfi_cie *cie, uw_rules *init,
		cfi_rowbuf *buf, cfi_counts *counts, ehelf_err *err)
{
	vm m = { .s = s, .cie = cie, .buf = buf, .counts = counts,
		 .err = err, .entry_off = cie->offset };
	memset(&m.st, 0, sizeof m.st);
	int rc = run(&m, cie->insns, cie->insns_len);
	if (rc == 0)
		*init = m.st;
	return rc;
}

int cfi_run_fde(const cfi_section *s, const cfi_cie *cie,
		const uw_rules *init, const cfi_fde_hdr *fde, cfi_rowbuf *buf,
		cfi_counts *counts, ehelf_err *err)
{
	vm m = { .s = s, .cie = cie, .init = init, .fde = fde, .buf = buf,
		 .counts = counts, .err = err, .entry_off = fde->offset,
		 .st = *init, .loc = fde->lo };
	buf->n = 0;
	int rc = run(&m, fde->insns, fde->insns_len);
	if (rc == 0)
		rc = emit_row(&m, m.loc, fde->hi);
	return rc;
}

void cfi_rowbuf_free(cfi_rowbuf *buf)
{
	free(buf->rows);
	free(buf->stack);
	memset(buf, 0, sizeof *buf);
}
