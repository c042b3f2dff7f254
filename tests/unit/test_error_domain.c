/*
 * test_error_domain.c - one error domain (ehelf.h): every public call that
 * does not step fails with an EHELF_ERR_* code, none of which is a step
 * status (EHELF_STEP, EHELF_OUTERMOST, EHELF_E_*) or a -errno, and leaves
 * a message in ehelf_last_error(); the internal ERR_* codes are the same
 * numbers.  ehelf_space_load_pid on a process that does not exist says so
 * (EHELF_ERR_NOT_FOUND); ehelf_space_load_self and _load_pid of this
 * process succeed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../client-lib/include/ehelf.h"
#include "../../common/err.h"
#include "unit.h"

static const int codes[] = {
	EHELF_ERR_IO, EHELF_ERR_FORMAT, EHELF_ERR_UNSUPPORTED, EHELF_ERR_NOMEM,
	EHELF_ERR_ARG, EHELF_ERR_NOT_FOUND, EHELF_ERR_UNTRUSTED,
	EHELF_ERR_CONFIG,
};
enum { NCODES = sizeof codes / sizeof codes[0] };

static int in_set(int rc)
{
	for (int i = 0; i < NCODES; i++)
		if (rc == codes[i])
			return 1;
	return 0;
}

/* RC a documented failure, with a message: CHECKed, and the message shown
 * when it is not. */
#define CHECK_FAIL(rc, want)                                                 \
	do {                                                                 \
		int rc_ = (rc);                                              \
		CHECK(rc_ == (want));                                        \
		CHECK(in_set(rc_));                                          \
		CHECK(ehelf_last_error()[0] != '\0');                        \
		if (rc_ != (want))                                           \
			fprintf(stderr, "  %s: got %d (%s: %s)\n", #rc, rc_,    \
				ehelf_err_str(rc_), ehelf_last_error());     \
	} while (0)

static void the_set(void)
{
	for (int i = 0; i < NCODES; i++) {
		/* no step status, no -errno (Linux's end at -EHWPOISON) */
		CHECK(codes[i] < EHELF_E_BOUNDS && codes[i] < -EHWPOISON);
		CHECK(codes[i] != EHELF_STEP && codes[i] != EHELF_OUTERMOST);
		for (int j = 0; j < i; j++)
			CHECK(codes[i] != codes[j]);
		const char *name = ehelf_err_str(codes[i]);
		CHECK(name && name[0] && strcmp(name, "unknown error") != 0);
		/* libehelf's internal codes are these numbers */
		CHECK_STR(err_code_name(codes[i]), name);
	}
	for (int st = EHELF_E_BOUNDS; st <= EHELF_OUTERMOST; st++)
		CHECK(!in_set(st));
	for (int e = 1; e <= EHWPOISON; e++)
		CHECK(!in_set(-e));
	CHECK((int)ERR_IO == EHELF_ERR_IO &&
	      (int)ERR_NOTFOUND == EHELF_ERR_NOT_FOUND &&
	      (int)ERR_NOMEM == EHELF_ERR_NOMEM && (int)ERR_ARG == EHELF_ERR_ARG);
	CHECK_STR(ehelf_err_str(0), "success");
}

/* A pid that names no process: a child, reaped. */
static int dead_pid(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return INT_MAX;
	waitpid(pid, NULL, 0);
	return kill(pid, 0) < 0 && errno == ESRCH ? pid : INT_MAX;
}

static void space_calls(void)
{
	ehelf_space *s = ehelf_space_new();
	CHECK(s != NULL);
	if (!s)
		return;
	ehelf_module_desc d = { .start = 0x2000, .end = 0x1000,
				.path = "/nonexistent/lib.so" };

	CHECK_FAIL(ehelf_space_add_module(NULL, &d), EHELF_ERR_ARG);
	CHECK_FAIL(ehelf_space_add_module(s, NULL), EHELF_ERR_ARG);
	CHECK_FAIL(ehelf_space_add_module(s, &d), EHELF_ERR_ARG);
	CHECK(strstr(ehelf_last_error(), "empty") != NULL);
	CHECK(ehelf_space_modules(s, NULL) == 0);
	/* a file that cannot be read is no failure: the module is kept */
	d.start = 0x1000;
	d.end = 0x2000;
	CHECK(ehelf_space_add_module(s, &d) == 0);
	CHECK(ehelf_space_modules(s, NULL) == 1);

	CHECK_FAIL(ehelf_space_load_self(NULL), EHELF_ERR_ARG);
	CHECK_FAIL(ehelf_space_load_pid(NULL, getpid()), EHELF_ERR_ARG);
	CHECK_FAIL(ehelf_space_load_pid(s, 0), EHELF_ERR_ARG);
	CHECK_FAIL(ehelf_space_load_pid(s, -3), EHELF_ERR_ARG);
	CHECK_FAIL(ehelf_space_fetch(NULL, 1), EHELF_ERR_ARG);

	/* no such process: "not found", not ENOENT's -2 (EHELF_E_READ) */
	int pid = dead_pid();
	CHECK_FAIL(ehelf_space_load_pid(s, pid), EHELF_ERR_NOT_FOUND);
	char want[64];
	snprintf(want, sizeof want, "no process %d", pid);
	CHECK(strstr(ehelf_last_error(), want) != NULL);
	CHECK_FAIL(ehelf_space_load_pid(s, INT_MAX), EHELF_ERR_NOT_FOUND);
	CHECK(ehelf_space_modules(s, NULL) == 1); /* nothing added */
	ehelf_space_free(s);

	/* a normal process loads whole */
	s = ehelf_space_new();
	int rc = ehelf_space_load_self(s);
	CHECK(rc == 0);
	if (rc != 0)
		fprintf(stderr, "  load_self: %d: %s\n", rc, ehelf_last_error());
	CHECK(ehelf_space_modules(s, NULL) > 0);
	ehelf_space_free(s);

	s = ehelf_space_new();
	rc = ehelf_space_load_pid(s, getpid());
	CHECK(rc == 0);
	if (rc != 0)
		fprintf(stderr, "  load_pid(self): %d: %s\n", rc,
			ehelf_last_error());
	CHECK(ehelf_space_modules(s, NULL) > 0);
	ehelf_space_free(s);

	CHECK(ehelf_backtrace_init() == 0);
}

/* A trusted-key file that is not a key: ehelf_space_fetch says the
 * configuration is wrong.  In a child, forked before this process reads
 * the configuration (once per process). */
static void bad_config(void)
{
	char dir[] = "/tmp/ehelf-errdom-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	char key[sizeof dir + 16];
	snprintf(key, sizeof key, "%s/bad.pem", dir);
	FILE *f = fopen(key, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("not a key\n", f);
		fclose(f);
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("EHELF_TRUSTED_KEYS", dir, 1);
		setenv("EHELF_CACHE_PATH", dir, 1);
		unsetenv("EHELF_URLS");
		ehelf_space *s = ehelf_space_new();
		int rc = s ? ehelf_space_fetch(s, 1) : EHELF_ERR_NOMEM;
		if (rc != EHELF_ERR_CONFIG || !ehelf_last_error()[0]) {
			fprintf(stderr, "  bad config: fetch gave %d (%s)\n",
				rc, ehelf_last_error());
			_exit(1);
		}
		ehelf_space_free(s);
		_exit(0);
	}
	int status = -1;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	unlink(key);
	rmdir(dir);
}

int main(void)
{
	the_set();
	bad_config(); /* first: a child forked later inherits the
		       * configuration this process has read */
	space_calls();
	printf("test_error_domain: %d codes, failures of the space calls\n",
	       NCODES);
	UNIT_DONE("test_error_domain");
}
