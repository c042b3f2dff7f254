/*
 * resume_unw.S - continuing execution somewhere else: unw_setcontext
 * (_Ux86_64_setcontext), and unw_resume's two ends (resume.c).
 */
#include "ucontext_offsets.h"
	.text
/*
 * _Ux86_64_setcontext(const ucontext_t *uc): as libunwind's: the
 * floating-point environment from uc_mcontext.fpregs, every general
 * register from the gregs, then rip; the signal mask is not touched.
 */
	.globl	_Ux86_64_setcontext
	.type	_Ux86_64_setcontext, @function
_Ux86_64_setcontext:
	.cfi_startproc
	movq	FPPTR(%rdi), %r8
	fldenv	(%r8)
	ldmxcsr	MXCSR(%r8)
	movq	G(0)(%rdi), %r8
	movq	G(1)(%rdi), %r9
	movq	G(2)(%rdi), %r10
	movq	G(3)(%rdi), %r11
	movq	G(4)(%rdi), %r12
	movq	G(5)(%rdi), %r13
	movq	G(6)(%rdi), %r14
	movq	G(7)(%rdi), %r15
	movq	G(9)(%rdi), %rsi
	movq	G(10)(%rdi), %rbp
	movq	G(11)(%rdi), %rbx
	movq	G(12)(%rdi), %rdx
	movq	G(13)(%rdi), %rax
	movq	G(15)(%rdi), %rsp
	pushq	G(16)(%rdi)
	movq	G(14)(%rdi), %rcx
	movq	G(8)(%rdi), %rdi
	ret
	.cfi_endproc
	.size	_Ux86_64_setcontext, .-_Ux86_64_setcontext

/*
 * ehelf_compat_resume(const ehelf_regs *r): load every register from R
 * (DWARF order: rax 0, rdx 8, rcx 16, rbx 24, rsi 32, rdi 40, rbp 48,
 * rsp 56, r8..r15 64..120, rip 128) and continue at its rip on its stack.
 */
	.globl	ehelf_compat_resume
	.hidden	ehelf_compat_resume
	.type	ehelf_compat_resume, @function
ehelf_compat_resume:
	.cfi_startproc
	movq	56(%rdi), %rsp
	pushq	128(%rdi)
	movq	0(%rdi), %rax
	movq	8(%rdi), %rdx
	movq	16(%rdi), %rcx
	movq	24(%rdi), %rbx
	movq	32(%rdi), %rsi
	movq	48(%rdi), %rbp
	movq	64(%rdi), %r8
	movq	72(%rdi), %r9
	movq	80(%rdi), %r10
	movq	88(%rdi), %r11
	movq	96(%rdi), %r12
	movq	104(%rdi), %r13
	movq	112(%rdi), %r14
	movq	120(%rdi), %r15
	movq	40(%rdi), %rdi
	ret
	.cfi_endproc
	.size	ehelf_compat_resume, .-ehelf_compat_resume

/*
 * ehelf_compat_sigreturn(ucontext_t *uc): rt_sigreturn with the stack
 * pointer at UC, a signal frame's context (the kernel finds the frame at
 * rsp - 8, its return address slot): the registers and the signal mask
 * from UC.
 */
	.globl	ehelf_compat_sigreturn
	.hidden	ehelf_compat_sigreturn
	.type	ehelf_compat_sigreturn, @function
ehelf_compat_sigreturn:
	.cfi_startproc
	movq	%rdi, %rsp
	movl	$15, %eax	/* SYS_rt_sigreturn */
	syscall
	hlt
	.cfi_endproc
	.size	ehelf_compat_sigreturn, .-ehelf_compat_sigreturn

	.section .note.GNU-stack,"",@progbits
