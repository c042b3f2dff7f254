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
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "../../client-lib/include/ehelf.h"
#include "../../common/elf_file.h"
#include "frame_diff.h"
#include "scenarios.h"

enum { MAXF = 256 };

static ehelf_space *space;
static bool expect_dwarf;
static atomic_int failures, probes, frames_total, dwarf_frames, ehelf_frames,
	snapshots;
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

/* ---- the same stack as a snapshot ------------------------------------------ */

typedef struct snap_reads {
	int calls;
	bool fail; /* every read fails (a cut copy: nothing outside it) */
} snap_reads;

/* Reads outside the copy: this process's memory, with the kernel's checks. */
static int snap_read(void *arg, uint64_t addr, uint64_t *value)
{
	snap_reads *sr = arg;
	sr->calls++;
	if (sr->fail)
		return -1;
	struct iovec l = { value, 8 }, r = { (void *)(uintptr_t)addr, 8 };
	return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == 8 ? 0 : -1;
}

static void check_fail(const char *name, const char *what)
{
	atomic_fetch_add(&failures, 1);
	pthread_mutex_lock(&print_lock);
	fprintf(stderr, "%s: %s\n", name, what);
	pthread_mutex_unlock(&print_lock);
}

/* scenario_cfa_rbx.S: the frame whose CFA is in rbx, which no step cache
 * entry holds (its eh_elf's code steps it, reading more than the return
 * address) */
extern const char cfa_rbx_outer[], cfa_rbx_outer_end[];

static bool in_cfa_rbx_outer(uint64_t pc)
{
	return pc >= (uint64_t)(uintptr_t)cfa_rbx_outer &&
	       pc <= (uint64_t)(uintptr_t)cfa_rbx_outer_end;
}

/*
 * ehelf_unwind_snapshot over a copy of this thread's stack from frame 0 to
 * the last frame of E (NE frames, the local walk from R0), twice (the
 * step cache as the local walk left it, then as this one did): the same
 * frames.  Then the copy cut at frame NE / 2's stack pointer, with a reader
 * that fails: the frames up to that one, the last flagged truncated, and
 * the reader asked at most twice when that frame's step came from an
 * eh_elf's row the cache holds (once, when from the cache: a walk that lost the return address
 * there stops, the complete step would fail the same way; it used to
 * take the complete step, and a walk that had not tracked the registers
 * stepped all its frames again first, for the reader to be asked three
 * times).
 */
static void check_snapshot(const char *name, const ehelf_regs *r0,
			   const ehelf_frame *e, int ne)
{
	if (ne < 4)
		return;
	uint64_t lo = r0->r[EHELF_RSP], hi = e[ne - 1].sp + 8;
	if (hi <= lo || hi - lo > (1u << 20))
		return;
	uint8_t *copy = malloc(hi - lo);
	if (!copy)
		return;
	memcpy(copy, (const void *)(uintptr_t)lo, hi - lo);
	for (int pass = 0; pass < 2; pass++) {
		ehelf_frame f[MAXF];
		snap_reads sr = { 0, false };
		int n = ehelf_unwind_snapshot(space, r0, copy, lo, hi - lo, snap_read,
					      &sr, f, MAXF, 0);
		bool same = n == ne;
		for (int i = 0; same && i < n; i++)
			same = f[i].pc == e[i].pc && f[i].sp == e[i].sp;
		if (!same)
			check_fail(name, "snapshot: frames differ from the local walk's");
	}
	int k = ne / 2;
	ehelf_frame f[MAXF];
	snap_reads sr = { 0, true };
	int n = ehelf_unwind_snapshot(space, r0, copy, lo, e[k].sp - lo, snap_read,
				      &sr, f, MAXF, 0);
	bool same = n == k + 1 && (f[k].flags & EHELF_FRAME_TRUNCATED);
	for (int i = 0; same && i < n; i++)
		same = f[i].pc == e[i].pc && f[i].sp == e[i].sp;
	if (!same)
		check_fail(name, "snapshot: a copy cut at a frame: not the frames up to it, truncated");
	else if (e[k + 1].path == EHELF_PATH_EHELF && !in_cfa_rbx_outer(e[k].pc) &&
		 sr.calls > 2) {
		char msg[96];
		snprintf(msg, sizeof msg, "snapshot: a cut copy's reader asked %d times", sr.calls);
		check_fail(name, msg);
	}
	atomic_fetch_add(&snapshots, 1);
	free(copy);
}

/*
 * The frame limit, reached anywhere in a walk (inside the loop that steps
 * frames straight from the trace lines, too): with MAX from 1 to NE, the
 * first MAX frames of E (the local walk from R0), for ehelf_unwind_local
 * and ehelf_backtrace (whose first pc is its return address into this
 * function, then the callers of E's frame 0).
 */
static __attribute__((noinline)) void check_limits(const char *name,
						 const ehelf_regs *r0,
			 const ehelf_frame *e, int ne)
{
	for (int max = 1; max <= ne && max <= 48; max++) {
		ehelf_frame f[MAXF];
		int n = ehelf_unwind_local(space, r0, f, max, 0);
		bool same = n == max;
		for (int i = 0; same && i < n; i++)
			same = f[i].pc == e[i].pc && f[i].sp == e[i].sp;
		void *ips[MAXF];
		int nb = ehelf_backtrace(ips, max + 1);
		/* ips[0]: here; ips[1]: probe, as e[0] but a return address */
		bool bsame = nb == max + 1 || expect_dwarf;
		for (int i = 2; bsame && i < nb; i++)
			bsame = (uint64_t)(uintptr_t)ips[i] == e[i - 1].pc;
		if (same && bsame)
			continue;
		char msg[96];
		snprintf(msg, sizeof msg, "at most %d frames: %d (%s)", max,
			 same ? nb : n, same ? "ehelf_backtrace" : "ehelf_unwind_local");
		check_fail(name, msg);
		return;
	}
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
	check_snapshot(name, &r, e, ne);
	check_limits(name, &r, e, ne);
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
	       "an eh_elf, %d probes also as snapshots, whole and cut, %d "
	       "mismatches\n", atomic_load(&probes), plts,
	       atomic_load(&frames_total), atomic_load(&ehelf_frames),
	       atomic_load(&dwarf_frames), with, mods, atomic_load(&snapshots),
	       atomic_load(&failures));
	bool ok = !atomic_load(&failures) && plts > 0 && atomic_load(&snapshots) >= 10 &&
		  (expect_dwarf ? atomic_load(&dwarf_frames) > 0
				: atomic_load(&dwarf_frames) == 0);
	printf("compare-libunwind: %s\n", ok ? "PASS" : "FAIL");
	ehelf_space_free(space);
	return ok ? 0 : 1;
}
