/*
 * perf_data.h - a reader of perf.data files (`perf record`), written from
 * the file format's documentation (tools/perf/Documentation/
 * perf.data-file-format.txt and the kernel's perf_event.h ABI); no perf
 * code.  Both layouts: a file (header, attributes, data section, feature
 * sections after it) and pipe mode (`perf record -o -`: a 16-byte header,
 * then attributes, features and data as records).
 *
 * Events come out in the order perf's own tools process them (perf's
 * ordered-events queue, so that samples match `perf script` one for one):
 * the records between two FINISHED_ROUND records (or to the end of the data
 * when there are none) sorted by time, ties in file order.  Precisely:
 *   - a record with a time (a sample with PERF_SAMPLE_TIME, another kernel
 *     record whose sample_id trailer has one) is queued; time 0 counts as
 *     none (perf's synthesized records);
 *   - a record without a time (sample_id_all unset, no PERF_SAMPLE_TIME,
 *     perf's own records of type >= 64) is delivered where it is read:
 *     after everything already released, before what is still queued;
 *   - at a FINISHED_ROUND the queue is released, sorted, up to the largest
 *     time queued before the previous FINISHED_ROUND (so a record that
 *     perf record wrote one round late still comes in time order), then
 *     the FINISHED_ROUND itself is delivered; at the end all the rest.
 *
 * Decoded: the attributes (sample_type, sample_regs_user, sample_stack_user,
 * read_format, sample_id_all, the ids of each attribute, its event name from
 * the EVENT_DESC feature, else from a PERF_RECORD_EVENT_UPDATE, else from
 * type/config), the BUILD_ID
 * feature (and the HEADER_BUILD_ID records of pipe mode), and the records
 * MMAP, MMAP2 (with or without a build-ID), COMM, FORK, EXIT, SAMPLE and
 * FINISHED_ROUND; every other record is returned as PERF_EV_OTHER (its
 * header only), so that nothing is silently lost.  The payloads that follow
 * HEADER_TRACING_DATA and AUXTRACE records are skipped.  COMPRESSED
 * records (perf record -z) are returned as PERF_EV_OTHER and followed, as
 * perf processes them, by the records they decompress to (decomp.h; error
 * messages locate those by their COMPRESSED record's offset).  A sample's
 * fields are
 * decoded for every sample_type bit up to and including
 * PERF_SAMPLE_STACK_USER (IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID,
 * CPU, PERIOD, READ, CALLCHAIN, RAW, BRANCH_STACK, REGS_USER, STACK_USER);
 * later fields are skipped.
 *
 * Malformed or truncated input gives ERR_FORMAT with a message naming the
 * file, the byte offset and what is wrong; it never crashes and never reads
 * out of bounds.  A pipe-mode stream that ends inside a record (perf
 * record killed, a pipe cut) ends there instead, as perf script does:
 * every record before the cut is delivered, then perf_reader_cut says
 * where it stopped.  Not thread-safe: one reader per thread.
 */
#ifndef EHELF_PERFDATA_PERF_DATA_H
#define EHELF_PERFDATA_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../../common/err.h"
#include "perf_data_types.h"

/* Open PATH, or standard input for "-" (pipe mode is detected from the
 * header either way; a perf.data file, not written with -o -, must be a
 * regular file).  NULL on failure with ERR set. */
perf_reader *perf_reader_open(const char *path, ehelf_err *err);
void perf_reader_close(perf_reader *r);

/* The next event into *EV.  Returns 1, 0 at the end, or a negative ERR_*
 * (then ERR says why; the reader must not be used further). */
int perf_reader_next(perf_reader *r, perf_event *ev, ehelf_err *err);

/* The attributes (valid once perf_reader_open has returned, in pipe mode as
 * the attribute records are met). */
size_t perf_reader_nattrs(const perf_reader *r);
const perf_attr_info *perf_reader_attr(const perf_reader *r, size_t i);

/* The build-ID recorded for FILENAME in process PID (the BUILD_ID feature,
 * or pipe mode's HEADER_BUILD_ID records; an entry for PID itself before
 * one with pid -1, which matches every process; perf record writes the
 * host's entries with pid -1).  Returns its length (> 0) with *ID pointing
 * into the reader, or 0 if none.  Pipe mode meets its records at the end
 * of the stream.  Build-IDs carried by MMAP2 records (perf record
 * --buildid-mmap, which then writes no BUILD_ID feature) are in the events
 * only. */
size_t perf_reader_build_id(const perf_reader *r, uint32_t pid,
			    const char *filename, const uint8_t **id);

/* Partial stacks, for a reader that mostly needs the first bytes of each
 * sample's user stack copy (an unwinder: the frames of most samples span
 * a few KiB of perf's 8 to 64 KiB copies).  Called before the first
 * perf_reader_next on a file (not a pipe): the data section is then read
 * with pread, only the bytes it needs, instead of through the file's
 * mapping (whose page faults map every page around each one touched),
 * and a sample whose copy has more than BYTES bytes (64 to 32,768) comes
 * with its first BYTES only: sample.stack_size counts those, stack_full
 * the copy's (dyn_size), stack_file where it lies.  Returns 1, 0 when it
 * does not apply (a pipe; called too late), or -1 out of memory (the
 * reader unchanged). */
int perf_reader_partial_stacks(perf_reader *r, size_t bytes);

/* With partial stacks on: the part given of the copies of the records
 * read from now on becomes BYTES (64 to 32,768), as the caller learns how
 * much of them its samples need; BYTES 0 turns partial stacks off for
 * good, the records after read in place through the file's mapping (what
 * costs least when the samples need their whole copies: nothing copied).
 * 1, or 0 when partial stacks are off.  Read through the mapping, the
 * pages of what was delivered are given back as the reading goes on, so
 * that resident memory does not grow with the file. */
int perf_reader_set_partial(perf_reader *r, size_t bytes);

/* Whether P (in a record R gave) lies in the file's mapping, read there
 * for the first time (cold), rather than in a buffer R has just copied
 * it into (partial stacks, a pipe, compressed records).  NULL R: false. */
bool perf_reader_in_mapping(const perf_reader *r, const void *p);

/* The whole stack copy of sample EV, one perf_reader_partial_stacks cut
 * (sample.stack_full > sample.stack_size), into BUF (stack_full bytes,
 * at most 65,536), at any time while R is open.  0, or a negative ERR_*
 * with ERR set. */
int perf_reader_read_stack(const perf_reader *r, const perf_event *ev,
			   uint8_t *buf, ehelf_err *err);

/* Whether R reads pipe mode (a stream, or a file written with -o -). */
bool perf_reader_is_pipe(const perf_reader *r);

/* Attribute I as recorded: *ATTR its perf_event_attr bytes (*LEN of them:
 * the file's attr_size less its ids section, or a HEADER_ATTR record's
 * attr.size), *IDS its *NIDS sample ids (unaligned u64s).  Valid while R
 * is open.  false when I is out of range. */
bool perf_reader_attr_raw(const perf_reader *r, size_t i, const uint8_t **attr,
			  size_t *len, const uint8_t **ids, size_t *nids);

/* File mode: the section of feature BIT (HEADER_*: 2 BUILD_ID, 12
 * EVENT_DESC, ...) into *P, *LEN; true when the header lists it and its
 * section lies in the file.  Pipe mode: always false (its features are
 * HEADER_FEATURE records among the events). */
bool perf_reader_feature(const perf_reader *r, int bit, const uint8_t **p,
			 size_t *len);

/* A stream cut short (pipe mode: it ends inside a record or a record's
 * payload): the reader ended there as at the end of a stream, everything
 * before the cut delivered, and this says where it stopped ("NAME:
 * offset N: stream ends inside ..."); NULL when the stream was whole. */
const char *perf_reader_cut(const perf_reader *r);

/* Bytes consumed so far and in all (0 in pipe mode), for a progress line. */
void perf_reader_progress(const perf_reader *r, uint64_t *done,
			  uint64_t *total);

#endif
