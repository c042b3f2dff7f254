/*
 * test_perf_data.c - the perf.data reader on hand-built images.
 *
 * Images are built here byte by byte from the documented layouts (file
 * header, attributes with ids, data section, feature table; pipe header
 * and HEADER_ATTR / HEADER_FEATURE / HEADER_BUILD_ID records), written to
 * a temporary file, and read back in file mode, in pipe mode from the file
 * and in pipe mode through a real pipe on standard input.  Covered: every
 * record kind decoded, every combination of the sample_type bits up to
 * STACK_USER (with every read_format, branch HW_INDEX, registers present or
 * not, stack present or not), attributes found by IDENTIFIER and by ID,
 * sample_id_all trailers, perf's round ordering with out-of-order times,
 * ties and records without a time, build-ID lookup, event names, payloads
 * after records, misaligned records, and errors: every truncation of a
 * small file and thousands of deterministic random corruptions must end in
 * an error or a clean end, never a crash (run under ASan+UBSan by
 * `make unit-san`).
 */
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
static uint64_t rnd(void)
{
	return xorshift64(&rng);
}

/* ---- building images ------------------------------------------------------ */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

/* Append N bytes from D (zeros when D is NULL). */
static void put(struct buf *b, const void *d, size_t n)
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

static void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }

static size_t rec_begin(struct buf *b, uint32_t type, uint16_t misc)
{
	size_t at = b->len;
	put32(b, type);
	put(b, &misc, 2);
	put(b, NULL, 2);
	return at;
}

static void rec_end(struct buf *b, size_t at)
{
	uint16_t n = (uint16_t)(b->len - at);
	memcpy(b->p + at + 6, &n, 2);
}

/* A NUL-terminated string padded to 8 bytes. */
static void put_str8(struct buf *b, const char *s)
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

static struct tattr mk_attr(uint32_t type, uint64_t config, uint64_t st,
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

static void put_trailer(struct buf *b, const struct tattr *t,
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

static void put_comm(struct buf *b, const struct tattr *t, uint32_t pid,
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

static void put_mmap(struct buf *b, const struct tattr *t, uint32_t pid,
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

static void put_mmap2(struct buf *b, const struct tattr *t, uint32_t pid,
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

static void put_task(struct buf *b, const struct tattr *t, uint32_t type,
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

static void put_round(struct buf *b)
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

static uint64_t reg_value(const struct tsample *s, int bit)
{
	return s->ip * 3 + (uint64_t)bit;
}

static uint8_t stack_byte(const struct tsample *s, uint64_t i)
{
	return (uint8_t)(i * 7 + s->ip);
}

static void put_sample(struct buf *b, const struct tattr *t,
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
static void check_sample(const perf_event *ev, const struct tattr *t,
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
static void put_build_id(struct buf *b, int32_t pid, const uint8_t *id,
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

static void put_event_desc(struct buf *b, const struct tattr *ta, unsigned n)
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
static void make_file(struct buf *out, const struct tattr *ta, unsigned n,
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
static void make_pipe(struct buf *out, const struct tattr *ta, unsigned n,
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

static void write_file(const void *p, size_t n)
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

static void summarize(const perf_event *ev, struct sum *s)
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
static int read_all(perf_reader *r, struct sum *out, size_t max, size_t *n,
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

static int read_path(const char *path, struct sum *out, size_t max,
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

static void *writer_main(void *arg)
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
static int read_stdin_pipe(const struct buf *image, struct sum *out,
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

/* ---- the tests ------------------------------------------------------------------- */

static const uint8_t bid_a[20] = { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
				   12, 13, 14, 15, 16, 17, 18, 0xa0 };
static const uint8_t bid_b[20] = { 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
				   12, 13, 14, 15, 16, 17, 18, 0xb0 };

#define BASIC_ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |   \
		  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |             \
		  PERF_SAMPLE_STACK_USER)

/* Two attributes, every record kind, two rounds; BIDS gets the build-IDs. */
static void basic_image(struct tattr ta[2], struct buf *data, struct buf *bids,
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

/* The events of basic_image, in delivery order. */
static void check_basic(perf_reader *r, const struct tattr ta[2],
			const struct tsample smp[4], bool pipe)
{
	ehelf_err err = { 0 };
	perf_event ev;
	CHECK_U64(perf_reader_nattrs(r), 2);
	const perf_attr_info *a0 = perf_reader_attr(r, 0);
	const perf_attr_info *a1 = perf_reader_attr(r, 1);
	CHECK(perf_reader_attr(r, 2) == NULL);
	CHECK_STR(a0->name, "cpu-clock:u");     /* EVENT_DESC */
	CHECK_STR(a1->name, "task-clock");      /* from type/config */
	CHECK_U64(a0->sample_type, BASIC_ST);
	CHECK_U64(a0->sample_regs_user, ta[0].a.sample_regs_user);
	CHECK_U64(a0->sample_stack_user, 64);
	CHECK(a0->sample_id_all);
	CHECK(a0->exclude_callchain_user);
	CHECK(!a1->exclude_callchain_user);
	if (pipe) {
		/* the first records are the pipe's own */
		for (int i = 0; i < 4; i++) {
			CHECK(perf_reader_next(r, &ev, &err) == 1);
			CHECK(ev.kind == PERF_EV_OTHER);
			CHECK_U64(ev.type, i < 2 ? R_HEADER_ATTR
					   : R_HEADER_FEATURE);
		}
	}

	/* time 0: delivered in place */
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK(ev.kind == PERF_EV_COMM);
	CHECK_STR(ev.comm.comm, "perf-exec");
	CHECK(!ev.comm.exec);
	CHECK_U64(ev.time, 0);
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK(ev.kind == PERF_EV_MMAP);
	CHECK_U64(ev.type, PERF_RECORD_MMAP);
	CHECK_U64(ev.pid, UINT32_MAX);
	CHECK_STR(ev.mmap.filename, "[kernel.kallsyms]_text");
	CHECK(ev.mmap.exec);
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK_U64(ev.type, PERF_RECORD_MMAP2);
	CHECK_U64(ev.mmap.prot, 0);
	CHECK(ev.mmap.exec);            /* perf's kernel map */
	CHECK_U64(ev.mmap.build_id_len, 20);
	CHECK(ev.mmap.build_id && !memcmp(ev.mmap.build_id, bid_b, 20));

	/* the odd-sized THREAD_MAP has no time: delivered in place, before
	 * the records queued before it */
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK_U64(ev.type, R_THREAD_MAP);
	CHECK_U64(ev.size, 13);
	/* round 1: nothing released at its FINISHED_ROUND (perf releases up
	 * to the previous round's largest time) */
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK_U64(ev.type, R_FINISHED_ROUND);
	/* round 2 releases everything up to 2000, sorted */
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK(ev.kind == PERF_EV_COMM);
	CHECK_STR(ev.comm.comm, "python3");
	CHECK(ev.comm.exec);
	CHECK_U64(ev.pid, 10);
	CHECK_U64(ev.time, 1000);
	CHECK_U64(ev.cpu, 1);
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK(ev.kind == PERF_EV_MMAP);
	CHECK_U64(ev.type, PERF_RECORD_MMAP2);
	CHECK_U64(ev.pid, 10);
	CHECK_U64(ev.tid, 11);
	CHECK_U64(ev.time, 1100);
	CHECK_U64(ev.mmap.start, 0x400000);
	CHECK_U64(ev.mmap.len, 0x2000);
	CHECK_U64(ev.mmap.pgoff, 0x1000);
	CHECK_U64(ev.mmap.prot, PROT_READ | PROT_EXEC);
	CHECK_U64(ev.mmap.flags, MAP_PRIVATE);
	CHECK(ev.mmap.exec);
	CHECK(ev.mmap.build_id == NULL && ev.mmap.build_id_len == 0);
	CHECK_STR(ev.mmap.filename, "/usr/bin/python3");
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK_U64(ev.type, PERF_RECORD_MMAP2);
	CHECK_U64(ev.mmap.build_id_len, 20);
	CHECK(ev.mmap.build_id && !memcmp(ev.mmap.build_id, bid_a, 20));
	CHECK_STR(ev.mmap.filename, "/lib/libc.so.6");
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK_U64(ev.type, PERF_RECORD_MMAP2);
	CHECK_U64(ev.time, 1250);
	CHECK_U64(ev.mmap.prot, PROT_READ | PROT_WRITE);
	CHECK(!ev.mmap.exec);
	CHECK_U64(ev.mmap.pgoff, 0x3000);
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK_U64(ev.type, PERF_RECORD_MMAP);
	CHECK(!ev.mmap.exec);           /* PERF_RECORD_MISC_MMAP_DATA */
	CHECK_U64(ev.time, 1300);
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK(ev.kind == PERF_EV_FORK);
	CHECK_U64(ev.pid, 12);
	CHECK_U64(ev.tid, 13);
	CHECK_U64(ev.task.ppid, 10);
	CHECK_U64(ev.task.ptid, 11);
	CHECK_U64(ev.time, 1500);       /* the trailer's */
	for (int i = 3; i >= 0; i--) {  /* times 1700, 1800, 1900, 2000 */
		CHECK(perf_reader_next(r, &ev, &err) == 1);
		check_sample(&ev, &ta[i & 1], &smp[i]);
		CHECK(ev.sample.attr == (i & 1 ? a1 : a0));
	}
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK_U64(ev.type, R_FINISHED_ROUND);
	if (pipe) {
		/* read while EXIT waits in the queue */
		for (int i = 0; i < 3; i++) {
			CHECK(perf_reader_next(r, &ev, &err) == 1);
			CHECK_U64(ev.type, R_HEADER_BUILD_ID);
		}
	}
	CHECK(perf_reader_next(r, &ev, &err) == 1);
	CHECK(ev.kind == PERF_EV_EXIT);
	CHECK_U64(ev.time, 3000);
	CHECK(perf_reader_next(r, &ev, &err) == 0);
	CHECK(perf_reader_next(r, &ev, &err) == 0);

	const uint8_t *id;
	CHECK_U64(perf_reader_build_id(r, 10, "/lib/libc.so.6", &id), 20);
	CHECK(!memcmp(id, bid_a, 20));
	CHECK_U64(perf_reader_build_id(r, 10, "/usr/bin/python3", &id), 16);
	CHECK(!memcmp(id, bid_b, 16));
	CHECK_U64(perf_reader_build_id(r, 11, "/usr/bin/python3", &id), 0);
	CHECK_U64(perf_reader_build_id(r, 0, "[kernel.kallsyms]", &id), 20);
	CHECK_U64(perf_reader_build_id(r, 0, "/nope", &id), 0);
	uint64_t done, total;
	perf_reader_progress(r, &done, &total);
	CHECK(pipe ? total == 0 : done == total && total > 0);
	CHECK(done > 0);
}

static void test_basic(void)
{
	struct tattr ta[2];
	struct tsample smp[4];
	struct buf data = { 0 }, bids = { 0 }, img = { 0 };
	basic_image(ta, &data, &bids, smp);
	ehelf_err err = { 0 };

	make_file(&img, ta, 2, &data, &bids, true);
	write_file(img.p, img.len);
	perf_reader *r = perf_reader_open(tmp_path, &err);
	CHECK(r != NULL);
	if (r) {
		check_basic(r, ta, smp, false);
		perf_reader_close(r);
	}

	/* pipe mode from a file, then through a real pipe */
	struct buf bid_recs = { 0 };
	put(&bid_recs, bids.p, bids.len);
	make_pipe(&img, ta, 2, &data, &bid_recs, true);
	write_file(img.p, img.len);
	r = perf_reader_open(tmp_path, &err);
	CHECK(r != NULL);
	if (r) {
		check_basic(r, ta, smp, true);
		perf_reader_close(r);
	}
	struct sum a[64], b[64];
	size_t na, nb;
	CHECK(read_path(tmp_path, a, 64, &na, &err) == 0);
	CHECK(read_stdin_pipe(&img, b, 64, &nb, &err) == 0);
	CHECK_U64(na, nb);
	CHECK(na == nb && !memcmp(a, b, na * sizeof *a));
	free(bid_recs.p);
	free(data.p);
	free(bids.p);
	free(img.p);
}

/* Every combination of the sample_type bits IP..STACK_USER, one attribute
 * each (found by IDENTIFIER), in one file. */
static void test_sample_combinations(bool pipe)
{
	static const uint64_t bits[] = {
		PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
		PERF_SAMPLE_ADDR, PERF_SAMPLE_READ, PERF_SAMPLE_CALLCHAIN,
		PERF_SAMPLE_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_RAW,
		PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_REGS_USER,
		PERF_SAMPLE_STACK_USER,
	};
	enum { NB = sizeof bits / sizeof *bits, N = 1 << NB };
	struct tattr *ta = calloc(N, sizeof *ta);
	struct tsample *smp = calloc(N, sizeof *smp);
	struct buf data = { 0 }, img = { 0 };
	for (unsigned k = 0; k < N; k++) {
		uint64_t st = PERF_SAMPLE_IDENTIFIER;
		for (unsigned b = 0; b < NB; b++)
			if (k >> b & 1)
				st |= bits[b];
		if (k % 5 == 0)
			st |= PERF_SAMPLE_WEIGHT;
		ta[k] = mk_attr(PERF_TYPE_SOFTWARE, k % 10, st, 1 + 2 * k);
		ta[k].a.read_format = k % 32;   /* every read_format */
		ta[k].a.branch_sample_type =
			k & 64 ? PERF_SAMPLE_BRANCH_HW_INDEX : 0;
		ta[k].a.sample_regs_user = k % 3 == 0 ? 0xff0fff
					 : k % 3 == 1 ? 1 : 0;
		struct tsample *s = &smp[k];
		s->id = 1 + 2 * k;
		s->ip = 0x1000 + k;
		s->pid = k;
		s->tid = k + 1;
		s->time = 1000 + k;
		s->addr = 0xadd0 + k;
		s->cpu = k % 7;
		s->period = 3 * k;
		s->nr = k % 7;
		for (unsigned i = 0; i < 6; i++)
			s->chain[i] = (uint64_t)k << 8 | i;
		s->read_nr = k % 4;
		s->raw_size = k % 13;   /* often misaligns what follows */
		s->nbranch = k % 3;
		s->abi = k % 4 == 3 ? 0 : PERF_SAMPLE_REGS_ABI_64;
		s->stack_size = k % 8 == 7 ? 0 : 8 * (k % 5);
		s->dyn_size = s->stack_size ? s->stack_size - 8 * (k % 2) : 0;
		put_sample(&data, &ta[k], s);
	}
	if (pipe)
		make_pipe(&img, ta, N, &data, NULL, false);
	else
		make_file(&img, ta, N, &data, NULL, false);
	write_file(img.p, img.len);

	ehelf_err err = { 0 };
	perf_reader *r = perf_reader_open(tmp_path, &err);
	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "%s\n", err.msg);
		return;
	}
	CHECK_U64(perf_reader_nattrs(r), N);
	perf_event ev;
	unsigned k = 0, untimed = 0, mapped = 0;
	int rc;
	while ((rc = perf_reader_next(r, &ev, &err)) > 0) {
		if (ev.kind != PERF_EV_SAMPLE)
			continue;
		/* without a time a sample comes when it is read, before the
		 * timed ones (all queued to the end) */
		unsigned want = (unsigned)(ev.sample.id - 1) / 2;
		if (want >= N) {
			CHECK(!"sample id out of range");
			break;
		}
		bool timed = ta[want].a.sample_type & PERF_SAMPLE_TIME;
		if (!timed)
			untimed++;
		CHECK(timed == (untimed == N / 2 && k >= N / 2));
		check_sample(&ev, &ta[want], &smp[want]);
		CHECK(ev.sample.attr == perf_reader_attr(r, want));
		/* a file's copies are read in its mapping, cold (but those
		 * the reader had to copy); a pipe's were just copied into
		 * the reader's buffer */
		if (ev.sample.stack && perf_reader_in_mapping(r, ev.sample.stack))
			mapped++;
		k++;
	}
	CHECK(rc == 0);
	if (rc < 0)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_U64(k, N);
	CHECK(pipe ? mapped == 0 : mapped > 0);
	perf_reader_close(r);
	if (!pipe) { /* with partial stacks, every copy is read into a buffer */
		r = perf_reader_open(tmp_path, &err);
		CHECK(r != NULL && perf_reader_partial_stacks(r, 64) == 1);
		unsigned stacks = 0;
		while (r && perf_reader_next(r, &ev, &err) > 0)
			if (ev.kind == PERF_EV_SAMPLE && ev.sample.stack) {
				CHECK(!perf_reader_in_mapping(r, ev.sample.stack));
				stacks++;
			}
		CHECK(stacks > 0);
		perf_reader_close(r);
	}
	CHECK(!perf_reader_in_mapping(NULL, smp));
	free(ta);
	free(smp);
	free(data.p);
	free(img.p);
}

/* Attributes found by ID (no IDENTIFIER), a single attribute without ids,
 * and a sample whose id belongs to no attribute. */
static void test_id_lookup(void)
{
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		      PERF_SAMPLE_ID;
	struct tattr ta[3] = {
		mk_attr(PERF_TYPE_SOFTWARE, 0, st | PERF_SAMPLE_CPU, 7),
		mk_attr(PERF_TYPE_SOFTWARE, 1, st | PERF_SAMPLE_PERIOD, 8),
		mk_attr(PERF_TYPE_HARDWARE, 0, st | PERF_SAMPLE_CALLCHAIN, 9),
	};
	struct tsample s = { .ip = 0x10, .time = 5, .cpu = 3, .period = 77,
			     .nr = 2, .chain = { 1, 2 } };
	struct buf data = { 0 }, img = { 0 };
	for (int i = 0; i < 6; i++) {
		s.id = (i % 3 == 1 ? 1000000 : 0) + 7 + (uint64_t)(i % 3);
		s.time = 10 + (uint64_t)i;
		put_sample(&data, &ta[i % 3], &s);
	}
	make_file(&img, ta, 3, &data, NULL, false);
	write_file(img.p, img.len);
	ehelf_err err = { 0 };
	perf_reader *r = perf_reader_open(tmp_path, &err);
	CHECK(r != NULL);
	perf_event ev;
	for (int i = 0; r && i < 6; i++) {
		CHECK(perf_reader_next(r, &ev, &err) == 1);
		CHECK(ev.sample.attr == perf_reader_attr(r, (size_t)i % 3));
		s.id = (i % 3 == 1 ? 1000000 : 0) + 7 + (uint64_t)(i % 3);
		s.time = 10 + (uint64_t)i;
		check_sample(&ev, &ta[i % 3], &s);
	}
	CHECK(r && perf_reader_next(r, &ev, &err) == 0);
	perf_reader_close(r);

	/* an id no attribute has */
	s.id = 12345;
	put_sample(&data, &ta[0], &s);
	make_file(&img, ta, 3, &data, NULL, false);
	write_file(img.p, img.len);
	size_t n;
	CHECK(read_path(tmp_path, NULL, 0, &n, &err) == ERR_FORMAT);
	CHECK_CONTAINS(err.msg, "sample id 12345 belongs to no attribute");
	CHECK_CONTAINS(err.msg, tmp_path);
	CHECK_U64(n, 0);        /* detected while reading ahead */

	/* a single attribute without ids: every sample is its */
	struct tattr one = mk_attr(PERF_TYPE_SOFTWARE, 0,
				   PERF_SAMPLE_IP | PERF_SAMPLE_TIME, 0);
	one.a.sample_id_all = 0;
	data.len = 0;
	s.time = 0;             /* no time: in place */
	put_sample(&data, &one, &s);
	make_file(&img, &one, 1, &data, NULL, false);
	write_file(img.p, img.len);
	r = perf_reader_open(tmp_path, &err);
	CHECK(r && perf_reader_next(r, &ev, &err) == 1);
	CHECK(r && ev.sample.attr == perf_reader_attr(r, 0));
	CHECK_U64(ev.sample.ip, 0x10);
	CHECK(r && perf_reader_next(r, &ev, &err) == 0);
	perf_reader_close(r);
	free(data.p);
	free(img.p);
}

static void check_order(const char *what, const struct sum *got, size_t n,
			const char *want)
{
	char buf[512] = "";
	for (size_t i = 0; i < n; i++) {
		char one[32];
		if (got[i].kind == PERF_EV_SAMPLE)
			snprintf(one, sizeof one, "%" PRIu64, got[i].ip);
		else if (got[i].type == R_FINISHED_ROUND)
			snprintf(one, sizeof one, "R");
		else if (got[i].kind == PERF_EV_COMM)
			snprintf(one, sizeof one, "C");
		else if (got[i].kind == PERF_EV_MMAP)
			snprintf(one, sizeof one, "M");
		else
			snprintf(one, sizeof one, "?%" PRIu32, got[i].type);
		strncat(buf, one, sizeof buf - strlen(buf) - 2);
		if (i + 1 < n)
			strcat(buf, " ");
	}
	if (strcmp(buf, want) != 0)
		fprintf(stderr, "order of %s:\n", what);
	CHECK_STR(buf, want);
}

/* perf's ordering: rounds, the previous round's largest time, ties, records
 * without a time, a late record, no FINISHED_ROUND at all. */
static void test_ordering(void)
{
	struct tattr t = mk_attr(PERF_TYPE_SOFTWARE, 0, PERF_SAMPLE_IP |
				 PERF_SAMPLE_TID | PERF_SAMPLE_TIME, 0);
	struct buf data = { 0 }, img = { 0 };
	struct sid s0 = { 1, 1, 0, 0, 0 };
	struct tsample s = { .pid = 1, .tid = 1 };
	static const struct { uint64_t ip, time; } seq[] = {
		{ 0, 0 }, /* COMM, time 0 */
		{ 1, 10 }, { 2, 30 }, { 3, 20 },
		{ 0, 1 }, /* FINISHED_ROUND */
		{ 4, 25 },
		{ 0, 2 }, /* MMAP, time 0 */
		{ 5, 40 }, { 6, 5 }, { 7, 20 },
		{ 0, 1 }, { 0, 1 }, { 0, 1 },
		{ 8, 35 }, { 9, 50 },
	};
	for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
		if (seq[i].ip) {
			s.ip = seq[i].ip;
			s.time = seq[i].time;
			put_sample(&data, &t, &s);
		} else if (seq[i].time == 0) {
			put_comm(&data, &t, 1, 1, "x", false, &s0);
		} else if (seq[i].time == 1) {
			put_round(&data);
		} else {
			put_mmap(&data, &t, 1, 0x1000, 0x1000, 0, false, "/m",
				 &s0);
		}
	}
	const char *want = "C R M 6 1 3 7 4 2 R 5 R R 8 9";
	struct sum got[32];
	size_t n;
	ehelf_err err = { 0 };
	for (int pipe = 0; pipe < 2; pipe++) {
		if (pipe)
			make_pipe(&img, &t, 1, &data, NULL, false);
		else
			make_file(&img, &t, 1, &data, NULL, false);
		write_file(img.p, img.len);
		CHECK(read_path(tmp_path, got, 32, &n, &err) == 0);
		/* pipe mode starts with its HEADER_ATTR and HOSTNAME */
		size_t skip = pipe ? 2 : 0;
		check_order(pipe ? "rounds (pipe)" : "rounds", got + skip,
			    n - skip, want);
	}

	/* no FINISHED_ROUND: one round, sorted; a record without a time is
	 * delivered when read, before what is queued */
	data.len = 0;
	s.ip = 1, s.time = 30;
	put_sample(&data, &t, &s);
	put_comm(&data, &t, 1, 1, "x", false, &s0);
	s.ip = 2, s.time = 10;
	put_sample(&data, &t, &s);
	s.ip = 3, s.time = 10;
	put_sample(&data, &t, &s);
	s.ip = 4, s.time = 20;
	put_sample(&data, &t, &s);
	make_file(&img, &t, 1, &data, NULL, false);
	write_file(img.p, img.len);
	CHECK(read_path(tmp_path, got, 32, &n, &err) == 0);
	check_order("one round", got, n, "C 2 3 4 1");

	/* without sample_id_all the other records have no time */
	t.a.sample_id_all = 0;
	data.len = 0;
	s.ip = 1, s.time = 30;
	put_sample(&data, &t, &s);
	put_mmap(&data, &t, 1, 0x1000, 0x1000, 0, false, "/m", &s0);
	s.ip = 2, s.time = 10;
	put_sample(&data, &t, &s);
	put_task(&data, &t, PERF_RECORD_EXIT, 1, 0, 99, &s0);
	make_file(&img, &t, 1, &data, NULL, false);
	write_file(img.p, img.len);
	CHECK(read_path(tmp_path, got, 32, &n, &err) == 0);
	check_order("no sample_id_all", got, n, "M ?4 2 1");
	CHECK(n == 4 && got[1].time == 99);     /* EXIT's own time */
	free(data.p);
	free(img.p);
}

/* Build-ID lookup: pid-specific entries before pid -1 ones, sizes, many
 * entries, from the feature and from pipe records. */
static void test_build_ids(void)
{
	struct tattr t = mk_attr(PERF_TYPE_SOFTWARE, 0, PERF_SAMPLE_IP, 0);
	struct buf data = { 0 }, bids = { 0 }, img = { 0 };
	uint8_t id[20];
	put_build_id(&bids, -1, bid_b, 20, false, "/bin/a");
	put_build_id(&bids, 1234, bid_a, 20, false, "/bin/a");
	put_build_id(&bids, -1, bid_a, 12, true, "/bin/b");
	put_build_id(&bids, 77, bid_b, 20, true, "/bin/only77");
	put_build_id(&bids, -1, bid_b, 0, true, "/bin/empty");
	for (int i = 0; i < 300; i++) {
		char name[32];
		snprintf(name, sizeof name, "/lib/lib%d.so", i);
		memset(id, i, sizeof id);
		put_build_id(&bids, -1, id, 20, false, name);
	}
	for (int pipe = 0; pipe < 2; pipe++) {
		if (pipe)
			make_pipe(&img, &t, 1, &data, &bids, false);
		else
			make_file(&img, &t, 1, &data, &bids, false);
		write_file(img.p, img.len);
		ehelf_err err = { 0 };
		perf_reader *r = perf_reader_open(tmp_path, &err);
		CHECK(r != NULL);
		if (!r)
			continue;
		perf_event ev;
		while (perf_reader_next(r, &ev, &err) > 0)
			;
		const uint8_t *got;
		CHECK_U64(perf_reader_build_id(r, 1234, "/bin/a", &got), 20);
		CHECK(!memcmp(got, bid_a, 20));
		CHECK_U64(perf_reader_build_id(r, 1, "/bin/a", &got), 20);
		CHECK(!memcmp(got, bid_b, 20));
		CHECK_U64(perf_reader_build_id(r, 5, "/bin/b", &got), 12);
		CHECK(!memcmp(got, bid_a, 12));
		CHECK_U64(perf_reader_build_id(r, 77, "/bin/only77", &got),
			  20);
		CHECK_U64(perf_reader_build_id(r, 78, "/bin/only77", &got), 0);
		CHECK_U64(perf_reader_build_id(r, 1, "/bin/empty", &got), 0);
		CHECK_U64(perf_reader_build_id(r, 1, "/bin/c", &got), 0);
		CHECK_U64(perf_reader_build_id(r, 1, "/bin/", &got), 0);
		for (int i = 0; i < 300; i++) {
			char name[32];
			snprintf(name, sizeof name, "/lib/lib%d.so", i);
			memset(id, i, sizeof id);
			CHECK_U64(perf_reader_build_id(r, 9, name, &got), 20);
			CHECK(!memcmp(got, id, 20));
		}
		perf_reader_close(r);
	}
	free(data.p);
	free(bids.p);
	free(img.p);
}

/* Names from type/config, from EVENT_DESC, from EVENT_UPDATE. */
static void test_names(void)
{
	struct tattr ta[] = {
		mk_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 1),
		mk_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 2),
		mk_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 3),
		mk_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 4),
		mk_attr(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D |
			PERF_COUNT_HW_CACHE_OP_READ << 8 |
			PERF_COUNT_HW_CACHE_RESULT_MISS << 16, 0, 5),
		mk_attr(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_LL |
			PERF_COUNT_HW_CACHE_OP_WRITE << 8, 0, 6),
		mk_attr(PERF_TYPE_RAW, 0x1234, 0, 7),
		mk_attr(42, 7, 0, 8),
		mk_attr(PERF_TYPE_SOFTWARE, 99, 0, 9),
	};
	static const char *const want[] = {
		"cpu-clock", "page-faults", "cycles", "instructions",
		"L1-dcache-load-misses", "LLC-stores", "r1234",
		"type 42 config 0x7", "type 1 config 0x63",
	};
	enum { N = sizeof ta / sizeof *ta };
	struct buf data = { 0 }, img = { 0 };
	ehelf_err err = { 0 };
	make_file(&img, ta, N, &data, NULL, false);
	write_file(img.p, img.len);
	perf_reader *r = perf_reader_open(tmp_path, &err);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < N; i++)
		CHECK_STR(perf_reader_attr(r, i)->name, want[i]);
	perf_reader_close(r);

	/* EVENT_DESC names win over EVENT_UPDATE names */
	ta[2].desc = "cycles:ppp";
	size_t at = rec_begin(&data, R_EVENT_UPDATE, 0);
	put64(&data, 2);        /* PERF_EVENT_UPDATE__NAME */
	put64(&data, 1000006);  /* attribute 5's second id */
	put_str8(&data, "llc-writes");
	rec_end(&data, at);
	at = rec_begin(&data, R_EVENT_UPDATE, 0);
	put64(&data, 2);
	put64(&data, 3);
	put_str8(&data, "not-this");
	rec_end(&data, at);
	for (int pipe = 0; pipe < 2; pipe++) {
		if (pipe)
			make_pipe(&img, ta, N, &data, NULL, true);
		else
			make_file(&img, ta, N, &data, NULL, true);
		write_file(img.p, img.len);
		r = perf_reader_open(tmp_path, &err);
		CHECK(r != NULL);
		if (!r)
			continue;
		/* pipe mode: known once open returns */
		CHECK_STR(perf_reader_attr(r, 2)->name, "cycles:ppp");
		size_t n;
		CHECK(read_all(r, NULL, 0, &n, &err) == 0);
		CHECK_STR(perf_reader_attr(r, 2)->name, "cycles:ppp");
		CHECK_STR(perf_reader_attr(r, 5)->name, "llc-writes");
		CHECK_STR(perf_reader_attr(r, 0)->name, "cpu-clock");
		perf_reader_close(r);
	}
	free(data.p);
	free(img.p);
}

static void expect_read_error(const struct buf *img, int code,
			      const char *msg);

/* A stream cut short: read to a clean end (every record before the cut
 * delivered), perf_reader_cut saying where, with MSG. */
static void expect_cut(const struct buf *img, const char *msg)
{
	ehelf_err err = { 0 };
	write_file(img->p, img->len);
	perf_reader *r = perf_reader_open(tmp_path, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	perf_event ev;
	int rc;
	while ((rc = perf_reader_next(r, &ev, &err)) > 0)
		;
	CHECK(rc == 0);
	const char *cut = perf_reader_cut(r);
	CHECK(cut != NULL);
	CHECK_CONTAINS(cut ? cut : "", msg);
	CHECK_CONTAINS(cut ? cut : "", "offset");
	perf_reader_close(r);
}

/* HEADER_TRACING_DATA and AUXTRACE payloads follow their records. */
static void test_payloads(void)
{
	struct tattr t = mk_attr(PERF_TYPE_SOFTWARE, 0, PERF_SAMPLE_IP |
				 PERF_SAMPLE_TIME, 0);
	struct tsample s = { .ip = 0x77, .time = 5 };
	struct buf data = { 0 }, img = { 0 };
	size_t at = rec_begin(&data, R_TRACING_DATA, 0);
	put32(&data, 24);
	put32(&data, 0);
	rec_end(&data, at);
	put(&data, "tracing data, 24 bytes!", 24);
	at = rec_begin(&data, R_AUXTRACE, 0);
	put64(&data, 16);       /* size */
	put64(&data, 0);        /* offset */
	put64(&data, 0);        /* reference */
	put32(&data, 0);
	put32(&data, 0);
	put32(&data, 0);
	put32(&data, 0);
	rec_end(&data, at);
	put(&data, "aux data 16 byte", 16);
	put_sample(&data, &t, &s);
	ehelf_err err = { 0 };
	for (int pipe = 0; pipe < 2; pipe++) {
		if (pipe)
			make_pipe(&img, &t, 1, &data, NULL, false);
		else
			make_file(&img, &t, 1, &data, NULL, false);
		write_file(img.p, img.len);
		struct sum got[8];
		size_t n;
		CHECK(read_path(tmp_path, got, 8, &n, &err) == 0);
		size_t k = pipe ? 2 : 0;
		CHECK_U64(n, k + 3);
		CHECK_U64(got[k].type, R_TRACING_DATA);
		CHECK_U64(got[k + 1].type, R_AUXTRACE);
		CHECK_U64(got[k + 2].ip, 0x77);
	}
	/* a payload past the end: a file is broken, a stream cut there */
	uint64_t huge = 1ull << 40;
	memcpy(data.p + 16 + 24 + 8, &huge, 8);
	for (int pipe = 0; pipe < 2; pipe++) {
		if (pipe) {
			make_pipe(&img, &t, 1, &data, NULL, false);
			expect_cut(&img, "stream ends inside a payload");
		} else {
			make_file(&img, &t, 1, &data, NULL, false);
			expect_read_error(&img, ERR_FORMAT, "payload");
		}
	}
	free(data.p);
	free(img.p);
}

static void expect_open_error(const void *p, size_t n, int code,
			      const char *msg)
{
	ehelf_err err = { 0 };
	write_file(p, n);
	perf_reader *r = perf_reader_open(tmp_path, &err);
	CHECK(r == NULL);
	perf_reader_close(r);
	CHECK(err.code == code);
	CHECK_CONTAINS(err.msg, msg);
	CHECK_CONTAINS(err.msg, tmp_path);
	if (err.code != code || !strstr(err.msg, msg))
		fprintf(stderr, "  got: %s\n", err.msg);
}

static void expect_read_error(const struct buf *img, int code,
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

static void test_errors(void)
{
	struct tattr t = mk_attr(PERF_TYPE_SOFTWARE, 0, PERF_SAMPLE_IP |
				 PERF_SAMPLE_TIME | PERF_SAMPLE_STACK_USER, 0);
	struct buf data = { 0 }, img = { 0 };
	ehelf_err err = { 0 };
	make_file(&img, &t, 1, &data, NULL, false);

	uint8_t *h = malloc(img.len);
	memcpy(h, img.p, img.len);
	memcpy(h, "PERFILE3", 8);
	expect_open_error(h, img.len, ERR_FORMAT, "offset 0: not a perf.data");
	memcpy(h, "2ELIFREP", 8);
	expect_open_error(h, img.len, ERR_UNSUPPORTED, "big-endian");
	memcpy(h, "PERFFILE", 8);
	expect_open_error(h, img.len, ERR_UNSUPPORTED, "version 1");
	expect_open_error(img.p, 10, ERR_FORMAT, "too small");
	expect_open_error(img.p, 60, ERR_FORMAT, "header of 104 bytes");
	memcpy(h, img.p, img.len);
	h[8] = 90;
	expect_open_error(h, img.len, ERR_FORMAT, "header size 90");
	memcpy(h, img.p, img.len);
	h[48 + 5] = 1;  /* data size */
	expect_open_error(h, img.len, ERR_FORMAT, "data section");
	memcpy(h, img.p, img.len);
	h[16] = 8;      /* attr_size */
	expect_open_error(h, img.len, ERR_FORMAT, "attribute size 8");
	memcpy(h, img.p, img.len);
	h[104 + 128 + 8 + 6] = 1;  /* ids size of attribute 0 */
	expect_open_error(h, img.len, ERR_FORMAT, "ids of attribute 0");
	free(h);
	perf_reader *r = perf_reader_open("/nonexistent/perf.data", &err);
	CHECK(r == NULL && err.code == ERR_IO);
	CHECK_CONTAINS(err.msg, "/nonexistent/perf.data");

	/* a file-format image through a pipe */
	size_t n;
	CHECK(read_stdin_pipe(&img, NULL, 0, &n, &err) == ERR_UNSUPPORTED);
	CHECK_CONTAINS(err.msg, "cannot be read from a pipe");

	/* a record smaller than its header */
	size_t at = rec_begin(&data, PERF_RECORD_MMAP, 0);
	put32(&data, 0);
	data.p[at + 6] = 4;
	make_file(&img, &t, 1, &data, NULL, false);
	expect_read_error(&img, ERR_FORMAT, "smaller than its header");

	/* dyn_size larger than the stack */
	data.len = 0;
	struct tsample s = { .ip = 1, .time = 1, .stack_size = 8,
			     .dyn_size = 16 };
	put_sample(&data, &t, &s);
	make_file(&img, &t, 1, &data, NULL, false);
	expect_read_error(&img, ERR_FORMAT, "dyn_size 16 larger");

	/* pipe mode: a sample before any attribute; a record cut short (the
	 * end of the stream, as perf script reads it) */
	data.len = 0;
	put_sample(&data, &t, &s);
	make_pipe(&img, &t, 0, &data, NULL, false);
	expect_read_error(&img, ERR_FORMAT, "sample before any attribute");
	make_pipe(&img, &t, 1, &data, NULL, false);
	img.len -= 3;
	expect_cut(&img, "stream ends inside a record");

	/* an MMAP whose file name has no NUL */
	data.len = 0;
	at = rec_begin(&data, PERF_RECORD_MMAP, 0);
	put(&data, NULL, 32);
	put(&data, "abcdefgh", 8);
	rec_end(&data, at);
	t.a.sample_id_all = 0;
	make_file(&img, &t, 1, &data, NULL, false);
	expect_read_error(&img, ERR_FORMAT, "terminating NUL");

	/* a reader that failed stays failed */
	write_file(img.p, img.len);
	r = perf_reader_open(tmp_path, &err);
	perf_event ev;
	CHECK(r && perf_reader_next(r, &ev, &err) == ERR_FORMAT);
	CHECK(r && perf_reader_next(r, &ev, &err) == ERR_ARG);
	perf_reader_close(r);
	free(data.p);
	free(img.p);
}

/* Open and read IMG[0, LEN) to the end; an error must come with a message
 * naming the file (and an offset for format errors). */
static int read_mutant(const uint8_t *p, size_t len, size_t *events)
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
static void read_truncations(const struct buf *img, unsigned *errors,
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

static void test_truncation(void)
{
	struct tattr ta[2];
	struct tsample smp[4];
	struct buf data = { 0 }, bids = { 0 }, img = { 0 };
	basic_image(ta, &data, &bids, smp);
	for (int pipe = 0; pipe < 2; pipe++) {
		if (pipe)
			make_pipe(&img, ta, 2, &data, &bids, true);
		else
			make_file(&img, ta, 2, &data, &bids, true);
		unsigned errors, clean;
		read_truncations(&img, &errors, &clean);
		/* a file is whole or broken; a stream cut anywhere after its
		 * header ends there (perf_reader_cut) */
		CHECK(pipe ? clean > 0 && errors < clean : clean == 0);
		fprintf(stderr, "test_perf_data: %s: %zu truncations: %u "
			"errors, %u clean ends\n", pipe ? "pipe" : "file",
			img.len, errors, clean);
	}
	free(data.p);
	free(bids.p);
	free(img.p);
}

static void test_corruption(void)
{
	struct tattr ta[2];
	struct tsample smp[4];
	struct buf data = { 0 }, bids = { 0 }, img = { 0 };
	basic_image(ta, &data, &bids, smp);
	uint8_t *m = NULL;
	for (int pipe = 0; pipe < 2; pipe++) {
		if (pipe)
			make_pipe(&img, ta, 2, &data, &bids, true);
		else
			make_file(&img, ta, 2, &data, &bids, true);
		/* end the file at a page boundary, so that a read past the
		 * end of the mapping would fault */
		if (!pipe)
			put(&img, NULL, (4096 - img.len % 4096) % 4096);
		m = realloc(m, img.len);
		unsigned errors = 0, clean = 0;
		for (int iter = 0; iter < 2500; iter++) {
			memcpy(m, img.p, img.len);
			int k = 1 + (int)(rnd() % 4);
			for (int j = 0; j < k; j++) {
				size_t at = rnd() % img.len;
				uint64_t v = rnd();
				switch (rnd() % 4) {
				case 0:  /* a random byte */
					m[at] = (uint8_t)v;
					break;
				case 1:  /* a small value */
					m[at] = (uint8_t)(v % 8);
					break;
				case 2:  /* a bit */
					m[at] ^= (uint8_t)(1u << (v % 8));
					break;
				default: /* a large u64 */
					if (at + 8 <= img.len)
						memcpy(m + at, &v, 8);
				}
			}
			size_t n;
			if (read_mutant(m, img.len, &n) == 0)
				clean++;
			else
				errors++;
		}
		fprintf(stderr, "test_perf_data: %s: 2500 corruptions: %u "
			"errors, %u clean ends\n", pipe ? "pipe" : "file",
			errors, clean);
		CHECK(errors > 0 && clean > 0);
	}
	free(m);
	free(data.p);
	free(bids.p);
	free(img.p);
}

/* perf 6.15's COMPRESSED2: header, u64 data_size, data, padding to 8 */
enum { R_COMPRESSED2 = 83 };

/* Emit the compressed bytes Z[0, N) as COMPRESSED records (COMPRESSED2
 * when V2) of random sizes, so that they cut zstd blocks and records. */
static void put_compressed(struct buf *out, const uint8_t *z, size_t n, bool v2)
{
	for (size_t at = 0; at < n;) {
		size_t k = 1 + rnd() % (rnd() % 2 ? 64 : 60000);
		k = k < n - at ? k : n - at;
		size_t r = rec_begin(out, v2 ? R_COMPRESSED2 : R_COMPRESSED, 0);
		if (v2) {
			put64(out, k);
			put(out, z + at, k);
			put(out, NULL, (8 - k % 8) % 8);
		} else {
			put(out, z + at, k);
		}
		rec_end(out, r);
		at += k;
	}
}

/*
 * OUT = the records of IN as perf record -z writes them: one zstd stream,
 * flushed at random records (so that a flush may end inside a record and
 * the next COMPRESSED record completes it), its output cut into COMPRESSED
 * records of random sizes.  Records for which PLAIN says so (FINISHED_ROUND
 * as perf does, or at random) are written as they are, the stream flushed
 * and emptied before them: the records then come in the same order.
 */
static void compress_records(struct buf *out, const struct buf *in,
			     int plain, bool v2)
{
	ZSTD_CCtx *z = ZSTD_createCCtx();
	CHECK(z != NULL);
	ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 1);
	struct buf zout = { 0 };
	out->len = 0;
	uint8_t chunk[1 << 16];
	for (size_t at = 0; at < in->len;) {
		uint16_t size = 0;
		if (in->len - at >= 8)
			memcpy(&size, in->p + at + 6, 2);
		if (size < 8 || size > in->len - at) /* a record cut short */
			size = (uint16_t)(in->len - at);
		uint32_t type = 0;
		if (size >= 4)
			memcpy(&type, in->p + at, 4);
		bool as_is = (plain >= 1 && type == R_FINISHED_ROUND) ||
			     (plain >= 2 && rnd() % 4 == 0);
		bool last = at + size >= in->len;
		ZSTD_inBuffer zi = { in->p + at, as_is ? 0 : size, 0 };
		/* a flush now and then; everything before a plain record
		 * and at the end */
		ZSTD_EndDirective mode = as_is || last ? ZSTD_e_flush
				       : rnd() % 3 == 0 ? ZSTD_e_flush : ZSTD_e_continue;
		size_t left;
		do {
			ZSTD_outBuffer zo = { chunk, sizeof chunk, 0 };
			left = ZSTD_compressStream2(z, &zo, &zi, mode);
			CHECK(!ZSTD_isError(left));
			put(&zout, chunk, zo.pos);
		} while (zi.pos < zi.size || (mode == ZSTD_e_flush && left));
		if (as_is || last) {
			put_compressed(out, zout.p, zout.len, v2);
			zout.len = 0;
		}
		if (as_is)
			put(out, in->p + at, size);
		at += size;
	}
	ZSTD_freeCCtx(z);
	free(zout.p);
}

/* FNV-1a of the events of IMG without the COMPRESSED records themselves;
 * *N their number, *RC the reader's status. */
static uint64_t events_hash(const struct buf *img, size_t *n, int *rc)
{
	ehelf_err err = { 0 };
	write_file(img->p, img->len);
	uint64_t h = 0xcbf29ce484222325ull;
	*n = 0;
	perf_reader *r = perf_reader_open(tmp_path, &err);
	if (!r) {
		*rc = err.code;
		return 0;
	}
	perf_event ev;
	while ((*rc = perf_reader_next(r, &ev, &err)) > 0) {
		if (ev.type == R_COMPRESSED || ev.type == R_COMPRESSED2)
			continue;
		struct sum s;
		summarize(&ev, &s);
		const uint8_t *b = (const uint8_t *)&s;
		for (size_t i = 0; i < sizeof s; i++)
			h = (h ^ b[i]) * 0x100000001b3ull;
		(*n)++;
	}
	perf_reader_close(r);
	return h;
}

/* The image of ZDATA (PIPE: a stream) must give the events hashed WANT,
 * NWANT of them. */
static void check_events(struct buf *img, const struct tattr ta[2],
			 const struct buf *zdata, const struct buf *bids,
			 bool pipe, uint64_t want, size_t nwant)
{
	if (pipe)
		make_pipe(img, ta, 2, zdata, bids, true);
	else
		make_file(img, ta, 2, zdata, bids, true);
	int rc;
	size_t n;
	uint64_t got = events_hash(img, &n, &rc);
	CHECK(rc == 0);
	CHECK_U64(n, nwant);
	CHECK(got == want);
}

/* perf record -z: the records inside COMPRESSED (and COMPRESSED2) records
 * come out as if they stood in the file, in file and pipe mode, however
 * the stream is flushed and cut, mixed with records written as they are,
 * and when a COMPRESSED record holds megabytes; bad zstd data, a record
 * cut off at the end or smaller than its header inside, and truncated or
 * corrupted compressed streams are errors, never crashes. */
static void test_compressed(void)
{
	struct tattr ta[2];
	struct tsample smp[4];
	struct buf data = { 0 }, bids = { 0 }, img = { 0 }, zdata = { 0 };
	basic_image(ta, &data, &bids, smp);
	/* and the same again with many more records: a COMPRESSED record
	 * of 60 KB then holds megabytes */
	struct buf big = { 0 };
	put(&big, data.p, data.len);
	for (int i = 0; i < 40000; i++) {
		struct sid s = { 10, 10, 1, 0, 100 };
		put_comm(&big, &ta[0], 10, 10, i % 2 ? "python3" : "worker", false, &s);
	}
	const struct buf *inputs[2] = { &data, &big };
	for (int which = 0; which < 2; which++) {
		const struct buf *in = inputs[which];
		for (int pipe = 0; pipe < 2; pipe++) {
			if (pipe)
				make_pipe(&img, ta, 2, in, &bids, true);
			else
				make_file(&img, ta, 2, in, &bids, true);
			int rc;
			size_t nwant;
			uint64_t want = events_hash(&img, &nwant, &rc);
			CHECK(rc == 0 && nwant > 10);
			for (int trial = 0; trial < (which ? 4 : 24); trial++) {
				compress_records(&zdata, in, trial % 3, trial % 4 == 3);
				check_events(&img, ta, &zdata, &bids, pipe, want, nwant);
			}
			/* all of it in one record: megabytes from one
			 * payload of one zstd frame */
			size_t cap = ZSTD_compressBound(in->len);
			uint8_t *z = malloc(cap);
			size_t k = z ? ZSTD_compress(z, cap, in->p, in->len, 19) : 0;
			CHECK(z && !ZSTD_isError(k) && k < 60000);
			zdata.len = 0;
			size_t at = rec_begin(&zdata, R_COMPRESSED, 0);
			put(&zdata, z, k);
			rec_end(&zdata, at);
			free(z);
			check_events(&img, ta, &zdata, &bids, pipe, want, nwant);
		}
	}

	struct tattr t = mk_attr(PERF_TYPE_SOFTWARE, 0, PERF_SAMPLE_IP, 0);
	/* zstd holding back the end of a payload's output: 100 bytes of
	 * a record left from the first payload, then exactly 1 MiB, whose
	 * eighth 128 KiB block no longer fits the buffer's first 1 MiB */
	{
		struct buf recs = { 0 };
		size_t a = rec_begin(&recs, R_THREAD_MAP, 0);
		put(&recs, NULL, 192);
		rec_end(&recs, a);
		for (int i = 0; i < 17; i++) {
			a = rec_begin(&recs, R_THREAD_MAP, 0);
			put(&recs, NULL, i < 16 ? 65520 : 20);
			rec_end(&recs, a);
		}
		CHECK(recs.len == 100 + (1u << 20));
		ZSTD_CCtx *z = ZSTD_createCCtx();
		uint8_t zb[65000];
		zdata.len = 0;
		size_t from = 0;
		for (int part = 0; z && part < 2; part++) {
			size_t to = part ? recs.len : 100;
			ZSTD_inBuffer zi = { recs.p + from, to - from, 0 };
			ZSTD_outBuffer zo = { zb, sizeof zb, 0 };
			size_t left;
			do
				left = ZSTD_compressStream2(z, &zo, &zi, ZSTD_e_flush);
			while (!ZSTD_isError(left) && left && zo.pos < zo.size);
			CHECK(!ZSTD_isError(left) && left == 0);
			a = rec_begin(&zdata, R_COMPRESSED, 0);
			put(&zdata, zb, zo.pos);
			rec_end(&zdata, a);
			from = to;
		}
		ZSTD_freeCCtx(z);
		make_file(&img, &t, 1, &zdata, NULL, false);
		write_file(img.p, img.len);
		size_t n;
		ehelf_err err = { 0 };
		CHECK(read_path(tmp_path, NULL, 0, &n, &err) == 0);
		CHECK_U64(n, 2 + 18); /* the COMPRESSED records and the 18 */
		free(recs.p);
	}

	/* errors: not zstd; the data ending inside a record; a record
	 * smaller than its header; a COMPRESSED2 whose data_size is too
	 * large */
	zdata.len = 0;
	size_t r = rec_begin(&zdata, R_COMPRESSED, 0);
	put(&zdata, "not zstd data at all", 20);
	rec_end(&zdata, r);
	make_file(&img, &t, 1, &zdata, NULL, false);
	expect_read_error(&img, ERR_FORMAT, "zstd");
	struct buf part = { 0 };
	put(&part, data.p, 20); /* a COMM record cut short */
	compress_records(&zdata, &part, 0, false);
	make_file(&img, ta, 2, &zdata, NULL, false);
	expect_read_error(&img, ERR_FORMAT, "ends inside a record of compressed");
	part.len = 0;
	put(&part, data.p, 8);
	uint16_t tiny = 4;
	memcpy(part.p + 6, &tiny, 2);
	zdata.len = 0;
	{
		uint8_t z[256];
		size_t k = ZSTD_compress(z, sizeof z, part.p, part.len, 1);
		CHECK(!ZSTD_isError(k));
		put_compressed(&zdata, z, k, false);
	}
	make_file(&img, ta, 2, &zdata, NULL, false);
	expect_read_error(&img, ERR_FORMAT, "smaller than its header");
	zdata.len = 0;
	r = rec_begin(&zdata, R_COMPRESSED2, 0);
	put64(&zdata, 4096);
	put(&zdata, NULL, 8);
	rec_end(&zdata, r);
	make_file(&img, &t, 1, &zdata, NULL, false);
	expect_read_error(&img, ERR_FORMAT, "COMPRESSED2 record");

	/* a compressed stream cut anywhere, and corrupted anywhere: a clean
	 * end or an error, no more events than the whole, never a crash */
	compress_records(&zdata, &data, 1, false);
	make_pipe(&img, ta, 2, &zdata, &bids, true);
	unsigned errors, clean;
	read_truncations(&img, &errors, &clean);
	CHECK(errors > 0 && clean > 0);
	uint8_t *m = malloc(img.len);
	CHECK(m != NULL);
	unsigned bad = 0;
	for (int iter = 0; m && iter < 1000; iter++) {
		memcpy(m, img.p, img.len);
		m[rnd() % img.len] ^= (uint8_t)(1u << (rnd() % 8));
		size_t n;
		bad += read_mutant(m, img.len, &n) != 0;
	}
	CHECK(bad > 0);
	fprintf(stderr, "test_perf_data: compressed pipe: %zu truncations: %u "
		"errors, %u clean ends; 1000 bit flips: %u errors\n", img.len,
		errors, clean, bad);
	free(m);
	free(big.p);
	free(part.p);
	free(zdata.p);
	free(data.p);
	free(bids.p);
	free(img.p);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const char *dir = getenv("TMPDIR");
	snprintf(tmp_path, sizeof tmp_path, "%s/test_perf_data.XXXXXX",
		 dir && *dir ? dir : "/tmp");
	int fd = mkstemp(tmp_path);
	if (fd < 0) {
		perror(tmp_path);
		return 1;
	}
	close(fd);

	test_basic();
	test_sample_combinations(false);
	test_sample_combinations(true);
	test_id_lookup();
	test_ordering();
	test_build_ids();
	test_names();
	test_payloads();
	test_errors();
	test_truncation();
	test_corruption();
	test_compressed();
	unlink(tmp_path);
	UNIT_DONE("test_perf_data");
}
