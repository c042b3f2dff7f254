/*
 * getcontext.S - ehelf_getcontext(ehelf_regs *r): the caller's registers
 * as they are right after the call returns (rip = return address, rsp =
 * the stack pointer above it), in DWARF order, all 17 marked valid.
 */
	.text
	.globl	ehelf_getcontext
	.type	ehelf_getcontext, @function
ehelf_getcontext:
	.cfi_startproc
	movq	%rax, 0(%rdi)
	movq	%rdx, 8(%rdi)
	movq	%rcx, 16(%rdi)
	movq	%rbx, 24(%rdi)
	movq	%rsi, 32(%rdi)
	movq	%rdi, 40(%rdi)
	movq	%rbp, 48(%rdi)
	leaq	8(%rsp), %rax
	movq	%rax, 56(%rdi)
	movq	%r8, 64(%rdi)
	movq	%r9, 72(%rdi)
	movq	%r10, 80(%rdi)
	movq	%r11, 88(%rdi)
	movq	%r12, 96(%rdi)
	movq	%r13, 104(%rdi)
	movq	%r14, 112(%rdi)
	movq	%r15, 120(%rdi)
	movq	(%rsp), %rax
	movq	%rax, 128(%rdi)
	movl	$0x1ffff, 136(%rdi)
	xorl	%eax, %eax
	ret
	.cfi_endproc
	.size	ehelf_getcontext, .-ehelf_getcontext

#include "backtrace_entry.inc"

/* ehelf_backtrace(void **ips, int max): the walk from its caller's frame
 * (unwind.c, backtrace_from) */
	BACKTRACE_ENTRY ehelf_backtrace, ehelf_backtrace_from
	.section .note.GNU-stack,"",@progbits
