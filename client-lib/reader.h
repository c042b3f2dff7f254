/*
 * reader.h - how memory is read during an unwind: the types shared by the
 * unwinder (unwind.h: the readers it makes, snapshot_read, local_reader)
 * and the step cache's hot path that it inlines (cached_step.h).
 */
#ifndef EHELF_CLIENT_READER_H
#define EHELF_CLIENT_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "include/ehelf.h"

/* A copy of a stack: the bytes of [addr, addr + size) are at data. */
typedef struct snapshot {
	uint64_t addr, size;
	const uint8_t *data;
	ehelf_read_fn read;  /* memory outside it */
	void *arg;
} snapshot;

/* How memory is read during an unwind. */
typedef struct reader {
	bool local;          /* ARG is the thread's local_range */
	ehelf_read_fn read;
	void *arg;           /* a snapshot for snapshot_read */
	const snapshot *snap; /* reads inside it may be direct loads */
} reader;

#endif
