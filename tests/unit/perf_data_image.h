/*
 * perf_data_image.h - perf.data images built byte by byte for the tests of
 * the perf.data reader (test_perf_data*.c), from the documented layouts
 * (file header, attributes with ids, data section, feature table; pipe
 * header and HEADER_ATTR / HEADER_FEATURE / HEADER_BUILD_ID records), and
 * their reading back: from a temporary file (tmp_path, made by
 * image_tmp_begin) in file mode, in pipe mode from the file, and in pipe
 * mode through a real pipe on standard input.  Checks count in the
 * including test's unit.h counters (everything here is static inline).
 */
#ifndef EHELF_TESTS_PERF_DATA_IMAGE_H
#define EHELF_TESTS_PERF_DATA_IMAGE_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "../../testkit/xorshift.h"
#include "../../tools/ehelf-perf/perfdata/perf_data.h"
#include "unit.h"

/* perf's own record types */
enum {
	R_HEADER_ATTR = 64,
	R_TRACING_DATA = 66,
	R_HEADER_BUILD_ID = 67,
	R_FINISHED_ROUND = 68,
	R_AUXTRACE = 71,
	R_THREAD_MAP = 73,
	R_EVENT_UPDATE = 78,
	R_HEADER_FEATURE = 80,
	R_COMPRESSED = 81,
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static inline uint64_t rnd(void)
{
	return xorshift64(&rng);
}

/* ---- building images ------------------------------------------------------ */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

/* Append N bytes from D (zeros when D is NULL). */
static inline void put(struct buf *b, const void *d, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			abort();
		b->cap = cap;
	}
	if (d)
		memcpy(b->p + b->len, d, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

static inline void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static inline void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }

static inline size_t rec_begin(struct buf *b, uint32_t type, uint16_t misc)
{
	size_t at = b->len;
	put32(b, type);
	put(b, &misc, 2);
	put(b, NULL, 2);
	return at;
}

static inline void rec_end(struct buf *b, size_t at)
{
	uint16_t n = (uint16_t)(b->len - at);
	memcpy(b->p + at + 6, &n, 2);
}

/* A NUL-terminated string padded to 8 bytes. */
static inline void put_str8(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	put(b, s, n);
	put(b, NULL, (8 - n % 8) % 8);
}

struct tattr {
	struct perf_event_attr a;
	uint64_t ids[3];
	unsigned nids;
	const char *desc;       /* name in the EVENT_DESC feature, or NULL */
};

static inline struct tattr mk_attr(uint32_t type, uint64_t config, uint64_t st,
				   uint64_t id)
{
	struct tattr t;
	memset(&t, 0, sizeof t);
	t.a.type = type;
	t.a.size = sizeof t.a;
	t.a.config = config;
	t.a.sample_type = st;
	t.a.sample_id_all = 1;
	if (id) {
		t.ids[0] = id;
		t.ids[1] = id + 1000000;  /* a second cpu's id */
		t.nids = 2;
	}
	return t;
}

/* The sample_id trailer of non-sample records. */
struct sid {
	uint32_t pid, tid, cpu;
	uint64_t time, id;
};

static inline void put_trailer(struct buf *b, const struct tattr *t,
			       const struct sid *s)
{
	uint64_t st = t->a.sample_type;
	if (!t->a.sample_id_all)
		return;
	if (st & PERF_SAMPLE_TID) {
		put32(b, s->pid);
		put32(b, s->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		put64(b, s->time);
	if (st & PERF_SAMPLE_ID)
		put64(b, s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put64(b, 0x5757);
	if (st & PERF_SAMPLE_CPU) {
		put32(b, s->cpu);
		put32(b, 0);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		put64(b, s->id);
}

static inline void put_comm(struct buf *b, const struct tattr *t, uint32_t pid,
			    uint32_t tid, const char *comm, bool exec,
			    const struct sid *s)
{
	size_t at = rec_begin(b, PERF_RECORD_COMM,
			      exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	put32(b, pid);
	put32(b, tid);
	put_str8(b, comm);
	put_trailer(b, t, s);
	rec_end(b, at);
}

static inline void put_mmap(struct buf *b, const struct tattr *t, uint32_t pid,
			    uint64_t start, uint64_t len, uint64_t pgoff, bool data,
			    const char *file, const struct sid *s)
{
	size_t at = rec_begin(b, PERF_RECORD_MMAP,
			      data ? PERF_RECORD_MISC_MMAP_DATA : 0);
	put32(b, pid);
	put32(b, pid);
	put64(b, start);
	put64(b, len);
	put64(b, pgoff);
	put_str8(b, file);
	put_trailer(b, t, s);
	rec_end(b, at);
}

static inline void put_mmap2(struct buf *b, const struct tattr *t, uint32_t pid,
			     uint32_t tid, uint64_t start, uint64_t len,
			     uint64_t pgoff, uint32_t prot, const uint8_t *bid,
			     uint8_t bid_len, const char *file, const struct sid *s)
{
	/* like the kernel: a mapping without PROT_EXEC is data */
	uint16_t misc = prot && !(prot & PROT_EXEC)
		? PERF_RECORD_MISC_MMAP_DATA : 0;
	size_t at = rec_begin(b, PERF_RECORD_MMAP2, misc |
			      (bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	put32(b, pid);
	put32(b, tid);
	put64(b, start);
	put64(b, len);
	put64(b, pgoff);
	if (bid) {
		uint8_t id[24] = { bid_len };
		memcpy(id + 4, bid, bid_len);
		put(b, id, 24);
	} else {
		put32(b, 8);            /* maj, min, ino, ino_generation */
		put32(b, 1);
		put64(b, 4242);
		put64(b, 0);
	}
	put32(b, prot);
	put32(b, MAP_PRIVATE);
	put_str8(b, file);
	put_trailer(b, t, s);
	rec_end(b, at);
}

static inline void put_task(struct buf *b, const struct tattr *t, uint32_t type,
			    uint32_t pid, uint32_t ppid, uint64_t time,
			    const struct sid *s)
{
	size_t at = rec_begin(b, type, 0);
	put32(b, pid);
	put32(b, ppid);
	put32(b, pid + 1);
	put32(b, ppid + 1);
	put64(b, time);
	put_trailer(b, t, s);
	rec_end(b, at);
}

static inline void put_round(struct buf *b)
{
	rec_end(b, rec_begin(b, R_FINISHED_ROUND, 0));
}

struct tsample {
	uint64_t id, ip, time, addr, period;
	uint32_t pid, tid, cpu;
	uint64_t nr, chain[6];
	uint64_t read_nr;       /* group members (PERF_FORMAT_GROUP) */
	uint32_t raw_size;
	uint64_t nbranch;
	uint64_t abi;
	uint64_t stack_size, dyn_size;
};

static inline uint64_t reg_value(const struct tsample *s, int bit)
{
	return s->ip * 3 + (uint64_t)bit;
}

static inline uint8_t stack_byte(const struct tsample *s, uint64_t i)
{
	return (uint8_t)(i * 7 + s->ip);
}

static inline void put_sample(struct buf *b, const struct tattr *t,
			      const struct tsample *s)
{
	uint64_t st = t->a.sample_type, rf = t->a.read_format;
	size_t at = rec_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	if (st & PERF_SAMPLE_IDENTIFIER)
		put64(b, s->id);
	if (st & PERF_SAMPLE_IP)
		put64(b, s->ip);
	if (st & PERF_SAMPLE_TID) {
		put32(b, s->pid);
		put32(b, s->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		put64(b, s->time);
	if (st & PERF_SAMPLE_ADDR)
		put64(b, s->addr);
	if (st & PERF_SAMPLE_ID)
		put64(b, s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put64(b, 0x5757);
	if (st & PERF_SAMPLE_CPU) {
		put32(b, s->cpu);
		put32(b, 0);
	}
	if (st & PERF_SAMPLE_PERIOD)
		put64(b, s->period);
	if (st & PERF_SAMPLE_READ) {
		uint64_t n = rf & PERF_FORMAT_GROUP ? s->read_nr : 1;
		if (rf & PERF_FORMAT_GROUP)
			put64(b, n);
		else
			put64(b, 0xaaaa);     /* value */
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			put64(b, 0xeeee);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			put64(b, 0xffff);
		for (uint64_t i = 0; i < n; i++) {
			if (rf & PERF_FORMAT_GROUP)
				put64(b, 0xaaaa + i);
			if (rf & PERF_FORMAT_ID)
				put64(b, 0xbbbb);
			if (rf & PERF_FORMAT_LOST)
				put64(b, 0xcccc);
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put64(b, s->nr);
		put(b, s->chain, 8 * s->nr);
	}
	if (st & PERF_SAMPLE_RAW) {
		put32(b, s->raw_size);
		for (uint32_t i = 0; i < s->raw_size; i++)
			put(b, "R", 1);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		put64(b, s->nbranch);
		if (t->a.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			put64(b, UINT64_MAX);
		for (uint64_t i = 0; i < 3 * s->nbranch; i++)
			put64(b, 0xb0 + i);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		put64(b, s->abi);
		for (int bit = 0; s->abi && bit < 64; bit++)
			if (t->a.sample_regs_user >> bit & 1)
				put64(b, reg_value(s, bit));
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		put64(b, s->stack_size);
		for (uint64_t i = 0; i < s->stack_size; i++) {
			uint8_t v = stack_byte(s, i);
			put(b, &v, 1);
		}
		if (s->stack_size)
			put64(b, s->dyn_size);
	}
	if (st & PERF_SAMPLE_WEIGHT)
		put64(b, 0x77);         /* a later field: skipped */
	rec_end(b, at);
}

/* Check the decoded sample EV against what T and S wrote. */
static inline void check_sample(const perf_event *ev, const struct tattr *t,
				const struct tsample *s)
{
	uint64_t st = t->a.sample_type;
	CHECK(ev->kind == PERF_EV_SAMPLE);
	CHECK_U64(ev->type, PERF_RECORD_SAMPLE);
	CHECK_U64(ev->misc, PERF_RECORD_MISC_USER);
	CHECK_U64(ev->sample.ip, st & PERF_SAMPLE_IP ? s->ip : 0);
	CHECK_U64(ev->pid, st & PERF_SAMPLE_TID ? s->pid : 0);
	CHECK_U64(ev->tid, st & PERF_SAMPLE_TID ? s->tid : 0);
	CHECK_U64(ev->time, st & PERF_SAMPLE_TIME ? s->time : 0);
	CHECK_U64(ev->sample.addr, st & PERF_SAMPLE_ADDR ? s->addr : 0);
	CHECK_U64(ev->sample.id, st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)
				 ? s->id : 0);
	CHECK_U64(ev->cpu, st & PERF_SAMPLE_CPU ? s->cpu : 0);
	CHECK_U64(ev->sample.period, st & PERF_SAMPLE_PERIOD ? s->period : 0);
	uint64_t nr = st & PERF_SAMPLE_CALLCHAIN ? s->nr : 0;
	CHECK_U64(ev->sample.nr, nr);
	CHECK(nr == 0 || ((uintptr_t)ev->sample.callchain & 7) == 0);
	for (uint64_t i = 0; i < nr && ev->sample.callchain; i++)
		CHECK_U64(ev->sample.callchain[i], s->chain[i]);
	uint64_t abi = st & PERF_SAMPLE_REGS_USER ? s->abi : 0;
	CHECK_U64(ev->sample.regs_abi, abi);
	CHECK_U64(ev->sample.regs_mask, abi ? t->a.sample_regs_user : 0);
	CHECK((abi && t->a.sample_regs_user) == (ev->sample.regs != NULL));
	CHECK(!ev->sample.regs || ((uintptr_t)ev->sample.regs & 7) == 0);
	for (int bit = 0, k = 0; ev->sample.regs && bit < 64; bit++)
		if (t->a.sample_regs_user >> bit & 1)
			CHECK_U64(ev->sample.regs[k++], reg_value(s, bit));
	uint64_t dyn = st & PERF_SAMPLE_STACK_USER && s->stack_size
		? s->dyn_size : 0;
	CHECK_U64(ev->sample.stack_size, dyn);
	CHECK((dyn != 0) == (ev->sample.stack != NULL));
	for (uint64_t i = 0; ev->sample.stack && i < dyn; i++)
		if (ev->sample.stack[i] != stack_byte(s, i)) {
			CHECK(!"stack bytes differ");
			break;
		}
	CHECK(ev->sample.attr != NULL);
	if (ev->sample.attr)
		CHECK_U64(ev->sample.attr->sample_type, st);
}

/* One build_id_event (a HEADER_BUILD_ID record, as in the feature). */
static inline void put_build_id(struct buf *b, int32_t pid, const uint8_t *id,
				uint8_t len, bool size_flag, const char *file)
{
	size_t at = rec_begin(b, R_HEADER_BUILD_ID, PERF_RECORD_MISC_USER |
			      (size_flag ? 1u << 15 : 0));
	uint8_t raw[24] = { 0 };
	memcpy(raw, id, len);
	if (size_flag)
		raw[20] = len;
	put32(b, (uint32_t)pid);
	put(b, raw, 24);
	put_str8(b, file);
	rec_end(b, at);
}

static inline void put_event_desc(struct buf *b, const struct tattr *ta, unsigned n)
{
	put32(b, n);
	put32(b, sizeof ta->a);
	for (unsigned i = 0; i < n; i++) {
		const char *name = ta[i].desc ? ta[i].desc : "";
		size_t len = (strlen(name) + 1 + 7) & ~(size_t)7;
		put(b, &ta[i].a, sizeof ta[i].a);
		put32(b, ta[i].nids);
		put32(b, (uint32_t)len);
		put(b, name, strlen(name));
		put(b, NULL, len - strlen(name));
		put(b, ta[i].ids, 8 * ta[i].nids);
	}
}

/* A perf.data file: header, ids, attributes, DATA, feature table and the
 * features (HOSTNAME always, BUILD_ID when BIDS, EVENT_DESC when DESC). */
static inline void make_file(struct buf *out, const struct tattr *ta, unsigned n,
			     const struct buf *data, const struct buf *bids, bool desc)
{
	out->len = 0;
	uint64_t asz = sizeof ta->a + 16, ids_len = 0;
	for (unsigned i = 0; i < n; i++)
		ids_len += 8 * ta[i].nids;
	uint64_t ids_off = 104, attrs_off = ids_off + ids_len;
	uint64_t data_off = attrs_off + n * asz;
	uint64_t table_off = data_off + data->len;
	uint64_t bits = 1u << 3; /* HOSTNAME */
	if (bids)
		bits |= 1u << 2;
	if (desc)
		bits |= 1u << 12;
	put(out, "PERFILE2", 8);
	put64(out, 104);
	put64(out, asz);
	put64(out, attrs_off);
	put64(out, n * asz);
	put64(out, data_off);
	put64(out, data->len);
	put64(out, 0);
	put64(out, 0);
	put64(out, bits);
	put(out, NULL, 24);
	for (unsigned i = 0; i < n; i++)
		put(out, ta[i].ids, 8 * ta[i].nids);
	for (unsigned i = 0, k = 0; i < n; i++) {
		put(out, &ta[i].a, sizeof ta[i].a);
		put64(out, ids_off + 8 * k);
		put64(out, 8 * ta[i].nids);
		k += ta[i].nids;
	}
	put(out, data->p, data->len);

	struct buf feat = { 0 }, host = { 0 }, ed = { 0 };
	put32(&host, 8);
	put(&host, "testhost", 8);
	if (desc)
		put_event_desc(&ed, ta, n);
	int nfeat = __builtin_popcountll(bits);
	uint64_t at = table_off + 16 * (uint64_t)nfeat;
	for (int bit = 0; bit < 64; bit++) { /* in bit order */
		const struct buf *f = bit == 2 ? bids : bit == 3 ? &host
				    : bit == 12 ? &ed : NULL;
		if (!(bits >> bit & 1))
			continue;
		put64(out, at);
		put64(out, f->len);
		at += f->len;
	}
	for (int bit = 0; bit < 64; bit++) {
		const struct buf *f = bit == 2 ? bids : bit == 3 ? &host
				    : bit == 12 ? &ed : NULL;
		if (bits >> bit & 1)
			put(out, f->p, f->len);
	}
	free(feat.p);
	free(host.p);
	free(ed.p);
}

/* The same in pipe mode: header, HEADER_ATTR records, a HOSTNAME feature
 * record of odd size (everything after it is misaligned), EVENT_DESC when
 * DESC, DATA, then the build-ID records. */
static inline void make_pipe(struct buf *out, const struct tattr *ta, unsigned n,
			     const struct buf *data, const struct buf *bids, bool desc)
{
	out->len = 0;
	put(out, "PERFILE2", 8);
	put64(out, 16);
	for (unsigned i = 0; i < n; i++) {
		size_t at = rec_begin(out, R_HEADER_ATTR, 0);
		put(out, &ta[i].a, sizeof ta[i].a);
		put(out, ta[i].ids, 8 * ta[i].nids);
		rec_end(out, at);
	}
	size_t at = rec_begin(out, R_HEADER_FEATURE, 0);
	put64(out, 3);
	put32(out, 5);
	put(out, "host", 5);
	rec_end(out, at);
	if (desc) {
		at = rec_begin(out, R_HEADER_FEATURE, 0);
		put64(out, 12);
		put_event_desc(out, ta, n);
		rec_end(out, at);
	}
	put(out, data->p, data->len);
	if (bids)
		put(out, bids->p, bids->len);
}

/* ---- reading ------------------------------------------------------------------- */

static char tmp_path[4096];

static inline void write_file(const void *p, size_t n)
{
	int fd = open(tmp_path, O_WRONLY | O_TRUNC | O_CREAT, 0600);
	if (fd < 0 || write(fd, p, n) != (ssize_t)n) {
		perror(tmp_path);
		exit(1);
	}
	close(fd);
}

/* What a test remembers of an event (pointers die with the next call). */
struct sum {
	int kind;
	uint32_t type, pid, tid, cpu;
	uint64_t time, ip, nr, abi, stack_size, chain0, len;
	char str[48];
};

static inline void summarize(const perf_event *ev, struct sum *s)
{
	memset(s, 0, sizeof *s);
	s->kind = ev->kind;
	s->type = ev->type;
	s->pid = ev->pid;
	s->tid = ev->tid;
	s->cpu = ev->cpu;
	s->time = ev->time;
	if (ev->kind == PERF_EV_SAMPLE) {
		s->ip = ev->sample.ip;
		s->nr = ev->sample.nr;
		s->abi = ev->sample.regs_abi;
		s->stack_size = ev->sample.stack_size;
		s->chain0 = ev->sample.nr ? ev->sample.callchain[0] : 0;
	} else if (ev->kind == PERF_EV_MMAP) {
		s->ip = ev->mmap.start;
		s->len = ev->mmap.len;
		snprintf(s->str, sizeof s->str, "%s", ev->mmap.filename);
	} else if (ev->kind == PERF_EV_COMM) {
		snprintf(s->str, sizeof s->str, "%s", ev->comm.comm);
	}
}

/* Read every event of the open reader R into OUT (at most MAX); returns the
 * reader's last status (0 at a clean end). */
static inline int read_all(perf_reader *r, struct sum *out, size_t max, size_t *n,
			   ehelf_err *err)
{
	perf_event ev;
	int rc;
	*n = 0;
	while ((rc = perf_reader_next(r, &ev, err)) > 0) {
		if (out && *n < max)
			summarize(&ev, &out[*n]);
		(*n)++;
	}
	return rc;
}

static inline int read_path(const char *path, struct sum *out, size_t max,
			    size_t *n, ehelf_err *err)
{
	*n = 0;
	perf_reader *r = perf_reader_open(path, err);
	if (!r)
		return err->code;
	int rc = read_all(r, out, max, n, err);
	perf_reader_close(r);
	return rc;
}

struct writer {
	int fd;
	const uint8_t *p;
	size_t n;
};

static inline void *writer_main(void *arg)
{
	struct writer *w = arg;
	for (size_t at = 0; at < w->n;) {
		size_t chunk = w->n - at < 997 ? w->n - at : 997;
		ssize_t k = write(w->fd, w->p + at, chunk);
		if (k <= 0)
			break;  /* the reader stopped early (EPIPE) */
		at += (size_t)k;
	}
	close(w->fd);
	return NULL;
}

/* Read IMAGE through a pipe on standard input ("-"). */
static inline int read_stdin_pipe(const struct buf *image, struct sum *out,
				  size_t max, size_t *n, ehelf_err *err)
{
	int pfd[2];
	if (pipe(pfd) < 0) {
		perror("pipe");
		exit(1);
	}
	int saved = dup(0);
	dup2(pfd[0], 0);
	close(pfd[0]);
	struct writer w = { pfd[1], image->p, image->len };
	pthread_t th;
	pthread_create(&th, NULL, writer_main, &w);
	int rc = read_path("-", out, max, n, err);
	dup2(saved, 0);   /* closes the pipe: a blocked writer gets EPIPE */
	close(saved);
	pthread_join(th, NULL);
	return rc;
}

/* ---- shared fixtures and checks ------------------------------------------------ */

static const uint8_t bid_a[20] = { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
				   12, 13, 14, 15, 16, 17, 18, 0xa0 };
static const uint8_t bid_b[20] = { 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
				   12, 13, 14, 15, 16, 17, 18, 0xb0 };

#define BASIC_ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |   \
		  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |             \
		  PERF_SAMPLE_STACK_USER)

/* Two attributes, every record kind, two rounds; BIDS gets the build-IDs. */
static inline void basic_image(struct tattr ta[2], struct buf *data, struct buf *bids,
			       struct tsample smp[4])
{
	ta[0] = mk_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, BASIC_ST,
			100);
	ta[0].a.sample_regs_user = (1u << 6) | (1u << 7) | (1u << 8);
	ta[0].a.sample_stack_user = 64;
	ta[0].a.exclude_callchain_user = 1;
	ta[0].desc = "cpu-clock:u";
	ta[1] = mk_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
			BASIC_ST & ~PERF_SAMPLE_STACK_USER, 200);
	ta[1].a.sample_regs_user = 1u << 8;

	data->len = 0;
	struct sid s0 = { 0 };
	put_comm(data, &ta[0], 10, 10, "perf-exec", false, &s0); /* time 0 */
	put_mmap(data, &ta[0], UINT32_MAX, 0xffffffff81000000ull, 0x1000000,
		 0xffffffff81000000ull, false, "[kernel.kallsyms]_text", &s0);
	put_mmap2(data, &ta[0], UINT32_MAX, 0, 0xffffffff81000000ull,
		  0x1000000, 0, 0, bid_b, 20, "[kernel.kallsyms]_text", &s0);
	struct sid s1 = { 10, 10, 1, 1000, 100 };
	put_comm(data, &ta[0], 10, 10, "python3", true, &s1);
	s1.time = 1100;
	put_mmap2(data, &ta[0], 10, 11, 0x400000, 0x2000, 0x1000,
		  PROT_READ | PROT_EXEC, NULL, 0, "/usr/bin/python3", &s1);
	s1.time = 1200;
	put_mmap2(data, &ta[0], 10, 10, 0x7f0000, 0x3000, 0,
		  PROT_READ | PROT_EXEC, bid_a, 20, "/lib/libc.so.6", &s1);
	s1.time = 1250;
	put_mmap2(data, &ta[0], 10, 10, 0x7f8000, 0x1000, 0x3000,
		  PROT_READ | PROT_WRITE, NULL, 0, "/lib/libc.so.6", &s1);
	s1.time = 1300;
	put_mmap(data, &ta[0], 10, 0x900000, 0x1000, 0, true, "/data", &s1);
	/* an odd-sized record: everything after it is misaligned */
	size_t at = rec_begin(data, R_THREAD_MAP, 0);
	put(data, "abcde", 5);
	rec_end(data, at);
	s1.time = 1500;
	put_task(data, &ta[0], PERF_RECORD_FORK, 12, 10, 1400, &s1);
	for (int i = 0; i < 4; i++) {
		struct tsample *s = &smp[i];
		memset(s, 0, sizeof *s);
		s->id = i & 1 ? 200 : 100 + 1000000;
		s->ip = 0x401000 + (uint64_t)i;
		s->pid = 10;
		s->tid = i < 2 ? 10 : 12;
		s->time = 2000 - 100 * (uint64_t)i; /* out of order */
		s->cpu = (uint32_t)i;
		s->period = 250000;
		s->nr = 3;
		s->chain[0] = PERF_CONTEXT_KERNEL;
		s->chain[1] = 0xffffffff81001234ull;
		s->chain[2] = 0xffffffff81005678ull + (uint64_t)i;
		s->abi = PERF_SAMPLE_REGS_ABI_64;
		s->stack_size = 64;
		s->dyn_size = 40 + 8 * (uint64_t)i;
		put_sample(data, &ta[i & 1], s);
		if (i == 1)
			put_round(data);
	}
	put_round(data);
	s1.time = 3000;
	put_task(data, &ta[0], PERF_RECORD_EXIT, 12, 10, 2900, &s1);

	bids->len = 0;
	put_build_id(bids, -1, bid_a, 20, false, "/lib/libc.so.6");
	put_build_id(bids, 10, bid_b, 16, true, "/usr/bin/python3");
	put_build_id(bids, -1, bid_b, 20, true, "[kernel.kallsyms]");
}

static inline void expect_read_error(const struct buf *img, int code,
				     const char *msg)
{
	ehelf_err err = { 0 };
	size_t n;
	write_file(img->p, img->len);
	CHECK(read_path(tmp_path, NULL, 0, &n, &err) == code);
	CHECK_CONTAINS(err.msg, msg);
	if (!strstr(err.msg, msg))
		fprintf(stderr, "  expected %s, got: %s\n", msg, err.msg);
}

/* Open and read IMG[0, LEN) to the end; an error must come with a message
 * naming the file (and an offset for format errors). */
static inline int read_mutant(const uint8_t *p, size_t len, size_t *events)
{
	ehelf_err err = { 0 };
	write_file(p, len);
	int rc = read_path(tmp_path, NULL, 0, events, &err);
	if (rc < 0) {
		CHECK(err.code == rc);
		CHECK(strstr(err.msg, tmp_path) != NULL);
		if (rc == ERR_FORMAT)
			CHECK(strstr(err.msg, "offset") != NULL);
	}
	return rc;
}

/* IMG read whole, then cut at every length: each cut gives a clean end
 * or a format error, never more events than the whole; the counts of
 * both go to *ERRORS and *CLEAN. */
static inline void read_truncations(const struct buf *img, unsigned *errors,
				    unsigned *clean)
{
	size_t full;
	CHECK(read_mutant(img->p, img->len, &full) == 0);
	*errors = *clean = 0;
	for (size_t len = 0; len < img->len; len++) {
		size_t n;
		int rc = read_mutant(img->p, len, &n);
		CHECK(rc == 0 || rc == ERR_FORMAT);
		CHECK(n <= full);
		rc == 0 ? (*clean)++ : (*errors)++;
	}
}

/* The test's temporary file, TMPDIR/NAME.XXXXXX, and SIGPIPE ignored (the
 * pipe tests' writer); 0, or 1 with a message. */
static inline int image_tmp_begin(const char *name)
{
	signal(SIGPIPE, SIG_IGN);
	const char *dir = getenv("TMPDIR");
	snprintf(tmp_path, sizeof tmp_path, "%s/%s.XXXXXX",
		 dir && *dir ? dir : "/tmp", name);
	int fd = mkstemp(tmp_path);
	if (fd < 0) {
		perror(tmp_path);
		return 1;
	}
	close(fd);
	return 0;
}

#endif
