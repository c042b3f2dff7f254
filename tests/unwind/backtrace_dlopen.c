/*
 * backtrace_dlopen - libehelf-unwind's unw_backtrace and libraries loaded
 * after its process space was built (linked with -lehelf-unwind):
 *  - in a signal handler raised from inside such a library, unw_backtrace
 *    does not allocate (it must not rebuild the space there: a rebuild
 *    allocates and dlopens eh_elfs); the stack ends in that library;
 *  - outside a handler, the same call finds the library, as libunwind
 *    would: the stack goes on through it to main.
 * Allocations are counted by this program's own malloc, which every
 * library's calls reach.  Prints what it found; exit 0 when both hold.
 * Usage: backtrace-dlopen  (libunwtest-dso.so next to it; eh_elfs from
 * $EHELF_PATH)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int unw_backtrace(void **buf, int size); /* libunwind's prototype */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

/* (the build hides symbols by default; these must interpose) */
#define EXPORTED __attribute__((visibility("default")))

static volatile sig_atomic_t counting;
static volatile sig_atomic_t allocations;

EXPORTED void *malloc(size_t n)
{
	allocations += counting;
	return __libc_malloc(n);
}

EXPORTED void *calloc(size_t k, size_t n)
{
	allocations += counting;
	return __libc_calloc(k, n);
}

EXPORTED void *realloc(void *p, size_t n)
{
	allocations += counting;
	return __libc_realloc(p, n);
}

EXPORTED void *aligned_alloc(size_t a, size_t n)
{
	allocations += counting;
	return __libc_memalign(a, n);
}

enum { MAX = 64 };
static void *in_handler[MAX], *outside[MAX];
static int n_handler, n_outside;

static void on_signal(int sig)
{
	(void)sig;
	counting = 1;
	n_handler = unw_backtrace(in_handler, MAX);
	counting = 0;
}

static void raise_it(const char *arg)
{
	(void)arg;
	raise(SIGUSR1);
}

static void probe(const char *arg)
{
	(void)arg;
	n_outside = unw_backtrace(outside, MAX);
}

/* Index of the first of the N pcs inside the object at BASE, or -1. */
static int first_in(void *const *pcs, int n, const void *base)
{
	for (int i = 0; i < n; i++) {
		Dl_info d;
		if (dladdr((char *)pcs[i] - 1, &d) && d.dli_fbase == base)
			return i;
	}
	return -1;
}

int main(int argc, char **argv)
{
	(void)argc;
	void *warm[MAX];
	if (unw_backtrace(warm, MAX) < 1) { /* the space, built */
		fprintf(stderr, "backtrace-dlopen: no frame at all\n");
		return 1;
	}
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s", argv[0]);
	char *slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path, sizeof path - (size_t)(slash ? slash + 1 - path : 0),
		 "libunwtest-dso.so");
	void *h = dlopen(path, RTLD_NOW);
	void (*call_back)(void (*)(const char *), const char *) =
		h ? (void (*)(void (*)(const char *), const char *))dlsym(h, "unwtest_call_back")
		  : NULL;
	if (!call_back) {
		fprintf(stderr, "backtrace-dlopen: %s: %s\n", path, dlerror());
		return 1;
	}
	Dl_info self, dso;
	if (!dladdr((void *)main, &self) || !dladdr((void *)call_back, &dso))
		return 1;
	signal(SIGUSR1, on_signal);
	call_back(raise_it, "signal");
	call_back(probe, "outside");
	int dh = first_in(in_handler, n_handler, dso.dli_fbase);
	int d = first_in(outside, n_outside, dso.dli_fbase);
	int m = d >= 0 ? first_in(outside + d + 1, n_outside - d - 1, self.dli_fbase) : -1;
	printf("backtrace-dlopen: in the handler %d frames, %d allocations, the library's at %d; "
	       "outside %d frames, the library's at %d, main's after it %s\n",
	       n_handler, (int)allocations, dh, n_outside, d, m >= 0 ? "found" : "missing");
	int ok = allocations == 0 && n_handler >= 2 && d >= 0 && m >= 0;
	return ok ? 0 : 1;
}
