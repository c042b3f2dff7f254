/*
 * remote_walk.c - libunwind's remote API as a ptrace tool and as a local
 * one drives it, for the perf-libunwind tests (run alone and with
 * libehelf-unwind preloaded; the outputs must be the same):
 *   remote_walk ptrace   a child stops itself (SIGSTOP) three calls deep;
 *                        the parent walks it with libunwind-ptrace
 *                        (_UPT_create, unw_init_remote, unw_step,
 *                        unw_get_proc_name) and prints a line per frame
 *   remote_walk local    the same walk of this thread through
 *                        unw_init_remote(unw_local_addr_space)
 *   remote_walk invalid  (libehelf-unwind only: libunwind crashes) an
 *                        address space that is no one's: unw_init_remote
 *                        must refuse it
 * Each line: the procedure's name and offset, and whether the frame is a
 * signal frame; for ptrace, also rbx and r12-r15 in the frames of middle
 * (asked first, before any other query), its procedure info, rbx's save location
 * and its register states (unw_get_proc_info, unw_get_save_loc,
 * unw_reg_states_iterate).  Exit 0 when the walk reached main, else 1.
 */
#include <libunwind-ptrace.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static int count_states(void *token, void *data, size_t size,
			unw_word_t start, unw_word_t end)
{
	(void)data;
	(void)size;
	(void)start;
	(void)end;
	++*(int *)token;
	return 0;
}

/* The frame's procedure info, rbx's save location and its register
 * states, in numbers that do not depend on where things are loaded. */
static void details(unw_cursor_t *c, const char *name)
{
	unw_proc_info_t pi;
	unw_word_t ip = 0;
	unw_get_reg(c, UNW_REG_IP, &ip);
	if (!strcmp(name, "middle")) { /* the values middle holds */
		static const int regs[] = { UNW_X86_64_RBX, UNW_X86_64_R12,
					    UNW_X86_64_R13, UNW_X86_64_R14,
					    UNW_X86_64_R15 };
		printf("   registers:");
		for (size_t i = 0; i < sizeof regs / sizeof *regs; i++) {
			unw_word_t v = 0;
			int r = unw_get_reg(c, regs[i], &v);
			printf(" %d:%#lx", r, (unsigned long)v);
		}
		printf("\n");
	}
	int rc = unw_get_proc_info(c, &pi);
	if (rc == 0)
		printf("   proc: pc at +%#lx of %#lx bytes, lsda %d, handler %d\n",
		       (unsigned long)(ip - pi.start_ip),
		       (unsigned long)(pi.end_ip - pi.start_ip), pi.lsda != 0,
		       pi.handler != 0);
	else
		printf("   proc: %d\n", rc);
	unw_save_loc_t loc;
	rc = unw_get_save_loc(c, UNW_X86_64_RBX, &loc);
	printf("   rbx saved: %d type %d\n", rc, rc == 0 ? (int)loc.type : -1);
	int states = 0;
	rc = unw_reg_states_iterate(c, count_states, &states);
	printf("   register states: %d, %d rows\n", rc, states);
}

static int with_details;

static int walk(unw_cursor_t *c)
{
	int n = 0, found_main = 0, rc;
	do {
		char name[256];
		unw_word_t off = 0, ip = 0;
		unw_get_reg(c, UNW_REG_IP, &ip);
		if (unw_get_proc_name(c, name, sizeof name, &off) != 0)
			snprintf(name, sizeof name, "?");
		printf("#%d %s+%#lx%s\n", n, name, (unsigned long)off,
		       unw_is_signal_frame(c) > 0 ? " [signal]" : "");
		found_main |= !strcmp(name, "main");
		if (with_details)
			details(c, name);
		n++;
	} while ((rc = unw_step(c)) > 0 && n < 64);
	if (rc < 0)
		printf("unw_step: %s\n", unw_strerror(rc));
	return found_main ? 0 : 1;
}

__attribute__((noinline)) static int local_walk(void)
{
	unw_context_t uc;
	unw_cursor_t c;
	unw_getcontext(&uc);
	int rc = unw_init_remote(&c, unw_local_addr_space, &uc);
	if (rc < 0) {
		printf("unw_init_remote(unw_local_addr_space): %s\n",
		       unw_strerror(rc));
		return 1;
	}
	return walk(&c);
}

__attribute__((noinline)) static void stop_here(void)
{
	raise(SIGSTOP);
}

/* Each depth holds its own values in rbx and r12-r15 across its call,
 * so that each saves its caller's: the walk prints them for these
 * frames (the same in every run). */
__attribute__((noinline)) static void middle(int depth)
{
	register unsigned long b __asm__("rbx") = 0xb00 + depth;
	register unsigned long r12 __asm__("r12") = 0xc00 + depth;
	register unsigned long r13 __asm__("r13") = 0xd00 + depth;
	register unsigned long r14 __asm__("r14") = 0xe00 + depth;
	register unsigned long r15 __asm__("r15") = 0xf00 + depth;
	__asm__ volatile("" : "+r"(b), "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15));
	if (depth > 0)
		middle(depth - 1);
	else
		stop_here();
	__asm__ volatile("" ::"r"(b), "r"(r12), "r"(r13), "r"(r14), "r"(r15)
			 : "memory"); /* live across the call; not a tail call */
}

static int ptrace_walk(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		middle(2);
		_exit(0);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		printf("the child did not stop\n");
		return 1;
	}
	unw_addr_space_t as = unw_create_addr_space(&_UPT_accessors, 0);
	void *upt = _UPT_create(pid);
	unw_cursor_t c;
	int rc = as && upt ? unw_init_remote(&c, as, upt) : -UNW_ENOMEM;
	int res = 1;
	if (rc < 0)
		printf("unw_init_remote: %s\n", unw_strerror(rc));
	else
		res = walk(&c);
	if (upt)
		_UPT_destroy(upt);
	if (as)
		unw_destroy_addr_space(as);
	kill(pid, SIGKILL);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	waitpid(pid, &status, 0);
	return res;
}

static int invalid(void)
{
	static unsigned long not_a_space[64];
	unw_cursor_t c;
	memset(&c, 0x5a, sizeof c);
	int init = unw_init_remote(&c, (unw_addr_space_t)not_a_space, NULL);
	printf("unw_init_remote: %d\n", init);
	return init == -UNW_EINVAL ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "invalid"))
		return invalid();
	if (argc == 2 && !strcmp(argv[1], "ptrace")) {
		with_details = 1;
		return ptrace_walk();
	}
	if (argc == 2 && !strcmp(argv[1], "local"))
		return local_walk();
	fprintf(stderr, "usage: remote_walk ptrace|local|invalid\n");
	return 2;
}
