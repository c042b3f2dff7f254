/*
 * getcontext_unw.S - libunwind's unw_getcontext (_Ux86_64_getcontext) for
 * the compatibility library: the caller's registers into a ucontext_t's
 * gregs, as libunwind stores them (rip = return address, rsp = above it).
 * Offsets: ucontext_offsets.h.
 */
#include "ucontext_offsets.h"
	.text
	.globl	_Ux86_64_getcontext
	.type	_Ux86_64_getcontext, @function
_Ux86_64_getcontext:
	.cfi_startproc
	movq	%r8, G(0)(%rdi)
	movq	%r9, G(1)(%rdi)
	movq	%r10, G(2)(%rdi)
	movq	%r11, G(3)(%rdi)
	movq	%r12, G(4)(%rdi)
	movq	%r13, G(5)(%rdi)
	movq	%r14, G(6)(%rdi)
	movq	%r15, G(7)(%rdi)
	movq	%rdi, G(8)(%rdi)
	movq	%rsi, G(9)(%rdi)
	movq	%rbp, G(10)(%rdi)
	movq	%rbx, G(11)(%rdi)
	movq	%rdx, G(12)(%rdi)
	movq	%rax, G(13)(%rdi)
	movq	%rcx, G(14)(%rdi)
	/* the floating-point environment, and the pointer to it, as
	 * libunwind's (its unw_setcontext and unw_resume load them) */
	leaq	FPMEM(%rdi), %r8
	movq	%r8, FPPTR(%rdi)
	fnstenv	(%r8)
	stmxcsr	MXCSR(%r8)
	movq	G(0)(%rdi), %r8
	leaq	8(%rsp), %rax
	movq	%rax, G(15)(%rdi)
	movq	(%rsp), %rax
	movq	%rax, G(16)(%rdi)
	xorl	%eax, %eax
	ret
	.cfi_endproc
	.size	_Ux86_64_getcontext, .-_Ux86_64_getcontext
/* unw_backtrace(void **buf, int size): the walk from its caller's frame
 * (compat_local.c, compat_backtrace_from; unwind.c, backtrace_from) */
#include "../backtrace_entry.inc"

	BACKTRACE_ENTRY unw_backtrace, compat_backtrace_from

/* backtrace(), libunwind's weak alias of unw_backtrace (glibc's otherwise) */
	.weak	backtrace
	.type	backtrace, @function
	.set	backtrace, unw_backtrace

	.section .note.GNU-stack,"",@progbits
