/*
 * compare-remote - ehelf's remote unwinder against libunwind's ptrace
 * unwinder, on another process stopped at the same points.
 *
 * The program forks; the child (traced with PTRACE_TRACEME) runs every
 * scenario of scenarios.h and stops with int3 at each probe.  The parent
 * reads the child's registers (PTRACE_GETREGS), builds an address space
 * from /proc/PID/maps (ehelf_space_load_pid) and unwinds with ehelf_unwind,
 * reading memory with process_vm_readv; then libunwind unwinds the same
 * stopped child through _UPT_accessors.  Frame by frame the pcs, stack
 * pointers and signal-frame marks must be equal.  Threads are not traced:
 * their probes are skipped.
 *
 * Usage: compare-remote [--expect-dwarf]   (eh_elfs from $EHELF_PATH)
 *   --expect-dwarf: some modules have no eh_elf and their frames must go
 *   through libdw; without it no frame may.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libunwind-ptrace.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../client-lib/include/ehelf.h"
#include "frame_diff.h"
#include "scenarios.h"

enum { MAXF = 256 };

/* ---- the child ----------------------------------------------------------- */

void probe(const char *name)
{
	if (!strncmp(name, "thread", 6))
		return; /* untraced threads would die of SIGTRAP */
	/* the parent finds NAME in rdi */
	__asm__ volatile("int3" ::"D"(name) : "memory");
}

static void child(void)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
		_exit(2);
	raise(SIGSTOP); /* the parent is ready from here on */
	scen_all();
	_exit(0);
}

/* ---- the parent ---------------------------------------------------------- */

static int read_child(void *arg, uint64_t addr, uint64_t *value)
{
	pid_t pid = *(pid_t *)arg;
	struct iovec l = { value, 8 }, r = { (void *)(uintptr_t)addr, 8 };
	return process_vm_readv(pid, &l, 1, &r, 1, 0) == 8 ? 0 : -1;
}

static void regs_from_ptrace(ehelf_regs *r, const struct user_regs_struct *u)
{
	const unsigned long long v[EHELF_NREGS] = {
		u->rax, u->rdx, u->rcx, u->rbx, u->rsi, u->rdi, u->rbp, u->rsp,
		u->r8, u->r9, u->r10, u->r11, u->r12, u->r13, u->r14, u->r15,
		u->rip,
	};
	for (int i = 0; i < EHELF_NREGS; i++)
		r->r[i] = v[i];
	r->valid = EHELF_VALID_REGS;
}

static int libunwind_frames(pid_t pid, lframe *f, int max)
{
	unw_addr_space_t as = unw_create_addr_space(&_UPT_accessors, 0);
	void *ui = _UPT_create(pid);
	unw_cursor_t c;
	int n = 0;
	if (as && ui && unw_init_remote(&c, as, ui) == 0) {
		do {
			unw_word_t ip, sp;
			unw_get_reg(&c, UNW_REG_IP, &ip);
			unw_get_reg(&c, UNW_REG_SP, &sp);
			f[n++] = (lframe){ ip, sp, unw_is_signal_frame(&c) > 0 };
		} while (n < max && unw_step(&c) > 0);
	}
	if (ui)
		_UPT_destroy(ui);
	if (as)
		unw_destroy_addr_space(as);
	return n;
}

static int probes, frames_total, dwarf_frames, mismatches;

/* One stop of the child at a probe: both unwinders, compared. */
static int at_probe(pid_t pid)
{
	struct user_regs_struct u;
	if (ptrace(PTRACE_GETREGS, pid, NULL, &u) < 0) {
		perror("compare-remote: PTRACE_GETREGS");
		return -1;
	}
	char name[64] = "?";
	struct iovec l = { name, sizeof name - 1 }, r = { (void *)u.rdi, sizeof name - 1 };
	process_vm_readv(pid, &l, 1, &r, 1, 0);
	name[strnlen(name, sizeof name - 1)] = '\0';

	ehelf_space *s = ehelf_space_new();
	if (!s || ehelf_space_load_pid(s, pid) < 0) {
		fprintf(stderr, "compare-remote: %s\n", ehelf_last_error());
		ehelf_space_free(s);
		return -1;
	}
	ehelf_regs regs;
	regs_from_ptrace(&regs, &u);
	ehelf_frame e[MAXF];
	int ne = ehelf_unwind(s, &regs, read_child, &pid, e, MAXF, 0);
	ehelf_space_free(s);
	lframe lf[MAXF];
	int nl = libunwind_frames(pid, lf, MAXF);

	probes++;
	frames_total += ne;
	bool ok = ne > 3 && frames_agree(e, ne, lf, nl, 0);
	for (int i = 0; i < ne; i++)
		dwarf_frames += e[i].path == EHELF_PATH_DWARF;
	if (!ok) {
		mismatches++;
		frames_print_diff(stderr, name, e, ne, lf, nl);
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool expect_dwarf = argc > 1 && !strcmp(argv[1], "--expect-dwarf");
	if (argc > 1 && !expect_dwarf) {
		fprintf(stderr, "usage: compare-remote [--expect-dwarf]\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("compare-remote: fork");
		return 1;
	}
	if (pid == 0)
		child();
	int status, failed = 0;
	while (waitpid(pid, &status, 0) == pid) {
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		int sig = WSTOPSIG(status), deliver = 0;
		if (sig == SIGTRAP) {
			if (at_probe(pid) < 0)
				failed = 1;
		} else if (sig != SIGSTOP) {
			deliver = sig; /* the signal scenario's SIGUSR1 */
		}
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)deliver) < 0) {
			perror("compare-remote: PTRACE_CONT");
			kill(pid, SIGKILL);
			failed = 1;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "compare-remote: the child did not finish its scenarios\n");
		failed = 1;
	}
	printf("compare-remote: %d probes, %d frames (%d with libdw), %d mismatches\n",
	       probes, frames_total, dwarf_frames, mismatches);
	bool ok = !failed && !mismatches && probes >= 7 &&
		  (expect_dwarf ? dwarf_frames > 0 : dwarf_frames == 0);
	printf("compare-remote: %s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
