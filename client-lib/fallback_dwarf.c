/* fallback_dwarf.c - see fallback_dwarf.h. */
#include "fallback_dwarf.h"

#include "cfi_fallback/cfi_binop.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct dwarf_module {
	int fd;
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *eh, *debug;
};

dwarf_module *dwarf_module_open(const char *path, const void *image,
				size_t image_size)
{
	dwarf_module *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->fd = -1;
	elf_version(EV_CURRENT);
	if (path) {
		d->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (d->fd >= 0)
			d->elf = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
	} else if (image) {
		d->elf = elf_memory((char *)image, image_size);
	}
	if (d->elf) {
		d->eh = dwarf_getcfi_elf(d->elf);
		d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
		if (d->dw)
			d->debug = dwarf_getcfi(d->dw);
	}
	if (!d->eh && !d->debug) {
		dwarf_module_close(d);
		return NULL;
	}
	return d;
}

void dwarf_module_close(dwarf_module *d)
{
	if (!d)
		return;
	if (d->eh)
		dwarf_cfi_end(d->eh);
	if (d->dw)
		dwarf_end(d->dw);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}

/* Index of the operation at byte offset OFF, or -1. */
static long op_at(const Dwarf_Op *ops, size_t n, uint64_t off)
{
	for (size_t k = 0; k < n; k++)
		if (ops[k].offset == off)
			return (long)k;
	return -1;
}

/* Evaluate libdw's operations with DWARF expression semantics (as libgcc:
 * signed division and comparisons, unsigned mod).  *IS_VALUE: the
 * expression ended with DW_OP_stack_value (a value, not an address). */
static int eval(const Dwarf_Op *ops, size_t n, uint64_t cfa,
		const ehelf_regs *in, ehelf_read_fn read, void *arg,
		uint64_t *result, bool *is_value)
{
	enum { DEPTH = 64 };
	uint64_t st[DEPTH];
	int sp = 0;
	*is_value = false;
	for (size_t i = 0, steps = 0; i < n; i++) {
		if (++steps > 10000 || sp >= DEPTH - 1)
			return EHELF_E_EXPR;
		const Dwarf_Op *o = &ops[i];
		uint8_t a = o->atom;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			st[sp++] = a - DW_OP_lit0;
			continue;
		}
		if ((a >= DW_OP_breg0 && a <= DW_OP_breg16) || a == DW_OP_bregx) {
			unsigned r = a == DW_OP_bregx ? (unsigned)o->number
						      : (unsigned)(a - DW_OP_breg0);
			uint64_t off = a == DW_OP_bregx ? o->number2 : o->number;
			if (r > 16 || !((in->valid >> r) & 1))
				return EHELF_E_BADREG;
			st[sp++] = in->r[r] + off;
			continue;
		}
		switch (a) { /* no operand popped */
		case DW_OP_call_frame_cfa: st[sp++] = cfa; continue;
		case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
		case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
		case DW_OP_consts:
			st[sp++] = o->number;
			continue;
		case DW_OP_stack_value: *is_value = true; continue;
		case DW_OP_nop: continue;
		case DW_OP_skip: {
			long k = op_at(ops, n, o->offset + 3 + o->number);
			if (k < 0)
				return EHELF_E_EXPR;
			i = (size_t)k - 1;
			continue;
		}
		}
		if (sp < 1)
			return EHELF_E_EXPR;
		uint64_t x = st[sp - 1];
		switch (a) { /* one operand */
		case DW_OP_deref:
		case DW_OP_deref_size:
			if (read(arg, x, &st[sp - 1]))
				return EHELF_E_READ;
			if (a == DW_OP_deref_size && o->number < 8)
				st[sp - 1] &= (1ull << (8 * o->number)) - 1;
			continue;
		case DW_OP_plus_uconst: st[sp - 1] = x + o->number; continue;
		case DW_OP_neg: st[sp - 1] = -x; continue;
		case DW_OP_not: st[sp - 1] = ~x; continue;
		case DW_OP_abs: st[sp - 1] = (int64_t)x < 0 ? -x : x; continue;
		case DW_OP_dup: st[sp++] = x; continue;
		case DW_OP_drop: sp--; continue;
		case DW_OP_pick:
			if ((uint64_t)sp <= o->number)
				return EHELF_E_EXPR;
			st[sp] = st[sp - 1 - (int)o->number];
			sp++;
			continue;
		case DW_OP_bra: {
			sp--;
			if (!x)
				continue;
			long k = op_at(ops, n, o->offset + 3 + o->number);
			if (k < 0)
				return EHELF_E_EXPR;
			i = (size_t)k - 1;
			continue;
		}
		}
		if (sp < 2)
			return EHELF_E_EXPR;
		uint64_t y = st[sp - 2]; /* the second entry; x is the top */
		switch (a) { /* two operands */
		case DW_OP_over: st[sp++] = y; continue;
		case DW_OP_swap: cfi_rotate(&st[sp - 1], 2); continue;
		case DW_OP_rot:
			if (sp < 3)
				return EHELF_E_EXPR;
			cfi_rotate(&st[sp - 1], 3);
			continue;
		}
		uint64_t r;
		int rc = cfi_binop(a, y, x, &r);
		if (rc != EHELF_STEP)
			return rc;
		st[--sp - 1] = r;
	}
	if (sp < 1)
		return EHELF_E_EXPR;
	*result = st[sp - 1];
	return 0;
}

int dwarf_module_step(dwarf_module *d, uint64_t pc, const ehelf_regs *in,
		      ehelf_regs *out, ehelf_read_fn read, void *arg)
{
	Dwarf_Frame *frame = NULL;
	if ((!d->eh || dwarf_cfi_addrframe(d->eh, pc, &frame) != 0) &&
	    (!d->debug || dwarf_cfi_addrframe(d->debug, pc, &frame) != 0))
		return EHELF_E_NOT_COVERED;
	*out = *in;
	out->valid &= EHELF_VALID_REGS;
	int rc = 0;
	bool signal = false;
	Dwarf_Addr start, end;
	int ra = dwarf_frame_info(frame, &start, &end, &signal);
	Dwarf_Op *ops, mem[3];
	size_t nops;
	uint64_t cfa;
	bool value;
	if (ra != EHELF_RIP || dwarf_frame_cfa(frame, &ops, &nops) != 0 ||
	    nops == 0) {
		rc = EHELF_E_UNSUPPORTED;
		goto out;
	}
	if ((rc = eval(ops, nops, 0, in, read, arg, &cfa, &value)) != 0)
		goto out;
	out->r[EHELF_RSP] = cfa;
	out->valid |= 1u << EHELF_RSP;
	for (int r = 0; r <= EHELF_RIP; r++) {
		if (dwarf_frame_register(frame, r, mem, &ops, &nops) != 0) {
			rc = EHELF_E_UNSUPPORTED;
			goto out;
		}
		if (nops == 0) {
			if (ops == NULL)       /* same value */
				continue;
			if (r == EHELF_RIP) {  /* undefined return address */
				rc = EHELF_OUTERMOST;
				goto out;
			}
			/* undefined; but libdw's x86_64 default rules (elfutils
			 * backends/x86_64_cfi.c, 0.188) mark DWARF register 0
			 * as the call-saved "%rbx" where rbx is 3: rbx comes out
			 * undefined wherever the CFI says nothing of it.  It is
			 * call-saved, so its value is the same (as eh_elfs and
			 * libunwind take it); an explicit DW_CFA_undefined for
			 * rbx, which compilers do not emit, reads the same. */
			if (r != EHELF_RSP && r != EHELF_RBX)
				out->valid &= ~(1u << r);
			continue;
		}
		if (r == EHELF_RSP && nops == 2 &&
		    ops[0].atom == DW_OP_call_frame_cfa &&
		    ops[1].atom == DW_OP_stack_value)
			continue; /* libdw's default: rsp is the CFA */
		uint64_t v;
		if (nops == 1 && ops[0].atom == DW_OP_regx) { /* register rule */
			unsigned src = (unsigned)ops[0].number;
			if (src > 16) {
				rc = EHELF_E_UNSUPPORTED;
				goto out;
			}
			out->r[r] = in->r[src];
			if ((in->valid >> src) & 1)
				out->valid |= 1u << r;
			else
				out->valid &= ~(1u << r);
			continue;
		}
		rc = eval(ops, nops, cfa, in, read, arg, &v, &value);
		if (rc == 0 && !value && read(arg, v, &v))
			rc = EHELF_E_READ;
		if (rc == EHELF_E_READ && r != EHELF_RIP) {
			/* a saved register that cannot be read is lost, not
			 * the frame (as the eh_elf path, libdw and libunwind
			 * treat it) */
			out->valid &= ~(1u << r);
			rc = 0;
			continue;
		}
		if (rc != 0)
			goto out;
		out->r[r] = v;
		out->valid |= 1u << r;
	}
	if (signal)
		out->valid |= EHELF_SIGNAL_FRAME;
out:
	free(frame);
	return rc;
}
