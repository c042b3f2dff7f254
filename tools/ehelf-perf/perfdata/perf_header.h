/*
 * perf_header.h - what perf's own records and the file header give the
 * perf.data reader: attributes and their ids, build-IDs, event names
 * (perf_header.c; internal to the reader, its state: perf_reader_state.h).
 */
#ifndef EHELF_PERFDATA_PERF_HEADER_H
#define EHELF_PERFDATA_PERF_HEADER_H

#include "perf_reader_state.h"

/* The index of the attribute owning sample id ID, or -1. */
long pr_id_lookup(const perf_reader *r, uint64_t id);

/* Take in an attribute: LEN bytes of perf_event_attr at RAW and its NIDS
 * sample ids at IDS (unaligned u64s). */
int pr_add_attr(perf_reader *r, const uint8_t *raw, size_t len,
		const uint8_t *ids, uint64_t nids, ehelf_err *err);

/* Name RA from the string in S[0, MAX), unless it is empty or RA has a
 * name from a stronger source than SRC (NAME_*); out of memory leaves the
 * name as it is. */
void pr_set_name(perf_reader *r, struct rattr *ra, const uint8_t *s,
		 size_t max, int src);

/* The hash of a file name (the build-ID table's chains). */
uint32_t pr_hash_str(const char *s);

/* Take in one build_id_event of SIZE bytes at E (offset OFF, for messages). */
int pr_add_build_id(perf_reader *r, const uint8_t *e, size_t size,
		    uint64_t off, ehelf_err *err);

/* The BUILD_ID feature: build_id_events back to back. */
int pr_parse_build_ids(perf_reader *r, const uint8_t *p, uint64_t len,
		       uint64_t off, ehelf_err *err);

/* The EVENT_DESC feature: u32 nr, u32 attr_size, then per event: the attr,
 * u32 nr_ids, a perf_header_string (u32 len, len bytes), nr_ids u64 ids. */
int pr_parse_event_desc(perf_reader *r, const uint8_t *p, uint64_t len,
			uint64_t off, ehelf_err *err);

/* File mode: the file header at r->map, its attributes and feature
 * sections (build-IDs, event names), the data section's bounds. */
int pr_parse_file_header(perf_reader *r, ehelf_err *err);

#endif
