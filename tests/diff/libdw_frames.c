/* libdw_frames.c - see libdw_frames.h. */
#include "libdw_frames.h"

#include <dwarf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../builder/cfi/dwarf_op.h"
#include "../../builder/cfi/uw_dump.h"

int libdw_default_rule(int regno)
{
	/* elfutils backends/x86_64_cfi.c (0.188): same_value for DWARF
	 * registers 0 (its comment says %rbx, but 0 is rax), 6, 12-16; rsp
	 * is the CFA; everything else undefined. */
	switch (regno) {
	case 0: case 6: case 12: case 13: case 14: case 15: case 16:
		return UW_SAME_VALUE;
	case 7:
		return UW_VAL_OFFSET;
	}
	return UW_UNDEFINED;
}

int libdw_cfi_open(libdw_cfi *c, const char *path, char *why, size_t n)
{
	memset(c, 0, sizeof *c);
	elf_version(EV_CURRENT);
	c->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->fd < 0) {
		snprintf(why, n, "libdw: cannot open %s", path);
		return -1;
	}
	c->elf = elf_begin(c->fd, ELF_C_READ_MMAP, NULL);
	if (!c->elf) {
		snprintf(why, n, "libdw: elf_begin: %s", elf_errmsg(-1));
		close(c->fd);
		return -1;
	}
	c->eh = dwarf_getcfi_elf(c->elf);
	c->dw = dwarf_begin_elf(c->elf, DWARF_C_READ, NULL);
	if (c->dw)
		c->debug = dwarf_getcfi(c->dw);
	return 0;
}

void libdw_cfi_close(libdw_cfi *c)
{
	if (c->eh)
		dwarf_cfi_end(c->eh);
	if (c->dw)
		dwarf_end(c->dw);
	if (c->elf)
		elf_end(c->elf);
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof *c);
	c->fd = -1;
}

/* Expected op list. */
typedef struct oplist {
	Dwarf_Op op[128];
	size_t n;
	bool overflow;
} oplist;

static void push(oplist *l, uint8_t atom, uint64_t n1, uint64_t n2)
{
	if (l->n == 128) {
		l->overflow = true;
		return;
	}
	l->op[l->n++] = (Dwarf_Op){ .atom = atom, .number = n1, .number2 = n2 };
}

static int push_expr(oplist *l, const uint8_t *e, uint32_t len)
{
	cursor c = cursor_make(e, len);
	dwop op;
	int rc;
	while ((rc = dwop_next(&c, e, &op)) > 0)
		push(l, op.op, op.n1, op.n2);
	return rc;
}

static bool ops_equal(const oplist *want, const Dwarf_Op *got, size_t n)
{
	if (want->overflow || want->n != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const Dwarf_Op *w = &want->op[i], *g = &got[i];
		if (w->atom != g->atom || w->number != g->number)
			return false;
		/* number2 is a pointer for block operands; compare it only
		 * where it is a value */
		if ((w->atom == DW_OP_bregx || w->atom == DW_OP_bit_piece) &&
		    w->number2 != g->number2)
			return false;
	}
	return true;
}

static void describe_ops(const Dwarf_Op *ops, size_t n, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		const char *name = dwop_name(ops[i].atom);
		used += (size_t)snprintf(buf + used, len - used, "%s%s(%" PRId64
					 ",%" PRId64 ")", i ? " " : "",
					 name ? name + 6 : "?",
					 (int64_t)ops[i].number,
					 (int64_t)ops[i].number2);
	}
}

/* The ops libdw should give for a register rule, following the contract of
 * dwarf_frame_register in libdw.h. */
static void expected_reg(const uw_rule *r, int regno, oplist *l, int *kind)
{
	l->n = 0;
	l->overflow = false;
	int k = r->kind == UW_UNSET ? libdw_default_rule(regno) : r->kind;
	*kind = k;
	switch (k) {
	case UW_OFFSET:
	case UW_VAL_OFFSET: {
		int64_t off = r->kind == UW_UNSET ? 0 : r->off;
		push(l, DW_OP_call_frame_cfa, 0, 0);
		if (off != 0)
			push(l, DW_OP_plus_uconst, (uint64_t)off, 0);
		if (k == UW_VAL_OFFSET)
			push(l, DW_OP_stack_value, 0, 0);
		break;
	}
	case UW_REGISTER:
		push(l, DW_OP_regx, r->reg, 0);
		break;
	case UW_EXPR:
	case UW_VAL_EXPR:
		if (r->expr_len == 0)
			break; /* libdw: an empty expression has no ops */
		push(l, DW_OP_call_frame_cfa, 0, 0);
		push_expr(l, r->expr, r->expr_len);
		if (k == UW_VAL_EXPR)
			push(l, DW_OP_stack_value, 0, 0);
		break;
	}
}

int libdw_cfi_check_row(libdw_cfi *c, const uw_fde *fde, const uw_row *row,
			char *why, size_t n)
{
	bool eh = strcmp(fde->section, ".eh_frame") == 0;
	Dwarf_CFI *cfi = eh ? c->eh : c->debug;
	if (!cfi) {
		snprintf(why, n, "libdw has no CFI for %s", fde->section);
		return 1;
	}
	Dwarf_Frame *frame = NULL;
	if (dwarf_cfi_addrframe(cfi, row->lo, &frame) != 0) {
		snprintf(why, n, "libdw finds no frame at 0x%" PRIx64 ": %s",
			 row->lo, dwarf_errmsg(-1));
		return 1;
	}
	int result = 0;
	char ours[64], theirs[512];
	bool signal = false;
	Dwarf_Addr start, end;
	if (dwarf_frame_info(frame, &start, &end, &signal) != UW_RA) {
		snprintf(why, n, "libdw return address column is not 16");
		result = 1;
		goto out;
	}
	if (signal != fde->signal_frame) {
		snprintf(why, n, "signal frame: ours %d, libdw %d",
			 fde->signal_frame, signal);
		result = 1;
		goto out;
	}
	/* CFA */
	Dwarf_Op *ops;
	size_t nops;
	oplist want = { .n = 0 };
	if (dwarf_frame_cfa(frame, &ops, &nops) != 0) {
		if (!row->r.cfa.lax) {
			snprintf(why, n, "libdw cannot give the CFA: %s",
				 dwarf_errmsg(-1));
			result = 1;
			goto out;
		}
		/* DW_CFA_def_cfa_register/offset after an expression: libdw
		 * calls the CFA invalid, see libdw_frames.h */
		result = 2;
		snprintf(why, n, "libdw rejects a lax CFA rule");
	} else if (row->r.cfa.kind == UW_CFA_REG_OFF)
		push(&want, DW_OP_bregx, row->r.cfa.reg,
		     (uint64_t)row->r.cfa.off);
	else if (row->r.cfa.kind == UW_CFA_EXPR)
		push_expr(&want, row->r.cfa.expr, row->r.cfa.expr_len);
	if (result == 0 && !ops_equal(&want, ops, nops)) {
		uw_format_cfa(&row->r.cfa, ours, sizeof ours);
		describe_ops(ops, nops, theirs, sizeof theirs);
		snprintf(why, n, "CFA: ours %s, libdw %s", ours, theirs);
		result = 1;
		goto out;
	}
	for (int reg = 0; reg < UW_NCOLS; reg++) {
		Dwarf_Op mem[3];
		if (dwarf_frame_register(frame, reg, mem, &ops, &nops) != 0) {
			snprintf(why, n, "libdw cannot give register %d: %s",
				 reg, dwarf_errmsg(-1));
			result = 1;
			goto out;
		}
		int kind;
		expected_reg(&row->r.reg[reg], reg, &want, &kind);
		bool ok;
		if (kind == UW_SAME_VALUE)
			ok = nops == 0 && ops == NULL;
		else if (kind == UW_UNDEFINED ||
			 ((kind == UW_EXPR || kind == UW_VAL_EXPR) &&
			  row->r.reg[reg].expr_len == 0))
			ok = nops == 0 && ops != NULL;
		else
			ok = ops != NULL && ops_equal(&want, ops, nops);
		if (!ok) {
			char rn[16];
			uw_format_rule(&row->r.reg[reg], ours, sizeof ours);
			if (ops == NULL)
				snprintf(theirs, sizeof theirs, "same_value");
			else if (nops == 0)
				snprintf(theirs, sizeof theirs, "undefined");
			else
				describe_ops(ops, nops, theirs, sizeof theirs);
			snprintf(why, n, "%s: ours '%s', libdw %s",
				 uw_reg_name((unsigned)reg, rn), ours, theirs);
			result = 1;
			goto out;
		}
	}
out:
	free(frame);
	return result;
}
