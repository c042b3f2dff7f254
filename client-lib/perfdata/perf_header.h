/*
 * perf_header.h - what perf's own records and the file header give the
 * perf.data reader: attributes and their ids, build-IDs, event names
 * (perf_header.c; internal to the reader, its state: perf_reader_state.h).
 */
#ifndef EHELF_PERFDATA_PERF_HEADER_H
#define EHELF_PERFDATA_PERF_HEADER_H

#include "perf_reader_state.h"

long pr_id_lookup(const perf_reader *r, uint64_t id);
int pr_add_attr(perf_reader *r, const uint8_t *raw, size_t len,
		const uint8_t *ids, uint64_t nids, ehelf_err *err);
void pr_set_name(perf_reader *r, struct rattr *ra, const uint8_t *s,
		 size_t max, int src);
uint32_t pr_hash_str(const char *s);
int pr_add_build_id(perf_reader *r, const uint8_t *e, size_t size,
		    uint64_t off, ehelf_err *err);
int pr_parse_build_ids(perf_reader *r, const uint8_t *p, uint64_t len,
		       uint64_t off, ehelf_err *err);
int pr_parse_event_desc(perf_reader *r, const uint8_t *p, uint64_t len,
			uint64_t off, ehelf_err *err);
int pr_parse_file_header(perf_reader *r, ehelf_err *err);

#endif
