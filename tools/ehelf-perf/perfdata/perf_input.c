/*
 * perf_input.c - the next record in file order (pr_next_raw): in file
 * mode from the mapped data section, or, with partial stacks, from a
 * window read with pread (a sample's stack copy cut); in pipe mode from
 * the input buffer filled by read(2) (pr_in_fill); and the records inside
 * COMPRESSED ones from the decompression buffer.  Records that must wait
 * are copied to the queue buffer (pr_qbuf_room).
 */
#define _GNU_SOURCE
#include "perf_input.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_decode.h"
#include "perf_reader_mem.h"

/* ---- file and stream input ------------------------------------------------- */

static int stream_cut(perf_reader *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Pipe mode: the stream ends at OFF inside what FMT says: remembered
 * (perf_reader_cut) and taken as the end of the stream.  Returns 0. */
static int stream_cut(perf_reader *r, uint64_t off, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	free(r->cut);
	if (asprintf(&r->cut, "%s: offset %" PRIu64 ": %s", r->name, off,
		     what) < 0)
		r->cut = NULL;
	r->in_eof = true;
	r->head = r->tail; /* nothing more of it is read */
	return 0;
}

long pr_in_fill(perf_reader *r, size_t n, ehelf_err *err)
{
	size_t have = r->tail - r->head;
	if (have >= n)
		return (long)n;
	if (r->head) {
		memmove(r->in, r->in + r->head, have);
		r->tail = have;
		r->head = 0;
	}
	if (r->in_cap < n) {
		size_t cap = n > IN_CHUNK ? n : IN_CHUNK;
		uint8_t *p = realloc(r->in, cap);
		if (!p)
			return pr_nomem(err, r);
		r->in = p;
		r->in_cap = cap;
	}
	while (r->tail < n && !r->in_eof) {
		ssize_t k = read(r->fd, r->in + r->tail, r->in_cap - r->tail);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return err_set(err, ERR_IO, "%s: read: %s", r->name,
				       strerror(errno));
		}
		if (k == 0)
			r->in_eof = true;
		r->tail += (size_t)k;
	}
	return (long)(r->tail < n ? r->tail : n);
}

/* Pipe mode: drop N bytes of the stream (a payload after its record). */
static int in_skip(perf_reader *r, uint64_t n, ehelf_err *err)
{
	while (n) {
		if (r->tail == r->head) {
			long k = pr_in_fill(r, 1, err);
			if (k < 0)
				return (int)k;
			if (k == 0)
				return stream_cut(r, r->in_off, "stream ends "
						  "inside a payload (%" PRIu64
						  " bytes missing)", n);
		}
		size_t take = r->tail - r->head;
		if (take > n)
			take = (size_t)n;
		r->head += take;
		r->in_off += take;
		n -= take;
	}
	return 0;
}

/* Bytes of payload that follow record REC in the stream without being part
 * of it (HEADER_TRACING_DATA, AUXTRACE), or a negative ERR_*. */
static int64_t payload_size(perf_reader *r, const uint8_t *rec, uint32_t size,
			    uint64_t off, ehelf_err *err)
{
	uint32_t type = rd32(rec);
	if (type == REC_HEADER_TRACING_DATA) {
		if (size < 12)
			return pr_fmt_err(err, r, off, "HEADER_TRACING_DATA record "
				       "of %" PRIu32 " bytes", size);
		return rd32(rec + 8);
	}
	if (type == REC_AUXTRACE) {
		if (size < 16)
			return pr_fmt_err(err, r, off, "AUXTRACE record of %"
				       PRIu32 " bytes", size);
		uint64_t n = rd64(rec + 8);
		if (n > INT64_MAX)
			return pr_fmt_err(err, r, off, "AUXTRACE payload of %"
				       PRIu64 " bytes", n);
		return (int64_t)n;
	}
	return 0;
}

static int next_partial(perf_reader *r, const uint8_t **rec, uint64_t *off,
			ehelf_err *err);

/* The size of the record whose header H starts at r->pos of the file's
 * data section, checked against the section: 8 or more, or a negative
 * ERR_* (the message names the offset). */
static int64_t stored_size(perf_reader *r, const uint8_t *h, ehelf_err *err)
{
	uint32_t size = rd16(h + 6);
	if (size < 8)
		return pr_fmt_err(err, r, r->pos, "record size %" PRIu32
			       " smaller than its header", size);
	if (size > r->data_end - r->pos)
		return pr_fmt_err(err, r, r->pos, "record of %" PRIu32
			       " bytes runs past the end of the data "
			       "section at %" PRIu64, size, r->data_end);
	return size;
}

/* A record of SIZE bytes at r->pos of the file's data section taken: *OFF
 * set, r->pos past it and past its payload.  1, or a negative ERR_* when
 * the payload runs past the data section. */
static int take_stored(perf_reader *r, const uint8_t *rec, uint32_t size,
		       uint64_t *off, ehelf_err *err)
{
	*off = r->pos;
	r->pos += size;
	int64_t pay = payload_size(r, rec, size, *off, err);
	if (pay < 0)
		return (int)pay;
	if ((uint64_t)pay > r->data_end - r->pos)
		return pr_fmt_err(err, r, *off, "payload of %" PRId64
			       " bytes runs past the end of the data "
			       "section", pay);
	r->pos += (uint64_t)pay;
	return 1;
}

bool pr_qbuf_room(perf_reader *r, size_t n)
{
	if (r->qcap - r->qlen >= n)
		return true;
	size_t cap = r->qcap ? r->qcap : 1u << 20;
	while (cap - r->qlen < n)
		cap *= 2;
	uint8_t *p = realloc(r->qbuf, cap);
	if (!p)
		return false;
	r->qbuf = p;
	r->qcap = cap;
	if (r->qcap2 < cap) {
		free(r->qbuf2);
		r->qbuf2 = malloc(cap);
		r->qcap2 = r->qbuf2 ? cap : 0;
		if (!r->qbuf2)
			return false;
	}
	return true;
}

/* The next record stored in the file or stream: 1 with *REC (valid until
 * the next call) and *OFF set, 0 at the end, or a negative ERR_*. */
static int next_stored(perf_reader *r, const uint8_t **rec, uint64_t *off,
		       ehelf_err *err)
{
	uint32_t size;
	if (!r->pipe && r->partial)
		return next_partial(r, rec, off, err);
	if (!r->pipe) {
		if (r->pos >= r->data_end)
			return 0;
		if (r->data_end - r->pos < 8)
			return pr_fmt_err(err, r, r->pos, "data section ends inside "
				       "a record header");
		int64_t k = stored_size(r, r->map + r->pos, err);
		if (k < 0)
			return (int)k;
		size = (uint32_t)k;
		*rec = r->map + r->pos;
		return take_stored(r, *rec, size, off, err);
	}

	if (r->skip) {
		int rc = in_skip(r, r->skip, err);
		if (rc < 0)
			return rc;
		r->skip = 0;
	}
	long k = pr_in_fill(r, 8, err);
	if (k < 0)
		return (int)k;
	if (k == 0)
		return 0;
	if (k < 8)
		return stream_cut(r, r->in_off, "stream ends inside a record "
				  "header (%ld bytes of it)", k);
	size = rd16(r->in + r->head + 6);
	if (size < 8)
		return pr_fmt_err(err, r, r->in_off, "record size %" PRIu32
			       " smaller than its header", size);
	k = pr_in_fill(r, size, err);
	if (k < 0)
		return (int)k;
	if ((uint32_t)k < size)
		return stream_cut(r, r->in_off, "stream ends inside a record "
				  "of %" PRIu32 " bytes (%ld present)", size, k);
	*rec = r->in + r->head;
	*off = r->in_off;
	r->head += size;
	r->in_off += size;
	int64_t pay = payload_size(r, *rec, size, *off, err);
	if (pay < 0)
		return (int)pay;
	r->skip = (uint64_t)pay;
	return 1;
}

int pr_next_raw(perf_reader *r, const uint8_t **rec, uint64_t *off,
		ehelf_err *err)
{
	r->rec_decomp = false;
	r->cut_full = 0;
	if (r->dc) {
		int rc;
		const uint8_t *d = decomp_next(r->dc, &rc, err);
		if (rc < 0) {
			err_prefix(err, "%s: offset %" PRIu64, r->name, r->dc_off);
			return rc;
		}
		if (d) {
			uint32_t type = rd32(d);
			if (type == REC_HEADER_TRACING_DATA || type == REC_AUXTRACE ||
			    type == REC_COMPRESSED || type == REC_COMPRESSED2)
				return err_set(err, ERR_UNSUPPORTED, "%s: offset %"
					       PRIu64 ": record of type %" PRIu32
					       " inside compressed data",
					       r->name, r->dc_off, type);
			*rec = d;
			*off = r->dc_off;
			r->rec_decomp = true;
			return 1;
		}
	}
	int rc = next_stored(r, rec, off, err);
	if (rc == 0 && decomp_pending(r->dc) && r->pipe)
		return stream_cut(r, r->dc_off, "stream ends inside a record "
				  "of compressed data (%zu bytes of it)",
				  decomp_pending(r->dc));
	if (rc == 0 && decomp_pending(r->dc))
		return pr_fmt_err(err, r, r->dc_off, "data ends inside a record of "
			       "compressed data (%zu bytes of it)",
			       decomp_pending(r->dc));
	uint32_t type = rc > 0 ? rd32(*rec) : 0;
	if (type == REC_COMPRESSED || type == REC_COMPRESSED2) {
		uint32_t size = rd16(*rec + 6), at = 8;
		uint64_t n = size - 8u;
		if (type == REC_COMPRESSED2) {
			if (size < 16 || rd64(*rec + 8) > size - 16u)
				return pr_fmt_err(err, r, *off, "COMPRESSED2 record "
					       "of %" PRIu32 " bytes with %" PRIu64
					       " bytes of data", size,
					       size < 16 ? 0 : rd64(*rec + 8));
			at = 16;
			n = rd64(*rec + 8);
		}
		if (!r->dc && !(r->dc = decomp_new()))
			return pr_nomem(err, r);
		int frc = decomp_feed(r->dc, *rec + at, (size_t)n, err);
		if (frc < 0) {
			err_prefix(err, "%s: offset %" PRIu64, r->name, *off);
			return frc;
		}
		r->dc_off = *off;
	}
	return rc;
}

/* ---- partial stacks: the window and cut samples ---------------------------------- */

/* Partial stacks: the file's bytes [OFF, OFF + N) (inside the file) into
 * *P, valid until the next call; when not in the window already, read
 * with r->partial + READ_AHEAD bytes after them (the next records, as
 * much as a sample's head and part would take).  0 or a negative ERR_*. */
static int win_get(perf_reader *r, uint64_t off, size_t n, const uint8_t **p,
		   ehelf_err *err)
{
	if (off >= r->win_off && off + n <= r->win_off + r->win_len) {
		*p = r->win + (off - r->win_off);
		return 0;
	}
	size_t want = n + r->partial + READ_AHEAD;
	if (want > r->map_size - off)
		want = (size_t)(r->map_size - off);
	size_t got = 0;
	while (got < want) {
		ssize_t k = pread(r->fd, r->win + got, want - got,
				  (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return err_set(err, ERR_IO, "%s: read: %s", r->name,
				       strerror(errno));
		if (k == 0)
			break;
		got += (size_t)k;
	}
	r->win_off = off;
	r->win_len = got;
	if (got < n)
		return pr_fmt_err(err, r, off, "file shrank under the reader");
	*p = r->win;
	return 0;
}

/* Where the stack copy of sample HEAD (whose first N bytes are there, of a
 * record of SIZE bytes) lies: 1 with *DATA (its offset in the record) and
 * *SZ (its size field) set, 0 when it has none or its fields do not fit in
 * N bytes (then decode_sample judges the whole record). */
static int stack_at(const perf_reader *r, const uint8_t *head, size_t n,
		    uint64_t *data, uint64_t *sz)
{
	const struct rattr *a;
	ehelf_err e;
	if (pr_sample_attr(r, head, (uint32_t)n, 0, &a, &e) < 0)
		return 0;
	uint64_t st = a->info.sample_type, nr;
	if (!(st & PERF_SAMPLE_STACK_USER) ||
	    (st & (PERF_SAMPLE_READ | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK)))
		return 0;  /* fields of their own sizes: the whole record */
	struct cur c = { head + 8, head + n };
	if (!cur_skip(&c, 8 * (uint64_t)__builtin_popcountll(st &
			(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD))))
		return 0;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (!cur_u64(&c, &nr) || nr > (uint64_t)(c.end - c.p) / 8)
			return 0;
		c.p += nr * 8;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		uint64_t abi;
		if (!cur_u64(&c, &abi) || (abi && !cur_skip(&c, 8 * (uint64_t)a->nregs)))
			return 0;
	}
	if (!cur_u64(&c, sz) || *sz == 0)
		return 0;
	*data = (uint64_t)(c.p - head);
	return 1;
}

/* next_stored for partial stacks: a sample with more than r->partial
 * bytes of stack copy comes cut to them (r->cut_full its dyn_size, when
 * larger), any other record whole. */
static int next_partial(perf_reader *r, const uint8_t **rec, uint64_t *off,
			ehelf_err *err)
{
	const uint8_t *h;
	r->cut_full = 0;
	if (r->pos >= r->data_end)
		return 0;
	if (r->data_end - r->pos < 8)
		return pr_fmt_err(err, r, r->pos, "data section ends inside "
			       "a record header");
	int rc = win_get(r, r->pos, 8, &h, err);
	if (rc < 0)
		return rc;
	int64_t k = stored_size(r, h, err);
	if (k < 0)
		return (int)k;
	uint32_t size = (uint32_t)k;
	uint64_t data, sz;
	/* as much of its head as the window has, within reason */
	size_t n = r->win_off + r->win_len - r->pos;
	n = n < r->partial + HEAD_MIN ? r->partial + HEAD_MIN
	    : n > r->partial + HEAD_GUESS ? r->partial + HEAD_GUESS : n;
	n = size < n ? size : n;
	if (rd32(h) == PERF_RECORD_SAMPLE && size > r->partial + 16 &&
	    (rc = win_get(r, r->pos, n, &h, err)) == 0 &&
	    stack_at(r, h, n, &data, &sz) && sz > r->partial &&
	    size - data >= sz + 8) {
		size_t keep = (size_t)data + r->partial;
		if (keep > n && (rc = win_get(r, r->pos, keep, &h, err)) < 0)
			return rc;
		/* built where enqueue would copy it: [offset][record][dyn] */
		if (!pr_qbuf_room(r, 8 + size + 8 + 8))
			return pr_nomem(err, r);
		uint8_t *cut = r->qbuf + r->qlen + 8;
		memcpy(cut, h, keep);
		size_t rest = size - (size_t)(data + sz); /* dyn_size and after */
		const uint8_t *t;
		if ((rc = win_get(r, r->pos + data + sz, rest, &t, err)) < 0)
			return rc;
		uint64_t dyn = rd64(t);
		if (dyn > sz)
			return pr_fmt_err(err, r, r->pos, "sample's STACK_USER "
				       "dyn_size %" PRIu64 " larger than its "
				       "size %" PRIu64, dyn, sz);
		uint64_t kept = r->partial, dyn_kept = dyn < kept ? dyn : kept;
		memcpy(cut + data - 8, &kept, 8);
		memcpy(cut + keep, &dyn_kept, 8);
		memcpy(cut + keep + 8, t + 8, rest - 8);
		uint16_t cut_size = (uint16_t)(keep + rest);
		memcpy(cut + 6, &cut_size, 2);
		r->cut_full = dyn > kept ? dyn : 0;
		*rec = cut;
	} else if (rc < 0) {
		return rc;
	} else if ((rc = win_get(r, r->pos, size, rec, err)) < 0) {
		return rc;
	}
	return take_stored(r, *rec, size, off, err);
}
