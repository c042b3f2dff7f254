/*
 * test_fallback_dwarf - the DWARF fallback for modules without an eh_elf
 * (in a space not of this process: the module's own .eh_frame through a
 * mapping of its file, cfi_fallback/) on this process's libc: the
 * registers a step leaves valid.  x86-64's call-saved registers keep
 * their value where the CFI says nothing of them, as eh_elfs and libunwind
 * take it, although libdw's default rules (elfutils 0.188) leave rbx
 * undefined there.
 *
 * libc goes into the space as a module of its own (ehelf_space_add_module:
 * its code where it is loaded, its file for its CFI) under a build-ID drawn
 * at random for this run: no eh_elf can be found for it in $EHELF_PATH,
 * in /usr/lib/ehelf (where the -ehelf packages install libc's) nor in the
 * cache, whatever is installed on this machine.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "../../client-lib/space.h"
#include "../../client-lib/unwind.h"
#include "unit.h"

/* One step from the first instruction of FN (a libc function: the CFA is
 * rsp + 8, the return address at rsp, nothing said of rbx), with every
 * register valid and RET as the return address on a stack of our own. */
static void step_from_entry(const ehelf_space *s, void *libc, const char *fn)
{
	void *pc = dlsym(libc, fn); /* libc's own, not a sanitizer's wrapper */
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
	int st = unwind_step(s, &r, true, &rd, 0, &path, NULL, NULL);
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

/* libc's executable segment, as dl_iterate_phdr tells it */
struct libc_code {
	ehelf_module_desc d;
	char path[512];
};

static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct libc_code *c = arg;
	const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	if (!base || strcmp(base, "/libc.so.6") != 0)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		snprintf(c->path, sizeof c->path, "%s", info->dlpi_name);
		c->d.start = info->dlpi_addr + ph->p_vaddr;
		c->d.end = c->d.start + ph->p_memsz;
		c->d.bias = info->dlpi_addr;
		c->d.path = c->path;
		return 1;
	}
	return 0;
}

int main(void)
{
	/* nothing of the environment either */
	setenv("EHELF_PATH", "/nonexistent-ehelf-store", 1);
	setenv("EHELF_CACHE_PATH", "/nonexistent-ehelf-cache", 1);
	unsetenv("EHELF_ALLOW_UNSIGNED");
	struct libc_code libc = { 0 };
	CHECK(dl_iterate_phdr(find_libc, &libc) == 1);
	uint8_t id[20];
	CHECK(getrandom(id, sizeof id, 0) == (ssize_t)sizeof id);
	libc.d.build_id = id;
	libc.d.build_id_len = sizeof id;
	ehelf_space *s = ehelf_space_new();
	CHECK(s != NULL && ehelf_space_add_module(s, &libc.d) == 0);
	int with = -1;
	CHECK(s && ehelf_space_modules(s, &with) == 1 && with == 0);
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	CHECK(h != NULL);
	if (s && with == 0 && h) {
		step_from_entry(s, h, "qsort");
		step_from_entry(s, h, "strtol");
		step_from_entry(s, h, "getenv");
	}
	if (h)
		dlclose(h);
	ehelf_space_free(s);
	UNIT_DONE("test_fallback_dwarf");
}
