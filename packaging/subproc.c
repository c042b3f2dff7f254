/* subproc.c - see subproc.h. */
#define _GNU_SOURCE
#include "subproc.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The whole of memory file FD (from offset 0), NUL-terminated, in a
 * malloc'd buffer; its length in *LEN.  NULL when out of memory. */
static char *slurp(int fd, size_t *len)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return NULL;
	char *b = malloc((size_t)st.st_size + 1);
	if (!b)
		return NULL;
	size_t n = 0;
	while (n < (size_t)st.st_size) {
		ssize_t r = pread(fd, b + n, (size_t)st.st_size - n, (off_t)n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	b[n] = '\0';
	if (len)
		*len = n;
	return b;
}

/* The last lines of TEXT that fit in about MAX bytes, newlines as "; ". */
static void tail_lines(const char *text, char *out, size_t max)
{
	size_t n = strlen(text);
	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		n--;
	size_t start = n > max - 1 ? n - (max - 1) : 0;
	while (start && start < n && text[start - 1] != '\n')
		start++;
	size_t o = 0;
	for (size_t i = start; i < n && o + 3 < max; i++) {
		if (text[i] == '\n') {
			out[o++] = ';';
			out[o++] = ' ';
		} else {
			out[o++] = text[i];
		}
	}
	out[o] = '\0';
}

int subproc_run(const char *const argv[], const subproc_opts *out,
		ehelf_err *err)
{
	int errfd = memfd_create("stderr", MFD_CLOEXEC);
	int outfd = -1;
	if (errfd < 0)
		return err_set(err, ERR_IO, "memfd_create: %s", strerror(errno));
	if (out && out->path)
		outfd = open(out->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644);
	else if (out && out->buf)
		outfd = memfd_create("stdout", MFD_CLOEXEC);
	else
		outfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (outfd < 0) {
		int e = errno;
		close(errfd);
		return err_set(err, ERR_IO, "%s: %s",
			       out && out->path ? out->path : "output",
			       strerror(e));
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, outfd, 1);
	posix_spawn_file_actions_adddup2(&fa, errfd, 2);
	if (out && out->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, out->cwd);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv,
			      environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		close(errfd);
		close(outfd);
		return err_set(err, ERR_IO, "cannot run %s: %s", argv[0],
			       strerror(rc));
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	char *msg = slurp(errfd, NULL);
	close(errfd);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		free(msg);
		if (out && !out->path && out->buf) {
			*out->buf = slurp(outfd, out->len);
			close(outfd);
			return *out->buf ? 0 : err_set(err, ERR_NOMEM,
							"out of memory");
		}
		if (close(outfd) < 0)
			return err_set(err, ERR_IO, "%s: %s",
				       out && out->path ? out->path : "output",
				       strerror(errno));
		return 0;
	}
	close(outfd);
	char last[360];
	tail_lines(msg ? msg : "", last, sizeof last);
	free(msg);
	if (WIFSIGNALED(status))
		return err_set(err, ERR_IO, "%s killed by signal %d%s%s", argv[0],
			       WTERMSIG(status), *last ? ": " : "", last);
	return err_set(err, ERR_IO, "%s exited with status %d%s%s", argv[0],
		       WEXITSTATUS(status), *last ? ": " : "", last);
}
