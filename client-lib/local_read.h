/*
 * local_read.h - reading this process's memory without ever faulting.
 *
 * Each thread remembers a range of its stack already known to be readable
 * (thread-local, no lock).  An unwind anchors it at its starting stack
 * pointer: a pointer inside the range keeps it, one a little below it
 * extends it down to that page, any other starts a new range there.  Reads
 * just above the range extend it upwards.  A page is checked as
 * libunwind checks one, with the system calls it makes: a write(2) of one
 * of its bytes into a pipe, which fails cleanly (EFAULT) on memory that
 * cannot be read; once known, a stack page is read directly (a thread's
 * stack mapping does not shrink while the thread lives).  An address
 * elsewhere has its page checked at each read, then is read directly.
 * Everything here is async-signal-safe: no allocation, no lock, errno
 * kept.
 */
#ifndef EHELF_CLIENT_LOCAL_READ_H
#define EHELF_CLIENT_LOCAL_READ_H

#include <stdint.h>

typedef struct local_range {
	uint64_t lo, hi;   /* known readable [lo, hi), page-aligned */
} local_range;

/* The calling thread's known range, anchored at SP as described above. */
local_range *local_range_for(uint64_t sp);

/* ehelf_read_fn over this process: ARG is the thread's local_range. */
int local_read(void *arg, uint64_t addr, uint64_t *value);

#endif
