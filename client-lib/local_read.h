/*
 * local_read.h - reading this process's memory without ever faulting.
 *
 * Each thread remembers a range of its stack already known to be readable
 * (thread-local, no lock).  An unwind anchors it at its starting stack
 * pointer: a pointer inside the range keeps it, one a little below it
 * extends it down to that page, any other starts a new range there.  Reads
 * just above the range extend it upwards.  Pages are checked in batches
 * with one process_vm_readv(2) on this process (one byte per page), which
 * fails cleanly on unmapped memory; once known, a stack page is read
 * directly (a thread's stack mapping does not shrink while the thread
 * lives).  Addresses elsewhere are read with process_vm_readv each time.
 * Everything here is async-signal-safe.
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
