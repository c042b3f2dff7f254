/* perf_write.c - see perf_write.h. */
#define _GNU_SOURCE
#include "perf_write.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC "PERFILE2"
#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define SECTION_SIZE 16
#define OUT_BUF (1u << 20)
#define MAX_RECORD 65535

struct wattr {
	uint8_t *attr;
	size_t len;
	uint8_t *ids;
	size_t nids;
};

struct perf_writer {
	int fd;
	bool pipe;
	char *name;
	uint8_t *buf;
	size_t n;
	uint64_t off;           /* of buf[0] in the output */
	bool started;           /* the header (and file mode: the
				 * attributes) are written */
	uint64_t data_off, data_size;
	struct wattr *attrs;
	size_t nattrs;
	size_t attr_len;        /* the largest */
	uint8_t *feat[PERF_FEAT_BITS];
	size_t feat_len[PERF_FEAT_BITS];
	bool has_feat[PERF_FEAT_BITS];
};

static int io_err(perf_writer *w, ehelf_err *err)
{
	return err_set(err, ERR_IO, "%s: write: %s", w->name, strerror(errno));
}

static int flush(perf_writer *w, ehelf_err *err)
{
	size_t done = 0;
	while (done < w->n) {
		ssize_t k = write(w->fd, w->buf + done, w->n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return io_err(w, err);
		done += (size_t)k;
	}
	w->off += w->n;
	w->n = 0;
	return 0;
}

static int put(perf_writer *w, const void *p, size_t len, ehelf_err *err)
{
	const uint8_t *s = p;
	while (len) {
		if (w->n == OUT_BUF && flush(w, err) < 0)
			return ERR_IO;
		size_t k = OUT_BUF - w->n < len ? OUT_BUF - w->n : len;
		memcpy(w->buf + w->n, s, k);
		w->n += k;
		s += k;
		len -= k;
	}
	return 0;
}

static int put_u64(perf_writer *w, uint64_t v, ehelf_err *err)
{
	return put(w, &v, 8, err);
}

static int put_zeros(perf_writer *w, size_t len, ehelf_err *err)
{
	static const uint8_t z[64];
	while (len) {
		size_t k = len < sizeof z ? len : sizeof z;
		if (put(w, z, k, err) < 0)
			return ERR_IO;
		len -= k;
	}
	return 0;
}

static uint64_t pos(const perf_writer *w)
{
	return w->off + w->n;
}

perf_writer *perf_writer_new(int fd, bool pipe, const char *name,
			     ehelf_err *err)
{
	perf_writer *w = calloc(1, sizeof *w);
	if (!w || !(w->buf = malloc(OUT_BUF)) || !(w->name = strdup(name))) {
		perf_writer_free(w);
		err_set(err, ERR_NOMEM, "%s: out of memory", name);
		return NULL;
	}
	w->fd = fd;
	w->pipe = pipe;
	return w;
}

void perf_writer_free(perf_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nattrs; i++) {
		free(w->attrs[i].attr);
		free(w->attrs[i].ids);
	}
	free(w->attrs);
	for (int b = 0; b < PERF_FEAT_BITS; b++)
		free(w->feat[b]);
	free(w->buf);
	free(w->name);
	free(w);
}

int perf_writer_attr(perf_writer *w, const uint8_t *attr, size_t len,
		     const uint8_t *ids, size_t nids, ehelf_err *err)
{
	if (w->started)
		return err_set(err, ERR_ARG, "%s: an attribute after the first "
			       "record cannot be written in file mode", w->name);
	if (len < 8 || len > 4096 || nids > (MAX_RECORD - 8 - len) / 8)
		return err_set(err, ERR_ARG, "%s: attribute of %zu bytes with %zu "
			       "ids", w->name, len, nids);
	struct wattr *a = realloc(w->attrs, (w->nattrs + 1) * sizeof *a);
	if (!a)
		return err_set(err, ERR_NOMEM, "%s: out of memory", w->name);
	w->attrs = a;
	a = &w->attrs[w->nattrs];
	a->attr = malloc(len);
	a->ids = malloc(8 * nids + 1);
	if (!a->attr || !a->ids) {
		free(a->attr);
		free(a->ids);
		return err_set(err, ERR_NOMEM, "%s: out of memory", w->name);
	}
	memcpy(a->attr, attr, len);
	memcpy(a->ids, ids, 8 * nids);
	a->len = len;
	a->nids = nids;
	w->nattrs++;
	if (len > w->attr_len)
		w->attr_len = len;
	return 0;
}

/* Pipe mode: the header and the HEADER_ATTR records.  File mode: room for
 * the header, the ids, the attribute section; the data starts after. */
static int start(perf_writer *w, ehelf_err *err)
{
	if (w->started)
		return 0;
	w->started = true;
	if (w->pipe) {
		if (put(w, MAGIC, 8, err) < 0 || put_u64(w, PIPE_HEADER_SIZE, err) < 0)
			return ERR_IO;
		for (size_t i = 0; i < w->nattrs; i++) {
			const struct wattr *a = &w->attrs[i];
			uint8_t h[8];
			uint32_t type = PERF_REC_HEADER_ATTR, size32 = (uint32_t)a->len;
			uint16_t misc = 0, size = (uint16_t)(8 + a->len + 8 * a->nids);
			memcpy(h, &type, 4);
			memcpy(h + 4, &misc, 2);
			memcpy(h + 6, &size, 2);
			if (put(w, h, 8, err) < 0 || put(w, a->attr, 4, err) < 0 ||
			    put(w, &size32, 4, err) < 0 ||
			    put(w, a->attr + 8, a->len - 8, err) < 0 ||
			    put(w, a->ids, 8 * a->nids, err) < 0)
				return ERR_IO;
		}
		w->data_off = pos(w);
		return 0;
	}
	if (put_zeros(w, FILE_HEADER_SIZE, err) < 0)
		return ERR_IO;
	uint64_t ids_at = pos(w);
	for (size_t i = 0; i < w->nattrs; i++)
		if (put(w, w->attrs[i].ids, 8 * w->attrs[i].nids, err) < 0)
			return ERR_IO;
	for (size_t i = 0; i < w->nattrs; i++) {
		const struct wattr *a = &w->attrs[i];
		uint32_t size32 = (uint32_t)w->attr_len;
		if (put(w, a->attr, 4, err) < 0 || put(w, &size32, 4, err) < 0 ||
		    put(w, a->attr + 8, a->len - 8, err) < 0 ||
		    put_zeros(w, w->attr_len - a->len, err) < 0 ||
		    put_u64(w, ids_at, err) < 0 || put_u64(w, 8 * a->nids, err) < 0)
			return ERR_IO;
		ids_at += 8 * a->nids;
	}
	w->data_off = pos(w);
	return 0;
}

int perf_writer_feature(perf_writer *w, int bit, const void *p, size_t len,
			ehelf_err *err)
{
	if (bit < 0 || bit >= PERF_FEAT_BITS)
		return err_set(err, ERR_ARG, "%s: feature %d", w->name, bit);
	if (w->pipe) {
		if (len > MAX_RECORD - 16)
			return err_set(err, ERR_ARG, "%s: feature %d of %zu bytes "
				       "does not fit in a HEADER_FEATURE record",
				       w->name, bit, len);
		if (start(w, err) < 0)
			return ERR_IO;
		uint8_t h[8];
		uint32_t type = PERF_REC_HEADER_FEATURE;
		uint16_t misc = 0, size = (uint16_t)(16 + len);
		memcpy(h, &type, 4);
		memcpy(h + 4, &misc, 2);
		memcpy(h + 6, &size, 2);
		if (put(w, h, 8, err) < 0 || put_u64(w, (uint64_t)bit, err) < 0 ||
		    put(w, p, len, err) < 0)
			return ERR_IO;
		return 0;
	}
	uint8_t *copy = malloc(len + 1);
	if (!copy)
		return err_set(err, ERR_NOMEM, "%s: out of memory", w->name);
	memcpy(copy, p, len);
	free(w->feat[bit]);
	w->feat[bit] = copy;
	w->feat_len[bit] = len;
	w->has_feat[bit] = true;
	return 0;
}

int perf_writer_record(perf_writer *w, const void *rec, ehelf_err *err)
{
	uint16_t size;
	memcpy(&size, (const uint8_t *)rec + 6, 2);
	if (size < 8)
		return err_set(err, ERR_ARG, "%s: record of %u bytes", w->name,
			       size);
	if (start(w, err) < 0 || put(w, rec, size, err) < 0)
		return ERR_IO;
	w->data_size += size;
	return 0;
}

int perf_writer_finish(perf_writer *w, ehelf_err *err)
{
	if (start(w, err) < 0)
		return ERR_IO;
	if (w->pipe)
		return flush(w, err);
	uint64_t data_size = pos(w) - w->data_off;
	/* the feature table right after the data, then the sections */
	size_t nfeat = 0;
	for (int b = 0; b < PERF_FEAT_BITS; b++)
		nfeat += w->has_feat[b];
	uint64_t at = pos(w) + SECTION_SIZE * nfeat;
	for (int b = 0; b < PERF_FEAT_BITS; b++) {
		if (!w->has_feat[b])
			continue;
		if (put_u64(w, at, err) < 0 || put_u64(w, w->feat_len[b], err) < 0)
			return ERR_IO;
		at += w->feat_len[b];
	}
	for (int b = 0; b < PERF_FEAT_BITS; b++)
		if (w->has_feat[b] && put(w, w->feat[b], w->feat_len[b], err) < 0)
			return ERR_IO;
	if (flush(w, err) < 0)
		return ERR_IO;
	uint8_t h[FILE_HEADER_SIZE];
	uint64_t v[6] = {
		FILE_HEADER_SIZE, w->attr_len + SECTION_SIZE,
		/* attributes: after the header and the ids */
		0, (w->attr_len + SECTION_SIZE) * w->nattrs,
		w->data_off, data_size,
	};
	v[2] = w->data_off - v[3];
	memset(h, 0, sizeof h);
	memcpy(h, MAGIC, 8);
	memcpy(h + 8, v, sizeof v);
	/* event_types: a section of nothing, as perf writes it */
	for (int b = 0; b < PERF_FEAT_BITS; b++)
		if (w->has_feat[b])
			h[72 + b / 8] |= (uint8_t)(1u << (b % 8));
	size_t done = 0;
	while (done < sizeof h) {
		ssize_t k = pwrite(w->fd, h + done, sizeof h - done, (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return io_err(w, err);
		done += (size_t)k;
	}
	return 0;
}
