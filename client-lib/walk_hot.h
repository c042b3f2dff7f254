/*
 * walk_hot.h - the process-wide words that every local walk reads, kept in
 * one cache line: a sampling profiler's walk finds them evicted by the
 * program's own work, and each line costs it a miss (the thread's known
 * range would take two: the GOT entry of its TLS offset and the TLS line,
 * besides the pin's line).
 */
#ifndef EHELF_CLIENT_WALK_HOT_H
#define EHELF_CLIENT_WALK_HOT_H

#include <stdatomic.h>

#include "include/ehelf.h"

typedef struct walk_hot {
	/* the process space (unwind.c): unwinders pin it with PINS */
	_Atomic(ehelf_space *) space;
	atomic_int pins;
	/* local_read.c: the offset from the thread pointer of each thread's
	 * known-range pointer (initial-exec TLS: the same in every thread);
	 * 0 until a first walk computes it */
	_Atomic long known_tls;
} __attribute__((aligned(64))) walk_hot;

extern walk_hot ehelf_walk_hot;

#endif
