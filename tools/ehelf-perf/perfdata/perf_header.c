/*
 * perf_header.c - what perf's own records and the file header give the
 * reader (perf_reader_state.h): the attributes and the sample ids that name
 * them, the build-IDs (BUILD_ID feature, HEADER_BUILD_ID records), the
 * event names (EVENT_DESC feature, EVENT_UPDATE records), and the file
 * header with its feature sections.
 */
#define _GNU_SOURCE
#include "perf_header.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_reader_mem.h"

/* ---- attributes and ids ----------------------------------------------------- */

long pr_id_lookup(const perf_reader *r, uint64_t id)
{
	return (long)u64_map_get(&r->ids, id) - 1;
}

/* Sample id ID belongs to attribute ATTR_IDX (the first attribute with an
 * id keeps it).  0 or -1 when out of memory. */
static int id_insert(perf_reader *r, uint64_t id, size_t attr_idx)
{
	return u64_map_put(&r->ids, id, (uintptr_t)attr_idx + 1, true) < 0 ? -1 : 0;
}

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};
static const char *const cache_names[] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};
static const char *const cache_ops[] = { "load", "store", "prefetch" };
static const char *const cache_accesses[] = { "loads", "stores", "prefetches" };

/* perf's name for an event without a recorded name (no modifiers). */
static void default_name(char *buf, size_t size, uint32_t type,
			 uint64_t config)
{
	size_t nhw = sizeof hw_names / sizeof *hw_names;
	size_t nsw = sizeof sw_names / sizeof *sw_names;
	if (type == PERF_TYPE_HARDWARE && config < nhw) {
		snprintf(buf, size, "%s", hw_names[config]);
	} else if (type == PERF_TYPE_SOFTWARE && config < nsw) {
		snprintf(buf, size, "%s", sw_names[config]);
	} else if (type == PERF_TYPE_HW_CACHE && (config & 0xff) < 7 &&
		   (config >> 8 & 0xff) < 3 && (config >> 16 & 0xff) < 2 &&
		   config >> 24 == 0) {
		unsigned op = config >> 8 & 0xff;
		if (config >> 16 & 0xff)
			snprintf(buf, size, "%s-%s-misses",
				 cache_names[config & 0xff], cache_ops[op]);
		else
			snprintf(buf, size, "%s-%s", cache_names[config & 0xff],
				 cache_accesses[op]);
	} else if (type == PERF_TYPE_RAW) {
		snprintf(buf, size, "r%" PRIx64, config);
	} else if (type == PERF_TYPE_TRACEPOINT) {
		snprintf(buf, size, "tracepoint %" PRIu64, config);
	} else if (type == PERF_TYPE_BREAKPOINT) {
		snprintf(buf, size, "breakpoint");
	} else {
		snprintf(buf, size, "type %" PRIu32 " config 0x%" PRIx64, type,
			 config);
	}
}

int pr_add_attr(perf_reader *r, const uint8_t *raw, size_t len,
		const uint8_t *ids, uint64_t nids, ehelf_err *err)
{
	if (r->nattrs >= UINT32_MAX - 1)
		return pr_nomem(err, r);
	if (!pr_reserve(&r->attrs, &r->attrs_cap, r->nattrs + 1,
		     sizeof *r->attrs))
		return pr_nomem(err, r);
	struct rattr *ra = calloc(1, sizeof *ra);
	if (!ra)
		return pr_nomem(err, r);
	r->attrs[r->nattrs] = ra;

	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	memcpy(&a, raw, len < sizeof a ? len : sizeof a);
	perf_attr_info *in = &ra->info;
	in->type = a.type;
	in->config = a.config;
	in->sample_type = a.sample_type;
	in->read_format = a.read_format;
	in->sample_regs_user = a.sample_regs_user;
	in->sample_stack_user = a.sample_stack_user;
	in->sample_id_all = a.sample_id_all;
	in->exclude_callchain_user = a.exclude_callchain_user;
	ra->branch_sample_type = a.branch_sample_type;
	ra->nregs = (unsigned)__builtin_popcountll(a.sample_regs_user);
	const uint64_t trailer_bits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		PERF_SAMPLE_IDENTIFIER;
	ra->trailer = 8 * (unsigned)__builtin_popcountll(a.sample_type &
							  trailer_bits);
	default_name(ra->defname, sizeof ra->defname, a.type, a.config);
	in->name = ra->defname;
	size_t idx = r->nattrs++;
	uint8_t *raw_copy = pr_arena_alloc(r, len + 1);
	uint8_t *ids_copy = pr_arena_alloc(r, 8 * nids + 1);
	if (!raw_copy || !ids_copy)
		return pr_nomem(err, r);
	memcpy(raw_copy, raw, len);
	memcpy(ids_copy, ids, 8 * nids);
	ra->raw = raw_copy;
	ra->raw_len = len;
	ra->raw_ids = ids_copy;
	ra->nraw_ids = nids;

	for (uint64_t i = 0; i < nids; i++)
		if (id_insert(r, rd64(ids + 8 * i), idx))
			return pr_nomem(err, r);
	return 0;
}

void pr_set_name(perf_reader *r, struct rattr *ra, const uint8_t *s,
		 size_t max, int src)
{
	if (ra->name_src > src || !strnlen((const char *)s, max))
		return;
	char *name = pr_arena_str(r, s, max);
	if (name) {
		ra->info.name = name;
		ra->name_src = src;
	}
}

/* ---- build-IDs ---------------------------------------------------------------- */

uint32_t pr_hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static int bid_rehash(perf_reader *r)
{
	size_t n = r->bid_nheads ? 2 * r->bid_nheads : 64;
	uint32_t *heads = malloc(n * sizeof *heads);
	if (!heads)
		return -1;
	memset(heads, 0xff, n * sizeof *heads);
	/* insert in order so that chains keep the first entry first */
	for (size_t i = r->nbids; i-- > 0;) {
		struct build_id_ent *b = &r->bids[i];
		b->next = heads[b->hash & (n - 1)];
		heads[b->hash & (n - 1)] = (uint32_t)i;
	}
	free(r->bid_heads);
	r->bid_heads = heads;
	r->bid_nheads = n;
	return 0;
}

int pr_add_build_id(perf_reader *r, const uint8_t *e, size_t size,
		    uint64_t off, ehelf_err *err)
{
	if (size < BUILD_ID_EVENT_MIN)
		return pr_fmt_err(err, r, off, "build-ID entry of %zu bytes, "
			       "less than its %d-byte fixed part", size,
			       BUILD_ID_EVENT_MIN);
	uint16_t misc = rd16(e + 4);
	size_t len = BUILD_ID_MAX;
	if (misc & MISC_BUILD_ID_SIZE) {
		len = e[12 + BUILD_ID_MAX];
		if (len > BUILD_ID_MAX)
			return pr_fmt_err(err, r, off, "build-ID size %zu larger "
				       "than %d", len, BUILD_ID_MAX);
	}
	if (len == 0)
		return 0;
	if (r->nbids >= UINT32_MAX - 1 ||
	    !pr_reserve(&r->bids, &r->bids_cap, r->nbids + 1, sizeof *r->bids))
		return pr_nomem(err, r);
	struct build_id_ent *b = &r->bids[r->nbids];
	b->file = pr_arena_str(r, e + BUILD_ID_EVENT_MIN,
			    size - BUILD_ID_EVENT_MIN);
	if (!b->file)
		return pr_nomem(err, r);
	b->pid = rd32(e + 8);
	b->len = (uint8_t)len;
	memcpy(b->id, e + 12, len);
	b->hash = pr_hash_str(b->file);
	r->nbids++;
	if (r->nbids > r->bid_nheads) {
		if (bid_rehash(r))
			return pr_nomem(err, r);
	} else {
		/* append at the chain's end: earlier entries win */
		uint32_t *link = &r->bid_heads[b->hash & (r->bid_nheads - 1)];
		while (*link != UINT32_MAX)
			link = &r->bids[*link].next;
		b->next = UINT32_MAX;
		*link = (uint32_t)(r->nbids - 1);
	}
	return 0;
}

int pr_parse_build_ids(perf_reader *r, const uint8_t *p, uint64_t len,
		       uint64_t off, ehelf_err *err)
{
	uint64_t at = 0;
	while (at < len) {
		if (len - at < 8)
			return pr_fmt_err(err, r, off + at, "BUILD_ID feature "
				       "ends inside an entry header");
		uint16_t size = rd16(p + at + 6);
		if (size < BUILD_ID_EVENT_MIN || size > len - at)
			return pr_fmt_err(err, r, off + at, "BUILD_ID feature "
				       "entry of %u bytes (%" PRIu64 " left in "
				       "the section)", size, len - at);
		int rc = pr_add_build_id(r, p + at, size, off + at, err);
		if (rc < 0)
			return rc;
		at += size;
	}
	return 0;
}

int pr_parse_event_desc(perf_reader *r, const uint8_t *p, uint64_t len,
			uint64_t off, ehelf_err *err)
{
	if (len < 8)
		return pr_fmt_err(err, r, off, "EVENT_DESC feature of %" PRIu64
			       " bytes", len);
	uint32_t nr = rd32(p), attr_size = rd32(p + 4);
	if (attr_size < PERF_ATTR_SIZE_VER0 || attr_size > len)
		return pr_fmt_err(err, r, off + 4, "EVENT_DESC attr_size %" PRIu32
			       " (section of %" PRIu64 " bytes)", attr_size,
			       len);
	uint64_t at = 8;
	for (uint32_t i = 0; i < nr; i++) {
		if (len - at < (uint64_t)attr_size + 8)
			return pr_fmt_err(err, r, off + at, "EVENT_DESC event %"
				       PRIu32 " of %" PRIu32 " runs past the "
				       "section", i, nr);
		at += attr_size;
		uint32_t nids = rd32(p + at), slen = rd32(p + at + 4);
		at += 8;
		if (slen > len - at || (uint64_t)nids * 8 > len - at - slen)
			return pr_fmt_err(err, r, off + at, "EVENT_DESC event %"
				       PRIu32 ": name of %" PRIu32 " bytes and %"
				       PRIu32 " ids run past the section", i,
				       slen, nids);
		const uint8_t *str = p + at;
		at += slen;
		long idx = nids ? pr_id_lookup(r, rd64(p + at)) : -1;
		if (idx < 0 && i < r->nattrs)
			idx = i;
		if (idx >= 0)
			pr_set_name(r, r->attrs[idx], str, slen, NAME_DESC);
		at += (uint64_t)nids * 8;
	}
	return 0;
}

/* ---- the file header -------------------------------------------------------------- */

int pr_parse_file_header(perf_reader *r, ehelf_err *err)
{
	const uint8_t *m = r->map;
	uint64_t fsize = r->map_size;
	uint64_t hsize = rd64(m + 8);
	if (hsize != FILE_HEADER_NOFEAT && hsize < FILE_HEADER_FULL)
		return pr_fmt_err(err, r, 8, "header size %" PRIu64 " (expected %d"
			       ", %d or %d)", hsize, FILE_HEADER_FULL,
			       FILE_HEADER_NOFEAT, PIPE_HEADER_SIZE);
	if (hsize > fsize)
		return pr_fmt_err(err, r, 8, "header of %" PRIu64 " bytes in a "
			       "file of %" PRIu64, hsize, fsize);
	uint64_t attr_size = rd64(m + 16);
	uint64_t aoff = rd64(m + 24), asize = rd64(m + 32);
	uint64_t doff = rd64(m + 40), dsize = rd64(m + 48);
	if (attr_size < PERF_ATTR_SIZE_VER0 + FILE_SECTION_SIZE ||
	    attr_size > MAX_RECORD)
		return pr_fmt_err(err, r, 16, "attribute size %" PRIu64,
			       attr_size);
	if (!in_bounds(aoff, asize, fsize))
		return pr_fmt_err(err, r, 24, "attribute section [%" PRIu64 ", +%"
			       PRIu64 ") past the end of the file (%" PRIu64
			       " bytes)", aoff, asize, fsize);
	if (asize % attr_size)
		return pr_fmt_err(err, r, 32, "attribute section of %" PRIu64
			       " bytes is no multiple of the attribute size %"
			       PRIu64, asize, attr_size);
	if (!in_bounds(doff, dsize, fsize))
		return pr_fmt_err(err, r, 40, "data section [%" PRIu64 ", +%" PRIu64
			       ") past the end of the file (%" PRIu64
			       " bytes)", doff, dsize, fsize);

	for (uint64_t i = 0; i < asize / attr_size; i++) {
		uint64_t at = aoff + i * attr_size;
		uint64_t asz = attr_size - FILE_SECTION_SIZE;
		uint64_t ioff = rd64(m + at + asz), isize = rd64(m + at + asz + 8);
		if (!in_bounds(ioff, isize, fsize) || isize % 8)
			return pr_fmt_err(err, r, at + asz, "ids of attribute %"
				       PRIu64 " at [%" PRIu64 ", +%" PRIu64
				       ") outside the file or not whole u64s",
				       i, ioff, isize);
		int rc = pr_add_attr(r, m + at, asz, m + ioff, isize / 8, err);
		if (rc < 0)
			return rc;
	}

	r->pos = doff;
	r->dropped = doff / (uint64_t)sysconf(_SC_PAGESIZE) * (uint64_t)sysconf(_SC_PAGESIZE);
	r->data_end = doff + dsize;
	if (hsize < FILE_HEADER_FULL)
		return 0;
	/* feature sections: one perf_file_section per bit set, in bit order,
	 * right after the data section */
	uint64_t nfeat = 0;
	for (int w = 0; w < FEAT_BITS / 64; w++)
		nfeat += (uint64_t)__builtin_popcountll(rd64(m + 72 + 8 * w));
	uint64_t toff = r->data_end;
	if (!in_bounds(toff, nfeat * FILE_SECTION_SIZE, fsize))
		return pr_fmt_err(err, r, toff, "feature table of %" PRIu64
			       " sections past the end of the file (%" PRIu64
			       " bytes)", nfeat, fsize);
	uint64_t k = 0;
	for (int bit = 0; bit < FEAT_BITS; bit++) {
		if (!(rd64(m + 72 + 8 * (bit / 64)) >> (bit % 64) & 1))
			continue;
		uint64_t at = toff + FILE_SECTION_SIZE * k++;
		uint64_t soff = rd64(m + at), ssize = rd64(m + at + 8);
		if (in_bounds(soff, ssize, fsize)) {
			r->feat_off[bit] = soff;
			r->feat_size[bit] = ssize;
			r->feat_ok[bit] = true;
		}
		if (bit != FEAT_BUILD_ID && bit != FEAT_EVENT_DESC)
			continue;
		if (!in_bounds(soff, ssize, fsize))
			return pr_fmt_err(err, r, at, "feature %d section [%" PRIu64
				       ", +%" PRIu64 ") past the end of the "
				       "file (%" PRIu64 " bytes)", bit, soff,
				       ssize, fsize);
		int rc = bit == FEAT_BUILD_ID
			? pr_parse_build_ids(r, m + soff, ssize, soff, err)
			: pr_parse_event_desc(r, m + soff, ssize, soff, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}
