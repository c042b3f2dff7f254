/*
 * perf_queue.c - the ordered-events queue and perf_reader_next.
 *
 * Ordering is that of perf's ordered-events queue, so that samples come out
 * in exactly the order `perf script` prints them:
 *
 *   - a record with a time (a sample with PERF_SAMPLE_TIME, another kernel
 *     record with a sample_id trailer carrying a time) joins the queue;
 *     times 0 and ~0 count as no time;
 *   - a record without one (and every record of perf's own, type >= 64) is
 *     delivered when it is read: after everything already released, before
 *     what is still queued;
 *   - at a FINISHED_ROUND the queue, sorted by time (ties in file order), is
 *     released up to the largest time queued before the previous
 *     FINISHED_ROUND; the rest waits for the next round (perf record may
 *     write a record of round N+1 that happened before one of round N);
 *     then the FINISHED_ROUND record itself is delivered;
 *   - at the end everything left is released, sorted.
 *
 * The queue holds 16-byte index entries (time, position), sorted with a
 * stable merge sort that costs little on the nearly sorted input perf
 * writes; records stored in the file are never moved in file mode.
 */
#define _GNU_SOURCE
#include "perf_data.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf_decode.h"
#include "perf_input.h"
#include "perf_reader_mem.h"

/* ---- ordering ------------------------------------------------------------------ */

/* Stable merge sort of A[0, N) by time; TMP holds N / 2 + 1 entries. */
static void sort_queue(struct qent *a, size_t n, struct qent *tmp)
{
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			struct qent e = a[i];
			size_t j = i;
			while (j > 0 && a[j - 1].time > e.time) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = e;
		}
		return;
	}
	size_t m = n / 2;
	sort_queue(a, m, tmp);
	sort_queue(a + m, n - m, tmp);
	if (a[m - 1].time <= a[m].time)
		return;
	memcpy(tmp, a, m * sizeof *a);
	size_t i = 0, j = m, k = 0;
	while (i < m && j < n)
		a[k++] = tmp[i].time <= a[j].time ? tmp[i++] : a[j++];
	while (i < m)
		a[k++] = tmp[i++];
}

/* Sort the queue and release its entries up to time LIMIT (all for
 * UINT64_MAX). */
static int release(perf_reader *r, uint64_t limit, ehelf_err *err)
{
	if (r->qn > 1) {
		if (!pr_reserve(&r->qtmp, &r->qtmp_cap, r->qn / 2 + 1,
			     sizeof *r->qtmp))
			return pr_nomem(err, r);
		sort_queue(r->q, r->qn, r->qtmp);
	}
	size_t lo = 0, hi = r->qn;  /* first entry past LIMIT */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->q[mid].time <= limit)
			lo = mid + 1;
		else
			hi = mid;
	}
	r->out_pos = 0;
	r->out_n = lo;
	return 0;
}

/* Drop the delivered entries; the records still queued in the queue buffer
 * (pipe mode: all) move to the front of a fresh one. */
static void drop_delivered(perf_reader *r)
{
	if (!r->out_n)
		return;
	size_t left = r->qn - r->out_n;
	memmove(r->q, r->q + r->out_n, left * sizeof *r->q);
	r->qn = left;
	r->out_pos = r->out_n = 0;
	if (!r->qlen)
		return;
	bool in_qbuf = false;
	for (size_t i = 0; i < left && !in_qbuf; i++)
		in_qbuf = r->pipe || (r->q[i].pos & QPOS_BUF);
	if (!in_qbuf) {
		r->qlen = 0;
		return;
	}
	/* the survivors stay where they are until QBUF_KEEP bytes are used
	 * (moving them each time cost a copy of every record; a larger
	 * part of the buffer, a page fault for each of its pages) */
	if (r->qlen <= QBUF_KEEP)
		return;
	/* nor while they hold a quarter of the buffer or more: each byte is
	 * then moved a third of a time on average, where moving them at each
	 * round moved most records once or more (a round's records come
	 * after the previous round's survivors) */
	size_t live = 0;
	for (size_t i = 0; i < left; i++)
		if (r->pipe || (r->q[i].pos & QPOS_BUF)) {
			const uint8_t *p = r->qbuf + (r->q[i].pos & ~(QPOS_BUF | QPOS_CUT));
			live += 8 + ((rd16(p + 8 + 6) + 7u) & ~7u) +
				((r->q[i].pos & QPOS_CUT) ? 8 : 0);
		}
	if (4 * live > r->qlen)
		return;
	/* qbuf2 was sized like qbuf when qbuf last grew: the survivors fit */
	size_t len = 0;
	for (size_t i = 0; i < left; i++) {
		if (!r->pipe && !(r->q[i].pos & QPOS_BUF))
			continue; /* in the map */
		uint64_t cut = r->q[i].pos & QPOS_CUT;
		const uint8_t *p = r->qbuf + (r->q[i].pos & ~(QPOS_BUF | QPOS_CUT));
		size_t n = 8 + ((rd16(p + 8 + 6) + 7u) & ~7u) + (cut ? 8 : 0);
		memcpy(r->qbuf2 + len, p, n);
		r->q[i].pos = len | (r->pipe ? 0 : QPOS_BUF) | cut;
		len += n;
	}
	uint8_t *t = r->qbuf;
	r->qbuf = r->qbuf2;
	r->qbuf2 = t;
	size_t c = r->qcap;
	r->qcap = r->qcap2;
	r->qcap2 = c;
	r->qlen = len;
}

static int enqueue(perf_reader *r, const uint8_t *rec, uint64_t off,
		   uint64_t t, ehelf_err *err)
{
	if (!pr_reserve(&r->q, &r->qcap_ent, r->qn + 1, sizeof *r->q))
		return pr_nomem(err, r);
	/* perf's queue: the largest time queued, restarting when empty */
	if (r->qn == 0 || t >= r->max_time)
		r->max_time = t;
	uint64_t pos = off;
	if (r->pipe || r->rec_decomp || r->partial) { /* a copy: REC does not stay */
		uint32_t size = rd16(rec + 6);
		size_t n = 8 + ((size + 7u) & ~7u) + (r->cut_full ? 8 : 0);
		/* a record next_partial built in place stays there */
		bool in_place = rec == r->qbuf + r->qlen + 8;
		if (!pr_qbuf_room(r, n))
			return pr_nomem(err, r);
		uint8_t *d = r->qbuf + r->qlen;
		memcpy(d, &off, 8);
		if (!in_place)
			memcpy(d + 8, rec, size);
		memset(d + 8 + size, 0, n - 8 - size);
		if (r->cut_full)
			memcpy(d + n - 8, &r->cut_full, 8);
		pos = r->qlen | (r->pipe ? 0 : QPOS_BUF) |
		      (r->cut_full ? QPOS_CUT : 0);
		r->qlen += n;
	}
	r->q[r->qn].time = t;
	r->q[r->qn].pos = pos;
	r->qn++;
	return 0;
}

/* Read records until one must be delivered: a record without a time, a
 * FINISHED_ROUND (after what it releases), or the end of the data. */
/* File mode through the mapping: the pages of the records read and
 * delivered, that no queued record lies in, given back (MADV_DONTNEED,
 * every 4 MiB read): the mapping's resident pages do not grow with the
 * file. */
static void drop_read_pages(perf_reader *r)
{
	enum { DROP_STEP = 4u << 20 };
	if (r->pipe || r->partial || !r->map || r->pos < r->dropped + 2 * DROP_STEP)
		return;
	uint64_t low = r->pos;
	for (size_t i = r->out_pos; i < r->qn; i++)
		if (!(r->q[i].pos & QPOS_BUF) && r->q[i].pos < low)
			low = r->q[i].pos;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t end = low / (uint64_t)page * (uint64_t)page;
	if (end < r->dropped + DROP_STEP)
		return;
	madvise((void *)(uintptr_t)(r->map + r->dropped), (size_t)(end - r->dropped),
		MADV_DONTNEED);
	r->dropped = end;
}

static int read_more(perf_reader *r, ehelf_err *err)
{
	drop_delivered(r);
	drop_read_pages(r);
	for (;;) {
		const uint8_t *rec = NULL;
		uint64_t off = 0, t;
		int rc = pr_next_raw(r, &rec, &off, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			r->finished = true;
			return release(r, UINT64_MAX, err);
		}
		uint32_t type = rd32(rec);
		if (type >= REC_USER_TYPE_START && off >= r->pre_end) {
			rc = pr_take_in(r, rec, off, err);
			if (rc < 0)
				return rc;
		}
		if (type == REC_FINISHED_ROUND) {
			r->imm = rec;
			r->imm_off = off;
			r->imm_full = 0;
			if (r->qn == 0)
				return 0;
			rc = release(r, r->next_flush, err);
			r->next_flush = r->max_time;
			return rc;
		}
		rc = pr_record_time(r, rec, rd16(rec + 6), off, &t, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			r->imm = rec;
			r->imm_off = off;
			r->imm_full = r->cut_full;
			return 0;
		}
		rc = enqueue(r, rec, off, t, err);
		if (rc < 0)
			return rc;
	}
}

int perf_reader_next(perf_reader *r, perf_event *ev, ehelf_err *err)
{
	if (r->failed)
		return err_set(err, ERR_ARG, "%s: reader used after an error",
			       r->name);
	r->started = true;
	for (;;) {
		const uint8_t *rec = NULL;
		uint64_t off = 0, full = 0;
		if (r->out_pos < r->out_n) {
			const struct qent *e = &r->q[r->out_pos++];
			if (r->pipe || (e->pos & QPOS_BUF)) {
				uint64_t at = e->pos & ~(QPOS_BUF | QPOS_CUT);
				memcpy(&off, r->qbuf + at, 8);
				rec = r->qbuf + at + 8;
				if (e->pos & QPOS_CUT)
					memcpy(&full, rec + ((rd16(rec + 6) + 7u) & ~7u), 8);
			} else {
				off = e->pos;
				rec = r->map + e->pos;
			}
		} else if (r->imm) {
			rec = r->imm;
			off = r->imm_off;
			full = r->imm_full;
			r->imm = NULL;
		} else if (r->finished) {
			return 0;
		}
		int rc = rec ? pr_decode(r, rec, off, ev, err)
			     : read_more(r, err);
		if (rc < 0) {
			r->failed = true;
			return rc;
		}
		if (rec && full && ev->sample.stack) {
			/* cut: the layout before the copy is the record's */
			ev->sample.stack_file = off + r->stack_at;
			ev->sample.stack_full = full;
		}
		if (rec)
			return 1;
	}
}
