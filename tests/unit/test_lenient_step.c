/*
 * test_lenient_step - a snapshot whose copy misses a slot the CFI still
 * names: the frame is stepped, that register lost, as libdw and libunwind
 * step it.  The fixture's zoo_eh_return ends as libgcc's
 * _Unwind_RaiseException does when it installs a catch block: at its last
 * instruction (zoo_eh_return_jump) the CFA is rsp, the return address is
 * in rcx, and rax is "saved at CFA - 24", below the stack pointer where a
 * perf sample's copy starts.  Its row is one no summary describes (the
 * return address in a register), so the eh_elf's own step runs, fails on
 * rax's slot, and the DWARF rules of the same row take over; with
 * EHELF_UNWIND_NO_FALLBACK the unwind stops there, truncated.  Found in
 * perf samples of a C++ program throwing in a loop, where libunwind and
 * libdw went on and ehelf stopped.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../client-lib/include/ehelf.h"
#include "unit.h"

/* Unwind at most 2 frames from the fixture's last instruction, with the
 * caller's address RET in rcx and a copy of 4 words at the stack pointer;
 * nothing readable outside it. */
static int unwind_at_jump(const ehelf_space *s, uint64_t jump, uint64_t ret,
			  ehelf_frame *f, unsigned flags)
{
	static uint64_t stack[4] = { 0x1111, 0x2222, 0x3333, 0x4444 };
	ehelf_regs r;
	memset(&r, 0, sizeof r);
	r.r[EHELF_RIP] = jump;
	r.r[EHELF_RSP] = (uint64_t)(uintptr_t)stack;
	r.r[EHELF_RCX] = ret;
	r.r[EHELF_RAX] = 0xaaaa;
	r.valid = (1u << EHELF_RIP) | (1u << EHELF_RSP) | (1u << EHELF_RCX) |
		  (1u << EHELF_RAX);
	return ehelf_unwind_snapshot(s, &r, stack, (uint64_t)(uintptr_t)stack,
				     sizeof stack, NULL, NULL, f, 2, flags);
}

int main(void)
{
	const char *build = getenv("EHELF_BUILD");
	if (!build) {
		fprintf(stderr, "test_lenient_step: EHELF_BUILD unset: skipped\n");
		UNIT_DONE("test_lenient_step");
	}
	char zoo[600], store[] = "/tmp/test_lenient_step.XXXXXX", cmd[1600];
	snprintf(zoo, sizeof zoo, "%s/fixtures/zoo.so", build);
	CHECK(mkdtemp(store) != NULL);
	/* its eh_elf, under its build-ID */
	snprintf(cmd, sizeof cmd, "'%s/bin/ehelf-batch' --store '%s' '%s' >/dev/null 2>&1",
		 build, store, zoo);
	CHECK(system(cmd) == 0);
	setenv("EHELF_PATH", store, 1);
	void *h = dlopen(zoo, RTLD_NOW);
	CHECK(h != NULL);
	void *jump = h ? dlsym(h, "zoo_eh_return_jump") : NULL;
	CHECK(jump != NULL);
	ehelf_space *s = ehelf_space_new();
	CHECK(s && ehelf_space_load_self(s) == 0);
	int with = 0;
	CHECK(s && ehelf_space_modules(s, &with) > 0 && with >= 1);
	if (s && jump) {
		uint64_t pc = (uint64_t)(uintptr_t)jump;
		uint64_t ret = (uint64_t)(uintptr_t)&unwind_at_jump + 1;
		ehelf_frame f[2];
		memset(f, 0, sizeof f);
		int n = unwind_at_jump(s, pc, ret, f, 0);
		CHECK(n == 2);
		CHECK_U64(f[0].pc, pc);
		CHECK(f[0].flags == 0);
		CHECK_U64(f[1].pc, ret);
		CHECK_U64(f[1].sp, f[0].sp); /* CFA = rsp */
		CHECK(f[1].path == EHELF_PATH_DWARF);
		/* the eh_elf alone: its step fails on rax's slot */
		memset(f, 0, sizeof f);
		n = unwind_at_jump(s, pc, ret, f, EHELF_UNWIND_NO_FALLBACK);
		CHECK(n == 1);
		CHECK(f[0].flags & EHELF_FRAME_TRUNCATED);
	}
	ehelf_space_free(s);
	if (h)
		dlclose(h);
	unsetenv("EHELF_PATH");
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", store);
	CHECK(system(cmd) == 0);
	UNIT_DONE("test_lenient_step");
}
