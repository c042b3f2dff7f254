/*
 * perf_reader_state.h - internal to the perf.data reader (perf_data.c and
 * its parts; callers use perf_data.h): the reader's state, perf's own
 * record types and the small readers of its bytes.  The parts, each
 * declaring its functions in its own header:
 *
 *   perf_data.c         opening and closing, partial stacks, queries
 *   perf_reader_mem.c   the reader's errors, growing arrays and arena
 *   perf_header.c       what perf's own records and the file header give:
 *                       attributes and their ids, build-IDs, event names
 *   perf_input.c        the next record in file order: the mapped file or
 *                       the partial-stack window, the pipe's input buffer,
 *                       the decompressed records of COMPRESSED ones
 *   perf_decode.c       a record's attribute and time, and its decoding
 *                       into a perf_event
 *   perf_queue.c        the ordered-events queue and perf_reader_next
 *
 * Errors: a function returning int gives 0 (or a count) or a negative
 * ERR_* with ERR set, its message naming the file (and offset).
 */
#ifndef EHELF_PERFDATA_PERF_READER_STATE_H
#define EHELF_PERFDATA_PERF_READER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../../common/err.h"
#include "../../../common/u64_map.h"
#include "decomp.h"
#include "perf_data_types.h"

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
	uint64_t cut_full;      /* the last record pr_next_raw gave was cut:
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
	bool rec_decomp;        /* the last record pr_next_raw gave is from dc */

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
static inline bool in_bounds(uint64_t off, uint64_t size, uint64_t limit)
{
	return off <= limit && size <= limit - off;
}

/* A cursor over a record's fields. */
struct cur {
	const uint8_t *p, *end;
};

static inline bool cur_u64(struct cur *c, uint64_t *v)
{
	if (c->end - c->p < 8)
		return false;
	*v = rd64(c->p);
	c->p += 8;
	return true;
}

static inline bool cur_skip(struct cur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n)
		return false;
	c->p += n;
	return true;
}

#endif
