/*
 * perf_decode.h - a perf.data record's attribute, time and decoding
 * (perf_decode.c; internal to the reader, its state: perf_reader_state.h).
 */
#ifndef EHELF_PERFDATA_PERF_DECODE_H
#define EHELF_PERFDATA_PERF_DECODE_H

#include "perf_reader_state.h"

int pr_sample_attr(const perf_reader *r, const uint8_t *rec, uint32_t size,
		   uint64_t off, const struct rattr **out, ehelf_err *err);
int pr_record_time(const perf_reader *r, const uint8_t *rec, uint32_t size,
		   uint64_t off, uint64_t *t, ehelf_err *err);
int pr_decode(perf_reader *r, const uint8_t *rec, uint64_t off,
	      perf_event *ev, ehelf_err *err);
int pr_take_in(perf_reader *r, const uint8_t *rec, uint64_t off,
	       ehelf_err *err);

#endif
