/*
 * gen_ctx.h - what the rule-body and expression emitters share: the
 * assembler, the mode, the register assignment and the labels of the
 * entry point's exits.
 *
 * Two modes, one body each per rule set:
 *  - GEN_LOCAL: memory is read with direct loads, each checked against the
 *    caller's [stack_lo, stack_hi); leaf code (no calls), so DWARF
 *    expression stack slots live in the red zone below rsp.
 *  - GEN_REMOTE: memory is read through the caller's callback, called by a
 *    shared helper that, on failure, unwinds straight to the entry's
 *    "read failed" exit; values live in callee-saved registers and stack
 *    slots in the entry's frame.
 */
#ifndef EHELF_CODEGEN_GEN_CTX_H
#define EHELF_CODEGEN_GEN_CTX_H

#include "x86_asm.h"

typedef enum gen_mode { GEN_LOCAL, GEN_REMOTE } gen_mode;

enum {
	GEN_MAX_STACK = 16,     /* DWARF expression stack depth */
	/* ehelf_regs' layout (abi/ehelf_abi.h), as immediate
	 * offsets; gen_ctx.c checks them against the ABI header */
	GEN_REG_SIZE = 8,       /* ehelf_regs.r[i] at GEN_REG_SIZE * i */
	GEN_REGS_VALID = 136,   /* offsetof(ehelf_regs, valid) */
	GEN_REMOTE_FRAME = 8 * GEN_MAX_STACK + 8, /* expression slots + params */
};

typedef struct gen_ctx {
	x86_asm *a;
	gen_mode mode;
	int in, out, cfa;       /* ehelf_regs *in, *out; the CFA value */
	/* GEN_LOCAL: the registers holding the caller's stack_lo and
	 * stack_hi - 8 (the highest address an 8-byte load may start at) */
	int stack_lo, stack_hi_minus_8;
	/* The rule set's parameters (int32 offsets, see body_gen.h): in a
	 * register (local) or, when params_reg is XNONE, at params_slot. */
	int params_reg;
	x86_mem params_slot;
	bool params16;          /* int16 parameters, not int32 (body_gen.c) */
	/* exits: each sets eax and leaves through the epilogue */
	int l_done;             /* status already in eax */
	int l_badreg;           /* EHELF_E_BADREG */
	int l_bounds;           /* EHELF_E_BOUNDS (local) */
	int l_expr;             /* EHELF_E_EXPR */
	int l_read;             /* GEN_REMOTE: read helper: address in rsi,
				 * value returned in rax */
	/* GEN_REMOTE: when not XNONE, the register holding the read
	 * helper's address, called instead of l_read (compact eh_elfs,
	 * whose two step entry points share one core, entry_gen.c) */
	int read_reg;
	/* Fold a constant push into the binary operation that follows it
	 * (one instruction on the stack slot: compact eh_elfs, expr_emit). */
	bool fold;
} gen_ctx;

/* Memory operand of DWARF expression stack slot D (0 = bottom). */
static inline x86_mem gen_slot(const gen_ctx *g, int d)
{
	return g->mode == GEN_LOCAL ? M(RSP, -8 * (d + 1)) : M(RSP, 8 * d);
}

/* Emit: leave with the status already in eax (inline in local mode, where
 * the epilogue is just "pop rbx; ret"). */
void gen_return(gen_ctx *g);

/* Emit: DST = (int64_t)params[INDEX]. */
void gen_param(gen_ctx *g, int dst, int index);

/* Emit: DST = 8 bytes at the address in ADDR (ADDR may equal DST).
 * Clobbers the temporaries of the mode (local: none besides DST; remote:
 * all caller-saved registers; the result is moved into DST). */
void gen_load(gen_ctx *g, int dst, int addr);

#endif
