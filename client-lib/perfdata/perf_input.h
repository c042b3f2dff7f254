/*
 * perf_input.h - the perf.data reader's next record in file order, and its
 * input and queue buffers
 * (perf_input.c; internal to the reader, its state: perf_reader_state.h).
 */
#ifndef EHELF_PERFDATA_PERF_INPUT_H
#define EHELF_PERFDATA_PERF_INPUT_H

#include "perf_reader_state.h"

long pr_in_fill(perf_reader *r, size_t n, ehelf_err *err);
bool pr_qbuf_room(perf_reader *r, size_t n);
int pr_next_raw(perf_reader *r, const uint8_t **rec, uint64_t *off,
		ehelf_err *err);

#endif
