/*
 * robustness - local unwinding must never crash the process, whatever the
 * registers and the stack hold.  Random trials start at random pcs of the
 * loaded modules (so every kind of row and expression is met, DRAP and
 * signal frames included) with a stack of garbage: random words, pointers
 * into the stack itself, into code, to unmapped and to kernel addresses,
 * and a stack that ends at an inaccessible page.  Each trial unwinds with
 * eh_elfs, with the libdw fallback (a space without eh_elfs), and through
 * the remote entry with a reader that fails at random.  The test passes
 * when all trials return; the outcome counts are printed.
 *
 * Usage: robustness [TRIALS]   (eh_elfs from $EHELF_PATH; default 100000)
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../testkit/xorshift.h"
#include "../../client-lib/include/ehelf.h"

enum { PAGE = 4096, STACK_WORDS = 1024, MAXF = 64 };

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
	return xorshift64(&rng);
}

/* executable ranges of the loaded objects */
static struct { uint64_t lo, hi; } code[64];
static int ncode;

/* Collect the code ranges, and add each object to the space ARG under a
 * build-ID no store has: a space whose frames all go through libdw. */
static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	static const uint8_t no_such_id[4] = { 0xde, 0xad, 0xbe, 0xef };
	for (int i = 0; i < info->dlpi_phnum && ncode < 64; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		code[ncode].lo = info->dlpi_addr + ph->p_vaddr;
		code[ncode].hi = code[ncode].lo + ph->p_memsz;
		const char *path = info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
		if (!strstr(path, "linux-vdso")) {
			ehelf_module_desc d = { .start = code[ncode].lo,
						.end = code[ncode].hi,
						.bias = info->dlpi_addr, .path = path,
						.build_id = no_such_id,
						.build_id_len = sizeof no_such_id };
			ehelf_space_add_module(arg, &d);
		}
		ncode++;
	}
	return 0;
}

static uint64_t random_code(void)
{
	int m = (int)(next() % (uint64_t)ncode);
	return code[m].lo + next() % (code[m].hi - code[m].lo);
}

static uint64_t *stack;      /* STACK_WORDS words, followed by a PROT_NONE page */
static uint64_t unmapped;    /* an address with nothing mapped */

static uint64_t garbage(void)
{
	switch (next() % 8) {
	case 0: return next();
	case 1: case 2: return (uint64_t)(uintptr_t)&stack[next() % STACK_WORDS];
	case 3: return random_code();
	case 4: return unmapped + (next() % PAGE);
	case 5: return 0xffffffff80000000ull + (next() & 0xffffff); /* kernel */
	case 6: return next() % 4096;
	default: return (uint64_t)(uintptr_t)&stack[STACK_WORDS] - 8 * (next() % 4);
	}
}

static int flaky_read(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	if (next() % 16 == 0)
		return -1;
	/* within the garbage stack only: the rest is "not in the snapshot" */
	uint64_t lo = (uint64_t)(uintptr_t)stack, hi = lo + 8 * STACK_WORDS;
	if (addr < lo || addr > hi - 8)
		return -1;
	memcpy(value, (void *)(uintptr_t)addr, 8);
	return 0;
}

int main(int argc, char **argv)
{
	long trials = argc > 1 ? atol(argv[1]) : 100000;
	if (argc > 2 || trials <= 0) {
		fprintf(stderr, "usage: robustness [TRIALS]\n");
		return 2;
	}
	uint8_t *map = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		perror("robustness: mmap");
		return 1;
	}
	/* [0, 2 pages): the stack; then a PROT_NONE page; then unmapped */
	mprotect(map + 2 * PAGE, PAGE, PROT_NONE);
	munmap(map + 3 * PAGE, PAGE);
	stack = (uint64_t *)map;
	unmapped = (uint64_t)(uintptr_t)(map + 3 * PAGE);
	_Static_assert(STACK_WORDS * 8 == 2 * PAGE, "the stack fills two pages");

	ehelf_space *with = ehelf_space_new();
	if (!with || ehelf_space_load_self(with) < 0) {
		fprintf(stderr, "robustness: %s\n", ehelf_last_error());
		return 1;
	}
	int n_eh;
	ehelf_space_modules(with, &n_eh);
	ehelf_space *without = ehelf_space_new();
	dl_iterate_phdr(collect, without);
	long frames[3] = { 0 }, deep[3] = { 0 };
	int mods = ehelf_space_modules(with, NULL);
	for (long t = 0; t < trials; t++) {
		for (int i = 0; i < STACK_WORDS; i++)
			stack[i] = garbage();
		ehelf_regs r;
		for (int i = 0; i < EHELF_NREGS; i++)
			r.r[i] = garbage();
		r.r[EHELF_RIP] = random_code();
		r.r[EHELF_RSP] = (uint64_t)(uintptr_t)&stack[next() % STACK_WORDS];
		r.valid = (uint32_t)(next() | (1u << EHELF_RIP) | (1u << EHELF_RSP)) &
			  EHELF_VALID_REGS;
		ehelf_frame f[MAXF];
		int n[3];
		n[0] = ehelf_unwind_local(with, &r, f, MAXF, 0);
		n[1] = t % 8 == 0 ? ehelf_unwind_local(without, &r, f, MAXF, 0) : 0;
		n[2] = ehelf_unwind(with, &r, flaky_read, NULL, f, MAXF, 0);
		for (int k = 0; k < 3; k++) {
			frames[k] += n[k] > 0 ? n[k] : 0;
			deep[k] += n[k] >= 3;
		}
	}
	printf("robustness: %ld trials over %d modules (%d with an eh_elf), "
	       "none crashed; frames: %ld with eh_elfs (%ld stacks of 3 or "
	       "more), %ld with libdw (%ld), %ld remote with a failing reader (%ld)\n",
	       trials, mods, n_eh, frames[0], deep[0], frames[1], deep[1],
	       frames[2], deep[2]);
	ehelf_space_free(with);
	ehelf_space_free(without);
	bool ok = n_eh > 0 && frames[0] > trials;
	printf("robustness: %s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
