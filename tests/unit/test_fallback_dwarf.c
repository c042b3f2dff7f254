/*
 * test_fallback_dwarf - the DWARF fallback (libdw's CFI, for modules
 * without an eh_elf) on this process's libc: the registers a step leaves
 * valid.  x86-64's call-saved registers keep their value where the CFI
 * says nothing of them, as eh_elfs and libunwind take it, although libdw's
 * default rules (elfutils 0.188) leave rbx undefined there.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "../../client-lib/space.h"
#include "unit.h"

/* One step from the first instruction of FN (a libc function: the CFA is
 * rsp + 8, the return address at rsp, nothing said of rbx), with every
 * register valid and RET as the return address on a stack of our own. */
static void step_from_entry(const ehelf_space *s, const char *fn)
{
	void *pc = dlsym(RTLD_DEFAULT, fn);
	CHECK(pc != NULL);
	if (!pc)
		return;
	uint64_t stack[4] = { (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "abort") + 16,
			      0, 0, 0 };
	snapshot sn = { .addr = (uint64_t)(uintptr_t)stack, .size = sizeof stack,
			.data = (const uint8_t *)stack };
	reader rd = { .local = false, .read = snapshot_read, .arg = &sn, .snap = &sn };
	ehelf_regs r;
	memset(&r, 0, sizeof r);
	for (int i = 0; i < EHELF_NREGS; i++)
		r.r[i] = 0x1000 + (uint64_t)i;
	r.r[EHELF_RIP] = (uint64_t)(uintptr_t)pc;
	r.r[EHELF_RSP] = (uint64_t)(uintptr_t)stack;
	r.valid = (1u << EHELF_NREGS) - 1;
	uint32_t path = 0;
	int st = unwind_step(s, &r, true, &rd, 0, &path);
	CHECK(st == EHELF_STEP);
	CHECK(path == EHELF_PATH_DWARF);
	CHECK_U64(r.r[EHELF_RIP], stack[0]);
	CHECK_U64(r.r[EHELF_RSP], (uint64_t)(uintptr_t)stack + 8);
	static const int saved[] = { EHELF_RBX, EHELF_RBP, EHELF_R12, EHELF_R13,
				     EHELF_R14, EHELF_R15 };
	for (size_t i = 0; i < sizeof saved / sizeof *saved; i++) {
		CHECK((r.valid >> saved[i]) & 1);
		CHECK_U64(r.r[saved[i]], 0x1000 + (uint64_t)saved[i]);
	}
}

int main(void)
{
	/* no eh_elf anywhere: every libc frame goes through libdw */
	setenv("EHELF_PATH", "/nonexistent-ehelf-store", 1);
	ehelf_space *s = ehelf_space_new();
	CHECK(s != NULL && ehelf_space_load_self(s) == 0);
	int with = -1;
	CHECK(s && ehelf_space_modules(s, &with) > 0 && with == 0);
	if (s) {
		step_from_entry(s, "qsort");
		step_from_entry(s, "strtol");
		step_from_entry(s, "getenv");
	}
	ehelf_space_free(s);
	UNIT_DONE("test_fallback_dwarf");
}
