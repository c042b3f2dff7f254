/*
 * perf_ideal_unwinder.c - the "ideal unwinder" behind libunwind's remote
 * API, for perf-libunwind-bench's floor of perf in DWARF mode: a library
 * preloaded into Debian's perf in place of libunwind, in two modes
 * (PERF_IDEAL_TRACE=FILE):
 *  - PERF_IDEAL_MODE=record, preloaded in front of a real unwinder
 *    (libehelf-unwind.so): passes every call on and writes into FILE, per
 *    unw_init_remote, its result and each unw_step's: the result, the pc
 *    and signal-frame answer after it, and the stack reads it made
 *    through the caller's access_mem (the last two of the step at most:
 *    its return address and a saved rbp a CFA needs; an unwinder that
 *    reads more in a step, the registers again or a table, does more
 *    than one must);
 *  - PERF_IDEAL_MODE=replay, preloaded alone: answers perf's calls from
 *    FILE in the same order, doing for each sample what any unwinder
 *    behind this API must (the registers rip and rsp through access_reg,
 *    the recorded reads through access_mem, one call each) and nothing
 *    else: no tables, no module lookups, no find_proc_info.
 * perf processes a recording's samples in the same order at every run;
 * the replay checks each sample's rip and rsp against the record and
 * aborts on the first that differs.  A measuring tool, not an unwinder:
 * it answers nothing it did not record.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* the record: 64-bit words; per sample INIT_TAG | (init result & 0xffff),
 * rip, rsp, then per step (nreads << 32) | ((result & 0xffff) << 8) |
 * signal, pc, and NREADS addresses */
#define INIT_TAG 0x1717000000000000ull

static FILE *out;                 /* record */
static const uint64_t *in, *end;  /* replay */
static unw_accessors_t caller;    /* perf's accessors */
static int recording = -1;        /* 1 record, 0 replay */

static void die(const char *what)
{
	fprintf(stderr, "perf_ideal_unwinder: %s\n", what);
	abort();
}

static void setup(void)
{
	if (recording >= 0)
		return;
	const char *mode = getenv("PERF_IDEAL_MODE");
	const char *path = getenv("PERF_IDEAL_TRACE");
	if (!mode || !path)
		die("PERF_IDEAL_MODE and PERF_IDEAL_TRACE must be set");
	if (strcmp(mode, "record") == 0) {
		recording = 1;
		if (!(out = fopen(path, "w")))
			die("cannot write the trace");
		return;
	}
	recording = 0;
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		die("cannot read the trace");
	void *p = st.st_size ? mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
			     : NULL;
	if (st.st_size && p == MAP_FAILED)
		die("cannot map the trace");
	close(fd);
	in = p;
	end = in + st.st_size / 8;
}

static void put(uint64_t w)
{
	fwrite(&w, 8, 1, out);
}

static uint64_t take(void)
{
	if (in >= end)
		die("the trace ended before perf's calls did");
	return *in++;
}

#define NEXT(name)                                                              \
	static typeof(&name) next_;                                             \
	if (!next_ && !(next_ = dlsym(RTLD_NEXT, #name)))                       \
		die("no unwinder behind the recording one")

/* ---- record ------------------------------------------------------------ */

/* a step's stack reads, the last two; the sample's first stack pointer */
enum { STACK_SPAN = 1 << 20, KEPT_READS = 2 };
static uint64_t reads[KEPT_READS];
static unsigned nreads;
static uint64_t sample_rsp;

static int rec_access_mem(unw_addr_space_t as, unw_word_t a, unw_word_t *v,
			  int w, void *arg)
{
	if (a - sample_rsp < STACK_SPAN) {
		if (nreads == KEPT_READS) {
			reads[0] = reads[1];
			nreads--;
		}
		reads[nreads++] = a;
	}
	return caller.access_mem(as, a, v, w, arg);
}

/* ---- replay: one address space, the caller's accessors ------------------ */

typedef struct replay_cursor {
	unw_word_t ip;
	int signal;
	void *arg;
} replay_cursor;

static struct { int dummy; } replay_space;

unw_addr_space_t _Ux86_64_create_addr_space(unw_accessors_t *a, int order)
{
	setup();
	caller = *a;
	if (!recording)
		return (unw_addr_space_t)&replay_space;
	NEXT(_Ux86_64_create_addr_space);
	unw_accessors_t w = *a;
	w.access_mem = rec_access_mem;
	return next_(&w, order);
}

void _Ux86_64_destroy_addr_space(unw_addr_space_t as)
{
	if (recording == 1) {
		NEXT(_Ux86_64_destroy_addr_space);
		next_(as);
	}
}

int _Ux86_64_set_caching_policy(unw_addr_space_t as, unw_caching_policy_t p)
{
	if (recording != 1)
		return 0;
	NEXT(_Ux86_64_set_caching_policy);
	return next_(as, p);
}

void _Ux86_64_flush_cache(unw_addr_space_t as, unw_word_t lo, unw_word_t hi)
{
	if (recording == 1) {
		NEXT(_Ux86_64_flush_cache);
		next_(as, lo, hi);
	}
}

int _Ux86_64_init_remote(unw_cursor_t *c, unw_addr_space_t as, void *arg)
{
	unw_word_t rip = 0, rsp = 0;
	if (recording) {
		NEXT(_Ux86_64_init_remote);
		int rc = next_(c, as, arg);
		caller.access_reg(as, UNW_X86_64_RIP, &rip, 0, arg);
		caller.access_reg(as, UNW_X86_64_RSP, &rsp, 0, arg);
		sample_rsp = rsp;
		put(INIT_TAG | (uint16_t)rc);
		put(rip);
		put(rsp);
		return rc;
	}
	uint64_t tag = take();
	if ((tag & ~0xffffull) != INIT_TAG)
		die("the trace is not at a sample");
	caller.access_reg(as, UNW_X86_64_RIP, &rip, 0, arg);
	caller.access_reg(as, UNW_X86_64_RSP, &rsp, 0, arg);
	if (take() != rip || take() != rsp)
		die("perf's samples come in another order than recorded");
	replay_cursor *k = (replay_cursor *)c;
	*k = (replay_cursor){ rip, 0, arg };
	return (int16_t)(tag & 0xffff);
}

int _Ux86_64_step(unw_cursor_t *c)
{
	if (recording) {
		NEXT(_Ux86_64_step);
		nreads = 0;
		int rc = next_(c);
		unw_word_t ip = 0;
		int sig = 0;
		if (rc > 0) {
			unw_get_reg(c, UNW_REG_IP, &ip);
			sig = unw_is_signal_frame(c) > 0;
		}
		put((uint64_t)nreads << 32 | (uint64_t)(uint16_t)rc << 8 | (unsigned)sig);
		put(ip);
		for (unsigned i = 0; i < nreads; i++)
			put(reads[i]);
		return rc;
	}
	replay_cursor *k = (replay_cursor *)c;
	uint64_t h = take();
	k->ip = take();
	k->signal = h & 1;
	for (uint32_t i = 0, n = h >> 32; i < n; i++) {
		unw_word_t v;
		caller.access_mem((unw_addr_space_t)&replay_space, take(), &v, 0,
				  k->arg);
	}
	return (int16_t)((h >> 8) & 0xffff);
}

int _Ux86_64_get_reg(unw_cursor_t *c, int reg, unw_word_t *v)
{
	if (recording) {
		NEXT(_Ux86_64_get_reg);
		return next_(c, reg, v);
	}
	if (reg != UNW_REG_IP)
		return -UNW_EBADREG;
	*v = ((replay_cursor *)c)->ip;
	return 0;
}

int _Ux86_64_is_signal_frame(unw_cursor_t *c)
{
	if (recording) {
		NEXT(_Ux86_64_is_signal_frame);
		return next_(c);
	}
	return ((replay_cursor *)c)->signal;
}

__attribute__((destructor)) static void finish(void)
{
	if (out && fclose(out) != 0)
		fprintf(stderr, "perf_ideal_unwinder: cannot write the trace\n");
	if (recording == 0 && in != end)
		fprintf(stderr, "perf_ideal_unwinder: perf made fewer calls than "
			"recorded\n");
}
