/*
 * scenario_cfa_rbx.S - a frame whose CFA lies in a callee-saved register
 * (scenarios.h: scen_cfa_rbx).  cfa_rbx_outer(LEAF, DIRECT) realigns its
 * stack and keeps its CFA in rbx (rbx + 16), which no step cache entry can
 * express: it is stepped the complete way, with the rbx its callee leaves.
 *  - DIRECT 0: it calls cfa_rbx_inner, an ordinary frame the step cache
 *    holds once warm, which saves rbx at its CFA - 16 and loads a garbage
 *    value into rbx before it calls LEAF (a C function that probes): an
 *    unwinder that steps outer with any rbx but the one inner saved goes
 *    wrong there.
 *  - DIRECT 1: it calls LEAF itself, here cfa_rbx_sigleaf, which keeps
 *    rbx and sends this thread SIGUSR2 with raw system calls: the signal
 *    interrupts it with outer's rbx in the kernel's ucontext, and the
 *    handler probes; the walk crosses the signal frame, whose registers
 *    are left in the ucontext, then needs that rbx for outer.
 */
	.text
	.globl	cfa_rbx_outer
	.type	cfa_rbx_outer, @function
cfa_rbx_outer:
	.cfi_startproc
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	movq	%rsp, %rbx
	.cfi_def_cfa %rbx, 16
	andq	$-64, %rsp
	subq	$96, %rsp
	testl	%esi, %esi
	jnz	1f
	call	cfa_rbx_inner
	jmp	2f
1:	call	*%rdi
2:	movq	%rbx, %rsp
	.cfi_def_cfa %rsp, 16
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.globl	cfa_rbx_outer_end
cfa_rbx_outer_end:
	.size	cfa_rbx_outer, .-cfa_rbx_outer

	.type	cfa_rbx_inner, @function
cfa_rbx_inner:
	.cfi_startproc
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	movabsq	$0x5a5a5a5a5a5a5a5a, %rbx
	call	*%rdi
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	cfa_rbx_inner, .-cfa_rbx_inner

	.globl	cfa_rbx_sigleaf
	.type	cfa_rbx_sigleaf, @function
cfa_rbx_sigleaf:
	.cfi_startproc
	movl	$39, %eax		/* getpid */
	syscall
	movl	%eax, %r8d
	movl	$186, %eax		/* gettid */
	syscall
	movl	%r8d, %edi
	movl	%eax, %esi
	movl	$12, %edx		/* SIGUSR2 */
	movl	$234, %eax		/* tgkill: the handler runs on return */
	syscall
	ret
	.cfi_endproc
	.size	cfa_rbx_sigleaf, .-cfa_rbx_sigleaf

	.section .note.GNU-stack, "", @progbits
