/*
 * perf_decode.c - a record's attribute (pr_sample_attr) and time
 * (pr_record_time), used to index it when it is read, and its decoding
 * into a perf_event when it is delivered (pr_decode); perf's own records
 * taken in when read (pr_take_in).  Every length is checked against the
 * record's bytes; arrays handed out are 8-byte aligned.
 */
#define _GNU_SOURCE
#include "perf_decode.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "perf_header.h"
#include "perf_reader_mem.h"

/* ---- records ---------------------------------------------------------------- */

int pr_sample_attr(const perf_reader *r, const uint8_t *rec,
		   uint32_t size, uint64_t off, const struct rattr **out,
		   ehelf_err *err)
{
	if (r->nattrs == 0)
		return pr_fmt_err(err, r, off, "sample before any attribute");
	const struct rattr *a0 = r->attrs[0];
	*out = a0;
	if (r->nattrs == 1)
		return 0;
	uint64_t st = a0->info.sample_type, pos;
	if (st & PERF_SAMPLE_IDENTIFIER)
		pos = 8;
	else if (st & PERF_SAMPLE_ID)
		pos = 8 + 8 * (uint64_t)__builtin_popcountll(st &
			(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_ADDR));
	else
		return 0;
	if (pos + 8 > size)
		return pr_fmt_err(err, r, off, "sample of %" PRIu32 " bytes too "
			       "short for its id", size);
	uint64_t id = rd64(rec + pos);
	long idx = pr_id_lookup(r, id);
	if (idx < 0)
		return pr_fmt_err(err, r, off, "sample id %" PRIu64 " belongs to "
			       "no attribute", id);
	*out = r->attrs[idx];
	return 0;
}

/* The attribute whose sample_id trailer non-sample kernel record REC
 * carries, or NULL when it carries none. */
static const struct rattr *trailer_attr(const perf_reader *r,
					const uint8_t *rec, uint32_t size)
{
	if (r->nattrs == 0 || !r->attrs[0]->info.sample_id_all)
		return NULL;
	const struct rattr *a = r->attrs[0];
	if (r->nattrs > 1 && (a->info.sample_type & PERF_SAMPLE_IDENTIFIER) &&
	    size >= 16) {
		long idx = pr_id_lookup(r, rd64(rec + size - 8));
		if (idx >= 0 && r->attrs[idx]->info.sample_id_all)
			a = r->attrs[idx];
	}
	return a;
}

/* Fill pid/tid/time/cpu of EV from the sample_id trailer of A at the end
 * of REC; returns the trailer's size or a negative ERR_*. */
static int parse_trailer(const perf_reader *r, const struct rattr *a,
			 const uint8_t *rec, uint32_t size, uint64_t off,
			 perf_event *ev, ehelf_err *err)
{
	if (!a)
		return 0;
	if (a->trailer > size - 8)
		return pr_fmt_err(err, r, off, "record of %" PRIu32 " bytes too "
			       "short for its %u-byte sample_id trailer", size,
			       a->trailer);
	const uint8_t *p = rec + size - a->trailer;
	uint64_t st = a->info.sample_type;
	if (st & PERF_SAMPLE_TID) {
		ev->pid = rd32(p);
		ev->tid = rd32(p + 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		ev->time = rd64(p);
		p += 8;
	}
	p += 8 * !!(st & PERF_SAMPLE_ID) + 8 * !!(st & PERF_SAMPLE_STREAM_ID);
	if (st & PERF_SAMPLE_CPU)
		ev->cpu = rd32(p);
	return (int)a->trailer;
}

int pr_record_time(const perf_reader *r, const uint8_t *rec,
		   uint32_t size, uint64_t off, uint64_t *t,
		   ehelf_err *err)
{
	uint32_t type = rd32(rec);
	*t = 0;
	if (type == PERF_RECORD_SAMPLE) {
		const struct rattr *a;
		int rc = pr_sample_attr(r, rec, size, off, &a, err);
		if (rc < 0)
			return rc;
		uint64_t st = a->info.sample_type;
		if (!(st & PERF_SAMPLE_TIME))
			return 0;
		uint64_t pos = 8 + 8 * (uint64_t)__builtin_popcountll(st &
			(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID));
		if (pos + 8 > size)
			return pr_fmt_err(err, r, off, "sample of %" PRIu32
				       " bytes too short for its time", size);
		*t = rd64(rec + pos);
	} else if (type < REC_USER_TYPE_START) {
		const struct rattr *a = trailer_attr(r, rec, size);
		if (!a || !(a->info.sample_type & PERF_SAMPLE_TIME))
			return 0;
		perf_event ev;
		ev.time = 0;
		int rc = parse_trailer(r, a, rec, size, off, &ev, err);
		if (rc < 0)
			return rc;
		*t = ev.time;
	}
	return *t != 0 && *t != UINT64_MAX;
}

/* A pointer to N u64s at P, aligned: P itself or a copy in SCRATCH. */
static const uint64_t *aligned_u64s(const uint8_t *p, uint64_t n,
				    uint64_t *scratch)
{
	if (((uintptr_t)p & 7) == 0)
		return (const uint64_t *)(const void *)p;
	memcpy(scratch, p, n * 8);
	return scratch;
}

static int decode_sample(perf_reader *r, const uint8_t *rec, uint32_t size,
			 uint64_t off, perf_event *ev, ehelf_err *err)
{
	const struct rattr *a;
	int rc = pr_sample_attr(r, rec, size, off, &a, err);
	if (rc < 0)
		return rc;
	uint64_t st = a->info.sample_type, v, nr;
	struct cur c = { rec + 8, rec + size };
	const char *field;
	ev->sample.attr = &a->info;

#define NEED(ok, name)                                                        \
	do {                                                                  \
		if (!(ok)) {                                                  \
			field = (name);                                       \
			goto short_record;                                    \
		}                                                             \
	} while (0)

	if (st & PERF_SAMPLE_IDENTIFIER)
		NEED(cur_u64(&c, &ev->sample.id), "IDENTIFIER");
	if (st & PERF_SAMPLE_IP)
		NEED(cur_u64(&c, &ev->sample.ip), "IP");
	if (st & PERF_SAMPLE_TID) {
		NEED(cur_u64(&c, &v), "TID");
		ev->pid = (uint32_t)v;
		ev->tid = (uint32_t)(v >> 32);
	}
	if (st & PERF_SAMPLE_TIME)
		NEED(cur_u64(&c, &ev->time), "TIME");
	if (st & PERF_SAMPLE_ADDR)
		NEED(cur_u64(&c, &ev->sample.addr), "ADDR");
	if (st & PERF_SAMPLE_ID)
		NEED(cur_u64(&c, &ev->sample.id), "ID");
	if (st & PERF_SAMPLE_STREAM_ID)
		NEED(cur_u64(&c, &v), "STREAM_ID");
	if (st & PERF_SAMPLE_CPU) {
		NEED(cur_u64(&c, &v), "CPU");
		ev->cpu = (uint32_t)v;
	}
	if (st & PERF_SAMPLE_PERIOD)
		NEED(cur_u64(&c, &ev->sample.period), "PERIOD");
	if (st & PERF_SAMPLE_READ) {
		uint64_t rf = a->info.read_format;
		uint64_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
				 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
		uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) +
			       !!(rf & PERF_FORMAT_LOST);
		if (rf & PERF_FORMAT_GROUP) {
			NEED(cur_u64(&c, &nr), "READ");
			NEED(cur_skip(&c, 8 * times), "READ");
			NEED(nr <= (uint64_t)(c.end - c.p) / (8 * per), "READ");
			c.p += nr * per * 8;
		} else {
			NEED(cur_skip(&c, 8 * (per + times)), "READ");
		}
	}
	ev->sample.chain_at = (uint32_t)(c.p - rec);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		NEED(cur_u64(&c, &nr), "CALLCHAIN");
		NEED(nr <= (uint64_t)(c.end - c.p) / 8, "CALLCHAIN");
		ev->sample.nr = nr;
		ev->sample.callchain = nr ? aligned_u64s(c.p, nr,
							 r->chain_scratch)
					  : NULL;
		c.p += nr * 8;
	}
	ev->sample.chain_end = (uint32_t)(c.p - rec);
	if (st & PERF_SAMPLE_RAW) {
		NEED(c.end - c.p >= 4, "RAW");
		uint32_t raw = rd32(c.p);
		c.p += 4;
		NEED(cur_skip(&c, raw), "RAW");
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		NEED(cur_u64(&c, &nr), "BRANCH_STACK");
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			NEED(cur_skip(&c, 8), "BRANCH_STACK");
		NEED(nr <= (uint64_t)(c.end - c.p) / 24, "BRANCH_STACK");
		c.p += nr * 24;
	}
	ev->sample.regs_at = (uint32_t)(c.p - rec);
	if (st & PERF_SAMPLE_REGS_USER) {
		NEED(cur_u64(&c, &ev->sample.regs_abi), "REGS_USER");
		if (ev->sample.regs_abi) {
			uint64_t n = a->nregs;
			NEED(n <= (uint64_t)(c.end - c.p) / 8, "REGS_USER");
			ev->sample.regs_mask = a->info.sample_regs_user;
			/* after the callchain in the same scratch buffer */
			ev->sample.regs = n ? aligned_u64s(c.p, n,
					r->chain_scratch + MAX_RECORD / 8)
					    : NULL;
			c.p += n * 8;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t sz, dyn;
		NEED(cur_u64(&c, &sz), "STACK_USER");
		if (sz) {
			const uint8_t *data = c.p;
			NEED(cur_skip(&c, sz), "STACK_USER");
			NEED(cur_u64(&c, &dyn), "STACK_USER dyn_size");
			if (dyn > sz)
				return pr_fmt_err(err, r, off, "sample's STACK_USER "
					       "dyn_size %" PRIu64 " larger than "
					       "its size %" PRIu64, dyn, sz);
			ev->sample.stack = dyn ? data : NULL;
			ev->sample.stack_size = dyn;
			ev->sample.stack_full = dyn;
			r->stack_at = (uint64_t)(data - rec);
		}
	}
	ev->sample.tail_at = (uint32_t)(c.p - rec);
	return 0;
#undef NEED

short_record:
	return pr_fmt_err(err, r, off, "sample of %" PRIu32 " bytes ends inside "
		       "its %s field", size, field);
}

/* A NUL-terminated string at P[0, N), or NULL. */
static const char *bounded_str(const uint8_t *p, size_t n)
{
	return memchr(p, '\0', n) ? (const char *)p : NULL;
}

int pr_decode(perf_reader *r, const uint8_t *rec, uint64_t off,
	      perf_event *ev, ehelf_err *err)
{
	uint32_t size = rd16(rec + 6);
	if ((uintptr_t)rec & 7) {
		memcpy(r->scratch, rec, size);
		rec = r->scratch;
	}
	memset(ev, 0, sizeof *ev);
	ev->rec = rec;
	ev->type = rd32(rec);
	ev->misc = rd16(rec + 4);
	ev->size = size;
	ev->offset = off;
	ev->kind = PERF_EV_OTHER;
	if (ev->type == PERF_RECORD_SAMPLE) {
		ev->kind = PERF_EV_SAMPLE;
		return decode_sample(r, rec, size, off, ev, err);
	}
	if (ev->type >= REC_USER_TYPE_START)
		return 0;

	int tr = parse_trailer(r, trailer_attr(r, rec, size), rec, size, off,
			       ev, err);
	if (tr < 0)
		return tr;
	size_t body = size - (uint32_t)tr; /* bytes before the trailer */
	const char *s;
	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		size_t fixed = ev->type == PERF_RECORD_MMAP ? 40 : 72;
		if (body < fixed + 1)
			return pr_fmt_err(err, r, off, "%s record of %" PRIu32
				       " bytes too short", ev->type ==
				       PERF_RECORD_MMAP ? "MMAP" : "MMAP2",
				       size);
		s = bounded_str(rec + fixed, body - fixed);
		if (!s)
			return pr_fmt_err(err, r, off, "MMAP file name without "
				       "its terminating NUL");
		ev->kind = PERF_EV_MMAP;
		ev->pid = rd32(rec + 8);
		ev->tid = rd32(rec + 12);
		ev->mmap.start = rd64(rec + 16);
		ev->mmap.len = rd64(rec + 24);
		ev->mmap.pgoff = rd64(rec + 32);
		ev->mmap.filename = s;
		if (ev->type == PERF_RECORD_MMAP) {
			ev->mmap.exec = !(ev->misc & PERF_RECORD_MISC_MMAP_DATA);
			break;
		}
		ev->mmap.prot = rd32(rec + 64);
		ev->mmap.flags = rd32(rec + 68);
		/* the kernel marks a mapping without VM_EXEC as data; perf's
		 * own kernel map has prot 0 */
		ev->mmap.exec = (ev->mmap.prot & PROT_EXEC) ||
				!(ev->misc & PERF_RECORD_MISC_MMAP_DATA);
		if (ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t n = rec[40];
			if (n > BUILD_ID_MAX)
				return pr_fmt_err(err, r, off, "MMAP2 build-ID "
					       "size %u larger than %d", n,
					       BUILD_ID_MAX);
			ev->mmap.build_id = n ? rec + 44 : NULL;
			ev->mmap.build_id_len = n;
		}
		break;
	}
	case PERF_RECORD_COMM:
		if (body < 17 || !(s = bounded_str(rec + 16, body - 16)))
			return pr_fmt_err(err, r, off, "COMM record of %" PRIu32
				       " bytes without a NUL-terminated name",
				       size);
		ev->kind = PERF_EV_COMM;
		ev->pid = rd32(rec + 8);
		ev->tid = rd32(rec + 12);
		ev->comm.comm = s;
		ev->comm.exec = ev->misc & PERF_RECORD_MISC_COMM_EXEC;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (body < 32)
			return pr_fmt_err(err, r, off, "%s record of %" PRIu32
				       " bytes too short", ev->type ==
				       PERF_RECORD_FORK ? "FORK" : "EXIT",
				       size);
		ev->kind = ev->type == PERF_RECORD_FORK ? PERF_EV_FORK
							: PERF_EV_EXIT;
		ev->pid = rd32(rec + 8);
		ev->task.ppid = rd32(rec + 12);
		ev->tid = rd32(rec + 16);
		ev->task.ptid = rd32(rec + 20);
		if (!ev->time)
			ev->time = rd64(rec + 24);
		break;
	}
	return 0;
}

int pr_take_in(perf_reader *r, const uint8_t *rec, uint64_t off,
	       ehelf_err *err)
{
	uint32_t type = rd32(rec), size = rd16(rec + 6);
	switch (type) {
	case REC_HEADER_ATTR: {
		if (!r->pipe)
			return 0; /* the file header's attributes rule */
		if (size < 8 + PERF_ATTR_SIZE_VER0)
			return pr_fmt_err(err, r, off, "HEADER_ATTR record of %"
				       PRIu32 " bytes", size);
		uint32_t asz = rd32(rec + 12);
		if (asz == 0)
			asz = PERF_ATTR_SIZE_VER0;
		if (asz > size - 8)
			return pr_fmt_err(err, r, off, "HEADER_ATTR attr size %"
				       PRIu32 " in a record of %" PRIu32
				       " bytes", asz, size);
		return pr_add_attr(r, rec + 8, asz, rec + 8 + asz,
				(size - 8 - asz) / 8, err);
	}
	case REC_HEADER_BUILD_ID:
		return pr_add_build_id(r, rec, size, off, err);
	case REC_HEADER_FEATURE: {
		if (size < 16)
			return pr_fmt_err(err, r, off, "HEADER_FEATURE record of %"
				       PRIu32 " bytes", size);
		uint64_t feat = rd64(rec + 8);
		if (feat == FEAT_BUILD_ID)
			return pr_parse_build_ids(r, rec + 16, size - 16, off + 16,
					       err);
		if (feat == FEAT_EVENT_DESC)
			return pr_parse_event_desc(r, rec + 16, size - 16,
						off + 16, err);
		return 0;
	}
	case REC_EVENT_UPDATE: {
		if (size < 24)
			return pr_fmt_err(err, r, off, "EVENT_UPDATE record of %"
				       PRIu32 " bytes", size);
		if (rd64(rec + 8) != EVENT_UPDATE_NAME)
			return 0;
		long idx = pr_id_lookup(r, rd64(rec + 16));
		if (idx >= 0)
			pr_set_name(r, r->attrs[idx], rec + 24, size - 24,
				 NAME_UPDATE);
		return 0;
	}
	}
	return 0;
}
