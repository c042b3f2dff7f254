/*
 * test_lenient_step - a snapshot whose copy misses a slot the CFI still
 * names: the frame is stepped, that register lost, as libdw and libunwind
 * step it.  The fixture's zoo_eh_return ends as libgcc's
 * _Unwind_RaiseException does when it installs a catch block: rax is
 * "saved at CFA - 24" after the stack pointer has moved up past it, out
 * of a perf sample's copy (which starts at the stack pointer).  At its
 * last instruction (zoo_eh_return_jump) the CFA is rsp and the return
 * address is in rcx; at zoo_eh_return_move the CFA is rcx + 8.  No
 * summary describes those rows, so the eh_elf's own step runs, fails on
 * rax's slot, and lenient_object_step (lenient_step.h) steps the frame
 * without rax, through the eh_elf still; a return address that cannot
 * be read still truncates the unwind.  Found in perf samples of a C++
 * program throwing in a loop, where libunwind and libdw went on and
 * ehelf stopped.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../client-lib/include/ehelf.h"
#include "../../client-lib/lenient_step.h"
#include "unit.h"

static uint64_t stack[4];

/* Unwind at most 2 frames from PC with rcx = RCX, the copy being STACK at
 * its own address; nothing readable outside it. */
static int unwind_from(const ehelf_space *s, uint64_t pc, uint64_t rcx,
		       ehelf_frame *f, unsigned flags)
{
	ehelf_regs r;
	memset(&r, 0, sizeof r);
	r.r[EHELF_RIP] = pc;
	r.r[EHELF_RSP] = (uint64_t)(uintptr_t)stack;
	r.r[EHELF_RCX] = rcx;
	r.r[EHELF_RAX] = 0xaaaa;
	r.valid = (1u << EHELF_RIP) | (1u << EHELF_RSP) | (1u << EHELF_RCX) |
		  (1u << EHELF_RAX);
	memset(f, 0, 2 * sizeof *f);
	return ehelf_unwind_snapshot(s, &r, stack, (uint64_t)(uintptr_t)stack,
				     sizeof stack, NULL, NULL, f, 2, flags);
}

/* STACK's words, else a failure. */
static int read_stack(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	uint64_t lo = (uint64_t)(uintptr_t)stack;
	if (addr < lo || addr + 8 > lo + sizeof stack)
		return -1;
	memcpy(value, (const uint8_t *)stack + (addr - lo), 8);
	return 0;
}

int main(void)
{
	const char *build = unit_build_dir("test_lenient_step");
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
	void *move = h ? dlsym(h, "zoo_eh_return_move") : NULL;
	CHECK(jump != NULL && move != NULL);
	ehelf_space *s = ehelf_space_new();
	CHECK(s && ehelf_space_load_self(s) == 0);
	int with = 0;
	CHECK(s && ehelf_space_modules(s, &with) > 0 && with >= 1);
	uint64_t base = (uint64_t)(uintptr_t)stack;
	uint64_t ret = (uint64_t)(uintptr_t)&unwind_from + 1;
	uint64_t ret2 = (uint64_t)(uintptr_t)&read_stack + 1;
	stack[0] = ret2;
	for (unsigned flags = 0; s && jump && move && flags < 2; flags++) {
		unsigned fl = flags ? EHELF_UNWIND_NO_FALLBACK : 0;
		ehelf_frame f[2];
		/* CFA = rsp, the return address in rcx */
		CHECK(unwind_from(s, (uint64_t)(uintptr_t)jump, ret, f, fl) == 2);
		CHECK(f[0].flags == 0);
		CHECK_U64(f[1].pc, ret);
		CHECK_U64(f[1].sp, base);
		CHECK(f[1].path == EHELF_PATH_EHELF);
		/* CFA = rcx + 8, the return address at rcx: in the copy */
		CHECK(unwind_from(s, (uint64_t)(uintptr_t)move, base, f, fl) == 2);
		CHECK_U64(f[1].pc, ret2);
		CHECK_U64(f[1].sp, base + 8);
		CHECK(f[1].path == EHELF_PATH_EHELF);
		/* ... beyond it: the frame needs what cannot be read */
		CHECK(unwind_from(s, (uint64_t)(uintptr_t)move, base + 4096, f, fl) == 1);
		CHECK(f[0].flags & EHELF_FRAME_TRUNCATED);
	}
	/* the step itself: rax lost, the other registers as the rules say */
	Dl_info info;
	char pattern[700];
	snprintf(pattern, sizeof pattern, "%s/.build-id/*/*.so", store);
	glob_t g = { 0 };
	CHECK(glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1);
	ehelf_object *o = g.gl_pathc == 1 ? ehelf_object_open(g.gl_pathv[0]) : NULL;
	CHECK(o != NULL);
	if (o && jump && dladdr(jump, &info)) {
		uint64_t pc = (uint64_t)(uintptr_t)jump - (uint64_t)(uintptr_t)info.dli_fbase;
		ehelf_regs in, out;
		memset(&in, 0, sizeof in);
		in.r[EHELF_RSP] = base;
		in.r[EHELF_RCX] = ret;
		in.r[EHELF_RAX] = 0xaaaa;
		in.r[EHELF_RBX] = 0xbbbb;
		in.valid = (1u << EHELF_RSP) | (1u << EHELF_RCX) | (1u << EHELF_RAX) |
			   (1u << EHELF_RBX);
		CHECK(ehelf_object_step(o, pc, &in, &out, read_stack, NULL) == EHELF_E_READ);
		CHECK(lenient_object_step(o, pc, &in, &out, read_stack, NULL) == EHELF_STEP);
		CHECK_U64(out.r[EHELF_RIP], ret);
		CHECK_U64(out.r[EHELF_RSP], base);
		CHECK(!((out.valid >> EHELF_RAX) & 1));
		CHECK((out.valid >> EHELF_RBX) & 1);
		CHECK_U64(out.r[EHELF_RBX], 0xbbbb);
		CHECK((out.valid >> EHELF_RIP) & 1);
		/* nothing missing: not its case */
		uint64_t pcm = (uint64_t)(uintptr_t)move - (uint64_t)(uintptr_t)info.dli_fbase;
		in.r[EHELF_RCX] = base + 16;
		CHECK(ehelf_object_step(o, pcm, &in, &out, read_stack, NULL) == EHELF_STEP);
		CHECK(lenient_object_step(o, pcm, &in, &out, read_stack, NULL) == EHELF_E_READ);
	}
	ehelf_object_close(o);
	if (g.gl_pathc)
		globfree(&g);
	ehelf_space_free(s);
	if (h)
		dlclose(h);
	unsetenv("EHELF_PATH");
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", store);
	CHECK(system(cmd) == 0);
	UNIT_DONE("test_lenient_step");
}
