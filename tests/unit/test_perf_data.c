/*
 * test_perf_data.c - the perf.data reader on hand-built images
 * (perf_data_image.h), read in file mode, in pipe mode from the file and
 * through a real pipe: every record kind decoded, every combination of the
 * sample_type bits up to STACK_USER (with every read_format, branch
 * HW_INDEX, registers present or not, stack present or not), attributes
 * found by IDENTIFIER and by ID, sample_id_all trailers, perf's round
 * ordering with out-of-order times, ties and records without a time,
 * build-ID lookup and event names.  Refusals and robustness:
 * test_perf_data_errors.c; compressed records: test_perf_data_compressed.c.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "unit.h"
#include "perf_data_image.h"

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

int main(void)
{
	if (image_tmp_begin("test_perf_data"))
		return 1;
	test_basic();
	test_sample_combinations(false);
	test_sample_combinations(true);
	test_id_lookup();
	test_ordering();
	test_build_ids();
	test_names();
	unlink(tmp_path);
	UNIT_DONE("test_perf_data");
}
