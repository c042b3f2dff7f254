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

/*
 * NAME(ips, max): the registers of NAME's caller as they are at the return
 * address (rip the return address, rsp above it, every other register as
 * on entry: the callee-saved ones are the caller's) into an ehelf_regs on
 * the stack (DWARF order, 17 valid), then TARGET(ips, max, &regs).
 */
.macro BACKTRACE_ENTRY name, target
	.globl	\name
	.type	\name, @function
\name:
	.cfi_startproc
	subq	$152, %rsp		/* 144 bytes of ehelf_regs, aligned */
	.cfi_adjust_cfa_offset 152
	movq	%rax, 0(%rsp)
	movq	%rdx, 8(%rsp)
	movq	%rcx, 16(%rsp)
	movq	%rbx, 24(%rsp)
	movq	%rsi, 32(%rsp)
	movq	%rdi, 40(%rsp)
	movq	%rbp, 48(%rsp)
	leaq	160(%rsp), %rax
	movq	%rax, 56(%rsp)
	movq	%r8, 64(%rsp)
	movq	%r9, 72(%rsp)
	movq	%r10, 80(%rsp)
	movq	%r11, 88(%rsp)
	movq	%r12, 96(%rsp)
	movq	%r13, 104(%rsp)
	movq	%r14, 112(%rsp)
	movq	%r15, 120(%rsp)
	movq	152(%rsp), %rax
	movq	%rax, 128(%rsp)
	movl	$0x1ffff, 136(%rsp)
	movq	%rsp, %rdx
	call	\target
	addq	$152, %rsp
	.cfi_adjust_cfa_offset -152
	ret
	.cfi_endproc
	.size	\name, .-\name
.endm

/* ehelf_backtrace(void **ips, int max): the walk from its caller's frame
 * (unwind.c, backtrace_from) */
	BACKTRACE_ENTRY ehelf_backtrace, ehelf_backtrace_from
	.section .note.GNU-stack,"",@progbits
