/* decomp.c - see decomp.h.  zstd's streaming API (libzstd) does the
 * decompression; one context for the whole stream, as perf keeps one. */
#include "decomp.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

struct decomp {
	ZSTD_DCtx *z;
	uint8_t *buf;
	size_t head, len, cap; /* buf[head, len) not yet taken */
};

decomp *decomp_new(void)
{
	decomp *d = calloc(1, sizeof *d);
	if (d && !(d->z = ZSTD_createDCtx())) {
		free(d);
		d = NULL;
	}
	return d;
}

void decomp_free(decomp *d)
{
	if (!d)
		return;
	ZSTD_freeDCtx(d->z);
	free(d->buf);
	free(d);
}

int decomp_feed(decomp *d, const uint8_t *payload, size_t len, ehelf_err *err)
{
	/* what is left of the last payload goes to the front */
	if (d->head) {
		memmove(d->buf, d->buf + d->head, d->len - d->head);
		d->len -= d->head;
		d->head = 0;
	}
	size_t start = d->len;
	ZSTD_inBuffer in = { payload, len, 0 };
	/* until the input is consumed and a call left output space unused:
	 * zstd may hold decoded bytes (up to a block, 128 KiB) that did not
	 * fit, having consumed their input already */
	for (;;) {
		if (d->cap - d->len < 65536) {
			if (d->len - start >= DECOMP_MAX_FEED)
				return err_set(err, ERR_FORMAT, "compressed "
					       "record decompresses to more "
					       "than %u bytes", DECOMP_MAX_FEED);
			size_t cap = d->cap ? 2 * d->cap : 1u << 20;
			uint8_t *p = realloc(d->buf, cap);
			if (!p)
				return err_set(err, ERR_NOMEM, "out of memory");
			d->buf = p;
			d->cap = cap;
		}
		ZSTD_outBuffer out = { d->buf + d->len, d->cap - d->len, 0 };
		size_t in_before = in.pos;
		size_t rc = ZSTD_decompressStream(d->z, &out, &in);
		if (ZSTD_isError(rc))
			return err_set(err, ERR_FORMAT, "compressed record: "
				       "zstd: %s", ZSTD_getErrorName(rc));
		d->len += out.pos;
		if (in.pos == in.size && out.pos < out.size)
			return 0;
		if (out.pos == 0 && in.pos == in_before)
			return err_set(err, ERR_FORMAT, "compressed record: "
				       "zstd makes no progress");
	}
}

const uint8_t *decomp_next(decomp *d, int *rc, ehelf_err *err)
{
	*rc = 0;
	size_t have = d->len - d->head;
	if (have < 8)
		return NULL;
	const uint8_t *rec = d->buf + d->head;
	uint16_t size;
	memcpy(&size, rec + 6, 2);
	if (size < 8) {
		*rc = err_set(err, ERR_FORMAT, "record size %u inside compressed "
			      "data, smaller than its header", size);
		return NULL;
	}
	if (size > have)
		return NULL;
	d->head += size;
	return rec;
}

size_t decomp_pending(const decomp *d)
{
	return d ? d->len - d->head : 0;
}
