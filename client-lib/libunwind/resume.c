/*
 * resume.c - unw_resume: continuing in the cursor's frame with its
 * registers.  As libunwind: when the cursor stepped out of a signal frame
 * (its frame is the interrupted one), its registers go into that frame's
 * ucontext_t and rt_sigreturn loads them with the signal mask the frame
 * saved; otherwise the registers are loaded directly (the mask stays).
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <string.h>
#include <ucontext.h>

#include "cursor.h"
#include "side_api.h"
#include "ucontext_offsets.h"

_Static_assert(offsetof(ucontext_t, uc_mcontext.gregs) == G(0), "gregs");
_Static_assert(offsetof(ucontext_t, uc_mcontext.fpregs) == FPPTR, "fpregs");
_Static_assert(offsetof(ucontext_t, __fpregs_mem) == FPMEM, "fpregs_mem");
_Static_assert(offsetof(struct _libc_fpstate, mxcsr) == MXCSR, "mxcsr");

/* resume_unw.S */
void ehelf_compat_resume(const ehelf_regs *r) __attribute__((noreturn));
void ehelf_compat_sigreturn(ucontext_t *uc) __attribute__((noreturn));

COMPAT int _ULx86_64_resume(unw_cursor_t *c)
{
	compat_cursor *k = compat_of(c);
	if (!k)
		return SIDE_CURSOR_CALL(resume, c);
	cursor_load_all(k);
	if (k->sigctx) {
		/* the registers libunwind restores (the gregs up to rip) */
		static const int greg_of[EHELF_NREGS] = {
			REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI,
			REG_RBP, REG_RSP, REG_R8,  REG_R9,  REG_R10, REG_R11,
			REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP,
		};
		ucontext_t *uc = (ucontext_t *)(uintptr_t)k->sigctx;
		for (int i = 0; i < EHELF_NREGS; i++)
			if ((k->regs.valid >> i) & 1)
				uc->uc_mcontext.gregs[greg_of[i]] = (greg_t)k->regs.r[i];
		ehelf_compat_sigreturn(uc);
	}
	ehelf_compat_resume(&k->regs);
}
