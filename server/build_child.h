/*
 * build_child.h - running a compile as a child process with limits on its
 * CPU time, memory, output size and wall-clock time, so that an ELF from
 * an upstream server (untrusted input for the CFI reader) that crashes or
 * hangs the compiler costs one request, never the server.
 *
 * The child gets /dev/null as standard input, pipes as standard output
 * and error, no other descriptor, a process group of its own, and
 * SIGKILL when the thread that started it dies (PR_SET_PDEATHSIG): a
 * server killed with -9 leaves no compile running.  When it ends, its
 * group is killed, and so is every process it left that escaped the
 * group (setsid): the server is their subreaper (child_init), and the
 * children of the server that are not a running compile are killed and
 * reaped then.
 */
#ifndef EHELF_SERVER_BUILD_CHILD_H
#define EHELF_SERVER_BUILD_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/err.h"

typedef struct child_limits {
	unsigned cpu_seconds;     /* RLIMIT_CPU */
	uint64_t memory_bytes;    /* RLIMIT_AS */
	uint64_t file_bytes;      /* RLIMIT_FSIZE: the largest file written */
	double wall_seconds;      /* then SIGKILL */
} child_limits;

enum { CHILD_OUT_MAX = 64 * 1024, CHILD_ERR_MAX = 400 };

typedef struct child_result {
	int exit_code;            /* when it exited, else -1 */
	int signal;               /* the signal that ended it, else 0 */
	bool timed_out;           /* killed at the wall-clock limit */
	bool short_budget;        /* the caller's: that limit was cut short */
	char out[CHILD_OUT_MAX];  /* standard output, NUL-terminated (cut) */
	char err[CHILD_ERR_MAX];  /* the end of standard error */
} child_result;

/* Make this process the subreaper of its descendants (once, before the
 * first child_run; the server starts no other children). */
void child_init(void);

/* Run ARGV (ARGV[0] a path, not searched) under L.  *PID, if not NULL, is
 * set while it runs (for a caller that must kill it) and reset to 0.
 * Returns 0 when the child ran (its end in R), or ERR_IO when it could not
 * be started. */
int child_run(char *const argv[], const child_limits *l, child_result *r,
	      volatile pid_t *pid, ehelf_err *err);

/* One line describing how R ended: "exit status 1" (with ": MESSAGE",
 * the last line of its standard error, when WITH_STDERR), "killed by
 * signal 9 (Killed): ...", "killed at the build's wall-clock limit".
 * Into OUT (N bytes). */
void child_describe(const child_result *r, const child_limits *l, char *out,
		    size_t n, bool with_stderr);

#endif
