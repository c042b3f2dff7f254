/*
 * x86_asm.h - a small x86-64 assembler: the instructions ehelf's code
 * generator needs, encoded straight into a byte buffer, with labels and
 * rel32 fixups.  Position-independent: data is reached RIP-relative through
 * labels.  No heap allocation per instruction; the buffer grows by doubling.
 *
 * Errors (out of memory, an unbound label at x86_finish) are sticky in
 * `a->failed`; callers check once at the end.
 */
#ifndef EHELF_CODEGEN_X86_ASM_H
#define EHELF_CODEGEN_X86_ASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum x86_reg {
	RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI,
	R8, R9, R10, R11, R12, R13, R14, R15,
	XNONE = -1,
};

/* Condition codes for jcc/setcc/cmovcc. */
enum x86_cc {
	CC_O = 0, CC_NO, CC_B, CC_AE, CC_E, CC_NE, CC_BE, CC_A,
	CC_S, CC_NS, CC_P, CC_NP, CC_L, CC_GE, CC_LE, CC_G,
};

/* ALU operations sharing the 0x01/0x81 encodings (the /digit). */
enum x86_alu { ALU_ADD = 0, ALU_OR = 1, ALU_AND = 4, ALU_SUB = 5,
	       ALU_XOR = 6, ALU_CMP = 7 };

/* Shift operations (the /digit of C1/D3). */
enum x86_shift { SH_SHL = 4, SH_SHR = 5, SH_SAR = 7 };

/* A memory operand: [base + index*scale + disp], or [rip + label] when
 * base == XNONE (label >= 0). */
typedef struct x86_mem {
	int8_t base, index;
	uint8_t scale;   /* 1, 2, 4, 8 */
	int32_t disp;
	int label;       /* RIP-relative target, -1 if none */
} x86_mem;

static inline x86_mem M(int base, int32_t disp)
{
	return (x86_mem){ (int8_t)base, XNONE, 1, disp, -1 };
}
static inline x86_mem MI(int base, int index, int scale, int32_t disp)
{
	return (x86_mem){ (int8_t)base, (int8_t)index, (uint8_t)scale, disp, -1 };
}
static inline x86_mem MRIP(int label)
{
	return (x86_mem){ XNONE, XNONE, 1, 0, label };
}

typedef struct x86_fixup {
	uint32_t at;     /* offset of the rel32 field */
	uint32_t end;    /* offset the displacement is relative to */
	int label;
	bool rel8;       /* a one-byte displacement (x86_jcc8, x86_jmp8) */
	uint8_t jump;    /* x86_relax: 1 for jmp rel32, 2 for jcc rel32 */
} x86_fixup;

typedef struct x86_asm {
	uint8_t *buf;
	size_t n, cap;
	int64_t *labels;       /* bound offset, or -1 */
	size_t nlabels, labcap;
	x86_fixup *fix;
	size_t nfix, fixcap;
	bool failed;
} x86_asm;

void x86_init(x86_asm *a);
void x86_free(x86_asm *a);

int x86_label(x86_asm *a);                 /* a new unbound label */
void x86_bind(x86_asm *a, int label);      /* bind it here */
void x86_bind_at(x86_asm *a, int label, size_t off); /* bind it at OFF */
/* Resolve all fixups; false if a label is unbound (or earlier failure). */
bool x86_finish(x86_asm *a);
/* Branch relaxation: every jmp/jcc rel32 emitted at offset FROM or later
 * whose label is bound and within reach becomes the two-byte form; the
 * code from FROM on moves up, and the labels and fixups in it follow.
 * The code there must not depend on its own alignment or absolute
 * offsets (x86_align, offsets taken with x86_label_offset before).
 * Returns the bytes saved. */
size_t x86_relax(x86_asm *a, size_t from);
/* Offset a label was bound at (after binding). */
int64_t x86_label_offset(const x86_asm *a, int label);

void x86_bytes(x86_asm *a, const void *p, size_t n);
void x86_u8(x86_asm *a, uint8_t v);
void x86_u32(x86_asm *a, uint32_t v);
void x86_align(x86_asm *a, size_t align, uint8_t fill);

/* 64-bit moves and address arithmetic */
void x86_mov_load(x86_asm *a, int dst, x86_mem m);      /* mov dst, [m] */
void x86_mov_store(x86_asm *a, x86_mem m, int src);     /* mov [m], src */
void x86_mov_load32(x86_asm *a, int dst, x86_mem m);    /* mov dst32, [m] (zero-extends) */
void x86_mov_store32(x86_asm *a, x86_mem m, int src);   /* mov [m], src32 */
void x86_movzx_load8(x86_asm *a, int dst, x86_mem m);   /* movzx dst, byte [m] */
void x86_movzx_load16(x86_asm *a, int dst, x86_mem m);  /* movzx dst, word [m] */
void x86_movsx_load16(x86_asm *a, int dst, x86_mem m);  /* movsx dst, word [m] */
void x86_movsxd_load(x86_asm *a, int dst, x86_mem m);   /* movsxd dst, dword [m] */
void x86_lea(x86_asm *a, int dst, x86_mem m);
void x86_mov_rr(x86_asm *a, int dst, int src);
void x86_mov_ri(x86_asm *a, int dst, uint64_t imm);     /* shortest form */
void x86_store_imm32(x86_asm *a, x86_mem m, int32_t imm);  /* mov qword [m], simm32 */

/* arithmetic */
void x86_alu_rr(x86_asm *a, enum x86_alu op, int dst, int src);
void x86_alu_ri(x86_asm *a, enum x86_alu op, int dst, int32_t imm);
void x86_alu32_ri(x86_asm *a, enum x86_alu op, int dst, int32_t imm);
void x86_alu32_rr(x86_asm *a, enum x86_alu op, int dst, int src);
void x86_alu_mi32(x86_asm *a, enum x86_alu op, x86_mem m, int32_t imm); /* dword [m] */
void x86_alu32_mr(x86_asm *a, enum x86_alu op, x86_mem m, int src); /* dword [m] op= src32 */
void x86_alu8_mi(x86_asm *a, enum x86_alu op, x86_mem m, uint8_t imm);  /* byte [m] */
void x86_push_i8(x86_asm *a, int8_t imm);                /* push imm8 (sign-extended) */
void x86_imul_rr(x86_asm *a, int dst, int src);
void x86_imul_rm(x86_asm *a, int dst, x86_mem m);       /* dst *= [m] */
void x86_imul_ri(x86_asm *a, int dst, int src, int32_t imm); /* dst = src * imm */
void x86_alu_rm(x86_asm *a, enum x86_alu op, int dst, x86_mem m); /* dst op= [m] */
void x86_neg(x86_asm *a, int r);
void x86_not(x86_asm *a, int r);
void x86_shift_cl(x86_asm *a, enum x86_shift op, int r);
void x86_shift_ri(x86_asm *a, enum x86_shift op, int r, uint8_t imm);
void x86_shift32_ri(x86_asm *a, enum x86_shift op, int r, uint8_t imm);
void x86_cqo(x86_asm *a);
void x86_idiv(x86_asm *a, int r);
void x86_div(x86_asm *a, int r);
void x86_test_rr(x86_asm *a, int r1, int r2);
void x86_test32_ri(x86_asm *a, int r, uint32_t imm);
void x86_setcc(x86_asm *a, enum x86_cc cc, int r);      /* r8 only */
void x86_movzx8_rr(x86_asm *a, int dst, int src);       /* movzx dst, src8 */
void x86_cmov(x86_asm *a, enum x86_cc cc, int dst, int src);
void x86_test_rr32(x86_asm *a, int r1, int r2);         /* test r1_32, r2_32 */
void x86_test8_ri(x86_asm *a, int r, uint8_t imm);      /* test r8, imm8 */
void x86_cmp8_rm(x86_asm *a, int r, x86_mem m);         /* cmp r8, byte [m] */
void x86_bt32_rr(x86_asm *a, int r, int bit);           /* bt r32, bit32: CF */
void x86_bts32_rr(x86_asm *a, int r, int bit);          /* bts r32, bit32 */
void x86_inc32(x86_asm *a, int r);
void x86_dec32(x86_asm *a, int r);

/* control flow */
void x86_jmp(x86_asm *a, int label);
void x86_jcc(x86_asm *a, enum x86_cc cc, int label);
/* The two-byte forms: the label must end up within [-128, 127] bytes of
 * the next instruction, else x86_finish fails. */
void x86_jmp8(x86_asm *a, int label);
void x86_jcc8(x86_asm *a, enum x86_cc cc, int label);
void x86_call(x86_asm *a, int label);
void x86_call_r(x86_asm *a, int r);
void x86_jmp_r(x86_asm *a, int r);
void x86_ret(x86_asm *a);
void x86_push(x86_asm *a, int r);
void x86_pop(x86_asm *a, int r);

/* SSE moves for block copies */
void x86_movdqu_load(x86_asm *a, int xmm, x86_mem m);

/* SSE2 byte compares (the lookup's offsets; xmm registers 0-15) */
void x86_movd_xr(x86_asm *a, int xmm, int r);           /* movd xmm, r32 */
void x86_pshufd(x86_asm *a, int dst, int src, uint8_t order);
void x86_pcmpgtb(x86_asm *a, int dst, int src);         /* signed bytes */
void x86_pmovmskb(x86_asm *a, int r, int xmm);          /* pmovmskb r32, xmm */

/* bits (64-bit) */
void x86_bts_rr(x86_asm *a, int r, int bit);            /* bts r, bit */
/* tzcnt dst, src: runs as bsf where BMI1 is missing, which gives the same
 * result when src is not 0 */
void x86_tzcnt_rr(x86_asm *a, int dst, int src);

#endif
