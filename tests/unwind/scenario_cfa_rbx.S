/*
 * scenario_cfa_rbx.S - a frame whose CFA lies in a callee-saved register,
 * below a frame that saves that register and clobbers it (scenarios.h:
 * scen_cfa_rbx).  cfa_rbx_outer realigns its stack and keeps its CFA in
 * rbx (rbx + 16), which no step cache entry can express: it is stepped the
 * complete way, from the rbx that cfa_rbx_inner saved at its CFA - 16.
 * cfa_rbx_inner is an ordinary frame the step cache holds once warm, and
 * loads a garbage value into rbx before it calls probe(): an unwinder that
 * steps outer with any rbx but the one inner saved goes wrong there.
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
	call	cfa_rbx_inner
	movq	%rbx, %rsp
	.cfi_def_cfa %rsp, 16
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	cfa_rbx_outer, .-cfa_rbx_outer

	.type	cfa_rbx_inner, @function
cfa_rbx_inner:
	.cfi_startproc
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	movabsq	$0x5a5a5a5a5a5a5a5a, %rbx
	leaq	.Lname(%rip), %rdi
	call	probe@PLT
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	cfa_rbx_inner, .-cfa_rbx_inner

	.section .rodata.str1.1, "aMS", @progbits, 1
.Lname:
	.string	"cfa-rbx"

	.section .note.GNU-stack, "", @progbits
