/* inject.c - see inject.h. */
#include "inject.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "../../../common/u64_map.h"

enum {
	MAX_RECORD = 65535,
	MAX_USER = 1024,
	/* perf_event_attr offsets (the kernel's ABI) */
	ATTR_SAMPLE_TYPE = 24, ATTR_FLAGS = 40, ATTR_REGS_USER = 80,
	ATTR_STACK_USER = 88,
	/* build_id_event: header, pid, build_id[24] (its size at [20]), name */
	BID_FIXED = 36, BID_NAME_ALIGN = 64,
	MISC_BUILD_ID_SIZE = 1 << 15,
};
#define FLAG_EXCLUDE_CALLCHAIN_USER (1ull << 22)

struct injector {
	perf_reader *r;
	script_ctx *sc;
	perf_writer *w;
	bool pipe_out;
	size_t nattrs0;         /* attributes written at the start */
	size_t attr_records;    /* HEADER_ATTR records met */
	u64_map reached;        /* dso pointer -> 1: files callchains reach */
	const dso **dsos;       /* the same, in order */
	const char **dso_names; /* the mapping names they were reached by */
	size_t ndsos, dsos_cap;
	uint8_t *bids;          /* build-ID entries for the table (file
				 * output; pipe output: those to write at
				 * the end) */
	size_t nbids_bytes, bids_cap;
	size_t added;
	inject_copy copy;       /* keep set: a copier */
	uint8_t rec[MAX_RECORD + 1] __attribute__((aligned(8)));
	uint8_t feat[MAX_RECORD + 1];
};

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline void wr64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* Attribute A (LEN bytes) as the output has it. */
static void rewrite_attr(uint8_t *a, size_t len)
{
	if (len < ATTR_SAMPLE_TYPE + 8)
		return;
	uint64_t st = rd64(a + ATTR_SAMPLE_TYPE);
	if (!(st & PERF_SAMPLE_STACK_USER) && !(st & PERF_SAMPLE_REGS_USER))
		return;
	bool stack = st & PERF_SAMPLE_STACK_USER;
	st &= ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	if (stack)
		st |= PERF_SAMPLE_CALLCHAIN;
	wr64(a + ATTR_SAMPLE_TYPE, st);
	if (len >= ATTR_FLAGS + 8 && stack)
		wr64(a + ATTR_FLAGS, rd64(a + ATTR_FLAGS) &
				     ~FLAG_EXCLUDE_CALLCHAIN_USER);
	if (len >= ATTR_REGS_USER + 8)
		wr64(a + ATTR_REGS_USER, 0);
	if (len >= ATTR_STACK_USER + 4)
		memset(a + ATTR_STACK_USER, 0, 4);
}

/* The EVENT_DESC feature P (LEN bytes, copied into OUT) with its
 * attributes rewritten; the layout was checked by the reader, and is
 * again here (a part that does not parse is copied as it is). */
static void rewrite_event_desc(const uint8_t *p, size_t len, uint8_t *out)
{
	memcpy(out, p, len);
	if (len < 8)
		return;
	uint32_t nr, asz;
	memcpy(&nr, out, 4);
	memcpy(&asz, out + 4, 4);
	size_t at = 8;
	for (uint32_t i = 0; i < nr; i++) {
		if (asz > len || len - at < (size_t)asz + 8)
			return;
		rewrite_attr(out + at, asz);
		at += asz;
		uint32_t nids, slen;
		memcpy(&nids, out + at, 4);
		memcpy(&slen, out + at + 4, 4);
		at += 8;
		if (slen > len - at || (uint64_t)nids * 8 > len - at - slen)
			return;
		at += slen + (size_t)nids * 8;
	}
}

static int nomem(ehelf_err *err)
{
	return err_set(err, ERR_NOMEM, "out of memory");
}

static int add_bid_bytes(injector *in, const uint8_t *e, size_t n,
			 ehelf_err *err)
{
	if (in->bids_cap - in->nbids_bytes < n) {
		size_t cap = in->bids_cap ? 2 * in->bids_cap : 4096;
		while (cap - in->nbids_bytes < n)
			cap *= 2;
		uint8_t *b = realloc(in->bids, cap);
		if (!b)
			return nomem(err);
		in->bids = b;
		in->bids_cap = cap;
	}
	memcpy(in->bids + in->nbids_bytes, e, n);
	in->nbids_bytes += n;
	return 0;
}

static int carry_features(injector *in, bool build_ids, ehelf_err *err);

injector *inject_new(perf_reader *r, script_ctx *sc, perf_writer *w,
		     bool pipe_out, const inject_copy *copy, ehelf_err *err)
{
	injector *in = calloc(1, sizeof *in);
	if (!in) {
		nomem(err);
		return NULL;
	}
	in->r = r;
	in->sc = sc;
	in->w = w;
	in->pipe_out = pipe_out;
	if (copy)
		in->copy = *copy;
	in->nattrs0 = perf_reader_nattrs(r);
	for (size_t i = 0; i < in->nattrs0; i++) {
		const uint8_t *a, *ids;
		size_t len, nids;
		perf_reader_attr_raw(r, i, &a, &len, &ids, &nids);
		if (len > sizeof in->feat) {
			err_set(err, ERR_FORMAT, "attribute of %zu bytes", len);
			goto fail;
		}
		memcpy(in->feat, a, len);
		if (!in->copy.keep)
			rewrite_attr(in->feat, len);
		if (perf_writer_attr(w, in->feat, len, ids, nids, err) < 0)
			goto fail;
	}
	/* a pipe has its features first, where perf writes them */
	if (pipe_out && carry_features(in, false, err) < 0)
		goto fail;
	return in;
fail:
	inject_free(in);
	return NULL;
}

void inject_free(injector *in)
{
	if (!in)
		return;
	u64_map_free(&in->reached);
	free(in->dsos);
	free(in->dso_names);
	free(in->bids);
	free(in);
}

size_t inject_added_build_ids(const injector *in)
{
	return in->added;
}

/* File F (a user frame's mapping) is reached by a written callchain. */
static int reach(injector *in, const raw_frame *f)
{
	const pmap *m = f->pr ? proc_find(f->pr, f->ip) : NULL;
	if (!m || !m->d || !m->name ||
	    u64_map_get(&in->reached, (uintptr_t)m->d))
		return 0;
	if (u64_map_put(&in->reached, (uintptr_t)m->d, 1, true) < 0)
		return ERR_NOMEM;
	if (in->ndsos == in->dsos_cap) {
		size_t cap = in->dsos_cap ? 2 * in->dsos_cap : 64;
		const dso **d = realloc(in->dsos, cap * sizeof *d);
		if (!d)
			return ERR_NOMEM;
		in->dsos = d;
		const char **n = realloc(in->dso_names, cap * sizeof *n);
		if (!n)
			return ERR_NOMEM;
		in->dso_names = n;
		in->dsos_cap = cap;
	}
	in->dsos[in->ndsos] = m->d;
	/* the mapping's name: what perf calls the file ("[vdso]" too) */
	in->dso_names[in->ndsos++] = m->name;
	return 0;
}

/* Sample EV rewritten into in->rec; its size, or a negative ERR_*. */
static int rewrite_sample(injector *in, const perf_event *ev, ehelf_err *err)
{
	static raw_frame uf[MAX_USER];
	bool unwound = false;
	int nu = 0;
	const perf_attr_info *a = ev->sample.attr;
	bool has_stack = a && (a->sample_type & PERF_SAMPLE_STACK_USER);
	in->sc->samples++;
	in->sc->stats.samples++;
	if (has_stack)
		nu = script_user_frames(in->sc, ev, uf, MAX_USER, &unwound);
	else
		in->sc->stats.no_user_stack++;
	const uint8_t *src = ev->rec;
	uint32_t chain_at = ev->sample.chain_at, chain_end = ev->sample.chain_end;
	uint32_t regs_at = has_stack ? ev->sample.regs_at : ev->size;
	uint32_t tail_at = has_stack ? ev->sample.tail_at : ev->size;
	uint8_t *o = in->rec;
	size_t n = chain_at;
	memcpy(o, src, chain_at);
	/* the fixed parts around the callchain, and its entries left */
	size_t around = chain_at + 8 + (regs_at - chain_end) + (ev->size - tail_at);
	size_t room = (MAX_RECORD - 7 - around) / 8;
	uint64_t *chain = (uint64_t *)(void *)(o + chain_at + 8);
	size_t k = 0;
	script_count_kernel(in->sc, ev);
	if (unwound) {
		for (uint64_t i = 0; i < ev->sample.nr && k < room; i++) {
			uint64_t ip = ev->sample.callchain[i];
			if (ip == (uint64_t)PERF_CONTEXT_USER)
				break;
			chain[k++] = ip;
		}
		if (k < room)
			chain[k++] = (uint64_t)PERF_CONTEXT_USER;
		for (int i = 0; i < nu && k < room; i++) {
			if (!uf[i].pr) { /* the cut-off marker: see inject.h */
				chain[k++] = 0;
				continue;
			}
			chain[k++] = uf[i].ip;
			int rc = reach(in, &uf[i]);
			if (rc < 0)
				return nomem(err);
		}
	} else {
		for (uint64_t i = 0; i < ev->sample.nr && k < room; i++)
			chain[k++] = ev->sample.callchain[i];
	}
	bool has_chain = (a && (a->sample_type & PERF_SAMPLE_CALLCHAIN)) ||
			 has_stack;
	if (has_chain) {
		wr64(o + chain_at, k);
		n = chain_at + 8 + 8 * k;
	}
	memcpy(o + n, src + chain_end, regs_at - chain_end);
	n += regs_at - chain_end;
	memcpy(o + n, src + tail_at, ev->size - tail_at);
	n += ev->size - tail_at;
	uint16_t size = (uint16_t)n;
	memcpy(o + 6, &size, 2);
	return (int)n;
}

/* A HEADER_FEATURE record EV: rewritten, kept for the end, or written. */
static int feature_record(injector *in, const perf_event *ev, ehelf_err *err)
{
	if (ev->size < 16)
		return 0;
	uint64_t bit = rd64(ev->rec + 8);
	const uint8_t *body = ev->rec + 16;
	size_t len = ev->size - 16u;
	if (bit == PERF_FEAT_COMPRESSED)
		return 0;
	if (bit == PERF_FEAT_BUILD_ID && !in->pipe_out)
		return add_bid_bytes(in, body, len, err);
	if (bit == PERF_FEAT_EVENT_DESC && !in->copy.keep) {
		rewrite_event_desc(body, len, in->feat);
		body = in->feat;
	}
	if (in->pipe_out) {
		memcpy(in->rec, ev->rec, 16);
		memmove(in->rec + 16, body, len);
		return perf_writer_record(in->w, in->rec, err);
	}
	/* file output: the end marker (no contents) has no section */
	if (len == 0 || bit >= PERF_FEAT_BITS)
		return 0;
	return perf_writer_feature(in->w, (int)bit, body, len, err);
}

int inject_event(injector *in, const perf_event *ev, ehelf_err *err)
{
	if (ev->kind == PERF_EV_SAMPLE && in->copy.keep)
		return in->copy.keep(in->copy.arg, ev)
			? perf_writer_record(in->w, ev->rec, err) : 0;
	if (ev->kind == PERF_EV_SAMPLE) {
		int n = rewrite_sample(in, ev, err);
		if (n < 0)
			return n;
		return perf_writer_record(in->w, in->rec, err);
	}
	if (procs_record(in->sc->procs, in->r, ev) < 0)
		return nomem(err);
	switch (ev->type) {
	case PERF_REC_COMPRESSED:
	case PERF_REC_COMPRESSED2:
		return 0; /* what it holds follows, decompressed */
	case PERF_REC_HEADER_TRACING_DATA:
	case PERF_REC_AUXTRACE:
		return err_set(err, ERR_UNSUPPORTED, "offset %llu: a %s record "
			       "(its payload follows it in the stream) cannot be "
			       "carried over: record to a file instead of a pipe",
			       (unsigned long long)ev->offset,
			       ev->type == PERF_REC_AUXTRACE ? "AUXTRACE"
							     : "HEADER_TRACING_DATA");
	case PERF_REC_HEADER_ATTR:
		/* those of the start are written already */
		if (in->attr_records++ < in->nattrs0)
			return 0;
		if (!in->pipe_out)
			return err_set(err, ERR_UNSUPPORTED, "offset %llu: an "
				       "attribute after the first records cannot "
				       "go into a perf.data file: write a pipe "
				       "(-o -)", (unsigned long long)ev->offset);
		if (ev->size < 16)
			return 0;
		memcpy(in->rec, ev->rec, ev->size);
		uint32_t asz;
		memcpy(&asz, in->rec + 12, 4);
		if (!in->copy.keep)
			rewrite_attr(in->rec + 8, asz < ev->size - 8u ? asz
							       : ev->size - 8u);
		return perf_writer_record(in->w, in->rec, err);
	case PERF_REC_HEADER_FEATURE:
		return feature_record(in, ev, err);
	case PERF_REC_HEADER_BUILD_ID:
		if (!in->pipe_out)
			return add_bid_bytes(in, ev->rec, ev->size, err);
		break;
	}
	return perf_writer_record(in->w, ev->rec, err);
}

/* Entries for the files reached that the recording's table lacks. */
static int complete_build_ids(injector *in, uint16_t type, ehelf_err *err)
{
	for (size_t i = 0; i < in->ndsos; i++) {
		const dso *d = in->dsos[i];
		const char *name = in->dso_names[i];
		const uint8_t *id;
		if (!d->build_id_len || d->build_id_len > 20 || !name ||
		    perf_reader_build_id(in->r, (uint32_t)-1, name, &id))
			continue;
		size_t nlen = strlen(name) + 1;
		size_t alen = (nlen + BID_NAME_ALIGN - 1) / BID_NAME_ALIGN * BID_NAME_ALIGN;
		if (BID_FIXED + alen > MAX_RECORD)
			continue;
		uint8_t *e = in->feat;
		memset(e, 0, BID_FIXED + alen);
		uint32_t t32 = type;
		uint16_t misc = PERF_RECORD_MISC_USER | MISC_BUILD_ID_SIZE;
		uint16_t size = (uint16_t)(BID_FIXED + alen);
		int32_t pid = -1;
		memcpy(e, &t32, 4);
		memcpy(e + 4, &misc, 2);
		memcpy(e + 6, &size, 2);
		memcpy(e + 8, &pid, 4);
		memcpy(e + 12, d->build_id, d->build_id_len);
		e[12 + 20] = (uint8_t)d->build_id_len;
		memcpy(e + BID_FIXED, name, nlen);
		int rc = in->pipe_out ? perf_writer_record(in->w, e, err)
				      : add_bid_bytes(in, e, size, err);
		if (rc < 0)
			return rc;
		in->added++;
	}
	return 0;
}

/* A file-mode input's build-ID entries, as records (pipe output). */
static int bid_section_records(injector *in, const uint8_t *p, size_t len,
			       ehelf_err *err)
{
	size_t at = 0;
	while (len - at >= BID_FIXED) {
		uint16_t size;
		memcpy(&size, p + at + 6, 2);
		if (size < BID_FIXED || size > len - at)
			break; /* the reader checked it: cannot happen */
		memcpy(in->rec, p + at, size);
		uint32_t type = PERF_REC_HEADER_BUILD_ID;
		memcpy(in->rec, &type, 4);
		int rc = perf_writer_record(in->w, in->rec, err);
		if (rc < 0)
			return rc;
		at += size;
	}
	return 0;
}

/* A file-mode input's features into the writer: with BUILD_IDS only the
 * build-ID table (pipe output: as records; file output: kept to be
 * completed), else all the others. */
static int carry_features(injector *in, bool build_ids, ehelf_err *err)
{
	int rc = 0;
	for (int bit = 0; bit < PERF_FEAT_BITS && rc == 0; bit++) {
		const uint8_t *p;
		size_t len;
		if (bit == PERF_FEAT_COMPRESSED || (bit == PERF_FEAT_BUILD_ID) != build_ids ||
		    !perf_reader_feature(in->r, bit, &p, &len))
			continue;
		if (bit == PERF_FEAT_BUILD_ID) {
			rc = in->pipe_out ? bid_section_records(in, p, len, err)
					  : add_bid_bytes(in, p, len, err);
			continue;
		}
		uint8_t *copy = NULL;
		if (bit == PERF_FEAT_EVENT_DESC && !in->copy.keep) {
			if (!(copy = malloc(len + 1)))
				return nomem(err);
			rewrite_event_desc(p, len, copy);
			p = copy;
		}
		if (in->pipe_out && bit == PERF_FEAT_TRACING_DATA)
			rc = err_set(err, ERR_UNSUPPORTED, "the recording's "
				     "tracing data cannot be carried over into "
				     "a pipe: write a file");
		else
			rc = perf_writer_feature(in->w, bit, p, len, err);
		free(copy);
	}
	return rc;
}

int inject_finish(injector *in, ehelf_err *err)
{
	int rc = 0;
	if (!in->pipe_out)
		rc = carry_features(in, false, err);
	if (rc == 0)
		rc = carry_features(in, true, err);
	if (rc == 0)
		rc = complete_build_ids(in, in->pipe_out ? PERF_REC_HEADER_BUILD_ID : 0,
					err);
	if (rc == 0 && !in->pipe_out && in->nbids_bytes)
		rc = perf_writer_feature(in->w, PERF_FEAT_BUILD_ID, in->bids,
					 in->nbids_bytes, err);
	if (rc == 0)
		rc = perf_writer_finish(in->w, err);
	return rc;
}
