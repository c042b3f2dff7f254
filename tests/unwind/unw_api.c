/*
 * unw-api - a program written against libunwind's <libunwind.h>, built
 * once with Debian's libunwind and once with libehelf-unwind (and also run
 * with the former under LD_PRELOAD=libehelf-unwind.so): all three must
 * print the same.  At every probe of scenarios.h it walks the stack with
 * unw_getcontext, unw_init_local, unw_step, unw_get_reg, unw_get_proc_name,
 * unw_is_signal_frame and unw_get_proc_info, then unw_backtrace.  Addresses
 * are printed as module+offset and stack pointers relative to frame 0's,
 * since the three runs load things at different addresses.  Last, a probe
 * from a library loaded with dlopen after all that unwinding.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <libunwind.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "scenarios.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const char *where(unw_word_t ip, char *buf, size_t n)
{
	Dl_info d;
	if (!dladdr((void *)(uintptr_t)ip, &d) || !d.dli_fname) {
		snprintf(buf, n, "?");
		return buf;
	}
	const char *base = strrchr(d.dli_fname, '/');
	base = base ? base + 1 : d.dli_fname;
	if (!strcmp(base, program_invocation_short_name))
		base = "<program>"; /* the three builds have different names */
	snprintf(buf, n, "%s+%#lx", base,
		 (unsigned long)(ip - (uintptr_t)d.dli_fbase));
	return buf;
}

void probe(const char *name)
{
	if (!strcmp(name, "thread"))
		return; /* the order of threads is not reproducible */
	unw_context_t uc;
	unw_cursor_t c;
	unw_getcontext(&uc);
	unw_init_local(&c, &uc);
	pthread_mutex_lock(&lock);
	printf("%s\n", name);
	unw_word_t sp0 = 0;
	int n = 0;
	do {
		unw_word_t ip, sp, off = 0;
		char fn[128] = "?", w[256];
		unw_get_reg(&c, UNW_REG_IP, &ip);
		unw_get_reg(&c, UNW_REG_SP, &sp);
		if (!n)
			sp0 = sp;
		unw_get_proc_name(&c, fn, sizeof fn, &off);
		unw_proc_info_t pi;
		int inside = unw_get_proc_info(&c, &pi) == 0 &&
			     pi.start_ip <= ip && ip <= pi.end_ip;
		printf("  %2d %s sp+%#lx%s %s+%#lx%s\n", n, where(ip, w, sizeof w),
		       (unsigned long)(sp - sp0),
		       unw_is_signal_frame(&c) > 0 ? " [signal]" : "", fn,
		       (unsigned long)off, inside ? "" : " (no proc info)");
	} while (++n < 128 && unw_step(&c) > 0);
	void *b[128];
	int k = unw_backtrace(b, 128);
	printf("  unw_backtrace:");
	for (int i = 0; i < k; i++) {
		char w[256];
		printf(" %s", where((unw_word_t)(uintptr_t)b[i], w, sizeof w));
	}
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&lock);
}

/* After the scenarios: a library loaded now, which calls probe back. */
static int through_dlopened(void)
{
	char dir[4096];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 64);
	if (n <= 0)
		return 1;
	dir[n] = '\0';
	strcpy(strrchr(dir, '/') + 1, "libunwtest-dso.so");
	void *h = dlopen(dir, RTLD_NOW);
	void (*call_back)(void (*)(const char *), const char *) =
		h ? (void (*)(void (*)(const char *), const char *))dlsym(h, "unwtest_call_back")
		  : NULL;
	if (!call_back) {
		fprintf(stderr, "unw-api: %s\n", dlerror());
		return 1;
	}
	call_back(probe, "dlopen");
	return 0;
}

int main(void)
{
	scen_all();
	return through_dlopened();
}
