/* cfi_apply.c - see cfi_apply.h. */
#include "cfi_apply.h"

#include "cfi_expr.h"

int cfi_row_apply(const cfi_row *row, bool signal, const ehelf_regs *in,
		  ehelf_regs *out, ehelf_read_fn read, void *arg, bool lenient)
{
	uint64_t cfa;
	int rc;
	if (row->cfa.kind == CFI_REGISTER) {
		if (!((in->valid >> row->cfa.reg) & 1))
			return EHELF_E_BADREG;
		cfa = in->r[row->cfa.reg] + (uint64_t)(int64_t)row->cfa.off;
	} else if (row->cfa.kind == CFI_EXPR) {
		rc = cfi_expr_eval(row->cfa.expr, row->cfa.expr_len, in, 0, false,
				   read, arg, &cfa);
		if (rc != EHELF_STEP)
			return rc;
	} else {
		return EHELF_E_UNSUPPORTED;
	}
	const cfi_rule *ra = &row->col[CFI_RA];
	if (ra->kind == CFI_UNSET || ra->kind == CFI_UNDEFINED)
		return EHELF_OUTERMOST;
	*out = *in;
	out->valid &= EHELF_VALID_REGS;
	out->r[EHELF_RSP] = cfa;
	out->valid |= 1u << EHELF_RSP;
	for (int i = 0; i < CFI_NCOLS; i++) {
		const cfi_rule *u = &row->col[i];
		uint64_t v = 0, at;
		bool callee = i == EHELF_RBX || i == EHELF_RBP || i >= EHELF_R12;
		switch (u->kind) {
		case CFI_UNSET:
		case CFI_SAME:
			continue;
		case CFI_UNDEFINED:
			out->valid &= ~(1u << i);
			continue;
		case CFI_OFFSET:
			at = cfa + (uint64_t)(int64_t)u->off;
			goto load;
		case CFI_VAL_OFFSET:
			v = cfa + (uint64_t)(int64_t)u->off;
			break;
		case CFI_REGISTER:
			if (!((in->valid >> u->reg) & 1)) {
				out->valid &= ~(1u << i);
				continue;
			}
			v = in->r[u->reg];
			break;
		case CFI_EXPR:
			rc = cfi_expr_eval(u->expr, u->expr_len, in, cfa, true, read,
					   arg, &at);
			if (rc != EHELF_STEP)
				return rc;
			goto load;
		case CFI_VAL_EXPR:
			rc = cfi_expr_eval(u->expr, u->expr_len, in, cfa, true, read,
					   arg, &v);
			if (rc != EHELF_STEP)
				return rc;
			break;
		default:
			return EHELF_E_UNSUPPORTED;
		}
		out->r[i] = v;
		out->valid |= 1u << i;
		continue;
	load:
		if (read(arg, at, &v) != 0) {
			if (lenient && callee && i != CFI_RA) {
				out->valid &= ~(1u << i);
				continue;
			}
			return EHELF_E_READ;
		}
		out->r[i] = v;
		out->valid |= 1u << i;
	}
	if (signal)
		out->valid |= EHELF_SIGNAL_FRAME;
	return EHELF_STEP;
}

/* The slot of a summary for rule U (ehelf_abi.h), or -1: not summarised. */
static int slot_of(const cfi_rule *u, bool kept_ok)
{
	if (u->kind == CFI_UNSET || u->kind == CFI_SAME)
		return kept_ok ? EHELF_SUM_KEEP : -1;
	if (u->kind != CFI_OFFSET || u->off % 8 || u->off < -504 || u->off > 504)
		return -1;
	return (u->off / 8) & 0x7f;
}

uint64_t cfi_row_summary(const cfi_row *row, bool signal)
{
	if (signal || row->cfa.kind != CFI_REGISTER ||
	    (row->cfa.reg != EHELF_RSP && row->cfa.reg != EHELF_RBP) ||
	    row->cfa.off % 8 || row->cfa.off < -16384 || row->cfa.off > 16376)
		return 0;
	static const int regs[EHELF_SUM_SLOTS] = EHELF_SUM_SLOT_REGS;
	uint64_t sum = EHELF_SUM_OK |
		       (row->cfa.reg == EHELF_RBP ? EHELF_SUM_CFA_RBP : 0) |
		       ((uint64_t)((row->cfa.off / 8) & 0xfff) << EHELF_SUM_CFA_SHIFT);
	for (int k = 0; k < EHELF_SUM_SLOTS; k++) {
		int s = slot_of(&row->col[regs[k]], k != 0);
		if (s < 0)
			return 0;
		sum |= (uint64_t)s << (EHELF_SUM_SLOT_SHIFT + EHELF_SUM_SLOT_BITS * k);
	}
	/* every other column (caller-saved registers, rsp) kept */
	for (int i = 0; i < CFI_NCOLS; i++) {
		bool slotted = i == EHELF_RIP || i == EHELF_RBX || i == EHELF_RBP ||
			       i >= EHELF_R12;
		if (!slotted && row->col[i].kind != CFI_UNSET &&
		    row->col[i].kind != CFI_SAME)
			return 0;
	}
	return sum;
}
