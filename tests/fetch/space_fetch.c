/*
 * space-fetch - ehelf_space_fetch on a space other threads are unwinding
 * with.  The space of this process is built with no eh_elf anywhere (an
 * empty cache, no $EHELF_PATH), so every frame goes through libdw; four
 * threads unwind their own stacks with it in a loop, comparing each
 * stack (pcs and stack pointers) with the first they got, while the main
 * thread fetches ($EHELF_URLS) and attaches the eh_elfs.  Passes when
 * the fetch attached some, the module count with an eh_elf grew by as
 * many, every stack unwound meanwhile was the same, and the threads'
 * last stacks were stepped with eh_elfs.
 *
 * Usage: space-fetch   (EHELF_URLS, EHELF_CACHE_PATH, EHELF_TRUSTED_KEYS
 * set by tests/fetch/run-fetch-tests.sh)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../client-lib/include/ehelf.h"

enum { THREADS = 4, MAXF = 64, DEPTH = 12 };

static ehelf_space *space;
static atomic_bool stop;

typedef struct worker {
	ehelf_frame ref[MAXF];
	int nref;
	long stacks, differ, last_ehelf; /* frames stepped with eh_elfs, last stack */
} worker;

static int descend(worker *w, int depth);
/* (called through a volatile pointer: GCC keeps every frame) */
static int (*volatile again)(worker *, int) = descend;

/* Unwind from here, DEPTH calls down, into W until told to stop. */
static int descend(worker *w, int depth)
{
	if (depth > 0)
		return again(w, depth - 1) + 1;
	while (!atomic_load(&stop)) {
		ehelf_regs r;
		ehelf_frame f[MAXF];
		ehelf_getcontext(&r);
		int n = ehelf_unwind_local(space, &r, f, MAXF, 0);
		if (!w->nref) {
			memcpy(w->ref, f, sizeof f);
			w->nref = n;
		}
		bool same = n == w->nref;
		long by_ehelf = 0;
		for (int i = 1; same && i < n; i++) {
			same = f[i].pc == w->ref[i].pc && f[i].sp == w->ref[i].sp;
			by_ehelf += f[i].path == EHELF_PATH_EHELF;
		}
		w->stacks++;
		w->differ += !same;
		w->last_ehelf = by_ehelf;
	}
	return 0;
}

static void *run(void *arg)
{
	descend(arg, DEPTH);
	return NULL;
}

int main(void)
{
	space = ehelf_space_new();
	if (!space || ehelf_space_load_self(space) < 0) {
		fprintf(stderr, "space-fetch: %s\n", ehelf_last_error());
		return 1;
	}
	int with_before, with_after;
	int mods = ehelf_space_modules(space, &with_before);
	pthread_t t[THREADS];
	worker w[THREADS];
	memset(w, 0, sizeof w);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, run, &w[i]);
	nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	int got = ehelf_space_fetch(space, 0);
	if (got < 0)
		fprintf(stderr, "space-fetch: %s\n", ehelf_last_error());
	nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	atomic_store(&stop, true);
	long stacks = 0, differ = 0, ehelf_last = 0, depth = 0;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		stacks += w[i].stacks;
		differ += w[i].differ;
		ehelf_last += w[i].last_ehelf > 0;
		depth += w[i].nref;
	}
	ehelf_space_modules(space, &with_after);
	printf("space-fetch: %d modules, %d with an eh_elf before, %d attached, "
	       "%d after; %ld stacks of %ld frames unwound meanwhile, %ld "
	       "different; the last stacks of %ld of %d threads through "
	       "eh_elfs\n", mods, with_before, got, with_after, stacks,
	       depth / THREADS, differ, ehelf_last, THREADS);
	ehelf_space_free(space);
	return got > 0 && with_after == with_before + got && differ == 0 &&
	       depth / THREADS > DEPTH && ehelf_last == THREADS ? 0 : 1;
}
