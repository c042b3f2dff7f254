/* local_read.c - see local_read.h. */
#define _GNU_SOURCE
#include "local_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "walk_hot.h"

enum {
	PAGE = 4096,
	BATCH = 32,                 /* pages checked per drain of the pipe */
	GOOD = 4,                   /* pages off the range remembered per walk */
	MAX_DOWN = 8 << 20,         /* how far below the range SP may extend it */
	MAX_UP = 64 * PAGE,         /* how far above the range a read may */
};

/* The thread's range, and its own address once known: &known.r costs a
 * load of the thread pointer (the TCB's line, a cache miss of its own
 * when sampling), SELF only the line the range is in.  SELF is read at
 * its offset from the thread pointer kept in walk_hot's line, not
 * through the GOT entry the compiler would use (another line). */
/* GOOD holds pages off the range found readable since the thread's
 * walk (or unw_step) began, as libunwind keeps its last validated pages
 * (zero: a free slot): local_range_for() forgets them, so that a page
 * unmapped between two walks is checked again.  One cache line. */
typedef struct known_state {
	local_range r; /* first: a local_range * is a known_state * */
	local_range *self;
	uint64_t good[GOOD];
	unsigned next; /* the slot the next page goes to */
} known_state;
static __thread known_state known
	__attribute__((tls_model("initial-exec"), aligned(64)));
/*
 * A page is readable when the kernel can copy a byte of it: a write(2) of
 * one byte from the page into a pipe of our own, which fails with EFAULT
 * otherwise.  These are the system calls libunwind makes to validate an
 * address (and pipe2 to open the pipe, on first use or when the program
 * closed it), so that an unwind makes no system call libunwind does not.
 * The pipe is drained by a read(2) before each batch of writes; both ends
 * are non-blocking, and its two descriptors are kept in one atomic word
 * (0: not open), so that threads and signal handlers share it without a
 * lock.  Raw system calls: not cancellation points, no errno left behind.
 */
static _Atomic uint64_t validate_pipe;

static uint64_t pipe_open(uint64_t stale)
{
	int fds[2];
	if (syscall(SYS_pipe2, fds, O_CLOEXEC | O_NONBLOCK) != 0)
		return 0;
	uint64_t p = (uint64_t)(uint32_t)fds[0] << 32 | (uint32_t)fds[1];
	if (atomic_compare_exchange_strong(&validate_pipe, &stale, p))
		return p;
	syscall(SYS_close, fds[0]); /* another thread's won */
	syscall(SYS_close, fds[1]);
	return stale;
}

/* How many of the N <= BATCH pages from FROM on are readable, in order. */
static uint64_t readable_pages(uint64_t from, uint64_t n)
{
	int saved = errno;
	uint64_t p = atomic_load_explicit(&validate_pipe, memory_order_acquire);
	if (!p)
		p = pipe_open(0);
	char buf[BATCH];
	if (p && syscall(SYS_read, (int)(p >> 32), buf, sizeof buf) < 0 &&
	    errno != EAGAIN)
		p = pipe_open(p); /* closed by the program: a new one */
	uint64_t i = 0;
	while (p && i < n &&
	       syscall(SYS_write, (int)(uint32_t)p,
		       (const void *)(uintptr_t)(from + i * PAGE), 1) == 1)
		i++;
	errno = saved;
	return i;
}

/* Check the pages of [from, to) (page-aligned); the end of the leading
 * readable part. */
static uint64_t readable_until(uint64_t from, uint64_t to)
{
	while (from < to) {
		uint64_t n = (to - from) / PAGE;
		if (n > BATCH)
			n = BATCH;
		uint64_t ok = readable_pages(from, n);
		from += ok * PAGE;
		if (ok < n)
			break;
	}
	return from;
}

/* local_range_for() when SP is outside K: K extended down to SP's page,
 * or started there.  Apart, so that the common case saves no registers
 * (each stack line written is a miss when sampling). */
static __attribute__((noinline)) local_range *range_move(local_range *k,
							  uint64_t sp)
{
	uint64_t page = sp & ~(uint64_t)(PAGE - 1);
	if (k->hi > k->lo && sp < k->lo && k->lo - page <= MAX_DOWN &&
	    readable_until(page, k->lo) == k->lo) {
		k->lo = page; /* the pages between are the same stack's */
		return k;
	}
	k->lo = k->hi = page; /* nothing checked yet */
	return k;
}

/* This thread's KNOWN.SELF, or NULL before its first walk. */
static inline local_range *known_self(void)
{
	long off = atomic_load_explicit(&ehelf_walk_hot.known_tls,
					memory_order_relaxed);
	local_range *k;
	if (__builtin_expect(off == 0, 0)) { /* the process's first walk */
		uintptr_t tp; /* %fs:0 holds the thread pointer (x86_64 TLS ABI) */
		__asm__("movq %%fs:0, %0" : "=r"(tp));
		off = (long)((uintptr_t)&known.self - tp);
		atomic_store_explicit(&ehelf_walk_hot.known_tls, off,
				      memory_order_relaxed);
	}
	__asm__ volatile("movq %%fs:(%1), %0" : "=r"(k) : "r"(off) : "memory");
	return k;
}

local_range *local_range_for(uint64_t sp)
{
	local_range *k = known_self();
	if (__builtin_expect(!k, 0))
		k = known.self = &known.r;
	known_state *ks = (known_state *)k;
	if (__builtin_expect(ks->good[0] != 0, 0))
		memset(ks->good, 0, sizeof ks->good);
	if (sp >= k->lo && sp < k->hi)
		return k;
	return range_move(k, sp);
}

/* Whether PAGE_ADDR (page-aligned, not 0) is readable: remembered in
 * KS->good, else checked and remembered. */
static bool page_readable(known_state *ks, uint64_t page_addr)
{
	for (int i = 0; i < GOOD; i++)
		if (ks->good[i] == page_addr)
			return true;
	if (readable_pages(page_addr, 1) != 1)
		return false;
	unsigned slot = ks->next % GOOD;
	ks->good[slot] = page_addr; /* one store: a handler sees it or not */
	ks->next = slot + 1;
	return true;
}

/* Copy 8 bytes at ADDR once its page(s) are known readable; 0 or -1. */
static int checked_read(known_state *ks, uint64_t addr, void *out)
{
	uint64_t first = addr & ~(uint64_t)(PAGE - 1);
	uint64_t last = (addr + 7) & ~(uint64_t)(PAGE - 1);
	if (addr > UINT64_MAX - 8 || first == 0 || !page_readable(ks, first) ||
	    (last != first && !page_readable(ks, last)))
		return -1;
	memcpy(out, (const void *)(uintptr_t)addr, 8);
	return 0;
}

int local_read(void *arg, uint64_t addr, uint64_t *value)
{
	local_range *k = arg;
	if (addr >= k->lo && addr <= UINT64_MAX - 8 && addr + 8 <= k->hi) {
		memcpy(value, (const void *)(uintptr_t)addr, 8);
		return 0;
	}
	/* just above the range: check the pages up to it (and a few more,
	 * as the unwind goes on upwards) once */
	if (addr >= k->lo && addr < k->hi + MAX_UP && addr <= UINT64_MAX - 8) {
		uint64_t need = (addr + 8 + PAGE - 1) & ~(uint64_t)(PAGE - 1);
		uint64_t want = need + 8 * PAGE < k->hi + MAX_UP ? need + 8 * PAGE
								  : need;
		uint64_t end = readable_until(k->hi, want);
		if (end > k->hi)
			k->hi = end;
		if (addr + 8 <= k->hi) {
			memcpy(value, (const void *)(uintptr_t)addr, 8);
			return 0;
		}
	}
	return checked_read((known_state *)k, addr, value);
}
