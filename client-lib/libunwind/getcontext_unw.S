/*
 * getcontext_unw.S - libunwind's unw_getcontext (_Ux86_64_getcontext) for
 * the compatibility library: the caller's registers into a ucontext_t's
 * gregs, as libunwind stores them (rip = return address, rsp = above it).
 * Offsets: uc_mcontext.gregs starts at 40; greg indexes from <sys/ucontext.h>
 * (R8 0 ... R15 7, RDI 8, RSI 9, RBP 10, RBX 11, RDX 12, RAX 13, RCX 14,
 * RSP 15, RIP 16).
 */
#define G(i) (40 + 8 * (i))
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
	leaq	8(%rsp), %rax
	movq	%rax, G(15)(%rdi)
	movq	(%rsp), %rax
	movq	%rax, G(16)(%rdi)
	xorl	%eax, %eax
	ret
	.cfi_endproc
	.size	_Ux86_64_getcontext, .-_Ux86_64_getcontext
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

/* unw_backtrace(void **buf, int size): the walk from its caller's frame
 * (compat_local.c, compat_backtrace_from; unwind.c, backtrace_from) */
#include "../backtrace_entry.inc"

	BACKTRACE_ENTRY unw_backtrace, compat_backtrace_from

	.section .note.GNU-stack,"",@progbits
