/*
 * test_perf_data_compressed.c - the perf.data reader on images whose
 * records are zstd-compressed into COMPRESSED and COMPRESSED2 records of
 * random sizes (perf record -z; perf_data_image.h): the same events as
 * the uncompressed image, in both modes, and truncations, corruptions and
 * malformed compressed records refused.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

#include "unit.h"
#include "perf_data_image.h"

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
	fprintf(stderr, "test_perf_data_compressed: compressed pipe: %zu truncations: %u "
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
	if (image_tmp_begin("test_perf_data_compressed"))
		return 1;
	test_compressed();
	unlink(tmp_path);
	UNIT_DONE("test_perf_data_compressed");
}
