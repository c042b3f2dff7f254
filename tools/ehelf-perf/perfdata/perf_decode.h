/*
 * perf_decode.h - a perf.data record's attribute, time and decoding
 * (perf_decode.c; internal to the reader, its state: perf_reader_state.h).
 */
#ifndef EHELF_PERFDATA_PERF_DECODE_H
#define EHELF_PERFDATA_PERF_DECODE_H

#include "perf_reader_state.h"

/* The attribute of sample REC, through its IDENTIFIER or ID when there are
 * several attributes. */
int pr_sample_attr(const perf_reader *r, const uint8_t *rec, uint32_t size,
		   uint64_t off, const struct rattr **out, ehelf_err *err);

/* The sort key of REC: 1 with *T set when it has a time, 0 when it has
 * none (then it is delivered in place), or a negative ERR_*. */
int pr_record_time(const perf_reader *r, const uint8_t *rec, uint32_t size,
		   uint64_t off, uint64_t *t, ehelf_err *err);

/* Decode REC (SIZE bytes at offset OFF) into EV. */
int pr_decode(perf_reader *r, const uint8_t *rec, uint64_t off,
	      perf_event *ev, ehelf_err *err);

/* Take in one of perf's own records when it is read: attributes (pipe
 * mode), features, build-IDs, event names. */
int pr_take_in(perf_reader *r, const uint8_t *rec, uint64_t off,
	       ehelf_err *err);

#endif
