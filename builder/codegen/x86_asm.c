/* x86_asm.c - see x86_asm.h.  Encodings follow the Intel SDM, volume 2. */
#include "x86_asm.h"

#include <stdlib.h>
#include <string.h>

void x86_init(x86_asm *a)
{
	memset(a, 0, sizeof *a);
}

void x86_free(x86_asm *a)
{
	free(a->buf);
	free(a->labels);
	free(a->fix);
	memset(a, 0, sizeof *a);
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap : 256;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * elem);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

void x86_bytes(x86_asm *a, const void *p, size_t n)
{
	if (a->failed || !grow((void **)&a->buf, &a->cap, a->n + n, 1)) {
		a->failed = true;
		return;
	}
	memcpy(a->buf + a->n, p, n);
	a->n += n;
}

void x86_u8(x86_asm *a, uint8_t v)
{
	x86_bytes(a, &v, 1);
}

void x86_u32(x86_asm *a, uint32_t v)
{
	x86_bytes(a, &v, 4);
}

void x86_align(x86_asm *a, size_t align, uint8_t fill)
{
	while (a->n % align)
		x86_u8(a, fill);
}

int x86_label(x86_asm *a)
{
	if (!grow((void **)&a->labels, &a->labcap, a->nlabels + 1,
		  sizeof *a->labels)) {
		a->failed = true;
		return 0;
	}
	a->labels[a->nlabels] = -1;
	return (int)a->nlabels++;
}

void x86_bind(x86_asm *a, int label)
{
	if (!a->failed)
		a->labels[label] = (int64_t)a->n;
}

void x86_bind_at(x86_asm *a, int label, size_t off)
{
	if (!a->failed)
		a->labels[label] = (int64_t)off;
}

int64_t x86_label_offset(const x86_asm *a, int label)
{
	return a->labels[label];
}

static void add_fixup(x86_asm *a, int label, size_t end_extra)
{
	if (a->failed)
		return;
	if (!grow((void **)&a->fix, &a->fixcap, a->nfix + 1, sizeof *a->fix)) {
		a->failed = true;
		return;
	}
	a->fix[a->nfix++] = (x86_fixup){ .at = (uint32_t)a->n,
					  .end = (uint32_t)(a->n + 4 + end_extra),
					  .label = label };
	x86_u32(a, 0);
}

bool x86_finish(x86_asm *a)
{
	if (a->failed)
		return false;
	for (size_t i = 0; i < a->nfix; i++) {
		int64_t target = a->labels[a->fix[i].label];
		if (target < 0)
			return false;
		int64_t rel = target - (int64_t)a->fix[i].end;
		if (a->fix[i].rel8) {
			if (rel < -128 || rel > 127)
				return false;
			a->buf[a->fix[i].at] = (uint8_t)(int8_t)rel;
			continue;
		}
		int32_t rel32 = (int32_t)rel;
		memcpy(a->buf + a->fix[i].at, &rel32, 4);
	}
	return true;
}

/* ---- branch relaxation -------------------------------------------------- */

/* Candidates: the rel32 jumps at FROM or later, by position (fixups are
 * appended in emission order).  Shrinking one only brings other code
 * closer together, so marking jumps short until none more fits reaches a
 * fixed point; then the bytes move. */
typedef struct relax_jump {
	size_t fix;          /* index in a->fix */
	uint32_t end;        /* old end of the instruction */
	uint8_t save;        /* 3 (jmp) or 4 (jcc) */
	bool shrink;
} relax_jump;

/* Offset X after the shrunk jumps ending at or before it have shrunk;
 * SAVED[k] = the bytes saved by the first k jumps. */
static int64_t relaxed(const relax_jump *j, const size_t *saved, size_t n,
		       int64_t x)
{
	size_t lo = 0, hi = n; /* jumps with end <= x: [0, lo) */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if ((int64_t)j[mid].end <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return x - (int64_t)saved[lo];
}

size_t x86_relax(x86_asm *a, size_t from)
{
	if (a->failed)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < a->nfix; i++)
		n += a->fix[i].jump && a->fix[i].at >= from;
	if (!n)
		return 0;
	relax_jump *j = malloc(n * sizeof *j);
	size_t *saved = malloc((n + 1) * sizeof *saved);
	uint8_t *buf = malloc(a->n ? a->n : 1);
	if (!j || !saved || !buf) {
		free(j);
		free(saved);
		free(buf);
		a->failed = true;
		return 0;
	}
	n = 0;
	for (size_t i = 0; i < a->nfix; i++)
		if (a->fix[i].jump && a->fix[i].at >= from)
			j[n++] = (relax_jump){ .fix = i, .end = a->fix[i].end,
					       .save = a->fix[i].jump == 1 ? 3 : 4 };
	for (bool more = true; more;) {
		more = false;
		saved[0] = 0;
		for (size_t k = 0; k < n; k++)
			saved[k + 1] = saved[k] + (j[k].shrink ? j[k].save : 0);
		for (size_t k = 0; k < n; k++) {
			int64_t target = a->labels[a->fix[j[k].fix].label];
			if (j[k].shrink || target < 0)
				continue;
			/* its end once short: its old end, less what it and
			 * the shrunk jumps before it save */
			int64_t end = relaxed(j, saved, n, j[k].end) - j[k].save;
			int64_t rel = relaxed(j, saved, n, target) - end;
			if (target >= (int64_t)j[k].end) /* it moves too */
				rel -= j[k].save;
			/* more shrunk jumps only shorten this: it stays short */
			if (rel >= -128 && rel <= 127) {
				j[k].shrink = true;
				more = true;
			}
		}
	}
	saved[0] = 0;
	for (size_t k = 0; k < n; k++)
		saved[k + 1] = saved[k] + (j[k].shrink ? j[k].save : 0);
	/* move the bytes */
	size_t w = 0, r = 0;
	for (size_t k = 0; k < n; k++) {
		if (!j[k].shrink)
			continue;
		size_t start = j[k].end - 4 - (j[k].save - 2);
		memcpy(buf + w, a->buf + r, start - r);
		w += start - r;
		uint8_t op = a->buf[start];
		buf[w++] = op == 0xe9 ? 0xeb : (uint8_t)(0x70 + (a->buf[start + 1] & 15));
		buf[w++] = 0;
		r = j[k].end;
	}
	memcpy(buf + w, a->buf + r, a->n - r);
	w += a->n - r;
	memcpy(a->buf, buf, w);
	size_t total = a->n - w;
	for (size_t i = 0; i < a->nlabels; i++)
		if (a->labels[i] >= (int64_t)from)
			a->labels[i] = relaxed(j, saved, n, a->labels[i]);
	for (size_t i = 0; i < a->nfix; i++) {
		x86_fixup *f = &a->fix[i];
		if (f->at < from)
			continue;
		f->at = (uint32_t)relaxed(j, saved, n, f->at);
		f->end = (uint32_t)relaxed(j, saved, n, f->end);
	}
	for (size_t k = 0; k < n; k++)
		if (j[k].shrink) { /* its end moved with its own saving */
			x86_fixup *f = &a->fix[j[k].fix];
			f->at = f->end - 1;
			f->rel8 = true;
			f->jump = 0;
		}
	a->n = w;
	free(j);
	free(saved);
	free(buf);
	return total;
}

/* ---- encoding core ------------------------------------------------------ */

static void rex(x86_asm *a, bool w, int reg, int index, int base, bool force)
{
	uint8_t r = (uint8_t)(0x40 | (w ? 8 : 0) | ((reg & 8) ? 4 : 0) |
			      ((index >= 0 && (index & 8)) ? 2 : 0) |
			      ((base >= 0 && (base & 8)) ? 1 : 0));
	if (r != 0x40 || force)
		x86_u8(a, r);
}

/* ModRM (+SIB, +disp) for REG and memory operand M.  IMM_AFTER is the
 * number of immediate bytes that follow (for RIP-relative displacement). */
static void modrm_mem(x86_asm *a, int reg, x86_mem m, size_t imm_after)
{
	uint8_t r3 = (uint8_t)((reg & 7) << 3);
	if (m.base == XNONE) { /* [rip + label] */
		x86_u8(a, (uint8_t)(0x05 | r3));
		add_fixup(a, m.label, imm_after);
		return;
	}
	int base = m.base & 7;
	bool sib = m.index != XNONE || base == (RSP & 7);
	int mod;
	if (m.disp == 0 && base != (RBP & 7))
		mod = 0;
	else if (m.disp >= -128 && m.disp <= 127)
		mod = 1;
	else
		mod = 2;
	x86_u8(a, (uint8_t)((mod << 6) | r3 | (sib ? 4 : base)));
	if (sib) {
		int ss = m.scale == 8 ? 3 : m.scale == 4 ? 2 : m.scale == 2 ? 1 : 0;
		int idx = m.index == XNONE ? 4 : (m.index & 7);
		x86_u8(a, (uint8_t)((ss << 6) | (idx << 3) | base));
	}
	if (mod == 1)
		x86_u8(a, (uint8_t)(int8_t)m.disp);
	else if (mod == 2)
		x86_u32(a, (uint32_t)m.disp);
}

/* [prefix] REX opcode... modrm(mem) */
static void op_mem(x86_asm *a, uint8_t prefix, bool w, const uint8_t *op,
		   size_t oplen, int reg, x86_mem m, size_t imm_after,
		   bool force_rex)
{
	if (prefix)
		x86_u8(a, prefix);
	rex(a, w, reg, m.index, m.base, force_rex);
	x86_bytes(a, op, oplen);
	modrm_mem(a, reg, m, imm_after);
}

/* REX opcode modrm(mod=11, reg, rm) */
static void op_rr(x86_asm *a, bool w, const uint8_t *op, size_t oplen,
		  int reg, int rm, bool force_rex)
{
	rex(a, w, reg, XNONE, rm, force_rex);
	x86_bytes(a, op, oplen);
	x86_u8(a, (uint8_t)(0xc0 | ((reg & 7) << 3) | (rm & 7)));
}

#define OP(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

void x86_mov_load(x86_asm *a, int dst, x86_mem m) { op_mem(a, 0, true, OP(0x8b), dst, m, 0, false); }
void x86_mov_store(x86_asm *a, x86_mem m, int src) { op_mem(a, 0, true, OP(0x89), src, m, 0, false); }
void x86_mov_load32(x86_asm *a, int dst, x86_mem m) { op_mem(a, 0, false, OP(0x8b), dst, m, 0, false); }
void x86_mov_store32(x86_asm *a, x86_mem m, int src) { op_mem(a, 0, false, OP(0x89), src, m, 0, false); }
void x86_movzx_load8(x86_asm *a, int dst, x86_mem m) { op_mem(a, 0, false, OP(0x0f, 0xb6), dst, m, 0, false); }
void x86_movzx_load16(x86_asm *a, int dst, x86_mem m) { op_mem(a, 0, false, OP(0x0f, 0xb7), dst, m, 0, false); }
void x86_movsx_load16(x86_asm *a, int dst, x86_mem m) { op_mem(a, 0, true, OP(0x0f, 0xbf), dst, m, 0, false); }
void x86_movsxd_load(x86_asm *a, int dst, x86_mem m) { op_mem(a, 0, true, OP(0x63), dst, m, 0, false); }
void x86_lea(x86_asm *a, int dst, x86_mem m) { op_mem(a, 0, true, OP(0x8d), dst, m, 0, false); }

void x86_store_imm32(x86_asm *a, x86_mem m, int32_t imm)
{
	op_mem(a, 0, true, OP(0xc7), 0, m, 4, false);
	x86_u32(a, (uint32_t)imm);
}

void x86_mov_rr(x86_asm *a, int dst, int src)
{
	if (dst != src)
		op_rr(a, true, OP(0x89), src, dst, false);
}

void x86_mov_ri(x86_asm *a, int dst, uint64_t imm)
{
	if (imm == 0) {
		x86_alu32_rr(a, ALU_XOR, dst, dst);
	} else if (imm <= 0xffffffffu) {       /* mov r32, imm32 */
		rex(a, false, 0, XNONE, dst, false);
		x86_u8(a, (uint8_t)(0xb8 + (dst & 7)));
		x86_u32(a, (uint32_t)imm);
	} else if ((int64_t)imm >= INT32_MIN && (int64_t)imm <= INT32_MAX) {
		op_rr(a, true, OP(0xc7), 0, dst, false);
		x86_u32(a, (uint32_t)imm);
	} else {                               /* movabs */
		rex(a, true, 0, XNONE, dst, false);
		x86_u8(a, (uint8_t)(0xb8 + (dst & 7)));
		x86_bytes(a, &imm, 8);
	}
}

void x86_alu_rr(x86_asm *a, enum x86_alu op, int dst, int src)
{
	op_rr(a, true, OP((uint8_t)(op * 8 + 1)), src, dst, false);
}

void x86_alu32_rr(x86_asm *a, enum x86_alu op, int dst, int src)
{
	op_rr(a, false, OP((uint8_t)(op * 8 + 1)), src, dst, false);
}

static void alu_ri(x86_asm *a, bool w, enum x86_alu op, int dst, int32_t imm)
{
	if (imm >= -128 && imm <= 127) {
		op_rr(a, w, OP(0x83), op, dst, false);
		x86_u8(a, (uint8_t)(int8_t)imm);
	} else {
		op_rr(a, w, OP(0x81), op, dst, false);
		x86_u32(a, (uint32_t)imm);
	}
}

void x86_alu_ri(x86_asm *a, enum x86_alu op, int dst, int32_t imm) { alu_ri(a, true, op, dst, imm); }
void x86_alu32_ri(x86_asm *a, enum x86_alu op, int dst, int32_t imm) { alu_ri(a, false, op, dst, imm); }

void x86_alu_mi32(x86_asm *a, enum x86_alu op, x86_mem m, int32_t imm)
{
	if (imm >= -128 && imm <= 127) {
		op_mem(a, 0, false, OP(0x83), op, m, 1, false);
		x86_u8(a, (uint8_t)(int8_t)imm);
	} else {
		op_mem(a, 0, false, OP(0x81), op, m, 4, false);
		x86_u32(a, (uint32_t)imm);
	}
}

void x86_alu32_mr(x86_asm *a, enum x86_alu op, x86_mem m, int src)
{
	op_mem(a, 0, false, OP((uint8_t)(op * 8 + 1)), src, m, 0, false);
}

void x86_alu8_mi(x86_asm *a, enum x86_alu op, x86_mem m, uint8_t imm)
{
	op_mem(a, 0, false, OP(0x80), op, m, 1, false);
	x86_u8(a, imm);
}

void x86_push_i8(x86_asm *a, int8_t imm) { x86_bytes(a, OP(0x6a, (uint8_t)imm)); }

void x86_imul_rr(x86_asm *a, int dst, int src) { op_rr(a, true, OP(0x0f, 0xaf), dst, src, false); }
void x86_imul_rm(x86_asm *a, int dst, x86_mem m) { op_mem(a, 0, true, OP(0x0f, 0xaf), dst, m, 0, false); }

void x86_imul_ri(x86_asm *a, int dst, int src, int32_t imm)
{
	if (imm >= -128 && imm <= 127) {
		op_rr(a, true, OP(0x6b), dst, src, false);
		x86_u8(a, (uint8_t)(int8_t)imm);
	} else {
		op_rr(a, true, OP(0x69), dst, src, false);
		x86_u32(a, (uint32_t)imm);
	}
}

void x86_alu_rm(x86_asm *a, enum x86_alu op, int dst, x86_mem m)
{
	op_mem(a, 0, true, OP((uint8_t)(op * 8 + 3)), dst, m, 0, false);
}
void x86_neg(x86_asm *a, int r) { op_rr(a, true, OP(0xf7), 3, r, false); }
void x86_not(x86_asm *a, int r) { op_rr(a, true, OP(0xf7), 2, r, false); }
void x86_shift_cl(x86_asm *a, enum x86_shift op, int r) { op_rr(a, true, OP(0xd3), op, r, false); }

void x86_shift_ri(x86_asm *a, enum x86_shift op, int r, uint8_t imm)
{
	op_rr(a, true, OP(0xc1), op, r, false);
	x86_u8(a, imm);
}

void x86_shift32_ri(x86_asm *a, enum x86_shift op, int r, uint8_t imm)
{
	op_rr(a, false, OP(0xc1), op, r, false);
	x86_u8(a, imm);
}

void x86_cqo(x86_asm *a) { x86_bytes(a, OP(0x48, 0x99)); }
void x86_idiv(x86_asm *a, int r) { op_rr(a, true, OP(0xf7), 7, r, false); }
void x86_div(x86_asm *a, int r) { op_rr(a, true, OP(0xf7), 6, r, false); }
void x86_test_rr(x86_asm *a, int r1, int r2) { op_rr(a, true, OP(0x85), r2, r1, false); }

void x86_test32_ri(x86_asm *a, int r, uint32_t imm)
{
	op_rr(a, false, OP(0xf7), 0, r, false);
	x86_u32(a, imm);
}

void x86_setcc(x86_asm *a, enum x86_cc cc, int r)
{
	/* a REX prefix makes spl/bpl/sil/dil addressable */
	op_rr(a, false, OP(0x0f, (uint8_t)(0x90 + cc)), 0, r, r >= 4);
}

void x86_movzx8_rr(x86_asm *a, int dst, int src)
{
	op_rr(a, false, OP(0x0f, 0xb6), dst, src, src >= 4);
}

void x86_cmov(x86_asm *a, enum x86_cc cc, int dst, int src)
{
	op_rr(a, true, OP(0x0f, (uint8_t)(0x40 + cc)), dst, src, false);
}

void x86_test_rr32(x86_asm *a, int r1, int r2) { op_rr(a, false, OP(0x85), r2, r1, false); }

void x86_test8_ri(x86_asm *a, int r, uint8_t imm)
{
	if (r == RAX) {
		x86_bytes(a, OP(0xa8, imm));
		return;
	}
	op_rr(a, false, OP(0xf6), 0, r, r >= 4);
	x86_u8(a, imm);
}

void x86_cmp8_rm(x86_asm *a, int r, x86_mem m) { op_mem(a, 0, false, OP(0x3a), r, m, 0, r >= 4); }
void x86_bt32_rr(x86_asm *a, int r, int bit) { op_rr(a, false, OP(0x0f, 0xa3), bit, r, false); }
void x86_bts32_rr(x86_asm *a, int r, int bit) { op_rr(a, false, OP(0x0f, 0xab), bit, r, false); }
void x86_inc32(x86_asm *a, int r) { op_rr(a, false, OP(0xff), 0, r, false); }
void x86_dec32(x86_asm *a, int r) { op_rr(a, false, OP(0xff), 1, r, false); }

void x86_jmp(x86_asm *a, int label)
{
	x86_u8(a, 0xe9);
	add_fixup(a, label, 0);
	if (!a->failed)
		a->fix[a->nfix - 1].jump = 1;
}

void x86_jcc(x86_asm *a, enum x86_cc cc, int label)
{
	x86_bytes(a, OP(0x0f, (uint8_t)(0x80 + cc)));
	add_fixup(a, label, 0);
	if (!a->failed)
		a->fix[a->nfix - 1].jump = 2;
}

static void add_fixup8(x86_asm *a, int label)
{
	if (a->failed)
		return;
	if (!grow((void **)&a->fix, &a->fixcap, a->nfix + 1, sizeof *a->fix)) {
		a->failed = true;
		return;
	}
	a->fix[a->nfix++] = (x86_fixup){ .at = (uint32_t)a->n,
					  .end = (uint32_t)(a->n + 1),
					  .label = label, .rel8 = true };
	x86_u8(a, 0);
}

void x86_jmp8(x86_asm *a, int label)
{
	x86_u8(a, 0xeb);
	add_fixup8(a, label);
}

void x86_jcc8(x86_asm *a, enum x86_cc cc, int label)
{
	x86_u8(a, (uint8_t)(0x70 + cc));
	add_fixup8(a, label);
}

void x86_call(x86_asm *a, int label)
{
	x86_u8(a, 0xe8);
	add_fixup(a, label, 0);
}

void x86_call_r(x86_asm *a, int r) { op_rr(a, false, OP(0xff), 2, r, false); }
void x86_jmp_r(x86_asm *a, int r) { op_rr(a, false, OP(0xff), 4, r, false); }
void x86_ret(x86_asm *a) { x86_u8(a, 0xc3); }

void x86_push(x86_asm *a, int r)
{
	rex(a, false, 0, XNONE, r, false);
	x86_u8(a, (uint8_t)(0x50 + (r & 7)));
}

void x86_pop(x86_asm *a, int r)
{
	rex(a, false, 0, XNONE, r, false);
	x86_u8(a, (uint8_t)(0x58 + (r & 7)));
}

void x86_movdqu_load(x86_asm *a, int xmm, x86_mem m)
{
	op_mem(a, 0xf3, false, OP(0x0f, 0x6f), xmm, m, 0, false);
}

/* 66 [REX] 0F op modrm(mod=11, reg, rm): the SSE2 integer forms */
static void sse_rr(x86_asm *a, uint8_t op, int reg, int rm)
{
	x86_u8(a, 0x66);
	op_rr(a, false, OP(0x0f, op), reg, rm, false);
}

void x86_movd_xr(x86_asm *a, int xmm, int r) { sse_rr(a, 0x6e, xmm, r); }
void x86_pcmpgtb(x86_asm *a, int dst, int src) { sse_rr(a, 0x64, dst, src); }
void x86_pmovmskb(x86_asm *a, int r, int xmm) { sse_rr(a, 0xd7, r, xmm); }

void x86_pshufd(x86_asm *a, int dst, int src, uint8_t order)
{
	sse_rr(a, 0x70, dst, src);
	x86_u8(a, order);
}

void x86_bts_rr(x86_asm *a, int r, int bit) { op_rr(a, true, OP(0x0f, 0xab), bit, r, false); }
void x86_tzcnt_rr(x86_asm *a, int dst, int src)
{
	x86_u8(a, 0xf3);
	op_rr(a, true, OP(0x0f, 0xbc), dst, src, false);
}
