/*
 * compare-libunwind - ehelf's local unwinder against libunwind in the same
 * process, at the same points: every scenario of scenarios.h (libc, a
 * signal handler, DRAP, recursion, libstdc++ with an exception in flight,
 * threads), and synthetic frames stopped inside PLT entries.  Frame by
 * frame the pcs, stack pointers and signal-frame marks must be equal.
 * Prints each scenario's ehelf frames for the gdb comparison
 * (gdb-compare.sh), and calls marker() after each probe for gdb to stop.
 *
 * Usage: compare-libunwind [--expect-dwarf] (eh_elfs from $EHELF_PATH)
 *   --expect-dwarf: some modules have no eh_elf; their frames must be
 *   stepped with libdw (and still agree); without it every frame must be
 *   stepped with an eh_elf.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "../../client-lib/include/ehelf.h"
#include "../../common/elf_file.h"
#include "frame_diff.h"
#include "scenarios.h"

enum { MAXF = 256 };

static ehelf_space *space;
static bool expect_dwarf;
static atomic_int failures, probes, frames_total, dwarf_frames, ehelf_frames;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;


static int libunwind_frames(unw_context_t *uc, lframe *f, int max)
{
	unw_cursor_t c;
	if (unw_init_local(&c, uc) < 0)
		return 0;
	int n = 0;
	do {
		unw_word_t ip, sp;
		unw_get_reg(&c, UNW_REG_IP, &ip);
		unw_get_reg(&c, UNW_REG_SP, &sp);
		f[n].ip = ip;
		f[n].sp = sp;
		f[n].signal = unw_is_signal_frame(&c) > 0;
		n++;
	} while (n < max && unw_step(&c) > 0);
	return n;
}

/* Compare ehelf's frames FROM.. with libunwind's FROM..; print on failure. */
static void compare(const char *what, const ehelf_frame *e, int ne,
		    const lframe *l, int nl, int from)
{
	bool ok = frames_agree(e, ne, l, nl, from);
	for (int i = 1; i < ne; i++) {
		if (e[i].path == EHELF_PATH_DWARF)
			atomic_fetch_add(&dwarf_frames, 1);
		else
			atomic_fetch_add(&ehelf_frames, 1);
	}
	atomic_fetch_add(&frames_total, ne);
	if (ok)
		return;
	atomic_fetch_add(&failures, 1);
	pthread_mutex_lock(&print_lock);
	frames_print_diff(stderr, what, e, ne, l, nl);
	pthread_mutex_unlock(&print_lock);
}

/* gdb-frames.py stops here after each probe. */
void marker(const char *name);
__attribute__((noinline)) void marker(const char *name)
{
	__asm__ volatile("" ::"r"(name) : "memory");
}

__attribute__((noinline)) void probe(const char *name)
{
	ehelf_regs r;
	ehelf_getcontext(&r);
	ehelf_frame e[MAXF];
	int ne = ehelf_unwind_local(space, &r, e, MAXF, 0);
	unw_context_t uc;
	unw_getcontext(&uc);
	lframe l[MAXF];
	int nl = libunwind_frames(&uc, l, MAXF);
	atomic_fetch_add(&probes, 1);
	/* frame 0 of each is where it was taken, inside probe */
	compare(name, e, ne, l, nl, 1);
	/* for gdb: the frames, then a stop in marker, one thread at a time */
	pthread_mutex_lock(&print_lock);
	printf("EHELF %s:", name);
	for (int i = 1; i < ne; i++)
		printf(" %#llx", (unsigned long long)e[i].pc);
	printf("\n");
	fflush(stdout);
	marker(name);
	pthread_mutex_unlock(&print_lock);
}

/* ---- synthetic frames inside PLT entries --------------------------------- */

static int main_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr; /* the first object: the program */
	return 1;
}

__attribute__((noinline)) static void plt_case(uint64_t pc, const char *sec,
					       int off)
{
	/* a stack whose top is a return address into this function */
	uint64_t stack[64];
	for (int i = 0; i < 64; i++)
		stack[i] = (uint64_t)(uintptr_t)&&here;
here:
	ucontext_t uc;
	getcontext(&uc);
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
	/* at PLT0's second instruction the lazy resolver's push is done */
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)&stack[8];
	ehelf_regs r;
	ehelf_regs_from_ucontext(&r, &uc);
	ehelf_frame e[2];
	int ne = ehelf_unwind_local(space, &r, e, 2, 0);
	lframe l[2];
	unw_cursor_t c;
	int nl = 0;
	if (unw_init_local2(&c, &uc, UNW_INIT_SIGNAL_FRAME) == 0) {
		unw_word_t ip, sp;
		do {
			unw_get_reg(&c, UNW_REG_IP, &ip);
			unw_get_reg(&c, UNW_REG_SP, &sp);
			l[nl++] = (lframe){ ip, sp, 0 };
		} while (nl < 2 && unw_step(&c) > 0);
	}
	for (int i = 0; i < ne; i++)
		e[i].flags = 0; /* the synthetic frame 0 is no signal frame */
	char what[64];
	snprintf(what, sizeof what, "%s+%d", sec, off);
	atomic_fetch_add(&probes, 1);
	compare(what, e, ne, l, nl, 0);
}

static int plt_cases(void)
{
	uint64_t bias = 0;
	dl_iterate_phdr(main_bias, &bias);
	elf_file f;
	ehelf_err err;
	if (elf_file_open(&f, "/proc/self/exe", &err) < 0)
		return 0;
	int n = 0;
	static const char *const secs[] = { ".plt", ".plt.sec" };
	for (int s = 0; s < 2; s++) {
		elf_section sec;
		if (elf_file_section(&f, secs[s], &sec, &err) < 0 || sec.size < 32)
			continue;
		/* .plt: PLT0 and the first stub; .plt.sec: its first stubs */
		for (int off = 0; off < 32; off++, n++)
			plt_case(bias + sec.addr + (uint64_t)off, secs[s], off);
	}
	elf_file_close(&f);
	return n;
}

int main(int argc, char **argv)
{
	expect_dwarf = argc > 1 && !strcmp(argv[1], "--expect-dwarf");
	space = ehelf_space_new();
	if (!space || ehelf_space_load_self(space) < 0) {
		fprintf(stderr, "compare-libunwind: %s\n", ehelf_last_error());
		return 1;
	}
	int with;
	int mods = ehelf_space_modules(space, &with);
	scen_all();
	int plts = plt_cases();
	printf("compare-libunwind: %d probes (%d inside PLT entries), %d frames "
	       "(%d stepped with eh_elfs, %d with libdw), %d of %d modules with "
	       "an eh_elf, %d mismatches\n", atomic_load(&probes), plts,
	       atomic_load(&frames_total), atomic_load(&ehelf_frames),
	       atomic_load(&dwarf_frames), with, mods, atomic_load(&failures));
	bool ok = !atomic_load(&failures) && plts > 0 &&
		  (expect_dwarf ? atomic_load(&dwarf_frames) > 0
				: atomic_load(&dwarf_frames) == 0);
	printf("compare-libunwind: %s\n", ok ? "PASS" : "FAIL");
	ehelf_space_free(space);
	return ok ? 0 : 1;
}
