/* local_read.c - see local_read.h. */
#define _GNU_SOURCE
#include "local_read.h"

#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "walk_hot.h"

enum {
	PAGE = 4096,
	BATCH = 32,                 /* pages checked per system call */
	MAX_DOWN = 8 << 20,         /* how far below the range SP may extend it */
	MAX_UP = 64 * PAGE,         /* how far above the range a read may */
};

/* The thread's range, and its own address once known: &known.r costs a
 * load of the thread pointer (the TCB's line, a cache miss of its own
 * when sampling), SELF only the line the range is in.  SELF is read at
 * its offset from the thread pointer kept in walk_hot's line, not
 * through the GOT entry the compiler would use (another line). */
static __thread struct {
	local_range r;
	local_range *self;
} known __attribute__((tls_model("initial-exec")));
/* This process, asked each time: a pid kept from before a fork(2) would
 * make the child read its parent's memory (or fail to, under Yama).  A
 * system call, on paths that make one anyway. */
static pid_t self(void)
{
	return getpid();
}

/* How many of the N <= BATCH pages from FROM on are readable, in order:
 * one byte of each, read by the kernel (a partial transfer stops at the
 * first iovec that fails). */
static uint64_t readable_pages(uint64_t from, uint64_t n)
{
	char buf[BATCH];
	struct iovec local = { buf, (size_t)n }, remote[BATCH];
	for (uint64_t i = 0; i < n; i++)
		remote[i] = (struct iovec){ (void *)(uintptr_t)(from + i * PAGE), 1 };
	ssize_t got = process_vm_readv(self(), &local, 1, remote, (unsigned long)n, 0);
	return got > 0 ? (uint64_t)got : 0;
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
	if (sp >= k->lo && sp < k->hi)
		return k;
	return range_move(k, sp);
}

/* Copy 8 bytes at ADDR with the kernel's checks; 0 or -1. */
static int checked_read(uint64_t addr, void *out)
{
	struct iovec local = { out, 8 };
	struct iovec remote = { (void *)(uintptr_t)addr, 8 };
	return process_vm_readv(self(), &local, 1, &remote, 1, 0) == 8 ? 0 : -1;
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
	return checked_read(addr, value);
}
