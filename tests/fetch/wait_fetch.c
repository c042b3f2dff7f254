/*
 * wait_fetch.c - linked into tests/fetch's libunwind program (unw_api.c's
 * probes, built against <libunwind.h>): a constructor that, when
 * FETCH_TEST_WAIT is set (seconds), first unwinds once (unw_backtrace:
 * with libehelf-unwind preloaded, the process-wide space is built, most
 * likely before the background fetch is done), then waits until
 * libehelf-unwind's background thread "ehelf-fetch" has finished, and
 * reports on stderr:
 *
 *   wait_fetch: ehelf-fetch finished after 0.12 s
 *   wait_fetch: ehelf_backtrace 4 frames, unw_backtrace 4 frames
 *
 * ehelf_backtrace (looked up with dlsym: there only when libehelf-unwind
 * is loaded) stops at the first module without an eh_elf: as many frames
 * as unw_backtrace (with its DWARF fallback) means that the process-wide
 * space picked up the eh_elfs of this stack (the program's, libc's).
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <dirent.h>
#include <dlfcn.h>
#include <libunwind.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Is a thread of this process named "ehelf-fetch"? */
static bool fetch_thread_alive(void)
{
	DIR *d = opendir("/proc/self/task");
	bool alive = false;
	struct dirent *e;
	while (d && !alive && (e = readdir(d))) {
		char path[300], comm[32] = "";
		snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
		FILE *f = e->d_name[0] != '.' ? fopen(path, "re") : NULL;
		if (f) {
			alive = fgets(comm, sizeof comm, f) &&
				!strcmp(comm, "ehelf-fetch\n");
			fclose(f);
		}
	}
	if (d)
		closedir(d);
	return alive;
}

__attribute__((constructor)) static void wait_fetch(void)
{
	const char *w = getenv("FETCH_TEST_WAIT");
	if (!w)
		return;
	void *ips[64];
	unw_backtrace(ips, 64); /* the process-wide space, built now */
	double limit = atof(w), t0 = now_s();
	bool alive;
	while ((alive = fetch_thread_alive()) && now_s() - t0 < limit)
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	fprintf(stderr, "wait_fetch: ehelf-fetch %s after %.2f s\n",
		alive ? "still running" : "finished", now_s() - t0);
	int (*ehelf_bt)(void **, int) =
		(int (*)(void **, int))dlsym(RTLD_DEFAULT, "ehelf_backtrace");
	if (ehelf_bt) {
		int n = ehelf_bt(ips, 64);
		int m = unw_backtrace(ips, 64);
		fprintf(stderr, "wait_fetch: ehelf_backtrace %d frames, "
			"unw_backtrace %d frames\n", n, m);
	}
}
