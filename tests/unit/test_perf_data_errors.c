/*
 * test_perf_data_errors.c - the perf.data reader's refusals and
 * robustness on hand-built images (perf_data_image.h): payloads after
 * records, misaligned records, streams cut short, each malformed header
 * and record refused with its message, every truncation of a small file
 * and thousands of deterministic random corruptions ending in an error or
 * a clean end, never a crash (run under ASan+UBSan by `make unit-san`).
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "unit.h"
#include "perf_data_image.h"

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
		fprintf(stderr, "test_perf_data_errors: %s: %zu truncations: %u "
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
		fprintf(stderr, "test_perf_data_errors: %s: 2500 corruptions: %u "
			"errors, %u clean ends\n", pipe ? "pipe" : "file",
			errors, clean);
		CHECK(errors > 0 && clean > 0);
	}
	free(m);
	free(data.p);
	free(bids.p);
	free(img.p);
}


int main(void)
{
	if (image_tmp_begin("test_perf_data_errors"))
		return 1;
	test_payloads();
	test_errors();
	test_truncation();
	test_corruption();
	unlink(tmp_path);
	UNIT_DONE("test_perf_data_errors");
}
