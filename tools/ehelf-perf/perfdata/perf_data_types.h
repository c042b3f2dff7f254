/*
 * perf_data_types.h - the perf.data reader's public types (perf_data.h,
 * which declares the functions): the reader handle, the kinds of events,
 * an attribute's description and a decoded event.  A header of its own so
 * that the reader's internal state (perf_reader_state.h) can use them.
 */
#ifndef EHELF_PERFDATA_PERF_DATA_TYPES_H
#define EHELF_PERFDATA_PERF_DATA_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct perf_reader perf_reader;

enum perf_ev_kind {
	PERF_EV_MMAP,    /* MMAP or MMAP2 */
	PERF_EV_COMM,
	PERF_EV_FORK,
	PERF_EV_EXIT,
	PERF_EV_SAMPLE,
	PERF_EV_OTHER,   /* any other record: only type, misc, size, offset
			  * (and for a kernel record pid/tid/time/cpu from
			  * its sample_id trailer) are set */
};

/* One attribute (event) of the file. */
typedef struct perf_attr_info {
	uint32_t type;              /* perf_event_attr.type */
	uint64_t config;
	uint64_t sample_type;       /* PERF_SAMPLE_* bits */
	uint64_t read_format;
	uint64_t sample_regs_user;  /* mask of PERF_REG_X86_* */
	uint32_t sample_stack_user; /* bytes of stack asked for */
	bool sample_id_all;
	bool exclude_callchain_user;
	const char *name;           /* "cpu-clock", "cycles", ...; never NULL;
				     * without EVENT_DESC (or EVENT_UPDATE)
				     * the base name, without modifiers */
} perf_attr_info;

/*
 * One event, valid until the next perf_reader_next() call (pointers point
 * into the reader's buffers; arrays of u64 are 8-byte aligned).  Fields that
 * the record does not carry are 0 (or NULL): time and cpu of non-sample
 * records come from their sample_id trailer when sample_id_all is set (a
 * FORK or EXIT without one has its own time); pid/tid of MMAP, COMM, FORK
 * and EXIT are the record's own.
 */
typedef struct perf_event {
	enum perf_ev_kind kind;
	uint32_t type;      /* PERF_RECORD_* of the record */
	uint16_t misc;      /* perf_event_header.misc */
	uint32_t size;      /* bytes of the record */
	const uint8_t *rec; /* the record's SIZE bytes as delivered (8-byte
			     * aligned; a sample cut by partial stacks: the
			     * cut record, size its own) */
	uint64_t offset;    /* of the record in the file (pipe: in the stream;
			     * inside compressed data: of its COMPRESSED record) */
	uint32_t pid, tid;
	uint64_t time;      /* ns; 0 if unknown */
	uint32_t cpu;

	struct {                    /* PERF_EV_MMAP */
		uint64_t start, len, pgoff;
		uint32_t prot, flags;   /* MMAP2 only; 0 for MMAP */
		bool exec;              /* an executable mapping: prot & PROT_EXEC
					 * or not PERF_RECORD_MISC_MMAP_DATA
					 * (MMAP has no prot; perf's MMAP2 of the
					 * kernel has prot 0) */
		const uint8_t *build_id; /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
		size_t build_id_len;    /* 0 if none */
		const char *filename;
	} mmap;
	struct {                    /* PERF_EV_COMM */
		const char *comm;
		bool exec;              /* PERF_RECORD_MISC_COMM_EXEC */
	} comm;
	struct {                    /* PERF_EV_FORK, PERF_EV_EXIT */
		uint32_t ppid, ptid;
	} task;
	struct {                    /* PERF_EV_SAMPLE */
		const perf_attr_info *attr; /* the sample's attribute */
		uint64_t ip, addr, id, period;
		const uint64_t *callchain; /* nr entries, incl. PERF_CONTEXT_* markers */
		uint64_t nr;
		uint64_t regs_abi;      /* PERF_SAMPLE_REGS_ABI_*; 0: no user regs */
		uint64_t regs_mask;     /* = attr->sample_regs_user; 0 (and regs
					 * NULL) when regs_abi is 0 */
		const uint64_t *regs;   /* one per bit of regs_mask, in bit order */
		const uint8_t *stack;   /* copy of the user stack from regs' sp;
					 * NULL when stack_size is 0 */
		uint64_t stack_size;    /* bytes valid (dyn_size), or those
					 * read of a cut copy */
		uint64_t stack_full;    /* bytes valid (dyn_size); more than
					 * stack_size when the copy was cut
					 * (perf_reader_partial_stacks) */
		uint64_t stack_file;    /* a cut copy: its offset in the file */
		/* where the fields lie in rec (byte offsets): CALLCHAIN's nr
		 * (or where it would be: after READ), the end of the
		 * callchain, REGS_USER's abi (or where it would be: after
		 * BRANCH_STACK), and the first byte after STACK_USER (the
		 * later fields, up to size, as recorded) */
		uint32_t chain_at, chain_end, regs_at, tail_at;
	} sample;
} perf_event;

#endif
