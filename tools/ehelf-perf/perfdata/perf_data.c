/*
 * perf_data.c - see perf_data.h: opening and closing a reader, its memory
 * and errors, partial stacks and the queries; the other parts are listed
 * in perf_reader_state.h.
 *
 * Written from perf.data-file-format.txt and the kernel's perf_event.h.
 *
 * Reading.  File mode maps the file and walks the data section in place;
 * pipe mode reads the stream into a growing input buffer (read(2) in large
 * chunks) and copies each record that must wait for its turn into a queue
 * buffer.  The records inside COMPRESSED records come from a decompression
 * buffer (decomp.h), and are copied to the queue buffer in both modes when
 * they must wait.  Either way a record is first *indexed* (its time found,
 * the attribute, build-ID, feature and event-name records among perf's own
 * records taken in at once) and *decoded* into a perf_event only when it is
 * delivered, from the map, the queue buffer, the input buffer or the
 * decompression buffer.
 *
 * Robustness: every length is checked against the bytes that hold it before
 * use, every record is at least its 8-byte header, counts are checked
 * against the bytes left before any multiplication, and memory only grows
 * with the input actually read (records are at most 64 KiB).  Arrays handed
 * out (callchain, registers) are 8-byte aligned: a record at an odd
 * position is copied to an aligned scratch buffer first.
 */
#define _GNU_SOURCE
#include "perf_data.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_decode.h"
#include "perf_header.h"
#include "perf_input.h"
#include "perf_reader_mem.h"

/* Pipe mode: take in perf's own records at the start of the stream (the
 * attributes, features, event names) without consuming them, so that the
 * attributes are known once perf_reader_open returns. */
static int pipe_preread(perf_reader *r, ehelf_err *err)
{
	size_t at = 0;  /* relative to head, which pr_in_fill may move */
	for (;;) {
		long k = pr_in_fill(r, at + 8, err);
		if (k < 0)
			return (int)k;
		if ((size_t)k < at + 8)
			break;
		const uint8_t *p = r->in + r->head + at;
		uint32_t type = rd32(p), size = rd16(p + 6);
		if (type < REC_USER_TYPE_START || type == REC_FINISHED_ROUND ||
		    type == REC_HEADER_TRACING_DATA || type == REC_AUXTRACE ||
		    type == REC_COMPRESSED || size < 8 || at > 4 * IN_CHUNK)
			break;
		k = pr_in_fill(r, at + size, err);
		if (k < 0)
			return (int)k;
		if ((size_t)k < at + size)
			break;
		int rc = pr_take_in(r, r->in + r->head + at, r->in_off + at, err);
		if (rc < 0)
			return rc;
		at += size;
	}
	r->pre_end = r->in_off + at;
	return 0;
}

void perf_reader_close(perf_reader *r)
{
	if (!r)
		return;
	if (r->map)
		munmap((void *)r->map, r->map_size);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	for (size_t i = 0; i < r->nattrs; i++)
		free(r->attrs[i]);
	free(r->attrs);
	while (r->arena) {
		struct chunk *c = r->arena;
		r->arena = c->next;
		free(c);
	}
	u64_map_free(&r->ids);
	free(r->bids);
	free(r->bid_heads);
	free(r->in);
	free(r->qbuf);
	free(r->qbuf2);
	free(r->q);
	free(r->qtmp);
	free(r->scratch);
	free(r->chain_scratch);
	free(r->win);
	decomp_free(r->dc);
	free(r->cut);
	free(r->name);
	free(r);
}

perf_reader *perf_reader_open(const char *path, ehelf_err *err)
{
	if (!path) {
		err_set(err, ERR_ARG, "perf_reader_open: no path");
		return NULL;
	}
	perf_reader *r = calloc(1, sizeof *r);
	bool is_stdin = strcmp(path, "-") == 0;
	if (!r || !(r->name = strdup(is_stdin ? "<stdin>" : path)) ||
	    !(r->scratch = aligned_alloc(8, MAX_RECORD)) ||
	    !(r->chain_scratch = aligned_alloc(8, MAX_RECORD + 8 * 64))) {
		err_set(err, ERR_NOMEM, "%s: out of memory", path);
		perf_reader_close(r);
		return NULL;
	}
	r->fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	r->own_fd = !is_stdin;
	if (r->fd < 0) {
		err_set(err, ERR_IO, "%s: open: %s", path, strerror(errno));
		goto fail;
	}
	struct stat st;
	if (fstat(r->fd, &st) < 0) {
		err_set(err, ERR_IO, "%s: stat: %s", r->name, strerror(errno));
		goto fail;
	}
	uint8_t hdr[PIPE_HEADER_SIZE];
	bool regular = S_ISREG(st.st_mode);
	if (regular) {
		if (st.st_size < PIPE_HEADER_SIZE) {
			err_set(err, ERR_FORMAT, "%s: offset 0: file of %lld "
				"bytes is too small for a perf.data header",
				r->name, (long long)st.st_size);
			goto fail;
		}
		if (pread(r->fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr) {
			err_set(err, ERR_IO, "%s: read: %s", r->name,
				strerror(errno));
			goto fail;
		}
	} else {
		r->pipe = true;
		long k = pr_in_fill(r, PIPE_HEADER_SIZE, err);
		if (k < 0)
			goto fail;
		if (k < PIPE_HEADER_SIZE) {
			pr_fmt_err(err, r, 0, "stream of %ld bytes is too small "
				"for a perf.data header", k);
			goto fail;
		}
		memcpy(hdr, r->in, sizeof hdr);
	}

	uint64_t magic = rd64(hdr), hsize = rd64(hdr + 8);
	if (magic == MAGIC_PERFILE2_SWAPPED) {
		err_set(err, ERR_UNSUPPORTED, "%s: big-endian (byte-swapped) "
			"perf.data files are not supported", r->name);
		goto fail;
	}
	if (magic == MAGIC_PERFFILE) {
		err_set(err, ERR_UNSUPPORTED, "%s: version 1 perf.data files "
			"(magic PERFFILE) are not supported", r->name);
		goto fail;
	}
	if (magic != MAGIC_PERFILE2) {
		pr_fmt_err(err, r, 0, "not a perf.data file (no PERFILE2 magic)");
		goto fail;
	}

	if (hsize == PIPE_HEADER_SIZE) {
		r->pipe = true; /* a regular file is read as a stream too */
		if (regular) {
			long k = pr_in_fill(r, PIPE_HEADER_SIZE, err);
			if (k >= 0 && k < PIPE_HEADER_SIZE)
				pr_fmt_err(err, r, 0, "file shrank under the "
					"reader");
			if (k < PIPE_HEADER_SIZE)
				goto fail;
		}
		r->head += PIPE_HEADER_SIZE;
		r->in_off = PIPE_HEADER_SIZE;
		if (pipe_preread(r, err) < 0)
			goto fail;
		return r;
	}
	if (!regular) {
		err_set(err, ERR_UNSUPPORTED, "%s: a perf.data file (not "
			"written with -o -) cannot be read from a pipe; give "
			"its path", r->name);
		goto fail;
	}
	r->map_size = (size_t)st.st_size;
	void *m = mmap(NULL, r->map_size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (m == MAP_FAILED) {
		err_set(err, ERR_IO, "%s: mmap: %s", r->name, strerror(errno));
		goto fail;
	}
	r->map = m;
	madvise(m, r->map_size, MADV_SEQUENTIAL);
	if (pr_parse_file_header(r, err) < 0)
		goto fail;
	return r;
fail:
	perf_reader_close(r);
	return NULL;
}

/* ---- partial stacks ------------------------------------------------------------ */

int perf_reader_partial_stacks(perf_reader *r, size_t bytes)
{
	if (r->pipe || r->partial || r->started)
		return 0;
	if (bytes < 64)
		bytes = 64;
	if (bytes > MAX_RECORD / 2)
		bytes = MAX_RECORD / 2;
	bytes &= ~(size_t)7; /* a cut record keeps perf's 8-byte layout */
	/* room for the largest part perf_reader_set_partial may ask */
	size_t cap = MAX_RECORD + MAX_RECORD / 2 + HEAD_GUESS + READ_AHEAD;
	if (!(r->win = aligned_alloc(8, cap)))
		return -1;
	r->win_off = r->win_len = 0;
	r->partial = bytes;
	/* one pread per record, or nearly: spare each its update of the
	 * access time (allowed to the file's owner) and the readahead
	 * bookkeeping (the pages are read where the records are).  Only on
	 * a descriptor of our own: standard input's open file is shared
	 * with whoever redirected it, and its flags and advice with it. */
	if (r->own_fd) {
		int fl = fcntl(r->fd, F_GETFL);
		if (fl >= 0)
			(void)fcntl(r->fd, F_SETFL, fl | O_NOATIME);
		(void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_RANDOM);
	}
	return 1;
}

int perf_reader_set_partial(perf_reader *r, size_t bytes)
{
	if (!r->partial)
		return 0;
	if (bytes == 0) {
		/* through the mapping from the next record on: records
		 * queued by then stay where they are (QPOS_BUF) */
		r->partial = 0;
		if (r->own_fd)
			(void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
		r->dropped = r->pos / page * page;
		return 1;
	}
	if (bytes < 64)
		bytes = 64;
	if (bytes > MAX_RECORD / 2)
		bytes = MAX_RECORD / 2;
	r->partial = bytes & ~(size_t)7;
	return 1;
}

bool perf_reader_in_mapping(const perf_reader *r, const void *p)
{
	uintptr_t a = (uintptr_t)p, m = r ? (uintptr_t)r->map : 0;
	return m && a >= m && a - m < r->map_size;
}

int perf_reader_read_stack(const perf_reader *r, const perf_event *ev,
			   uint8_t *buf, ehelf_err *err)
{
	uint64_t n = ev->sample.stack_full, done = 0;
	if (n > MAX_RECORD || ev->sample.stack_file + n > r->map_size)
		return err_set(err, ERR_ARG, "%s: no stack copy of %" PRIu64
			       " bytes at %" PRIu64, r->name, n,
			       ev->sample.stack_file);
	while (done < n) {
		ssize_t k = pread(r->fd, buf + done, n - done,
				  (off_t)(ev->sample.stack_file + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return err_set(err, ERR_IO, "%s: read: %s", r->name,
				       k < 0 ? strerror(errno) : "file shrank");
		done += (uint64_t)k;
	}
	return 0;
}

/* ---- queries -------------------------------------------------------------------- */

size_t perf_reader_nattrs(const perf_reader *r)
{
	return r->nattrs;
}

const perf_attr_info *perf_reader_attr(const perf_reader *r, size_t i)
{
	return i < r->nattrs ? &r->attrs[i]->info : NULL;
}

size_t perf_reader_build_id(const perf_reader *r, uint32_t pid,
			    const char *filename, const uint8_t **id)
{
	if (!r->bid_nheads || !filename)
		return 0;
	uint32_t h = pr_hash_str(filename);
	const struct build_id_ent *any = NULL;
	for (uint32_t i = r->bid_heads[h & (r->bid_nheads - 1)];
	     i != UINT32_MAX; i = r->bids[i].next) {
		const struct build_id_ent *b = &r->bids[i];
		if (b->hash != h || strcmp(b->file, filename) != 0)
			continue;
		if (b->pid == pid) {
			any = b;
			break;
		}
		if (b->pid == UINT32_MAX && !any)
			any = b;
	}
	if (!any)
		return 0;
	*id = any->id;
	return any->len;
}

bool perf_reader_is_pipe(const perf_reader *r)
{
	return r->pipe;
}

bool perf_reader_attr_raw(const perf_reader *r, size_t i, const uint8_t **attr,
			  size_t *len, const uint8_t **ids, size_t *nids)
{
	if (i >= r->nattrs)
		return false;
	*attr = r->attrs[i]->raw;
	*len = r->attrs[i]->raw_len;
	*ids = r->attrs[i]->raw_ids;
	*nids = r->attrs[i]->nraw_ids;
	return true;
}

bool perf_reader_feature(const perf_reader *r, int bit, const uint8_t **p,
			 size_t *len)
{
	if (r->pipe || bit < 0 || bit >= FEAT_BITS || !r->feat_ok[bit])
		return false;
	*p = r->map + r->feat_off[bit];
	*len = (size_t)r->feat_size[bit];
	return true;
}

const char *perf_reader_cut(const perf_reader *r)
{
	return r->cut;
}

void perf_reader_progress(const perf_reader *r, uint64_t *done,
			  uint64_t *total)
{
	*done = r->pipe ? r->in_off : r->pos;
	*total = r->pipe ? 0 : r->data_end;
}
