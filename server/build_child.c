/* build_child.c - see build_child.h. */
#define _GNU_SOURCE
#include "build_child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void child_exec(char *const argv[], const child_limits *l, int out,
		       int errfd, pid_t parent)
{
	setpgid(0, 0); /* a group of its own, killed whole at its end */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent) /* the parent died before the prctl */
		_exit(127);
	int null = open("/dev/null", O_RDONLY);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(errfd, 2) < 0)
		_exit(127);
	struct rlimit cpu = { l->cpu_seconds, l->cpu_seconds + 1 };
	struct rlimit as = { l->memory_bytes, l->memory_bytes };
	struct rlimit fsize = { l->file_bytes, l->file_bytes };
	struct rlimit core = { 0, 0 };
	if (setrlimit(RLIMIT_CPU, &cpu) < 0 || setrlimit(RLIMIT_AS, &as) < 0 ||
	    setrlimit(RLIMIT_FSIZE, &fsize) < 0 || setrlimit(RLIMIT_CORE, &core) < 0)
		_exit(127);
	/* the signal mask and dispositions of the server are not the
	 * compiler's */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigaction(SIGPIPE, &dfl, NULL);
	close_range(3, ~0u, 0);
	execv(argv[0], argv);
	_exit(127);
}

/* The compiles running now (their pids), so that the strays' reaper
 * spares them; fork and registration happen under the same lock. */
enum { CHILDREN_MAX = 4096 };
static pthread_mutex_t children_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t children[CHILDREN_MAX];

static bool registered(pid_t pid)
{
	for (int i = 0; i < CHILDREN_MAX; i++)
		if (children[i] == pid)
			return true;
	return false;
}

static void set_registered(pid_t old, pid_t pid)
{
	for (int i = 0; i < CHILDREN_MAX; i++)
		if (children[i] == old) {
			children[i] = pid;
			return;
		}
}

/* Kill and reap this process's children that are not a running compile:
 * the descendants of ended compiles, reparented here (the process is
 * their subreaper).  Each round takes one generation; bounded. */
static void reap_strays(void)
{
	pid_t self = getpid();
	for (int round = 0; round < 64; round++) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/task", (int)self);
		DIR *d = opendir(path);
		if (!d)
			return;
		pid_t found[256];
		int n = 0;
		struct dirent *e;
		pthread_mutex_lock(&children_lock);
		while ((e = readdir(d)) != NULL && n < 256) {
			if (e->d_name[0] == '.')
				continue;
			char cpath[128], buf[4096];
			snprintf(cpath, sizeof cpath, "%s/%s/children", path,
				 e->d_name);
			int fd = open(cpath, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			ssize_t len = read(fd, buf, sizeof buf - 1);
			close(fd);
			if (len <= 0)
				continue;
			buf[len] = '\0';
			char *save = NULL;
			for (char *t = strtok_r(buf, " \n", &save); t && n < 256;
			     t = strtok_r(NULL, " \n", &save)) {
				pid_t c = (pid_t)atoi(t);
				if (c > 0 && !registered(c)) {
					kill(c, SIGKILL);
					found[n++] = c;
				}
			}
		}
		pthread_mutex_unlock(&children_lock);
		closedir(d);
		if (n == 0)
			return;
		for (int i = 0; i < n; i++)
			while (waitpid(found[i], NULL, 0) < 0 && errno == EINTR)
				;
	}
}

void child_init(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/* Append what FD has to BUF (CAP bytes, *LEN used); keep the end of it
 * when KEEP_END, else the beginning.  Returns false at end of file. */
static bool drain(int fd, char *buf, size_t cap, size_t *len, bool keep_end)
{
	char tmp[4096];
	ssize_t n = read(fd, tmp, sizeof tmp);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	size_t room = cap - 1 - *len;
	if ((size_t)n <= room) {
		memcpy(buf + *len, tmp, (size_t)n);
		*len += (size_t)n;
	} else if (keep_end) {
		size_t keep = cap - 1 > (size_t)n ? cap - 1 - (size_t)n : 0;
		memmove(buf, buf + *len - keep, keep);
		size_t take = (size_t)n < cap - 1 ? (size_t)n : cap - 1;
		memcpy(buf + keep, tmp + (size_t)n - take, take);
		*len = keep + take;
	} else {
		memcpy(buf + *len, tmp, room);
		*len += room;
	}
	buf[*len] = '\0';
	return true;
}

int child_run(char *const argv[], const child_limits *l, child_result *r,
	      volatile pid_t *pidp, ehelf_err *err)
{
	memset(r, 0, sizeof *r);
	r->exit_code = -1;
	int out[2], errp[2];
	if (pipe2(out, O_CLOEXEC) < 0)
		return err_set(err, ERR_IO, "pipe: %s", strerror(errno));
	if (pipe2(errp, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		return err_set(err, ERR_IO, "pipe: %s", strerror(errno));
	}
	pid_t parent = getpid();
	pthread_mutex_lock(&children_lock);
	if (!registered(0)) {
		pthread_mutex_unlock(&children_lock);
		close(out[0]);
		close(out[1]);
		close(errp[0]);
		close(errp[1]);
		return err_set(err, ERR_IO, "too many compiles at once");
	}
	pid_t pid = fork();
	if (pid == 0)
		child_exec(argv, l, out[1], errp[1], parent);
	if (pid > 0) {
		set_registered(0, pid);
		setpgid(pid, pid); /* also here: no race with the kill below */
	}
	pthread_mutex_unlock(&children_lock);
	close(out[1]);
	close(errp[1]);
	if (pid < 0) {
		close(out[0]);
		close(errp[0]);
		return err_set(err, ERR_IO, "fork: %s", strerror(errno));
	}
	if (pidp)
		*pidp = pid;
	double deadline = now() + l->wall_seconds;
	size_t olen = 0, elen = 0;
	bool oopen = true, eopen = true;
	double exited = 0;          /* when the child was seen ended */
	while (oopen || eopen) {
		double left = deadline - now();
		if (left <= 0) {
			kill(pid, SIGKILL);
			r->timed_out = true;
			break;
		}
		struct pollfd p[2] = { { oopen ? out[0] : -1, POLLIN, 0 },
				       { eopen ? errp[0] : -1, POLLIN, 0 } };
		/* a descendant may hold the pipes open: look at the child
		 * itself every 100 ms (without reaping it) */
		int n = poll(p, 2, left > 0.1 ? 100 : (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR)
			break;
		siginfo_t si = { 0 };
		if (exited == 0 && waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG |
					   WNOWAIT) == 0 && si.si_pid == pid)
			exited = now();
		/* what it wrote before its end is read; a descendant that
		 * keeps writing is not waited for */
		if (exited > 0 && (n == 0 || now() - exited > 0.2))
			break;
		if (n <= 0)
			continue;
		if (p[0].revents && !drain(out[0], r->out, sizeof r->out, &olen,
					   false))
			oopen = false;
		if (p[1].revents && !drain(errp[0], r->err, sizeof r->err, &elen,
					   true))
			eopen = false;
	}
	close(out[0]);
	close(errp[0]);
	int st = 0;
	/* its process group dies with it (a process that left the group, by
	 * setsid, is reaped below as a stray) */
	kill(-pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&children_lock);
	set_registered(pid, 0);
	pthread_mutex_unlock(&children_lock);
	if (pidp)
		*pidp = 0;
	reap_strays();
	if (WIFEXITED(st))
		r->exit_code = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		r->signal = WTERMSIG(st);
	return 0;
}

void child_describe(const child_result *r, const child_limits *l, char *out,
		    size_t n, bool with_stderr)
{
	/* the last line of standard error says what went wrong */
	char msg[CHILD_ERR_MAX];
	snprintf(msg, sizeof msg, "%s", r->err);
	size_t len = strlen(msg);
	while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
		msg[--len] = '\0';
	char *nl = strrchr(msg, '\n');
	const char *last = nl ? nl + 1 : msg;
	if (!with_stderr)
		last = "";
	if (r->timed_out)
		snprintf(out, n, "killed at the build's wall-clock limit");
	else if (r->signal == SIGXCPU || r->signal == SIGKILL)
		snprintf(out, n, "killed by signal %d (%s): CPU limit %u s or "
			 "memory limit %llu MiB", r->signal, strsignal(r->signal),
			 l->cpu_seconds,
			 (unsigned long long)(l->memory_bytes >> 20));
	else if (r->signal)
		snprintf(out, n, "killed by signal %d (%s)", r->signal,
			 strsignal(r->signal));
	else
		snprintf(out, n, "exit status %d%s%s", r->exit_code,
			 *last ? ": " : "", last);
}
