/*
 * perf_write.h - a writer of perf.data files, the layouts perf_data.h
 * reads (written from perf.data-file-format.txt; no perf code):
 *   - file mode: the 104-byte header, the ids of each attribute, the
 *     attribute section (perf_event_attr + its ids' file section, every
 *     entry of one size), the data section, then the feature table and
 *     the feature sections in bit order; the header is written last, so
 *     the output must be seekable;
 *   - pipe mode (`perf record -o -`): a 16-byte header, then everything
 *     as records: attributes as HEADER_ATTR, features as HEADER_FEATURE
 *     (written when given), the data records as given.
 * Records go out through a 1 MiB buffer: memory does not grow with the
 * data written.  Attributes and (file mode) features are kept until they
 * are written: attributes before the first record, features at the end.
 */
#ifndef EHELF_PERFDATA_PERF_WRITE_H
#define EHELF_PERFDATA_PERF_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../../common/err.h"

/* Feature bits (HEADER_* of perf's header.h) this code names. */
enum {
	PERF_FEAT_TRACING_DATA = 1,
	PERF_FEAT_BUILD_ID = 2,
	PERF_FEAT_EVENT_DESC = 12,
	PERF_FEAT_COMPRESSED = 27,
	PERF_FEAT_BITS = 256,
};

/* perf's own record types written here. */
enum {
	PERF_REC_HEADER_ATTR = 64,
	PERF_REC_HEADER_TRACING_DATA = 66,
	PERF_REC_HEADER_BUILD_ID = 67,
	PERF_REC_FINISHED_ROUND = 68,
	PERF_REC_AUXTRACE = 71,
	PERF_REC_EVENT_UPDATE = 78,
	PERF_REC_HEADER_FEATURE = 80,
	PERF_REC_COMPRESSED = 81,
	PERF_REC_COMPRESSED2 = 83,
};

typedef struct perf_writer perf_writer;

/* A writer onto FD (not owned; a regular file in file mode), named NAME
 * in messages.  NULL when out of memory (ERR set). */
perf_writer *perf_writer_new(int fd, bool pipe, const char *name,
			     ehelf_err *err);
void perf_writer_free(perf_writer *w);

/* An attribute: LEN bytes of perf_event_attr (its size field is made
 * LEN's, padded to the largest given, in file mode) and its NIDS sample
 * ids (unaligned u64s at IDS).  Before the first record.  0, ERR_ARG
 * (after a record; a HEADER_ATTR of more than 64 KiB), ERR_NOMEM. */
int perf_writer_attr(perf_writer *w, const uint8_t *attr, size_t len,
		     const uint8_t *ids, size_t nids, ehelf_err *err);

/* Feature BIT's section, LEN bytes (copied).  File mode: kept for the
 * end (a second one for a bit replaces the first).  Pipe mode: written
 * now as a HEADER_FEATURE record (ERR_ARG when it does not fit in one). */
int perf_writer_feature(perf_writer *w, int bit, const void *p, size_t len,
			ehelf_err *err);

/* A record of the data: its header's size field says its length (8 to
 * 65,535 bytes).  0, or ERR_IO with ERR set. */
int perf_writer_record(perf_writer *w, const void *rec, ehelf_err *err);

/* Flush everything; file mode: the features and the header.  0 or ERR_IO;
 * the writer is spent either way (free it). */
int perf_writer_finish(perf_writer *w, ehelf_err *err);

#endif
