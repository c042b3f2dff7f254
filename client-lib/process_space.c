/*
 * process_space.c - the process-wide space of ehelf_backtrace and the
 * libunwind API: built on first use, rebuilt by ehelf_backtrace_init
 * (which unw_flush_cache calls) and when eh_elfs are fetched, pinned by
 * unwinders (contracts in unwind.h).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/err.h"
#include "space.h"
#include "unwind.h"
#include "walk_hot.h"

/*
 * The process-wide space.  Unwinders pin it (an atomic count, async-signal-
 * safe) for as long as they use it; a rebuild swaps the pointer and frees
 * the old space once no unwinder holds a pin, else keeps it to free at a
 * later rebuild.  An unwinder that pins after the swap sees the new space.
 */
/* the space's pointer (.space) and pin count (.pins): in walk_hot.h's
 * line */
walk_hot ehelf_walk_hot;
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static ehelf_space *retired; /* replaced spaces, a list; under global_lock */
/* bumped when eh_elfs were fetched (process_space_pickup) */
static atomic_ulong fetched_epoch;

/* Build the process-wide space and swap it in.  Returns 0, ERR_NOMEM
 * when no space could be made (nothing swapped), or the first failure of
 * ehelf_space_load_self (the space swapped in all the same); *SWAPPED
 * says which. */
static int rebuild(bool *swapped)
{
	*swapped = false;
	ehelf_space *s = ehelf_space_new();
	if (!s)
		return ERR_NOMEM; /* the message is set */
	int rc = ehelf_space_load_self(s); /* (its cache faulted in) */
	*swapped = true;
	pthread_mutex_lock(&global_lock);
	ehelf_space *old = atomic_exchange(&ehelf_walk_hot.space, s);
	if (old) {
		old->retired_next = retired;
		retired = old;
	}
	if (atomic_load(&ehelf_walk_hot.pins) == 0) { /* no unwinder holds one */
		while (retired) {
			ehelf_space *next = retired->retired_next;
			ehelf_space_free(retired);
			retired = next;
		}
	} /* else: kept until a rebuild finds no pin */
	pthread_mutex_unlock(&global_lock);
	return rc < 0 ? rc : 0;
}

/* ehelf_backtrace_init; *BUILT: a new space is in use. */
static int backtrace_init(bool *built)
{
	unsigned long epoch;
	int rc;
	*built = false;
	do {
		epoch = atomic_load(&fetched_epoch);
		bool swapped;
		rc = rebuild(&swapped);
		if (!swapped)
			return rc;
		*built = true;
		/* eh_elfs fetched during the build, perhaps after their
		 * modules were resolved, when process_space_pickup found no
		 * space built yet: again */
	} while (atomic_load(&fetched_epoch) != epoch);
	return rc;
}

int ehelf_backtrace_init(void)
{
	bool built;
	return backtrace_init(&built);
}

void process_space_pickup(void)
{
	atomic_fetch_add(&fetched_epoch, 1);
	if (process_space_built())
		ehelf_backtrace_init();
}

const ehelf_space *process_space_pin(void)
{
	atomic_fetch_add(&ehelf_walk_hot.pins, 1);
	ehelf_space *s = atomic_load(&ehelf_walk_hot.space);
	if (!s) {
		atomic_fetch_sub(&ehelf_walk_hot.pins, 1);
		ehelf_backtrace_init(); /* first use: not in a signal handler */
		atomic_fetch_add(&ehelf_walk_hot.pins, 1);
		s = atomic_load(&ehelf_walk_hot.space);
	}
	return s;
}

void process_space_unpin(void)
{
	atomic_fetch_sub(&ehelf_walk_hot.pins, 1);
}

bool process_space_built(void)
{
	return atomic_load(&ehelf_walk_hot.space) != NULL;
}

