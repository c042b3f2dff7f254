/*
 * test_plt_step.c - the PLT rule of the unwinder: where no CFI covers a pc
 * that is the first instruction of a lazy-binding PLT entry (as lld links
 * them, without CFI), the return address is at the stack pointer.  An
 * empty space (no module covers anything), a snapshot of a few stack
 * words, and code bytes read through the callback: the rule applies only
 * on the entry's exact bytes, only where execution was (frame 0, not a
 * return address), and a stack that cannot be read truncates the unwind.
 * The integration test (run-perf-tests.sh, "plt") checks it against perf
 * on an lld-linked program sampled on a PLT entry.
 */
#include "../../client-lib/include/ehelf.h"

#include "unit.h"

enum { CODE = 0x401000, SP = 0x7ffd0000, RET = 0x402345 };

/* jmp *0x2f3a(%rip); push $3; jmp PLT0 */
static const uint8_t plt_entry[16] = { 0xff, 0x25, 0x3a, 0x2f, 0x00, 0x00,
				       0x68, 0x03, 0x00, 0x00, 0x00,
				       0xe9, 0xd0, 0xff, 0xff, 0xff };
static uint8_t code[32]; /* two entries */

/* Code bytes at CODE (any 8 of them), nothing else. */
static int read_code(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	if (addr < CODE || addr + 8 > CODE + sizeof code)
		return -1;
	memcpy(value, code + (addr - CODE), 8);
	return 0;
}

/* Unwind from RIP at SP with STACK (N words at SP) as the snapshot. */
static int unwind(const ehelf_space *s, uint64_t rip, const uint64_t *stack,
		  size_t n, ehelf_frame *f, int max)
{
	ehelf_regs r = { .valid = (1u << EHELF_RIP) | (1u << EHELF_RSP) };
	r.r[EHELF_RIP] = rip;
	r.r[EHELF_RSP] = SP;
	return ehelf_unwind_snapshot(s, &r, stack, SP, n * 8, read_code, NULL, f,
				     max, 0);
}

int main(void)
{
	ehelf_space *s = ehelf_space_new();
	CHECK(s != NULL);
	if (!s)
		UNIT_DONE("test_plt_step");
	ehelf_frame f[8] = { 0 };
	memcpy(code, plt_entry, sizeof plt_entry);
	memcpy(code + 16, plt_entry, sizeof plt_entry);

	/* on the entry: the caller at [rsp], rsp + 8; then RET is in no
	 * module and not a PLT entry: the end */
	uint64_t stack[4] = { RET, 0x1111, 0x2222, 0x3333 };
	int n = unwind(s, CODE, stack, 4, f, 8);
	CHECK(n == 2);
	CHECK_U64(f[0].pc, CODE);
	CHECK_U64(f[1].pc, RET);
	CHECK_U64(f[1].sp, SP + 8);
	CHECK(f[1].path == EHELF_PATH_PLT);
	CHECK(f[1].flags == 0);

	/* the cold-copy hint (a prefetch) changes nothing in the result, and
	 * turns on no other behaviour: not the frame-pointer guess, which
	 * finds a caller on this stack (rbp -> [saved rbp, RET]) at a pc no
	 * rule covers */
	ehelf_regs r0 = { .valid = (1u << EHELF_RIP) | (1u << EHELF_RSP) |
				   (1u << EHELF_RBP) };
	r0.r[EHELF_RIP] = CODE;
	r0.r[EHELF_RSP] = SP;
	r0.r[EHELF_RBP] = SP + 8;
	uint64_t chain[4] = { RET, 0, RET + 16, 0x3333 };
	ehelf_frame g[8] = { 0 };
	CHECK(ehelf_unwind_snapshot(s, &r0, chain, SP, sizeof chain, read_code,
				    NULL, g, 8, EHELF_UNWIND_COLD_SNAPSHOT) == 2);
	CHECK(unwind(s, CODE, chain, 4, f, 8) == 2);
	CHECK(!memcmp(f, g, 2 * sizeof *f));
	r0.r[EHELF_RIP] = CODE + 6; /* inside the entry: no rule */
	CHECK(ehelf_unwind_snapshot(s, &r0, chain, SP, sizeof chain, read_code,
				    NULL, g, 8, EHELF_UNWIND_FRAME_POINTER) == 2);
	CHECK_U64(g[1].pc, RET + 16);
	CHECK(ehelf_unwind_snapshot(s, &r0, chain, SP, sizeof chain, read_code,
				    NULL, g, 8, EHELF_UNWIND_COLD_SNAPSHOT) == 1);

	/* the next entry too */
	CHECK(unwind(s, CODE + 16, stack, 4, f, 8) == 2);

	/* inside an entry (the push, the jmp: their bytes readable), or
	 * other bytes: no rule */
	CHECK(unwind(s, CODE + 6, stack, 4, f, 8) == 1);
	CHECK(unwind(s, CODE + 11, stack, 4, f, 8) == 1);
	code[11] = 0xe8;
	CHECK(unwind(s, CODE, stack, 4, f, 8) == 1);
	code[11] = 0xe9;
	code[1] = 0x35; /* PLT0's push *GOT+8(%rip) */
	CHECK(unwind(s, CODE, stack, 4, f, 8) == 1);
	code[1] = 0x25;

	/* a return address on a PLT entry's bytes is not where execution
	 * was: the rule is for frame 0 (and signal frames) only */
	uint64_t back[4] = { CODE, 0x1111, 0x2222, 0x3333 };
	n = unwind(s, CODE, back, 4, f, 8);
	CHECK(n == 2);
	CHECK_U64(f[1].pc, CODE);

	/* a zero return address: the outermost frame */
	uint64_t zero[2] = { 0, 0 };
	CHECK(unwind(s, CODE, zero, 2, f, 8) == 1);

	/* the stack beyond the copy: truncated, not ended */
	n = unwind(s, CODE, NULL, 0, f, 8);
	CHECK(n == 1);
	CHECK(f[0].flags & EHELF_FRAME_TRUNCATED);

	ehelf_space_free(s);
	UNIT_DONE("test_plt_step");
}
