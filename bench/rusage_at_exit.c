/*
 * rusage_at_exit.c - a preloaded library that appends the CPU time of one
 * process (user + system, in seconds) to a file when it exits: for
 * bench/sigsafe-bench.sh, which times the profiled program alone under a
 * profiler that runs helpers of its own (heaptrack's interpreter).
 * Environment: RUSAGE_OUT (the file), RUSAGE_COMM (the program's name,
 * program_invocation_short_name; other processes write nothing).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

__attribute__((destructor)) static void report(void)
{
	const char *out = getenv("RUSAGE_OUT"), *comm = getenv("RUSAGE_COMM");
	if (!out || !comm || strcmp(comm, program_invocation_short_name) != 0)
		return;
	struct rusage u;
	if (getrusage(RUSAGE_SELF, &u) != 0)
		return;
	char line[64];
	int n = snprintf(line, sizeof line, "%.6f\n",
			 (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 +
			 (double)u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6);
	int fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) != n)
			errno = EIO;
		close(fd);
	}
}
