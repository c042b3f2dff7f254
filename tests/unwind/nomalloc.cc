/*
 * nomalloc.cc - unwinding allocates nothing, in and out of a signal
 * handler, through modules with or without eh_elfs (run by
 * tests/unwind/run-sigsafe-tests.sh, against Debian's libunwind alone
 * and with libehelf-unwind preloaded).
 *
 * malloc, calloc, realloc, free and their aligned forms are interposed
 * here: called while an unwind is under way (the flag set around each
 * unwinding call), they print the call and abort.  The walks start in
 * probe(), reached through libc (qsort's comparison callback), through
 * libstdc++ (a std::thread's routine) and through this program's own
 * frames; from normal code, then from a SIGUSR1 handler raised there
 * (through the signal trampoline); and from the SIGSEGV handler of a call
 * through a bad pointer (the bad-pc rule: the return address at the stack
 * pointer, as libunwind takes it).  METHODS (argv[1], comma-separated):
 * unw_backtrace, step (unw_getcontext, unw_init_local, unw_step),
 * backtrace, ehelf_backtrace (looked up with dlsym: libehelf-unwind's).
 * Each walk is framed by two marker system calls (mark()).
 * Each walk is printed from probe's frame on (from the bad pc for the bad
 * call), one line per walk, each
 * frame as module basename+offset (addresses of this run cancel out):
 *   qsort normal step: nomalloc+0x1234 libc.so.6+0x3f2a ...
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <execinfo.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);
void *__libc_memalign(size_t, size_t);
}

static volatile sig_atomic_t unwinding; /* an unwinding call is under way */

static void refuse(const char *what)
{
	if (!unwinding)
		return;
	unwinding = 0;
	const char pre[] = "nomalloc: ";
	const char post[] = " called inside an unwind\n";
	if (write(2, pre, sizeof pre - 1) < 0 || write(2, what, strlen(what)) < 0 ||
	    write(2, post, sizeof post - 1) < 0)
		_exit(3);
	abort();
}

extern "C" {
void *malloc(size_t n) { refuse("malloc"); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { refuse("calloc"); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { refuse("realloc"); return __libc_realloc(p, n); }
void free(void *p) { refuse("free"); __libc_free(p); }
void *memalign(size_t a, size_t n) { refuse("memalign"); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { refuse("aligned_alloc"); return __libc_memalign(a, n); }
int posix_memalign(void **p, size_t a, size_t n)
{
	refuse("posix_memalign");
	*p = __libc_memalign(a, n);
	return *p ? 0 : 12;
}
}

enum { MAXF = 64, MAXWALKS = 64 };

/* the walks, recorded (no allocation) and printed at the end */
struct walk {
	const char *where, *ctx, *method;
	void *ips[MAXF];
	int n;
};
static walk walks[MAXWALKS];
static volatile int nwalks;
static const char *where_now = "main";
static bool want[4];
static int (*ehelf_bt)(void **, int);
static const char *const method_names[4] = { "unw_backtrace", "step", "backtrace",
					     "ehelf_backtrace" };

static __attribute__((noinline)) int walk_step(void **ips, int max)
{
	unw_context_t uc;
	unw_cursor_t c;
	if (unw_getcontext(&uc) != 0 || unw_init_local(&c, &uc) != 0)
		return -1;
	int n = 0;
	do {
		unw_word_t ip;
		if (unw_get_reg(&c, UNW_REG_IP, &ip) != 0)
			break;
		ips[n++] = (void *)ip;
	} while (n < max && unw_step(&c) > 0);
	return n;
}

/* A system call neither unwinder makes (a write to no descriptor) that
 * strace shows with its text: the walks' system calls are those between
 * "<unwind" and "unwind>" (run-sigsafe-tests.sh). */
static void mark(const char *what)
{
	if (write(-1, what, strlen(what)) >= 0)
		_exit(3);
}

static __attribute__((noinline)) void record(const char *ctx)
{
	for (int m = 0; m < 4; m++) {
		if (!want[m] || nwalks == MAXWALKS)
			continue;
		walk *w = &walks[nwalks++];
		w->where = where_now;
		w->ctx = ctx;
		w->method = method_names[m];
		mark("<unwind");
		unwinding = 1;
		switch (m) {
		case 0: w->n = unw_backtrace(w->ips, MAXF); break;
		case 1: w->n = walk_step(w->ips, MAXF); break;
		case 2: w->n = backtrace(w->ips, MAXF); break;
		case 3: w->n = ehelf_bt(w->ips, MAXF); break;
		}
		unwinding = 0;
		mark("unwind>");
	}
}

static void on_usr1(int sig)
{
	(void)sig;
	record("signal");
}

/* the call through a bad pointer: it faults at this pc */
static const uintptr_t bad_pc = 16;
static sigjmp_buf out_of_fault;

static void on_segv(int sig)
{
	(void)sig;
	record("signal");
	siglongjmp(out_of_fault, 1);
}

static __attribute__((noinline)) void bad_call(void (*volatile fn)(void))
{
	where_now = "badpc";
	if (!sigsetjmp(out_of_fault, 1))
		fn();
	__asm__ volatile("" ::: "memory");
}

extern "C" __attribute__((noinline)) void probe(void);
extern "C" __attribute__((noinline)) void probe(void)
{
	record("normal");
	raise(SIGUSR1);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

static int calls;
static int by_value(const void *a, const void *b)
{
	if (calls++ == 3)
		probe();
	return *(const int *)a - *(const int *)b;
}

static __attribute__((noinline)) void through_libc(void)
{
	where_now = "qsort";
	int v[16];
	for (int i = 0; i < 16; i++)
		v[i] = (i * 7919) % 16;
	qsort(v, 16, sizeof v[0], by_value);
}

static __attribute__((noinline)) void own_frames(int depth)
{
	if (depth)
		own_frames(depth - 1);
	else
		probe();
	__asm__ volatile("" ::: "memory");
}

static void in_thread(void)
{
	where_now = "thread";
	probe();
}

/* FRAME as "module+0xoffset": the module that holds it (the pc - 1 of a
 * return address, as unwinders look it up) */
static std::string frame_text(void *ip)
{
	Dl_info info;
	char buf[64];
	if (!dladdr((char *)ip - 1, &info) || !info.dli_fname) {
		snprintf(buf, sizeof buf, "?%p", ip);
		return buf;
	}
	const char *base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	snprintf(buf, sizeof buf, "+%#lx",
		 (unsigned long)((char *)ip - (char *)info.dli_fbase));
	return std::string(base[0] ? base : "nomalloc") + buf;
}

int main(int argc, char **argv)
{
	if (argc != 2 || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: nomalloc METHOD[,METHOD...]\n"
				"  methods: unw_backtrace step backtrace ehelf_backtrace\n");
		return argc == 2 ? 0 : 2;
	}
	for (char *m = strtok(argv[1], ","); m; m = strtok(NULL, ",")) {
		int i = 0;
		while (i < 4 && strcmp(m, method_names[i]))
			i++;
		if (i == 4) {
			fprintf(stderr, "nomalloc: unknown method '%s'\n", m);
			return 2;
		}
		want[i] = true;
	}
	if (want[3] && !(ehelf_bt = (int (*)(void **, int))dlsym(RTLD_DEFAULT,
								  "ehelf_backtrace"))) {
		fprintf(stderr, "nomalloc: no ehelf_backtrace (libehelf-unwind not loaded)\n");
		return 2;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	through_libc();
	where_now = "own";
	own_frames(3);
	std::thread t(in_thread);
	t.join();
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	bad_call((void (*)(void))bad_pc);
	/* from probe's frame on: the walks start in different functions */
	Dl_info pi;
	if (!dladdr((void *)probe, &pi)) {
		fprintf(stderr, "nomalloc: dladdr failed\n");
		return 1;
	}
	for (int i = 0; i < nwalks; i++) {
		const walk *w = &walks[i];
		int from = 0;
		bool bad = !strcmp(w->where, "badpc");
		while (from < w->n) {
			Dl_info f;
			if (bad ? (uintptr_t)w->ips[from] == bad_pc
				: dladdr((char *)w->ips[from] - 1, &f) &&
					  f.dli_saddr == (void *)probe)
				break;
			from++;
		}
		printf("%s %s %s:", w->where, w->ctx, w->method);
		if (from == w->n)
			printf(" (no frame in probe: %d frames)", w->n);
		if (bad && from < w->n) /* not a module's */
			printf(" %#lx", (unsigned long)w->ips[from++]);
		for (int k = from; k < w->n; k++)
			printf(" %s", frame_text(w->ips[k]).c_str());
		printf("\n");
	}
	return 0;
}
