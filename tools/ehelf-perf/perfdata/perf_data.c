/*
 * perf_data.c - see perf_data.h.
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
 * Ordering is that of perf's ordered-events queue, so that samples come out
 * in exactly the order `perf script` prints them:
 *
 *   - a record with a time (a sample with PERF_SAMPLE_TIME, another kernel
 *     record with a sample_id trailer carrying a time) joins the queue;
 *     times 0 and ~0 count as no time;
 *   - a record without one (and every record of perf's own, type >= 64) is
 *     delivered when it is read: after everything already released, before
 *     what is still queued;
 *   - at a FINISHED_ROUND the queue, sorted by time (ties in file order), is
 *     released up to the largest time queued before the previous
 *     FINISHED_ROUND; the rest waits for the next round (perf record may
 *     write a record of round N+1 that happened before one of round N);
 *     then the FINISHED_ROUND record itself is delivered;
 *   - at the end everything left is released, sorted.
 *
 * The queue holds 16-byte index entries (time, position), sorted with a
 * stable merge sort that costs little on the nearly sorted input perf
 * writes; records stored in the file are never moved in file mode.
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
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../../common/u64_map.h"
#include "decomp.h"

/* perf's own record types (perf.data-file-format.txt), not in the kernel
 * header. */
enum {
	REC_USER_TYPE_START = 64,
	REC_HEADER_ATTR = 64,
	REC_HEADER_TRACING_DATA = 66,
	REC_HEADER_BUILD_ID = 67,
	REC_FINISHED_ROUND = 68,
	REC_AUXTRACE = 71,
	REC_EVENT_UPDATE = 78,
	REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81,
	REC_COMPRESSED2 = 83,   /* perf >= 6.15: header, u64 data_size, data */
};

/* Feature bits of the file header (and ids of HEADER_FEATURE records). */
enum { FEAT_BUILD_ID = 2, FEAT_EVENT_DESC = 12, FEAT_BITS = 256 };

#define MAGIC_PERFILE2 0x32454c4946524550ULL     /* "PERFILE2" read as LE */
#define MAGIC_PERFILE2_SWAPPED 0x50455246494c4532ULL
#define MAGIC_PERFFILE 0x454c494646524550ULL     /* "PERFFILE": version 1 */

#define FILE_HEADER_NOFEAT 72   /* magic, size, attr_size, 3 sections */
#define FILE_HEADER_FULL 104    /* ... and the 256-bit feature bitmap */
#define PIPE_HEADER_SIZE 16
#define FILE_SECTION_SIZE 16    /* struct perf_file_section */

/* build_id_event: header, pid, build_id[24], filename; with this misc bit
 * the ID's length is in build_id[20], else it is 20 bytes. */
#define BUILD_ID_EVENT_MIN 36
#define BUILD_ID_MAX 20
#define MISC_BUILD_ID_SIZE (1 << 15)

#define EVENT_UPDATE_NAME 2     /* PERF_RECORD_EVENT_UPDATE: type NAME */

#define MAX_RECORD 65536        /* perf_event_header.size is a u16 */
#define IN_CHUNK (1u << 20)     /* pipe mode: bytes per read(2) */

/* Sources of an attribute's name, weakest first. */
enum { NAME_DEFAULT, NAME_UPDATE, NAME_DESC };

struct rattr {
	perf_attr_info info;    /* first: perf_reader_attr() hands it out */
	uint64_t branch_sample_type;
	unsigned nregs;         /* bits set in sample_regs_user */
	unsigned trailer;       /* bytes of a sample_id trailer */
	int name_src;
	char defname[48];
	const uint8_t *raw;     /* the attr as recorded (arena copy) */
	size_t raw_len;
	const uint8_t *raw_ids; /* its ids (arena copy), nraw_ids u64s */
	size_t nraw_ids;
};

/* A queued record: its sort key and where it is (file offset in file mode,
 * offset in qbuf in pipe mode or, in file mode, with QPOS_BUF set). */
struct qent {
	uint64_t time;
	uint64_t pos;
};
#define QPOS_BUF (1ull << 63)
/* a sample whose stack copy was cut (partial stacks): its qbuf record is
 * followed by a u64, the copy's dyn_size */
#define QPOS_CUT (1ull << 62)
/* partial stacks: bytes of a sample's head (before its stack copy)
 * expected, at least and at most (more is read when needed), and bytes
 * read ahead, beyond those asked for and the stack copy's part: the
 * records after them (a perf record --call-graph dwarf sample's head:
 * 232 bytes in user mode) */
#define HEAD_MIN 320
/* queued copies left in place until this much of qbuf is used */
#define QBUF_KEEP (64u << 10)
#define HEAD_GUESS 1024
#define READ_AHEAD 512

struct build_id_ent {
	uint32_t pid;
	uint32_t hash;
	uint32_t next;          /* next in the hash chain, UINT32_MAX at end */
	uint8_t len;
	uint8_t id[BUILD_ID_MAX];
	const char *file;       /* in the arena */
};

struct chunk {
	struct chunk *next;
	size_t used, cap;
	char data[];
};

struct perf_reader {
	char *name;             /* for messages */
	int fd;
	bool own_fd;
	bool pipe;

	/* file mode */
	const uint8_t *map;
	size_t map_size;
	uint64_t pos, data_end; /* next record to read; end of data section */
	/* partial stacks (perf_reader_partial_stacks): the data section is
	 * read with pread, win[] holding the file's [win_off, + win_len),
	 * and a sample with more stack than PARTIAL is given as a record
	 * whose copy is cut to PARTIAL bytes (built in qbuf, where enqueue
	 * puts it) */
	size_t partial;         /* 0: the data section read through map */
	uint8_t *win;
	uint64_t win_off;
	size_t win_len;
	uint64_t cut_full;      /* the last record next_raw gave was cut:
				 * its dyn_size; else 0 */
	uint64_t imm_full;      /* the same for imm */
	uint64_t stack_at;      /* of the last sample decoded: its copy's
				 * offset in the record */
	uint64_t dropped;       /* the mapping's pages before this offset
				 * were given back (drop_read_pages) */
	/* feature sections (file mode): bit -> [offset, + size) */
	uint64_t feat_off[FEAT_BITS], feat_size[FEAT_BITS];
	bool feat_ok[FEAT_BITS];

	/* pipe mode: the input buffer holds in[head, tail), at stream offset
	 * in_off for in[head] */
	uint8_t *in;
	size_t in_cap, head, tail;
	uint64_t in_off;
	bool in_eof;
	char *cut;              /* the stream was cut short: where (message) */
	uint64_t skip;          /* payload bytes to skip before the next record */
	uint64_t pre_end;       /* records before this offset were taken in */
	uint8_t *qbuf, *qbuf2;  /* queued records: [u64 offset][record, pad 8]
				 * (file mode: those from compressed data) */
	size_t qlen, qcap, qcap2;

	/* records inside COMPRESSED records (perf record -z), decompressed
	 * when their COMPRESSED record is read; located by its offset */
	decomp *dc;
	uint64_t dc_off;
	bool rec_decomp;        /* the last record next_raw gave is from dc */

	/* ordering */
	struct qent *q, *qtmp;
	size_t qn, qcap_ent, qtmp_cap;
	size_t out_pos, out_n;  /* q[out_pos, out_n) are released */
	uint64_t max_time, next_flush;
	const uint8_t *imm;     /* a record to deliver in place, or NULL */
	uint64_t imm_off;
	bool finished;          /* all read; only the out list is left */
	bool started;           /* perf_reader_next was called */
	bool failed;

	/* attributes, their ids (open addressing: slot value attr index + 1) */
	struct rattr **attrs;
	size_t nattrs, attrs_cap;
	u64_map ids;            /* sample id -> attribute index + 1 */

	/* build-IDs (chained hash on the file name) */
	struct build_id_ent *bids;
	uint32_t *bid_heads;
	size_t nbids, bids_cap, bid_nheads;

	struct chunk *arena;
	uint8_t *scratch;       /* aligned copy of a record */
	uint64_t *chain_scratch; /* aligned callchain / registers */
};

/* ---- small helpers -------------------------------------------------------- */

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t rd16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

/* True when [off, off + size) lies within [0, limit). */
static bool in_bounds(uint64_t off, uint64_t size, uint64_t limit)
{
	return off <= limit && size <= limit - off;
}

static int fmt_err(ehelf_err *err, const perf_reader *r, uint64_t off,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* ERR_FORMAT: "NAME: offset OFF: what". */
static int fmt_err(ehelf_err *err, const perf_reader *r, uint64_t off,
		   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(err, ERR_FORMAT, fmt, ap);
	va_end(ap);
	err_prefix(err, "%s: offset %" PRIu64, r->name, off);
	return ERR_FORMAT;
}

static int nomem(ehelf_err *err, const perf_reader *r)
{
	return err_set(err, ERR_NOMEM, "%s: out of memory", r->name);
}

/* Make room for N elements of ELEM bytes in the array whose pointer is at
 * PP (capacity *CAP); false when out of memory (the array is unchanged). */
static bool reserve(void *pp, size_t *cap, size_t n, size_t elem)
{
	if (n <= *cap)
		return true;
	size_t c = *cap ? *cap : 16;
	while (c < n)
		c *= 2;
	void *p;
	memcpy(&p, pp, sizeof p);
	p = realloc(p, c * elem);
	if (!p)
		return false;
	memcpy(pp, &p, sizeof p);
	*cap = c;
	return true;
}

static void *arena_alloc(perf_reader *r, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	struct chunk *c = r->arena;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 16384 ? n : 16384;
		c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->next = r->arena;
		c->used = 0;
		c->cap = cap;
		r->arena = c;
	}
	void *p = c->data + c->used;
	c->used += n;
	return p;
}

/* A NUL-terminated copy of the string in S[0, MAX) (up to its NUL). */
static char *arena_str(perf_reader *r, const uint8_t *s, size_t max)
{
	size_t n = strnlen((const char *)s, max);
	char *p = arena_alloc(r, n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

/* ---- attributes and ids ----------------------------------------------------- */

/* The index of the attribute owning sample id ID, or -1. */
static long id_lookup(const perf_reader *r, uint64_t id)
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

/* Take in an attribute: LEN bytes of perf_event_attr at RAW and its NIDS
 * sample ids at IDS (unaligned u64s). */
static int add_attr(perf_reader *r, const uint8_t *raw, size_t len,
		    const uint8_t *ids, uint64_t nids, ehelf_err *err)
{
	if (r->nattrs >= UINT32_MAX - 1)
		return nomem(err, r);
	if (!reserve(&r->attrs, &r->attrs_cap, r->nattrs + 1,
		     sizeof *r->attrs))
		return nomem(err, r);
	struct rattr *ra = calloc(1, sizeof *ra);
	if (!ra)
		return nomem(err, r);
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
	uint8_t *raw_copy = arena_alloc(r, len + 1);
	uint8_t *ids_copy = arena_alloc(r, 8 * nids + 1);
	if (!raw_copy || !ids_copy)
		return nomem(err, r);
	memcpy(raw_copy, raw, len);
	memcpy(ids_copy, ids, 8 * nids);
	ra->raw = raw_copy;
	ra->raw_len = len;
	ra->raw_ids = ids_copy;
	ra->nraw_ids = nids;

	for (uint64_t i = 0; i < nids; i++)
		if (id_insert(r, rd64(ids + 8 * i), idx))
			return nomem(err, r);
	return 0;
}

static void set_name(perf_reader *r, struct rattr *ra, const uint8_t *s,
		     size_t max, int src)
{
	if (ra->name_src > src || !strnlen((const char *)s, max))
		return;
	char *name = arena_str(r, s, max);
	if (name) {
		ra->info.name = name;
		ra->name_src = src;
	}
}

/* ---- build-IDs ---------------------------------------------------------------- */

static uint32_t hash_str(const char *s)
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

/* Take in one build_id_event of SIZE bytes at E (offset OFF, for messages). */
static int add_build_id(perf_reader *r, const uint8_t *e, size_t size,
			uint64_t off, ehelf_err *err)
{
	if (size < BUILD_ID_EVENT_MIN)
		return fmt_err(err, r, off, "build-ID entry of %zu bytes, "
			       "less than its %d-byte fixed part", size,
			       BUILD_ID_EVENT_MIN);
	uint16_t misc = rd16(e + 4);
	size_t len = BUILD_ID_MAX;
	if (misc & MISC_BUILD_ID_SIZE) {
		len = e[12 + BUILD_ID_MAX];
		if (len > BUILD_ID_MAX)
			return fmt_err(err, r, off, "build-ID size %zu larger "
				       "than %d", len, BUILD_ID_MAX);
	}
	if (len == 0)
		return 0;
	if (r->nbids >= UINT32_MAX - 1 ||
	    !reserve(&r->bids, &r->bids_cap, r->nbids + 1, sizeof *r->bids))
		return nomem(err, r);
	struct build_id_ent *b = &r->bids[r->nbids];
	b->file = arena_str(r, e + BUILD_ID_EVENT_MIN,
			    size - BUILD_ID_EVENT_MIN);
	if (!b->file)
		return nomem(err, r);
	b->pid = rd32(e + 8);
	b->len = (uint8_t)len;
	memcpy(b->id, e + 12, len);
	b->hash = hash_str(b->file);
	r->nbids++;
	if (r->nbids > r->bid_nheads) {
		if (bid_rehash(r))
			return nomem(err, r);
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

/* The BUILD_ID feature: build_id_events back to back. */
static int parse_build_ids(perf_reader *r, const uint8_t *p, uint64_t len,
			   uint64_t off, ehelf_err *err)
{
	uint64_t at = 0;
	while (at < len) {
		if (len - at < 8)
			return fmt_err(err, r, off + at, "BUILD_ID feature "
				       "ends inside an entry header");
		uint16_t size = rd16(p + at + 6);
		if (size < BUILD_ID_EVENT_MIN || size > len - at)
			return fmt_err(err, r, off + at, "BUILD_ID feature "
				       "entry of %u bytes (%" PRIu64 " left in "
				       "the section)", size, len - at);
		int rc = add_build_id(r, p + at, size, off + at, err);
		if (rc < 0)
			return rc;
		at += size;
	}
	return 0;
}

/* The EVENT_DESC feature: u32 nr, u32 attr_size, then per event: the attr,
 * u32 nr_ids, a perf_header_string (u32 len, len bytes), nr_ids u64 ids. */
static int parse_event_desc(perf_reader *r, const uint8_t *p, uint64_t len,
			    uint64_t off, ehelf_err *err)
{
	if (len < 8)
		return fmt_err(err, r, off, "EVENT_DESC feature of %" PRIu64
			       " bytes", len);
	uint32_t nr = rd32(p), attr_size = rd32(p + 4);
	if (attr_size < PERF_ATTR_SIZE_VER0 || attr_size > len)
		return fmt_err(err, r, off + 4, "EVENT_DESC attr_size %" PRIu32
			       " (section of %" PRIu64 " bytes)", attr_size,
			       len);
	uint64_t at = 8;
	for (uint32_t i = 0; i < nr; i++) {
		if (len - at < (uint64_t)attr_size + 8)
			return fmt_err(err, r, off + at, "EVENT_DESC event %"
				       PRIu32 " of %" PRIu32 " runs past the "
				       "section", i, nr);
		at += attr_size;
		uint32_t nids = rd32(p + at), slen = rd32(p + at + 4);
		at += 8;
		if (slen > len - at || (uint64_t)nids * 8 > len - at - slen)
			return fmt_err(err, r, off + at, "EVENT_DESC event %"
				       PRIu32 ": name of %" PRIu32 " bytes and %"
				       PRIu32 " ids run past the section", i,
				       slen, nids);
		const uint8_t *str = p + at;
		at += slen;
		long idx = nids ? id_lookup(r, rd64(p + at)) : -1;
		if (idx < 0 && i < r->nattrs)
			idx = i;
		if (idx >= 0)
			set_name(r, r->attrs[idx], str, slen, NAME_DESC);
		at += (uint64_t)nids * 8;
	}
	return 0;
}

/* ---- file and stream input ------------------------------------------------- */

static int stream_cut(perf_reader *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Pipe mode: the stream ends at OFF inside what FMT says: remembered
 * (perf_reader_cut) and taken as the end of the stream.  Returns 0. */
static int stream_cut(perf_reader *r, uint64_t off, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	free(r->cut);
	if (asprintf(&r->cut, "%s: offset %" PRIu64 ": %s", r->name, off,
		     what) < 0)
		r->cut = NULL;
	r->in_eof = true;
	r->head = r->tail; /* nothing more of it is read */
	return 0;
}

/* Pipe mode: make N bytes available at in[head]; returns how many are (less
 * than N only at the end of the stream) or a negative ERR_*. */
static long in_fill(perf_reader *r, size_t n, ehelf_err *err)
{
	size_t have = r->tail - r->head;
	if (have >= n)
		return (long)n;
	if (r->head) {
		memmove(r->in, r->in + r->head, have);
		r->tail = have;
		r->head = 0;
	}
	if (r->in_cap < n) {
		size_t cap = n > IN_CHUNK ? n : IN_CHUNK;
		uint8_t *p = realloc(r->in, cap);
		if (!p)
			return nomem(err, r);
		r->in = p;
		r->in_cap = cap;
	}
	while (r->tail < n && !r->in_eof) {
		ssize_t k = read(r->fd, r->in + r->tail, r->in_cap - r->tail);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return err_set(err, ERR_IO, "%s: read: %s", r->name,
				       strerror(errno));
		}
		if (k == 0)
			r->in_eof = true;
		r->tail += (size_t)k;
	}
	return (long)(r->tail < n ? r->tail : n);
}

/* Pipe mode: drop N bytes of the stream (a payload after its record). */
static int in_skip(perf_reader *r, uint64_t n, ehelf_err *err)
{
	while (n) {
		if (r->tail == r->head) {
			long k = in_fill(r, 1, err);
			if (k < 0)
				return (int)k;
			if (k == 0)
				return stream_cut(r, r->in_off, "stream ends "
						  "inside a payload (%" PRIu64
						  " bytes missing)", n);
		}
		size_t take = r->tail - r->head;
		if (take > n)
			take = (size_t)n;
		r->head += take;
		r->in_off += take;
		n -= take;
	}
	return 0;
}

/* Bytes of payload that follow record REC in the stream without being part
 * of it (HEADER_TRACING_DATA, AUXTRACE), or a negative ERR_*. */
static int64_t payload_size(perf_reader *r, const uint8_t *rec, uint32_t size,
			    uint64_t off, ehelf_err *err)
{
	uint32_t type = rd32(rec);
	if (type == REC_HEADER_TRACING_DATA) {
		if (size < 12)
			return fmt_err(err, r, off, "HEADER_TRACING_DATA record "
				       "of %" PRIu32 " bytes", size);
		return rd32(rec + 8);
	}
	if (type == REC_AUXTRACE) {
		if (size < 16)
			return fmt_err(err, r, off, "AUXTRACE record of %"
				       PRIu32 " bytes", size);
		uint64_t n = rd64(rec + 8);
		if (n > INT64_MAX)
			return fmt_err(err, r, off, "AUXTRACE payload of %"
				       PRIu64 " bytes", n);
		return (int64_t)n;
	}
	return 0;
}

static int next_partial(perf_reader *r, const uint8_t **rec, uint64_t *off,
			ehelf_err *err);

/* The size of the record whose header H starts at r->pos of the file's
 * data section, checked against the section: 8 or more, or a negative
 * ERR_* (the message names the offset). */
static int64_t stored_size(perf_reader *r, const uint8_t *h, ehelf_err *err)
{
	uint32_t size = rd16(h + 6);
	if (size < 8)
		return fmt_err(err, r, r->pos, "record size %" PRIu32
			       " smaller than its header", size);
	if (size > r->data_end - r->pos)
		return fmt_err(err, r, r->pos, "record of %" PRIu32
			       " bytes runs past the end of the data "
			       "section at %" PRIu64, size, r->data_end);
	return size;
}

/* A record of SIZE bytes at r->pos of the file's data section taken: *OFF
 * set, r->pos past it and past its payload.  1, or a negative ERR_* when
 * the payload runs past the data section. */
static int take_stored(perf_reader *r, const uint8_t *rec, uint32_t size,
		       uint64_t *off, ehelf_err *err)
{
	*off = r->pos;
	r->pos += size;
	int64_t pay = payload_size(r, rec, size, *off, err);
	if (pay < 0)
		return (int)pay;
	if ((uint64_t)pay > r->data_end - r->pos)
		return fmt_err(err, r, *off, "payload of %" PRId64
			       " bytes runs past the end of the data "
			       "section", pay);
	r->pos += (uint64_t)pay;
	return 1;
}

/* Room for N more bytes in qbuf (and as much in qbuf2); false if out of
 * memory. */
static bool qbuf_room(perf_reader *r, size_t n)
{
	if (r->qcap - r->qlen >= n)
		return true;
	size_t cap = r->qcap ? r->qcap : 1u << 20;
	while (cap - r->qlen < n)
		cap *= 2;
	uint8_t *p = realloc(r->qbuf, cap);
	if (!p)
		return false;
	r->qbuf = p;
	r->qcap = cap;
	if (r->qcap2 < cap) {
		free(r->qbuf2);
		r->qbuf2 = malloc(cap);
		r->qcap2 = r->qbuf2 ? cap : 0;
		if (!r->qbuf2)
			return false;
	}
	return true;
}

/* The next record stored in the file or stream: 1 with *REC (valid until
 * the next call) and *OFF set, 0 at the end, or a negative ERR_*. */
static int next_stored(perf_reader *r, const uint8_t **rec, uint64_t *off,
		       ehelf_err *err)
{
	uint32_t size;
	if (!r->pipe && r->partial)
		return next_partial(r, rec, off, err);
	if (!r->pipe) {
		if (r->pos >= r->data_end)
			return 0;
		if (r->data_end - r->pos < 8)
			return fmt_err(err, r, r->pos, "data section ends inside "
				       "a record header");
		int64_t k = stored_size(r, r->map + r->pos, err);
		if (k < 0)
			return (int)k;
		size = (uint32_t)k;
		*rec = r->map + r->pos;
		return take_stored(r, *rec, size, off, err);
	}

	if (r->skip) {
		int rc = in_skip(r, r->skip, err);
		if (rc < 0)
			return rc;
		r->skip = 0;
	}
	long k = in_fill(r, 8, err);
	if (k < 0)
		return (int)k;
	if (k == 0)
		return 0;
	if (k < 8)
		return stream_cut(r, r->in_off, "stream ends inside a record "
				  "header (%ld bytes of it)", k);
	size = rd16(r->in + r->head + 6);
	if (size < 8)
		return fmt_err(err, r, r->in_off, "record size %" PRIu32
			       " smaller than its header", size);
	k = in_fill(r, size, err);
	if (k < 0)
		return (int)k;
	if ((uint32_t)k < size)
		return stream_cut(r, r->in_off, "stream ends inside a record "
				  "of %" PRIu32 " bytes (%ld present)", size, k);
	*rec = r->in + r->head;
	*off = r->in_off;
	r->head += size;
	r->in_off += size;
	int64_t pay = payload_size(r, *rec, size, *off, err);
	if (pay < 0)
		return (int)pay;
	r->skip = (uint64_t)pay;
	return 1;
}

/*
 * The next record in perf's processing order: those stored, and after a
 * COMPRESSED record (itself given too) the records it decompresses to
 * (r->rec_decomp set; *REC valid until the next call, *OFF the COMPRESSED
 * record's).  1, 0 at the end, or a negative ERR_*.
 */
static int next_raw(perf_reader *r, const uint8_t **rec, uint64_t *off,
		    ehelf_err *err)
{
	r->rec_decomp = false;
	r->cut_full = 0;
	if (r->dc) {
		int rc;
		const uint8_t *d = decomp_next(r->dc, &rc, err);
		if (rc < 0) {
			err_prefix(err, "%s: offset %" PRIu64, r->name, r->dc_off);
			return rc;
		}
		if (d) {
			uint32_t type = rd32(d);
			if (type == REC_HEADER_TRACING_DATA || type == REC_AUXTRACE ||
			    type == REC_COMPRESSED || type == REC_COMPRESSED2)
				return err_set(err, ERR_UNSUPPORTED, "%s: offset %"
					       PRIu64 ": record of type %" PRIu32
					       " inside compressed data",
					       r->name, r->dc_off, type);
			*rec = d;
			*off = r->dc_off;
			r->rec_decomp = true;
			return 1;
		}
	}
	int rc = next_stored(r, rec, off, err);
	if (rc == 0 && decomp_pending(r->dc) && r->pipe)
		return stream_cut(r, r->dc_off, "stream ends inside a record "
				  "of compressed data (%zu bytes of it)",
				  decomp_pending(r->dc));
	if (rc == 0 && decomp_pending(r->dc))
		return fmt_err(err, r, r->dc_off, "data ends inside a record of "
			       "compressed data (%zu bytes of it)",
			       decomp_pending(r->dc));
	uint32_t type = rc > 0 ? rd32(*rec) : 0;
	if (type == REC_COMPRESSED || type == REC_COMPRESSED2) {
		uint32_t size = rd16(*rec + 6), at = 8;
		uint64_t n = size - 8u;
		if (type == REC_COMPRESSED2) {
			if (size < 16 || rd64(*rec + 8) > size - 16u)
				return fmt_err(err, r, *off, "COMPRESSED2 record "
					       "of %" PRIu32 " bytes with %" PRIu64
					       " bytes of data", size,
					       size < 16 ? 0 : rd64(*rec + 8));
			at = 16;
			n = rd64(*rec + 8);
		}
		if (!r->dc && !(r->dc = decomp_new()))
			return nomem(err, r);
		int frc = decomp_feed(r->dc, *rec + at, (size_t)n, err);
		if (frc < 0) {
			err_prefix(err, "%s: offset %" PRIu64, r->name, *off);
			return frc;
		}
		r->dc_off = *off;
	}
	return rc;
}

/* ---- records ---------------------------------------------------------------- */

/* The attribute of sample REC, through its IDENTIFIER or ID when there are
 * several attributes. */
static int sample_attr(const perf_reader *r, const uint8_t *rec,
		       uint32_t size, uint64_t off, const struct rattr **out,
		       ehelf_err *err)
{
	if (r->nattrs == 0)
		return fmt_err(err, r, off, "sample before any attribute");
	const struct rattr *a0 = r->attrs[0];
	*out = a0;
	if (r->nattrs == 1)
		return 0;
	uint64_t st = a0->info.sample_type, pos;
	if (st & PERF_SAMPLE_IDENTIFIER)
		pos = 8;
	else if (st & PERF_SAMPLE_ID)
		pos = 8 + 8 * (uint64_t)__builtin_popcountll(st &
			(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_ADDR));
	else
		return 0;
	if (pos + 8 > size)
		return fmt_err(err, r, off, "sample of %" PRIu32 " bytes too "
			       "short for its id", size);
	uint64_t id = rd64(rec + pos);
	long idx = id_lookup(r, id);
	if (idx < 0)
		return fmt_err(err, r, off, "sample id %" PRIu64 " belongs to "
			       "no attribute", id);
	*out = r->attrs[idx];
	return 0;
}

/* The attribute whose sample_id trailer non-sample kernel record REC
 * carries, or NULL when it carries none. */
static const struct rattr *trailer_attr(const perf_reader *r,
					const uint8_t *rec, uint32_t size)
{
	if (r->nattrs == 0 || !r->attrs[0]->info.sample_id_all)
		return NULL;
	const struct rattr *a = r->attrs[0];
	if (r->nattrs > 1 && (a->info.sample_type & PERF_SAMPLE_IDENTIFIER) &&
	    size >= 16) {
		long idx = id_lookup(r, rd64(rec + size - 8));
		if (idx >= 0 && r->attrs[idx]->info.sample_id_all)
			a = r->attrs[idx];
	}
	return a;
}

/* Fill pid/tid/time/cpu of EV from the sample_id trailer of A at the end
 * of REC; returns the trailer's size or a negative ERR_*. */
static int parse_trailer(const perf_reader *r, const struct rattr *a,
			 const uint8_t *rec, uint32_t size, uint64_t off,
			 perf_event *ev, ehelf_err *err)
{
	if (!a)
		return 0;
	if (a->trailer > size - 8)
		return fmt_err(err, r, off, "record of %" PRIu32 " bytes too "
			       "short for its %u-byte sample_id trailer", size,
			       a->trailer);
	const uint8_t *p = rec + size - a->trailer;
	uint64_t st = a->info.sample_type;
	if (st & PERF_SAMPLE_TID) {
		ev->pid = rd32(p);
		ev->tid = rd32(p + 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		ev->time = rd64(p);
		p += 8;
	}
	p += 8 * !!(st & PERF_SAMPLE_ID) + 8 * !!(st & PERF_SAMPLE_STREAM_ID);
	if (st & PERF_SAMPLE_CPU)
		ev->cpu = rd32(p);
	return (int)a->trailer;
}

/* The sort key of REC: 1 with *T set when it has a time, 0 when it has
 * none (then it is delivered in place), or a negative ERR_*. */
static int record_time(const perf_reader *r, const uint8_t *rec,
		       uint32_t size, uint64_t off, uint64_t *t,
		       ehelf_err *err)
{
	uint32_t type = rd32(rec);
	*t = 0;
	if (type == PERF_RECORD_SAMPLE) {
		const struct rattr *a;
		int rc = sample_attr(r, rec, size, off, &a, err);
		if (rc < 0)
			return rc;
		uint64_t st = a->info.sample_type;
		if (!(st & PERF_SAMPLE_TIME))
			return 0;
		uint64_t pos = 8 + 8 * (uint64_t)__builtin_popcountll(st &
			(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID));
		if (pos + 8 > size)
			return fmt_err(err, r, off, "sample of %" PRIu32
				       " bytes too short for its time", size);
		*t = rd64(rec + pos);
	} else if (type < REC_USER_TYPE_START) {
		const struct rattr *a = trailer_attr(r, rec, size);
		if (!a || !(a->info.sample_type & PERF_SAMPLE_TIME))
			return 0;
		perf_event ev;
		ev.time = 0;
		int rc = parse_trailer(r, a, rec, size, off, &ev, err);
		if (rc < 0)
			return rc;
		*t = ev.time;
	}
	return *t != 0 && *t != UINT64_MAX;
}

/* A pointer to N u64s at P, aligned: P itself or a copy in SCRATCH. */
static const uint64_t *aligned_u64s(const uint8_t *p, uint64_t n,
				    uint64_t *scratch)
{
	if (((uintptr_t)p & 7) == 0)
		return (const uint64_t *)(const void *)p;
	memcpy(scratch, p, n * 8);
	return scratch;
}

struct cur {
	const uint8_t *p, *end;
};

static bool cur_u64(struct cur *c, uint64_t *v)
{
	if (c->end - c->p < 8)
		return false;
	*v = rd64(c->p);
	c->p += 8;
	return true;
}

static bool cur_skip(struct cur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n)
		return false;
	c->p += n;
	return true;
}

static int decode_sample(perf_reader *r, const uint8_t *rec, uint32_t size,
			 uint64_t off, perf_event *ev, ehelf_err *err)
{
	const struct rattr *a;
	int rc = sample_attr(r, rec, size, off, &a, err);
	if (rc < 0)
		return rc;
	uint64_t st = a->info.sample_type, v, nr;
	struct cur c = { rec + 8, rec + size };
	const char *field;
	ev->sample.attr = &a->info;

#define NEED(ok, name)                                                        \
	do {                                                                  \
		if (!(ok)) {                                                  \
			field = (name);                                       \
			goto short_record;                                    \
		}                                                             \
	} while (0)

	if (st & PERF_SAMPLE_IDENTIFIER)
		NEED(cur_u64(&c, &ev->sample.id), "IDENTIFIER");
	if (st & PERF_SAMPLE_IP)
		NEED(cur_u64(&c, &ev->sample.ip), "IP");
	if (st & PERF_SAMPLE_TID) {
		NEED(cur_u64(&c, &v), "TID");
		ev->pid = (uint32_t)v;
		ev->tid = (uint32_t)(v >> 32);
	}
	if (st & PERF_SAMPLE_TIME)
		NEED(cur_u64(&c, &ev->time), "TIME");
	if (st & PERF_SAMPLE_ADDR)
		NEED(cur_u64(&c, &ev->sample.addr), "ADDR");
	if (st & PERF_SAMPLE_ID)
		NEED(cur_u64(&c, &ev->sample.id), "ID");
	if (st & PERF_SAMPLE_STREAM_ID)
		NEED(cur_u64(&c, &v), "STREAM_ID");
	if (st & PERF_SAMPLE_CPU) {
		NEED(cur_u64(&c, &v), "CPU");
		ev->cpu = (uint32_t)v;
	}
	if (st & PERF_SAMPLE_PERIOD)
		NEED(cur_u64(&c, &ev->sample.period), "PERIOD");
	if (st & PERF_SAMPLE_READ) {
		uint64_t rf = a->info.read_format;
		uint64_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
				 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
		uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) +
			       !!(rf & PERF_FORMAT_LOST);
		if (rf & PERF_FORMAT_GROUP) {
			NEED(cur_u64(&c, &nr), "READ");
			NEED(cur_skip(&c, 8 * times), "READ");
			NEED(nr <= (uint64_t)(c.end - c.p) / (8 * per), "READ");
			c.p += nr * per * 8;
		} else {
			NEED(cur_skip(&c, 8 * (per + times)), "READ");
		}
	}
	ev->sample.chain_at = (uint32_t)(c.p - rec);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		NEED(cur_u64(&c, &nr), "CALLCHAIN");
		NEED(nr <= (uint64_t)(c.end - c.p) / 8, "CALLCHAIN");
		ev->sample.nr = nr;
		ev->sample.callchain = nr ? aligned_u64s(c.p, nr,
							 r->chain_scratch)
					  : NULL;
		c.p += nr * 8;
	}
	ev->sample.chain_end = (uint32_t)(c.p - rec);
	if (st & PERF_SAMPLE_RAW) {
		NEED(c.end - c.p >= 4, "RAW");
		uint32_t raw = rd32(c.p);
		c.p += 4;
		NEED(cur_skip(&c, raw), "RAW");
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		NEED(cur_u64(&c, &nr), "BRANCH_STACK");
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			NEED(cur_skip(&c, 8), "BRANCH_STACK");
		NEED(nr <= (uint64_t)(c.end - c.p) / 24, "BRANCH_STACK");
		c.p += nr * 24;
	}
	ev->sample.regs_at = (uint32_t)(c.p - rec);
	if (st & PERF_SAMPLE_REGS_USER) {
		NEED(cur_u64(&c, &ev->sample.regs_abi), "REGS_USER");
		if (ev->sample.regs_abi) {
			uint64_t n = a->nregs;
			NEED(n <= (uint64_t)(c.end - c.p) / 8, "REGS_USER");
			ev->sample.regs_mask = a->info.sample_regs_user;
			/* after the callchain in the same scratch buffer */
			ev->sample.regs = n ? aligned_u64s(c.p, n,
					r->chain_scratch + MAX_RECORD / 8)
					    : NULL;
			c.p += n * 8;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t sz, dyn;
		NEED(cur_u64(&c, &sz), "STACK_USER");
		if (sz) {
			const uint8_t *data = c.p;
			NEED(cur_skip(&c, sz), "STACK_USER");
			NEED(cur_u64(&c, &dyn), "STACK_USER dyn_size");
			if (dyn > sz)
				return fmt_err(err, r, off, "sample's STACK_USER "
					       "dyn_size %" PRIu64 " larger than "
					       "its size %" PRIu64, dyn, sz);
			ev->sample.stack = dyn ? data : NULL;
			ev->sample.stack_size = dyn;
			ev->sample.stack_full = dyn;
			r->stack_at = (uint64_t)(data - rec);
		}
	}
	ev->sample.tail_at = (uint32_t)(c.p - rec);
	return 0;
#undef NEED

short_record:
	return fmt_err(err, r, off, "sample of %" PRIu32 " bytes ends inside "
		       "its %s field", size, field);
}

/* Partial stacks: the file's bytes [OFF, OFF + N) (inside the file) into
 * *P, valid until the next call; when not in the window already, read
 * with r->partial + READ_AHEAD bytes after them (the next records, as
 * much as a sample's head and part would take).  0 or a negative ERR_*. */
static int win_get(perf_reader *r, uint64_t off, size_t n, const uint8_t **p,
		   ehelf_err *err)
{
	if (off >= r->win_off && off + n <= r->win_off + r->win_len) {
		*p = r->win + (off - r->win_off);
		return 0;
	}
	size_t want = n + r->partial + READ_AHEAD;
	if (want > r->map_size - off)
		want = (size_t)(r->map_size - off);
	size_t got = 0;
	while (got < want) {
		ssize_t k = pread(r->fd, r->win + got, want - got,
				  (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return err_set(err, ERR_IO, "%s: read: %s", r->name,
				       strerror(errno));
		if (k == 0)
			break;
		got += (size_t)k;
	}
	r->win_off = off;
	r->win_len = got;
	if (got < n)
		return fmt_err(err, r, off, "file shrank under the reader");
	*p = r->win;
	return 0;
}

/* Where the stack copy of sample HEAD (whose first N bytes are there, of a
 * record of SIZE bytes) lies: 1 with *DATA (its offset in the record) and
 * *SZ (its size field) set, 0 when it has none or its fields do not fit in
 * N bytes (then decode_sample judges the whole record). */
static int stack_at(const perf_reader *r, const uint8_t *head, size_t n,
		    uint64_t *data, uint64_t *sz)
{
	const struct rattr *a;
	ehelf_err e;
	if (sample_attr(r, head, (uint32_t)n, 0, &a, &e) < 0)
		return 0;
	uint64_t st = a->info.sample_type, nr;
	if (!(st & PERF_SAMPLE_STACK_USER) ||
	    (st & (PERF_SAMPLE_READ | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK)))
		return 0;  /* fields of their own sizes: the whole record */
	struct cur c = { head + 8, head + n };
	if (!cur_skip(&c, 8 * (uint64_t)__builtin_popcountll(st &
			(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD))))
		return 0;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (!cur_u64(&c, &nr) || nr > (uint64_t)(c.end - c.p) / 8)
			return 0;
		c.p += nr * 8;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		uint64_t abi;
		if (!cur_u64(&c, &abi) || (abi && !cur_skip(&c, 8 * (uint64_t)a->nregs)))
			return 0;
	}
	if (!cur_u64(&c, sz) || *sz == 0)
		return 0;
	*data = (uint64_t)(c.p - head);
	return 1;
}

/* next_stored for partial stacks: a sample with more than r->partial
 * bytes of stack copy comes cut to them (r->cut_full its dyn_size, when
 * larger), any other record whole. */
static int next_partial(perf_reader *r, const uint8_t **rec, uint64_t *off,
			ehelf_err *err)
{
	const uint8_t *h;
	r->cut_full = 0;
	if (r->pos >= r->data_end)
		return 0;
	if (r->data_end - r->pos < 8)
		return fmt_err(err, r, r->pos, "data section ends inside "
			       "a record header");
	int rc = win_get(r, r->pos, 8, &h, err);
	if (rc < 0)
		return rc;
	int64_t k = stored_size(r, h, err);
	if (k < 0)
		return (int)k;
	uint32_t size = (uint32_t)k;
	uint64_t data, sz;
	/* as much of its head as the window has, within reason */
	size_t n = r->win_off + r->win_len - r->pos;
	n = n < r->partial + HEAD_MIN ? r->partial + HEAD_MIN
	    : n > r->partial + HEAD_GUESS ? r->partial + HEAD_GUESS : n;
	n = size < n ? size : n;
	if (rd32(h) == PERF_RECORD_SAMPLE && size > r->partial + 16 &&
	    (rc = win_get(r, r->pos, n, &h, err)) == 0 &&
	    stack_at(r, h, n, &data, &sz) && sz > r->partial &&
	    size - data >= sz + 8) {
		size_t keep = (size_t)data + r->partial;
		if (keep > n && (rc = win_get(r, r->pos, keep, &h, err)) < 0)
			return rc;
		/* built where enqueue would copy it: [offset][record][dyn] */
		if (!qbuf_room(r, 8 + size + 8 + 8))
			return nomem(err, r);
		uint8_t *cut = r->qbuf + r->qlen + 8;
		memcpy(cut, h, keep);
		size_t rest = size - (size_t)(data + sz); /* dyn_size and after */
		const uint8_t *t;
		if ((rc = win_get(r, r->pos + data + sz, rest, &t, err)) < 0)
			return rc;
		uint64_t dyn = rd64(t);
		if (dyn > sz)
			return fmt_err(err, r, r->pos, "sample's STACK_USER "
				       "dyn_size %" PRIu64 " larger than its "
				       "size %" PRIu64, dyn, sz);
		uint64_t kept = r->partial, dyn_kept = dyn < kept ? dyn : kept;
		memcpy(cut + data - 8, &kept, 8);
		memcpy(cut + keep, &dyn_kept, 8);
		memcpy(cut + keep + 8, t + 8, rest - 8);
		uint16_t cut_size = (uint16_t)(keep + rest);
		memcpy(cut + 6, &cut_size, 2);
		r->cut_full = dyn > kept ? dyn : 0;
		*rec = cut;
	} else if (rc < 0) {
		return rc;
	} else if ((rc = win_get(r, r->pos, size, rec, err)) < 0) {
		return rc;
	}
	return take_stored(r, *rec, size, off, err);
}

/* A NUL-terminated string at P[0, N), or NULL. */
static const char *bounded_str(const uint8_t *p, size_t n)
{
	return memchr(p, '\0', n) ? (const char *)p : NULL;
}

/* Decode REC (SIZE bytes at offset OFF) into EV. */
static int decode(perf_reader *r, const uint8_t *rec, uint64_t off,
		  perf_event *ev, ehelf_err *err)
{
	uint32_t size = rd16(rec + 6);
	if ((uintptr_t)rec & 7) {
		memcpy(r->scratch, rec, size);
		rec = r->scratch;
	}
	memset(ev, 0, sizeof *ev);
	ev->rec = rec;
	ev->type = rd32(rec);
	ev->misc = rd16(rec + 4);
	ev->size = size;
	ev->offset = off;
	ev->kind = PERF_EV_OTHER;
	if (ev->type == PERF_RECORD_SAMPLE) {
		ev->kind = PERF_EV_SAMPLE;
		return decode_sample(r, rec, size, off, ev, err);
	}
	if (ev->type >= REC_USER_TYPE_START)
		return 0;

	int tr = parse_trailer(r, trailer_attr(r, rec, size), rec, size, off,
			       ev, err);
	if (tr < 0)
		return tr;
	size_t body = size - (uint32_t)tr; /* bytes before the trailer */
	const char *s;
	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		size_t fixed = ev->type == PERF_RECORD_MMAP ? 40 : 72;
		if (body < fixed + 1)
			return fmt_err(err, r, off, "%s record of %" PRIu32
				       " bytes too short", ev->type ==
				       PERF_RECORD_MMAP ? "MMAP" : "MMAP2",
				       size);
		s = bounded_str(rec + fixed, body - fixed);
		if (!s)
			return fmt_err(err, r, off, "MMAP file name without "
				       "its terminating NUL");
		ev->kind = PERF_EV_MMAP;
		ev->pid = rd32(rec + 8);
		ev->tid = rd32(rec + 12);
		ev->mmap.start = rd64(rec + 16);
		ev->mmap.len = rd64(rec + 24);
		ev->mmap.pgoff = rd64(rec + 32);
		ev->mmap.filename = s;
		if (ev->type == PERF_RECORD_MMAP) {
			ev->mmap.exec = !(ev->misc & PERF_RECORD_MISC_MMAP_DATA);
			break;
		}
		ev->mmap.prot = rd32(rec + 64);
		ev->mmap.flags = rd32(rec + 68);
		/* the kernel marks a mapping without VM_EXEC as data; perf's
		 * own kernel map has prot 0 */
		ev->mmap.exec = (ev->mmap.prot & PROT_EXEC) ||
				!(ev->misc & PERF_RECORD_MISC_MMAP_DATA);
		if (ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t n = rec[40];
			if (n > BUILD_ID_MAX)
				return fmt_err(err, r, off, "MMAP2 build-ID "
					       "size %u larger than %d", n,
					       BUILD_ID_MAX);
			ev->mmap.build_id = n ? rec + 44 : NULL;
			ev->mmap.build_id_len = n;
		}
		break;
	}
	case PERF_RECORD_COMM:
		if (body < 17 || !(s = bounded_str(rec + 16, body - 16)))
			return fmt_err(err, r, off, "COMM record of %" PRIu32
				       " bytes without a NUL-terminated name",
				       size);
		ev->kind = PERF_EV_COMM;
		ev->pid = rd32(rec + 8);
		ev->tid = rd32(rec + 12);
		ev->comm.comm = s;
		ev->comm.exec = ev->misc & PERF_RECORD_MISC_COMM_EXEC;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (body < 32)
			return fmt_err(err, r, off, "%s record of %" PRIu32
				       " bytes too short", ev->type ==
				       PERF_RECORD_FORK ? "FORK" : "EXIT",
				       size);
		ev->kind = ev->type == PERF_RECORD_FORK ? PERF_EV_FORK
							: PERF_EV_EXIT;
		ev->pid = rd32(rec + 8);
		ev->task.ppid = rd32(rec + 12);
		ev->tid = rd32(rec + 16);
		ev->task.ptid = rd32(rec + 20);
		if (!ev->time)
			ev->time = rd64(rec + 24);
		break;
	}
	return 0;
}

/* Take in one of perf's own records when it is read: attributes (pipe
 * mode), features, build-IDs, event names. */
static int take_in(perf_reader *r, const uint8_t *rec, uint64_t off,
		   ehelf_err *err)
{
	uint32_t type = rd32(rec), size = rd16(rec + 6);
	switch (type) {
	case REC_HEADER_ATTR: {
		if (!r->pipe)
			return 0; /* the file header's attributes rule */
		if (size < 8 + PERF_ATTR_SIZE_VER0)
			return fmt_err(err, r, off, "HEADER_ATTR record of %"
				       PRIu32 " bytes", size);
		uint32_t asz = rd32(rec + 12);
		if (asz == 0)
			asz = PERF_ATTR_SIZE_VER0;
		if (asz > size - 8)
			return fmt_err(err, r, off, "HEADER_ATTR attr size %"
				       PRIu32 " in a record of %" PRIu32
				       " bytes", asz, size);
		return add_attr(r, rec + 8, asz, rec + 8 + asz,
				(size - 8 - asz) / 8, err);
	}
	case REC_HEADER_BUILD_ID:
		return add_build_id(r, rec, size, off, err);
	case REC_HEADER_FEATURE: {
		if (size < 16)
			return fmt_err(err, r, off, "HEADER_FEATURE record of %"
				       PRIu32 " bytes", size);
		uint64_t feat = rd64(rec + 8);
		if (feat == FEAT_BUILD_ID)
			return parse_build_ids(r, rec + 16, size - 16, off + 16,
					       err);
		if (feat == FEAT_EVENT_DESC)
			return parse_event_desc(r, rec + 16, size - 16,
						off + 16, err);
		return 0;
	}
	case REC_EVENT_UPDATE: {
		if (size < 24)
			return fmt_err(err, r, off, "EVENT_UPDATE record of %"
				       PRIu32 " bytes", size);
		if (rd64(rec + 8) != EVENT_UPDATE_NAME)
			return 0;
		long idx = id_lookup(r, rd64(rec + 16));
		if (idx >= 0)
			set_name(r, r->attrs[idx], rec + 24, size - 24,
				 NAME_UPDATE);
		return 0;
	}
	}
	return 0;
}

/* ---- ordering ------------------------------------------------------------------ */

/* Stable merge sort of A[0, N) by time; TMP holds N / 2 + 1 entries. */
static void sort_queue(struct qent *a, size_t n, struct qent *tmp)
{
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			struct qent e = a[i];
			size_t j = i;
			while (j > 0 && a[j - 1].time > e.time) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = e;
		}
		return;
	}
	size_t m = n / 2;
	sort_queue(a, m, tmp);
	sort_queue(a + m, n - m, tmp);
	if (a[m - 1].time <= a[m].time)
		return;
	memcpy(tmp, a, m * sizeof *a);
	size_t i = 0, j = m, k = 0;
	while (i < m && j < n)
		a[k++] = tmp[i].time <= a[j].time ? tmp[i++] : a[j++];
	while (i < m)
		a[k++] = tmp[i++];
}

/* Sort the queue and release its entries up to time LIMIT (all for
 * UINT64_MAX). */
static int release(perf_reader *r, uint64_t limit, ehelf_err *err)
{
	if (r->qn > 1) {
		if (!reserve(&r->qtmp, &r->qtmp_cap, r->qn / 2 + 1,
			     sizeof *r->qtmp))
			return nomem(err, r);
		sort_queue(r->q, r->qn, r->qtmp);
	}
	size_t lo = 0, hi = r->qn;  /* first entry past LIMIT */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->q[mid].time <= limit)
			lo = mid + 1;
		else
			hi = mid;
	}
	r->out_pos = 0;
	r->out_n = lo;
	return 0;
}

/* Drop the delivered entries; the records still queued in the queue buffer
 * (pipe mode: all) move to the front of a fresh one. */
static void drop_delivered(perf_reader *r)
{
	if (!r->out_n)
		return;
	size_t left = r->qn - r->out_n;
	memmove(r->q, r->q + r->out_n, left * sizeof *r->q);
	r->qn = left;
	r->out_pos = r->out_n = 0;
	if (!r->qlen)
		return;
	bool in_qbuf = false;
	for (size_t i = 0; i < left && !in_qbuf; i++)
		in_qbuf = r->pipe || (r->q[i].pos & QPOS_BUF);
	if (!in_qbuf) {
		r->qlen = 0;
		return;
	}
	/* the survivors stay where they are until QBUF_KEEP bytes are used
	 * (moving them each time cost a copy of every record; a larger
	 * part of the buffer, a page fault for each of its pages) */
	if (r->qlen <= QBUF_KEEP)
		return;
	/* nor while they hold a quarter of the buffer or more: each byte is
	 * then moved a third of a time on average, where moving them at each
	 * round moved most records once or more (a round's records come
	 * after the previous round's survivors) */
	size_t live = 0;
	for (size_t i = 0; i < left; i++)
		if (r->pipe || (r->q[i].pos & QPOS_BUF)) {
			const uint8_t *p = r->qbuf + (r->q[i].pos & ~(QPOS_BUF | QPOS_CUT));
			live += 8 + ((rd16(p + 8 + 6) + 7u) & ~7u) +
				((r->q[i].pos & QPOS_CUT) ? 8 : 0);
		}
	if (4 * live > r->qlen)
		return;
	/* qbuf2 was sized like qbuf when qbuf last grew: the survivors fit */
	size_t len = 0;
	for (size_t i = 0; i < left; i++) {
		if (!r->pipe && !(r->q[i].pos & QPOS_BUF))
			continue; /* in the map */
		uint64_t cut = r->q[i].pos & QPOS_CUT;
		const uint8_t *p = r->qbuf + (r->q[i].pos & ~(QPOS_BUF | QPOS_CUT));
		size_t n = 8 + ((rd16(p + 8 + 6) + 7u) & ~7u) + (cut ? 8 : 0);
		memcpy(r->qbuf2 + len, p, n);
		r->q[i].pos = len | (r->pipe ? 0 : QPOS_BUF) | cut;
		len += n;
	}
	uint8_t *t = r->qbuf;
	r->qbuf = r->qbuf2;
	r->qbuf2 = t;
	size_t c = r->qcap;
	r->qcap = r->qcap2;
	r->qcap2 = c;
	r->qlen = len;
}

static int enqueue(perf_reader *r, const uint8_t *rec, uint64_t off,
		   uint64_t t, ehelf_err *err)
{
	if (!reserve(&r->q, &r->qcap_ent, r->qn + 1, sizeof *r->q))
		return nomem(err, r);
	/* perf's queue: the largest time queued, restarting when empty */
	if (r->qn == 0 || t >= r->max_time)
		r->max_time = t;
	uint64_t pos = off;
	if (r->pipe || r->rec_decomp || r->partial) { /* a copy: REC does not stay */
		uint32_t size = rd16(rec + 6);
		size_t n = 8 + ((size + 7u) & ~7u) + (r->cut_full ? 8 : 0);
		/* a record next_partial built in place stays there */
		bool in_place = rec == r->qbuf + r->qlen + 8;
		if (!qbuf_room(r, n))
			return nomem(err, r);
		uint8_t *d = r->qbuf + r->qlen;
		memcpy(d, &off, 8);
		if (!in_place)
			memcpy(d + 8, rec, size);
		memset(d + 8 + size, 0, n - 8 - size);
		if (r->cut_full)
			memcpy(d + n - 8, &r->cut_full, 8);
		pos = r->qlen | (r->pipe ? 0 : QPOS_BUF) |
		      (r->cut_full ? QPOS_CUT : 0);
		r->qlen += n;
	}
	r->q[r->qn].time = t;
	r->q[r->qn].pos = pos;
	r->qn++;
	return 0;
}

/* Read records until one must be delivered: a record without a time, a
 * FINISHED_ROUND (after what it releases), or the end of the data. */
/* File mode through the mapping: the pages of the records read and
 * delivered, that no queued record lies in, given back (MADV_DONTNEED,
 * every 4 MiB read): the mapping's resident pages do not grow with the
 * file. */
static void drop_read_pages(perf_reader *r)
{
	enum { DROP_STEP = 4u << 20 };
	if (r->pipe || r->partial || !r->map || r->pos < r->dropped + 2 * DROP_STEP)
		return;
	uint64_t low = r->pos;
	for (size_t i = r->out_pos; i < r->qn; i++)
		if (!(r->q[i].pos & QPOS_BUF) && r->q[i].pos < low)
			low = r->q[i].pos;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t end = low / (uint64_t)page * (uint64_t)page;
	if (end < r->dropped + DROP_STEP)
		return;
	madvise((void *)(uintptr_t)(r->map + r->dropped), (size_t)(end - r->dropped),
		MADV_DONTNEED);
	r->dropped = end;
}

static int read_more(perf_reader *r, ehelf_err *err)
{
	drop_delivered(r);
	drop_read_pages(r);
	for (;;) {
		const uint8_t *rec = NULL;
		uint64_t off = 0, t;
		int rc = next_raw(r, &rec, &off, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			r->finished = true;
			return release(r, UINT64_MAX, err);
		}
		uint32_t type = rd32(rec);
		if (type >= REC_USER_TYPE_START && off >= r->pre_end) {
			rc = take_in(r, rec, off, err);
			if (rc < 0)
				return rc;
		}
		if (type == REC_FINISHED_ROUND) {
			r->imm = rec;
			r->imm_off = off;
			r->imm_full = 0;
			if (r->qn == 0)
				return 0;
			rc = release(r, r->next_flush, err);
			r->next_flush = r->max_time;
			return rc;
		}
		rc = record_time(r, rec, rd16(rec + 6), off, &t, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			r->imm = rec;
			r->imm_off = off;
			r->imm_full = r->cut_full;
			return 0;
		}
		rc = enqueue(r, rec, off, t, err);
		if (rc < 0)
			return rc;
	}
}

int perf_reader_next(perf_reader *r, perf_event *ev, ehelf_err *err)
{
	if (r->failed)
		return err_set(err, ERR_ARG, "%s: reader used after an error",
			       r->name);
	r->started = true;
	for (;;) {
		const uint8_t *rec = NULL;
		uint64_t off = 0, full = 0;
		if (r->out_pos < r->out_n) {
			const struct qent *e = &r->q[r->out_pos++];
			if (r->pipe || (e->pos & QPOS_BUF)) {
				uint64_t at = e->pos & ~(QPOS_BUF | QPOS_CUT);
				memcpy(&off, r->qbuf + at, 8);
				rec = r->qbuf + at + 8;
				if (e->pos & QPOS_CUT)
					memcpy(&full, rec + ((rd16(rec + 6) + 7u) & ~7u), 8);
			} else {
				off = e->pos;
				rec = r->map + e->pos;
			}
		} else if (r->imm) {
			rec = r->imm;
			off = r->imm_off;
			full = r->imm_full;
			r->imm = NULL;
		} else if (r->finished) {
			return 0;
		}
		int rc = rec ? decode(r, rec, off, ev, err)
			     : read_more(r, err);
		if (rc < 0) {
			r->failed = true;
			return rc;
		}
		if (rec && full && ev->sample.stack) {
			/* cut: the layout before the copy is the record's */
			ev->sample.stack_file = off + r->stack_at;
			ev->sample.stack_full = full;
		}
		if (rec)
			return 1;
	}
}

/* ---- opening --------------------------------------------------------------------- */

static int parse_file_header(perf_reader *r, ehelf_err *err)
{
	const uint8_t *m = r->map;
	uint64_t fsize = r->map_size;
	uint64_t hsize = rd64(m + 8);
	if (hsize != FILE_HEADER_NOFEAT && hsize < FILE_HEADER_FULL)
		return fmt_err(err, r, 8, "header size %" PRIu64 " (expected %d"
			       ", %d or %d)", hsize, FILE_HEADER_FULL,
			       FILE_HEADER_NOFEAT, PIPE_HEADER_SIZE);
	if (hsize > fsize)
		return fmt_err(err, r, 8, "header of %" PRIu64 " bytes in a "
			       "file of %" PRIu64, hsize, fsize);
	uint64_t attr_size = rd64(m + 16);
	uint64_t aoff = rd64(m + 24), asize = rd64(m + 32);
	uint64_t doff = rd64(m + 40), dsize = rd64(m + 48);
	if (attr_size < PERF_ATTR_SIZE_VER0 + FILE_SECTION_SIZE ||
	    attr_size > MAX_RECORD)
		return fmt_err(err, r, 16, "attribute size %" PRIu64,
			       attr_size);
	if (!in_bounds(aoff, asize, fsize))
		return fmt_err(err, r, 24, "attribute section [%" PRIu64 ", +%"
			       PRIu64 ") past the end of the file (%" PRIu64
			       " bytes)", aoff, asize, fsize);
	if (asize % attr_size)
		return fmt_err(err, r, 32, "attribute section of %" PRIu64
			       " bytes is no multiple of the attribute size %"
			       PRIu64, asize, attr_size);
	if (!in_bounds(doff, dsize, fsize))
		return fmt_err(err, r, 40, "data section [%" PRIu64 ", +%" PRIu64
			       ") past the end of the file (%" PRIu64
			       " bytes)", doff, dsize, fsize);

	for (uint64_t i = 0; i < asize / attr_size; i++) {
		uint64_t at = aoff + i * attr_size;
		uint64_t asz = attr_size - FILE_SECTION_SIZE;
		uint64_t ioff = rd64(m + at + asz), isize = rd64(m + at + asz + 8);
		if (!in_bounds(ioff, isize, fsize) || isize % 8)
			return fmt_err(err, r, at + asz, "ids of attribute %"
				       PRIu64 " at [%" PRIu64 ", +%" PRIu64
				       ") outside the file or not whole u64s",
				       i, ioff, isize);
		int rc = add_attr(r, m + at, asz, m + ioff, isize / 8, err);
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
		return fmt_err(err, r, toff, "feature table of %" PRIu64
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
			return fmt_err(err, r, at, "feature %d section [%" PRIu64
				       ", +%" PRIu64 ") past the end of the "
				       "file (%" PRIu64 " bytes)", bit, soff,
				       ssize, fsize);
		int rc = bit == FEAT_BUILD_ID
			? parse_build_ids(r, m + soff, ssize, soff, err)
			: parse_event_desc(r, m + soff, ssize, soff, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Pipe mode: take in perf's own records at the start of the stream (the
 * attributes, features, event names) without consuming them, so that the
 * attributes are known once perf_reader_open returns. */
static int pipe_preread(perf_reader *r, ehelf_err *err)
{
	size_t at = 0;  /* relative to head, which in_fill may move */
	for (;;) {
		long k = in_fill(r, at + 8, err);
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
		k = in_fill(r, at + size, err);
		if (k < 0)
			return (int)k;
		if ((size_t)k < at + size)
			break;
		int rc = take_in(r, r->in + r->head + at, r->in_off + at, err);
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
		long k = in_fill(r, PIPE_HEADER_SIZE, err);
		if (k < 0)
			goto fail;
		if (k < PIPE_HEADER_SIZE) {
			fmt_err(err, r, 0, "stream of %ld bytes is too small "
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
		fmt_err(err, r, 0, "not a perf.data file (no PERFILE2 magic)");
		goto fail;
	}

	if (hsize == PIPE_HEADER_SIZE) {
		r->pipe = true; /* a regular file is read as a stream too */
		if (regular) {
			long k = in_fill(r, PIPE_HEADER_SIZE, err);
			if (k >= 0 && k < PIPE_HEADER_SIZE)
				fmt_err(err, r, 0, "file shrank under the "
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
	if (parse_file_header(r, err) < 0)
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
	uint32_t h = hash_str(filename);
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
