/*
 * background_fetch.c - libehelf-unwind's background fetch: a libunwind
 * program gains eh_elfs from the servers of $EHELF_URLS without a code
 * change, and without a fetch inside an unwind (which may be in a signal
 * handler).
 *
 * When $EHELF_URLS names a server, the library's constructor (run when
 * the library is loaded, before main or inside dlopen: never in a signal
 * handler) starts one detached thread, "ehelf-fetch", with every signal
 * blocked (a profiler's SIGPROF goes to the program's threads).  The
 * thread lists the modules loaded then (a space of its own),
 * ehelf_space_fetch()es what they lack, and, if any arrived, makes the
 * process-wide space pick them up (process_space_pickup: it is rebuilt,
 * with the existing mechanism of ehelf_backtrace_init).  Until then those
 * modules are unwound by the DWARF fallback.  Libraries loaded later are
 * not fetched for.  EHELF_VERBOSE tells what it did on stderr.
 *
 * The thread checks signatures with libcrypto while the program may be
 * exiting: OpenSSL's exit handler, which would free what the thread is
 * using, is not registered (OPENSSL_INIT_NO_ATEXIT; the memory is the
 * process's to drop at exit anyway).
 */
#define _GNU_SOURCE
#include <openssl/crypto.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiet_thread.h"
#include "../include/ehelf.h"
#include "../unwind.h"

static void *fetch_thread(void *arg)
{
	/* named before the constructor returns: visible from the start */
	pthread_setname_np(pthread_self(), "ehelf-fetch");
	sem_post(arg);
	ehelf_space *s = ehelf_space_new();
	if (!s)
		return NULL;
	/* a module that failed to load is only not fetched for */
	int loaded = ehelf_space_load_self(s);
	char load_error[256] = "";
	if (loaded < 0)
		snprintf(load_error, sizeof load_error, "%s", ehelf_last_error());
	int n = ehelf_space_fetch(s, 0);
	if (n > 0)
		process_space_pickup();
	const char *v = secure_getenv("EHELF_VERBOSE");
	if (v && *v && strcmp(v, "0") != 0) {
		int with, mods = ehelf_space_modules(s, &with);
		if (loaded < 0)
			fprintf(stderr, "libehelf-unwind: listing the modules: "
				"%s\n", load_error);
		if (n < 0)
			fprintf(stderr, "libehelf-unwind: fetching: %s\n",
				ehelf_last_error());
		else
			fprintf(stderr, "libehelf-unwind: %d eh_elf%s fetched in "
				"the background; %d of %d modules have one\n", n,
				n == 1 ? "" : "s", with, mods);
	}
	ehelf_space_free(s);
	return NULL;
}

static bool fetching(void)
{
	const char *urls = secure_getenv("EHELF_URLS");
	return urls && urls[strspn(urls, " \t\n")];
}

/* Before every other constructor of the library (priority 101): the
 * first initialisation of libcrypto decides whether OpenSSL registers its
 * exit handler, and libehelf-unwind's space, built by a constructor of
 * compat_local.c, may verify and hash eh_elfs, initialising it with the
 * defaults.  Then a program exiting while the thread verifies had
 * OpenSSL's cleanup free the locks under it (a crash at exit, 1 run in 4
 * in the fetch tests). */
__attribute__((constructor(101))) static void crypto_no_atexit(void)
{
	if (fetching())
		OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

__attribute__((constructor)) static void fetch_start(void)
{
	if (!fetching())
		return;
	sem_t named;
	sem_init(&named, 0, 0);
	if (quiet_thread_start(fetch_thread, &named) == 0)
		while (sem_wait(&named) != 0)
			;
	sem_destroy(&named);
}
