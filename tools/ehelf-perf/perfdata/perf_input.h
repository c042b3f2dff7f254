/*
 * perf_input.h - the perf.data reader's next record in file order, and its
 * input and queue buffers
 * (perf_input.c; internal to the reader, its state: perf_reader_state.h).
 */
#ifndef EHELF_PERFDATA_PERF_INPUT_H
#define EHELF_PERFDATA_PERF_INPUT_H

#include "perf_reader_state.h"

/* Pipe mode: make N bytes available at in[head]; returns how many are (less
 * than N only at the end of the stream) or a negative ERR_*. */
long pr_in_fill(perf_reader *r, size_t n, ehelf_err *err);

/* Room for N more bytes in qbuf (and as much in qbuf2); false if out of
 * memory. */
bool pr_qbuf_room(perf_reader *r, size_t n);

/*
 * The next record in perf's processing order: those stored, and after a
 * COMPRESSED record (itself given too) the records it decompresses to
 * (r->rec_decomp set; *REC valid until the next call, *OFF the COMPRESSED
 * record's).  1, 0 at the end, or a negative ERR_*.
 */
int pr_next_raw(perf_reader *r, const uint8_t **rec, uint64_t *off,
		ehelf_err *err);

#endif
