/* gen_ctx.c - see gen_ctx.h: the helpers the rule-body and expression
 * emitters share, and the ABI constants they use tied to ehelf_abi.h. */
#include "gen_ctx.h"

#include <stddef.h>

#include "../../abi/ehelf_abi.h"

_Static_assert(GEN_REGS_VALID == offsetof(ehelf_regs, valid),
	       "GEN_REGS_VALID must be ehelf_regs.valid's offset");
_Static_assert(GEN_REG_SIZE == sizeof(((ehelf_regs *)0)->r[0]) &&
	       offsetof(ehelf_regs, r) == 0,
	       "register I of ehelf_regs must be at GEN_REG_SIZE * I");

void gen_load(gen_ctx *g, int dst, int addr)
{
	x86_asm *a = g->a;
	if (g->mode == GEN_LOCAL) {
		x86_alu_rr(a, ALU_CMP, addr, g->stack_lo);
		x86_jcc(a, CC_B, g->l_bounds);
		x86_alu_rr(a, ALU_CMP, addr, g->stack_hi_minus_8);
		x86_jcc(a, CC_A, g->l_bounds);
		x86_mov_load(a, dst, M(addr, 0));
	} else {
		x86_mov_rr(a, RSI, addr);
		if (g->read_reg != XNONE)
			x86_call_r(a, g->read_reg);
		else
			x86_call(a, g->l_read);
		x86_mov_rr(a, dst, RAX);
	}
}

void gen_return(gen_ctx *g)
{
	if (g->mode == GEN_LOCAL) {
		x86_pop(g->a, RBX); /* the local entry's only saved register */
		x86_ret(g->a);
	} else {
		x86_jmp(g->a, g->l_done);
	}
}

void gen_param(gen_ctx *g, int dst, int index)
{
	if (g->params_reg != XNONE) {
		x86_movsxd_load(g->a, dst, M(g->params_reg, 4 * index));
	} else {
		x86_mov_load(g->a, dst, g->params_slot);
		x86_movsxd_load(g->a, dst, M(dst, 4 * index));
	}
}
