/*
 * sample-compare - ehelf against libunwind at arbitrary pcs: the workloads
 * of workloads.h run under a SIGPROF sampler, and in the signal handler
 * both unwinders walk the interrupted stack, frame by frame:
 *  - ehelf_unwind_local from the handler's ucontext against libunwind's
 *    unw_init_local2(UNW_INIT_SIGNAL_FRAME) + unw_step (pc, sp);
 *  - ehelf_backtrace against libunwind's unw_backtrace, both from the
 *    handler through the signal frame (return addresses after the first).
 * Only eh_elfs are used (EHELF_UNWIND_NO_FALLBACK: the handler may have
 * interrupted malloc, and libdw allocates), so every module on the stacks
 * needs one in $EHELF_PATH.  The first mismatches are printed in full.
 *
 * Two differences are expected, checked and counted apart, where the
 * frames so far agree and ehelf stops but libunwind goes on:
 *  - no CFI covers the pc (hand-written assembly such as libunwind's own
 *    setcontext, or a garbage pc that the CFI led both to): libunwind
 *    guesses with the frame pointer; libdw confirms that there is no CFI;
 *  - libunwind's next frame does not move the stack pointer up: ehelf
 *    treats that as the end (a caller's frame is always above), libunwind
 *    goes on; seen when the sample lands in libgcc installing the context
 *    of a catch block (_Unwind_Resume, _Unwind_RaiseException), whose last
 *    instructions run on the target's stack.
 *
 * Usage: sample-compare [SECONDS-PER-WORKLOAD]   (default 1)
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libunwind.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "../../client-lib/include/ehelf.h"
#include "../../testkit/workloads.h"

enum { MAXF = 128, KEEP = 8 };

static ehelf_space *space;

/* counts, and the first KEEP mismatching samples (raw, printed later) */
static long samples, frames, mismatches, bt_mismatches, short_stacks;
typedef struct kept {
	const char *what;
	int ne, nl;
	uint64_t e[MAXF][2], l[MAXF][2];
} kept;
static kept keep[KEEP];
static int nkeep;

/* samples where ehelf stopped early after agreeing so far: the pc it
 * stopped at, checked against libdw after the run */
enum { MAXSTOP = 4096 };
static struct {
	uint64_t pc, sp;      /* ehelf's last frame */
	bool exact;
	uint64_t lpc, lsp;    /* libunwind's next one */
	int depth;
} stops[MAXSTOP];
static int nstops;

static void remember(const char *what, const uint64_t (*e)[2], int ne,
		     const uint64_t (*l)[2], int nl)
{
	if (nkeep == KEEP)
		return;
	kept *k = &keep[nkeep++];
	k->what = what;
	k->ne = ne;
	k->nl = nl;
	memcpy(k->e, e, sizeof k->e);
	memcpy(k->l, l, sizeof k->l);
}

static void on_sample(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)si;
	static uint64_t e[MAXF][2], l[MAXF][2]; /* pc, sp; one handler at a time */
	ucontext_t *uc = ucv;

	ehelf_regs r;
	ehelf_regs_from_ucontext(&r, uc);
	ehelf_frame f[MAXF];
	int ne = ehelf_unwind_local(space, &r, f, MAXF, EHELF_UNWIND_NO_FALLBACK);
	for (int i = 0; i < ne; i++) {
		e[i][0] = f[i].pc;
		e[i][1] = f[i].sp;
	}
	int nl = 0;
	unw_cursor_t c;
	if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) == 0) {
		do {
			unw_word_t ip, sp;
			unw_get_reg(&c, UNW_REG_IP, &ip);
			unw_get_reg(&c, UNW_REG_SP, &sp);
			l[nl][0] = ip;
			l[nl][1] = sp;
			nl++;
		} while (nl < MAXF && unw_step(&c) > 0);
	}
	samples++;
	frames += ne;
	short_stacks += ne < 4;
	bool same = ne == nl;
	for (int i = 0; same && i < ne; i++)
		same = e[i][0] == l[i][0] && e[i][1] == l[i][1];
	bool prefix = ne < nl;
	for (int i = 0; prefix && i < ne; i++)
		prefix = e[i][0] == l[i][0] && e[i][1] == l[i][1];
	if (prefix && nstops < MAXSTOP) {
		stops[nstops].pc = e[ne - 1][0];
		stops[nstops].sp = e[ne - 1][1];
		stops[nstops].lpc = l[ne][0];
		stops[nstops].lsp = l[ne][1];
		stops[nstops].depth = ne;
		stops[nstops++].exact = ne == 1;
	} else if (!same) {
		mismatches++;
		remember("ucontext", (const uint64_t (*)[2])e, ne,
			 (const uint64_t (*)[2])l, nl);
	}

	void *b1[MAXF], *b2[MAXF];
	int n1 = ehelf_backtrace(b1, MAXF);
	int n2 = unw_backtrace(b2, MAXF);
	same = n1 == n2 && n1 > 2; /* entry 0: two call sites in this handler */
	for (int i = 1; same && i < n1; i++)
		same = b1[i] == b2[i];
	if (!same) {
		bt_mismatches++;
		for (int i = 0; i < MAXF; i++) {
			e[i][0] = i < n1 ? (uint64_t)(uintptr_t)b1[i] : 0;
			l[i][0] = i < n2 ? (uint64_t)(uintptr_t)b2[i] : 0;
			e[i][1] = l[i][1] = 0;
		}
		remember("backtrace", (const uint64_t (*)[2])e, n1,
			 (const uint64_t (*)[2])l, nl);
	}
	if (prefix) /* ehelf_backtrace stopped at the same pc */
		bt_mismatches -= !same;
}

/* Whether libdw finds CFI (.eh_frame or .debug_frame) for runtime PC. */
static bool libdw_covers(uint64_t pc)
{
	Dl_info d;
	if (!dladdr((void *)(uintptr_t)pc, &d) || !d.dli_fname)
		return false;
	const char *path = d.dli_fname[0] ? d.dli_fname : "/proc/self/exe";
	/* dli_fbase is the load bias for the shared objects and PIEs here */
	uint64_t link = pc - (uintptr_t)d.dli_fbase;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	bool covered = false;
	Dwarf_CFI *cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	Dwarf_Frame *fr;
	if (cfi && dwarf_cfi_addrframe(cfi, link, &fr) == 0) {
		covered = true;
		free(fr);
	}
	if (cfi)
		dwarf_cfi_end(cfi);
	Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	Dwarf_CFI *dcfi = dw ? dwarf_getcfi(dw) : NULL;
	if (!covered && dcfi && dwarf_cfi_addrframe(dcfi, link, &fr) == 0) {
		covered = true;
		free(fr);
	}
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
	close(fd);
	return covered;
}

static const char *where(uint64_t pc, char *buf, size_t n)
{
	Dl_info d;
	if (dladdr((void *)(uintptr_t)pc, &d) && d.dli_fname) {
		const char *b = strrchr(d.dli_fname, '/');
		snprintf(buf, n, "%s+%#llx %s", b ? b + 1 : d.dli_fname,
			 (unsigned long long)(pc - (uintptr_t)d.dli_fbase),
			 d.dli_sname ? d.dli_sname : "");
	} else {
		snprintf(buf, n, "?");
	}
	return buf;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	if (argc > 2 || !(secs > 0)) {
		fprintf(stderr, "usage: sample-compare [SECONDS-PER-WORKLOAD]\n");
		return 2;
	}
	space = ehelf_space_new();
	if (!space || ehelf_space_load_self(space) < 0 ||
	    ehelf_backtrace_init() < 0) {
		fprintf(stderr, "sample-compare: %s\n", ehelf_last_error());
		return 1;
	}
	int with, mods = ehelf_space_modules(space, &with);
	unsigned long sink = 0;
	long before = 0;
	for (int w = 0; w < n_workloads; w++) {
		if (sampler_start(on_sample, 400 * 1000) < 0) {
			perror("sample-compare: timer");
			return 1;
		}
		sink += workloads[w].run(secs);
		sampler_stop();
		printf("  %-7s %5ld samples\n", workloads[w].name, samples - before);
		before = samples;
	}
	for (int k = 0; k < nkeep; k++) {
		char w1[256], w2[256];
		fprintf(stderr, "MISMATCH (%s): ehelf %d frames, libunwind %d\n",
			keep[k].what, keep[k].ne, keep[k].nl);
		int n = keep[k].ne > keep[k].nl ? keep[k].ne : keep[k].nl;
		for (int i = 0; i < n && i < MAXF; i++)
			fprintf(stderr, "  %2d %-50s sp %#llx | %-50s sp %#llx\n", i,
				i < keep[k].ne ? where(keep[k].e[i][0], w1, sizeof w1) : "",
				(unsigned long long)keep[k].e[i][1],
				i < keep[k].nl ? where(keep[k].l[i][0], w2, sizeof w2) : "",
				(unsigned long long)keep[k].l[i][1]);
	}
	elf_version(EV_CURRENT);
	int guessed = 0, flat = 0;
	for (int i = 0; i < nstops; i++) {
		uint64_t pc = stops[i].pc - !stops[i].exact;
		char w[256];
		if (stops[i].lsp <= stops[i].sp) {
			if (flat++ < 3)
				printf("  ehelf stops at %s: libunwind's next frame "
				       "does not move the stack pointer up\n",
				       where(stops[i].pc, w, sizeof w));
			continue;
		}
		if (!libdw_covers(pc)) {
			if (guessed++ < 3)
				printf("  ehelf stops at %s: no CFI there\n",
				       where(stops[i].pc, w, sizeof w));
			continue;
		}
		mismatches++;
		char w2[256];
		fprintf(stderr, "MISMATCH: ehelf stopped at frame %d, %s sp %#llx, "
			"which has CFI; libunwind went on to %s sp %#llx\n",
			stops[i].depth - 1, where(stops[i].pc, w, sizeof w),
			(unsigned long long)stops[i].sp,
			where(stops[i].lpc, w2, sizeof w2),
			(unsigned long long)stops[i].lsp);
	}
	printf("sample-compare: %ld samples, %ld frames, %d of %d modules with "
	       "an eh_elf; %ld stacks and %ld backtraces differ from libunwind's; "
	       "ehelf stops where libunwind goes on: %d where no CFI covers the "
	       "pc (libunwind guesses), %d where libunwind's stack pointer does "
	       "not move up (checksum %lu)\n", samples, frames, with, mods,
	       mismatches, bt_mismatches, guessed, flat, sink & 0xff);
	bool ok = samples >= 100 && !mismatches && !bt_mismatches &&
		  short_stacks < samples / 10;
	printf("sample-compare: %s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
