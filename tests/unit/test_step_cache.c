/*
 * test_step_cache.c - the unwinder's cached step against the reference
 * application of a row summary.  summary_step() is checked against the
 * eh_elf's own step entry points by codegen-check on real binaries; here
 * random summaries, registers and stacks show that a step cache entry
 * filled from a summary (step_cache_fill) and applied by cached_step()
 * gives exactly the same registers, directly inside the known stack,
 * through a reader, and from a snapshot (a copy of the stack at another
 * address, as perf.data holds), and that every case it declines leaves the registers
 * untouched: reads that fail or fall outside the stack, a missing rbp, the
 * outermost frame, a stack going down, a torn entry, the other kind of pc,
 * a row the cache does not hold (return address elsewhere than CFA - 8).
 * Then the sets: outermost markers, and which pcs a set keeps; where a
 * walk that leaves a trace line records the frames that follow; and that
 * whole walks following trace lines of random contents give the frames
 * walks from the sets alone give.  Last, which added modules clear the
 * cache.
 */
#include "../../testkit/xorshift.h"
#include "../../client-lib/cached_step.h"
#include "../../client-lib/summary_step.h"
#include "../../client-lib/unwind.h"
#include "unit.h"

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t next(void)
{
	return xorshift64(&rng);
}

static uint64_t stack[2048]; /* the fake stack */
static unsigned fail_at, reads;

/* Reads inside the fake stack; the FAIL_AT-th read fails. */
static int read_stack(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	uint64_t lo = (uint64_t)(uintptr_t)stack;
	if (++reads == fail_at || addr < lo || addr > lo + sizeof stack - 8)
		return -1;
	memcpy(value, (const void *)(uintptr_t)addr, 8);
	return 0;
}

/* snapshot mode: the stack seen at FAKE, its bytes in stack[] */
static const uint64_t FAKE = 0x7f0000000000ull;

static int read_fake(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	if (++reads == fail_at || addr < FAKE || addr > FAKE + sizeof stack - 8)
		return -1;
	memcpy(value, (const uint8_t *)stack + (addr - FAKE), 8);
	return 0;
}

static uint64_t slot_bits(int k, int64_t words)
{
	return (uint64_t)(words & 0x7f) << (EHELF_SUM_SLOT_SHIFT + EHELF_SUM_SLOT_BITS * k);
}

/* A random summary, valid by construction. */
static uint64_t random_summary(void)
{
	uint64_t sum = EHELF_SUM_OK;
	if (next() % 3 == 0)
		sum |= EHELF_SUM_CFA_RBP;
	int64_t cfa_words = (int64_t)(next() % 40) - 4;
	sum |= (uint64_t)(cfa_words & 0xfff) << EHELF_SUM_CFA_SHIFT;
	sum |= slot_bits(0, next() % 4 ? -1 : (int64_t)(next() % 127) - 63); /* rip */
	for (int k = 1; k < EHELF_SUM_SLOTS; k++)
		sum |= next() % 2 ? slot_bits(k, EHELF_SUM_KEEP)
				  : slot_bits(k, (int64_t)(next() % 127) - 63);
	return sum;
}

/* A random summary the cache holds (return address at CFA - 8). */
static uint64_t cached_summary(void)
{
	uint64_t sum = random_summary();
	return (sum & ~slot_bits(0, -1)) | slot_bits(0, -1);
}

static bool same_regs(const ehelf_regs *a, const ehelf_regs *b)
{
	return a->valid == b->valid && !memcmp(a->r, b->r, sizeof a->r);
}

int main(void)
{
	ehelf_space *s = ehelf_space_new();
	CHECK(s != NULL);
	uint64_t base = (uint64_t)(uintptr_t)stack;
	local_range whole = { base, base + sizeof stack };
	int direct_steps = 0, read_steps = 0, snap_steps = 0, declined = 0, lean_steps = 0;
	for (int trial = 0; trial < 200000; trial++) {
		for (size_t i = 0; i < sizeof stack / 8; i++)
			stack[i] = next() % 8 ? next() | 1 : 0; /* some zeros: outermost */
		uint64_t sum = random_summary();
		ehelf_regs in;
		for (int i = 0; i < EHELF_NREGS; i++)
			in.r[i] = next();
		in.r[EHELF_RSP] = base + 8 * (512 + next() % 1024);
		in.r[EHELF_RBP] = next() % 8 ? base + 8 * (512 + next() % 1024) : next();
		in.r[EHELF_RIP] = 0x400000 + next() % 0x100000;
		in.valid = (uint32_t)(next() & EHELF_VALID_REGS) |
			   (1u << EHELF_RIP) | (1u << EHELF_RSP);
		bool exact = next() % 4 == 0;
		uint64_t pc = in.r[EHELF_RIP] - !exact;
		/* the cache holds rows whose return address is at CFA - 8;
		 * for others, an earlier trial's entry of the pc goes (a pc
		 * has one row, unlike here) */
		bool held = ((sum >> EHELF_SUM_SLOT_SHIFT) & 0x7f) == 0x7f;
		step_cache_entry *set = step_cache_set(s->cache, in.r[EHELF_RIP]);
		if (!held)
			memset(set, 0, STEP_CACHE_WAYS * sizeof *set);
		/* (and its trace line: the copy of an earlier trial's row) */
		step_cache_entry *tline = step_trace_line(s->cache, pc);
		memset(tline, 0, STEP_TRACE_LEN * sizeof *tline);
		step_cache_fill(set, pc, sum);
		int mode = (int)(next() % 3); /* 0 local, 1 remote, 2 snapshot */
		bool remote = mode != 0;
		uint64_t shift = mode == 2 ? FAKE - base : 0;
		in.r[EHELF_RSP] += shift;
		if (next() % 8)
			in.r[EHELF_RBP] += shift;
		/* a window that sometimes cuts the frame off, above or below */
		local_range known = whole;
		if (!remote && next() % 4 == 0)
			known.hi = in.r[EHELF_RSP] + 8 * (next() % 64);
		if (!remote && next() % 4 == 0)
			known.lo = in.r[EHELF_RSP] - 8 * (next() % 64);
		snapshot sn = { .addr = FAKE, .size = sizeof stack,
				.data = (const uint8_t *)stack, .read = NULL };
		if (mode == 2 && next() % 4 == 0)
			sn.size = in.r[EHELF_RSP] - FAKE + 8 * (next() % 64);
		if (mode == 2 && next() % 4 == 0) { /* a copy from near rsp */
			uint64_t skip = (in.r[EHELF_RSP] - FAKE) / 8 - next() % 64;
			sn.addr += 8 * skip;
			sn.data += 8 * skip;
			sn.size = sn.size > 8 * skip ? sn.size - 8 * skip : 0;
		}
		/* failing reads: in remote mode only (a snapshot reads some
		 * words directly, the reference through read_fake: the Nth
		 * read is not the same word) */
		fail_at = mode == 1 && next() % 4 == 0 ? 1 + next() % 4 : 0;

		ehelf_regs want;
		reads = 0;
		int st = mode == 1 ? summary_step(sum, &in, &want, 0, 0, read_stack, NULL)
		       : mode == 2 ? summary_step(sum, &in, &want, 0, 0, read_fake, NULL)
				   : summary_step(sum, &in, &want, known.lo, known.hi, NULL, NULL);
		bool want_step = st == EHELF_STEP && want.r[EHELF_RIP] != 0 &&
				 want.r[EHELF_RSP] > in.r[EHELF_RSP];

		ehelf_regs r = in;
		r.valid &= EHELF_VALID_REGS;
		uint64_t rip = r.r[EHELF_RIP], rsp = r.r[EHELF_RSP], rbp = r.r[EHELF_RBP];
		uint32_t valid = r.valid;
		reader rd = { .local = !remote, .read = read_stack, .arg = NULL };
		if (mode == 0)
			rd.arg = &known;
		if (mode == 2) {
			sn.read = read_fake; /* outside the copy: fails, as the
					       * reference's reads past it do */
			rd = (reader){ .read = snapshot_read, .arg = &sn, .snap = &sn };
		}
		reads = 0;
		step_trace tr = { NULL, false };
		uint32_t lazy = 0;
		bool got = cached_step(s, &rip, &rsp, &rbp, &valid, &r, exact,
				       reader_window(&rd), &rd, &tr, &lazy, true);
		if (got) {
			r.r[EHELF_RIP] = rip;
			r.r[EHELF_RSP] = rsp;
			r.r[EHELF_RBP] = rbp;
			r.valid = valid;
			cached_step_load(&r, &lazy);
			CHECK(want_step);
			CHECK(same_regs(&r, &want));
			/* recorded into the pc's trace line, which gives the
			 * same step: found by its pc, and followed from the
			 * way before (a walk going on in a trace) */
			CHECK(tr.record && tr.slot == tline + 1);
			for (int follow = 0; follow < 2; follow++) {
				ehelf_regs r2 = in;
				r2.valid &= EHELF_VALID_REGS;
				uint64_t rip2 = r2.r[EHELF_RIP], rsp2 = r2.r[EHELF_RSP],
					 rbp2 = r2.r[EHELF_RBP];
				uint32_t valid2 = r2.valid;
				step_trace tr2 = { NULL, false };
				if (follow) {
					tline[1] = tline[0];
					memset(&tline[0], 0, sizeof tline[0]);
					memset(set, 0, STEP_CACHE_WAYS * sizeof *set);
					tr2.slot = tline + 1;
				}
				reads = 0;
				uint32_t lazy2 = 0;
				CHECK(cached_step(s, &rip2, &rsp2, &rbp2, &valid2, &r2,
						  exact, reader_window(&rd), &rd, &tr2,
						  &lazy2, true));
				CHECK(!tr2.record && tr2.slot == tline + 1 + follow);
				r2.r[EHELF_RIP] = rip2;
				r2.r[EHELF_RSP] = rsp2;
				r2.r[EHELF_RBP] = rbp2;
				r2.valid = valid2;
				cached_step_load(&r2, &lazy2);
				CHECK(same_regs(&r2, &want));
			}
			/* lean (TRACK false): the same rip, rsp and rbp, R
			 * untouched, no bit for rbx and r12-r15 */
			memset(tline, 0, STEP_TRACE_LEN * sizeof *tline);
			step_cache_fill(set, pc, sum);
			{
				ehelf_regs r3 = in;
				r3.valid &= EHELF_VALID_REGS;
				ehelf_regs before = r3;
				uint64_t rip3 = r3.r[EHELF_RIP], rsp3 = r3.r[EHELF_RSP],
					 rbp3 = r3.r[EHELF_RBP];
				uint32_t valid3 = r3.valid, lazy3 = 0;
				step_trace tr3 = { NULL, false };
				reads = 0;
				CHECK(cached_step(s, &rip3, &rsp3, &rbp3, &valid3, &r3,
						  exact, reader_window(&rd), &rd, &tr3,
						  &lazy3, false));
				CHECK(!memcmp(&r3, &before, sizeof r3));
				if ((lazy3 >> EHELF_RBP) & 1)
					memcpy(&rbp3, (const void *)(uintptr_t)rbp3, 8);
				CHECK(rip3 == want.r[EHELF_RIP] && rsp3 == want.r[EHELF_RSP]);
				const uint32_t kept = (1u << EHELF_RIP) | (1u << EHELF_RSP) |
						      (1u << EHELF_RBP);
				CHECK((valid3 & kept) == (want.valid & kept));
				CHECK(!((valid3 >> EHELF_RBP) & 1) ||
				      rbp3 == want.r[EHELF_RBP]);
				CHECK(lazy3 == (lazy3 & (1u << EHELF_RBP)));
				lean_steps++;
			}
			memset(tline, 0, STEP_TRACE_LEN * sizeof *tline);
			step_cache_fill(set, pc, sum);
			mode == 1 ? read_steps++ : mode == 2 ? snap_steps++ : direct_steps++;
		} else {
			/* declined: nothing changed */
			ehelf_regs orig = in;
			/* (the snapshot's cut copy: the reference reads on
			 * through read_fake, which sees the whole stack) */
			orig.valid &= EHELF_VALID_REGS;
			r.r[EHELF_RIP] = rip;
			r.r[EHELF_RSP] = rsp;
			r.r[EHELF_RBP] = rbp;
			r.valid = valid;
			CHECK(same_regs(&r, &orig));
			/* and only what the reference does not step either */
			CHECK(!want_step || !held);
			declined++;
		}
		if (trial % 97 == 0) { /* the other kind of pc, a torn entry */
			ehelf_regs t = in;
			uint64_t trip = t.r[EHELF_RIP], trsp = t.r[EHELF_RSP],
				 trbp = t.r[EHELF_RBP];
			uint32_t tv = t.valid & EHELF_VALID_REGS;
			/* (an earlier trial may have filled that other pc) */
			step_cache_entry *o = step_cache_set(s->cache, trip);
			for (int w = 0; w < STEP_CACHE_WAYS; w++)
				if (o[w].p && STEP_CACHE_PC(step_cache_x(o[w].key, o[w].p)) ==
					      trip - exact)
					o[w].p = o[w].key = 0;
			memset(step_trace_line(s->cache, trip - exact), 0,
			       STEP_TRACE_LEN * sizeof *o);
			step_trace tr1 = { NULL, false };
			CHECK(!cached_step(s, &trip, &trsp, &trbp, &tv, &t, !exact,
					   reader_window(&rd), &rd, &tr1, &lazy, true));
			/* tear the way that holds it */
			step_cache_entry *e = step_cache_set(s->cache, in.r[EHELF_RIP]);
			uint64_t want_pc = in.r[EHELF_RIP] - !exact;
			for (int w = 0; w < STEP_CACHE_WAYS; w++)
				if (e[w].p && STEP_CACHE_PC(step_cache_x(e[w].key,
									 e[w].p)) == want_pc)
					e[w].p ^= 8; /* the CFA's offset */
			/* and its copy in the trace line, if recorded */
			step_cache_entry *tl = step_trace_line(s->cache, want_pc);
			if (tl[0].p)
				tl[0].p ^= 8;
			step_trace tr2 = { NULL, false };
			CHECK(!cached_step(s, &trip, &trsp, &trbp, &tv, &t, exact,
					   reader_window(&rd), &rd, &tr2, &lazy, true));
		}
	}
	printf("test_step_cache: %d direct, %d remote and %d snapshot cached steps "
	       "equal summary_step's (%d lean ones too), %d declined\n",
	       direct_steps, read_steps, snap_steps, lean_steps, declined);
	CHECK(direct_steps > 10000 && read_steps > 10000 && snap_steps > 10000 &&
	      lean_steps == direct_steps + read_steps + snap_steps && declined > 1000);

	/* outermost markers: found by the slow path for their pc only, never
	 * taken by cached_step (for any pc hashing to their set), evicted as
	 * other entries are */
	local_range tail = { base, base + sizeof stack };
	reader lr = { .local = true, .read = local_read, .arg = &tail };
	int outer = 0;
	for (int trial = 0; trial < 20000; trial++) {
		uint64_t rip = 0x400000 + next() % 0x100000;
		bool exact = next() % 2;
		uint64_t pc = rip - !exact;
		step_cache_entry *e = step_cache_set(s->cache, rip);
		if (trial % 2)	/* from an empty set, or one in use */
			memset(e, 0, STEP_CACHE_WAYS * sizeof *e);
		/* (the first part's rows of this pc, copied there) */
		memset(step_trace_line(s->cache, pc), 0, STEP_TRACE_LEN * sizeof *e);
		step_cache_fill_outermost(e, pc);
		CHECK(step_cache_is_outermost(e, pc));
		CHECK(!step_cache_is_outermost(e, pc ^ 1));
		ehelf_regs r = { .valid = EHELF_VALID_REGS };
		r.r[EHELF_RSP] = base + 8 * 600;
		r.r[EHELF_RBP] = base + 8 * 700;
		uint64_t trip = rip, trsp = r.r[EHELF_RSP], trbp = r.r[EHELF_RBP];
		uint32_t tv = r.valid;
		step_trace tr = { NULL, false };
		uint32_t lazy = 0;
		CHECK(!cached_step(s, &trip, &trsp, &trbp, &tv, &r, exact,
				   reader_window(&lr), &lr, &tr, &lazy, true));
		CHECK(trip == rip && tv == r.valid);
		/* summaries of four other pcs of the same set filled after
		 * it: evicted (the set keeps the last four pcs filled) */
		static const int bits[4] = { 13, 30, 35, 40 };
		for (int k = 0; k < 4; k++) {
			uint64_t other = rip ^ (1ull << bits[k]);
			CHECK(step_cache_set(s->cache, other) == e);
			CHECK(step_cache_is_outermost(e, pc));
			step_cache_fill(e, other - !exact, cached_summary());
		}
		CHECK(!step_cache_is_outermost(e, pc));
		outer++;
	}
	CHECK(outer == 20000);

	/* a set keeps the last four pcs filled, the most recent in way 0,
	 * each once; a refill moves its pc to way 0 */
	for (int trial = 0; trial < 20000; trial++) {
		uint64_t rip = 0x400000 + next() % 0x100000;
		step_cache_entry *e = step_cache_set(s->cache, rip);
		memset(e, 0, STEP_CACHE_WAYS * sizeof *e);
		uint64_t pcs[6];
		for (int k = 0; k < 6; k++)
			pcs[k] = rip ^ ((next() % 4096) << 27); /* the same set */
		uint64_t kept[STEP_CACHE_WAYS] = { 0 }; /* model: most recent first */
		for (int k = 0; k < 12; k++) {
			uint64_t pc = pcs[next() % 6];
			step_cache_fill(e, pc, cached_summary());
			int at = STEP_CACHE_WAYS - 1;
			for (int w = 0; w < STEP_CACHE_WAYS; w++)
				if (kept[w] == pc) {
					at = w;
					break;
				}
			memmove(&kept[1], &kept[0], (size_t)at * sizeof kept[0]);
			kept[0] = pc;
			for (int w = 0; w < STEP_CACHE_WAYS; w++) {
				uint64_t got = e[w].p ? STEP_CACHE_PC(step_cache_x(e[w].key, e[w].p)) : 0;
				CHECK(got == kept[w]);
			}
		}
	}
	/* pcs the key cannot hold are not cached */
	{
		uint64_t rip = 1ull << 48 | 0x1234;
		step_cache_entry *e = step_cache_set(s->cache, rip);
		memset(e, 0, STEP_CACHE_WAYS * sizeof *e);
		step_cache_fill(e, rip, cached_summary());
		step_cache_fill_outermost(e, rip);
		for (int w = 0; w < STEP_CACHE_WAYS; w++)
			CHECK(e[w].p == 0 && e[w].key == 0);
	}
	/* leaving a trace: a walk that follows A's trace line and whose next
	 * frame is X, not the line's next entry B, records X's entry into X's
	 * own trace line and leaves A's line as it was (recording over it made
	 * a recursion of varying depth rewrite its own line at every walk);
	 * the recording then goes on in X's line (Y after X) */
	{
		reader rd = { .local = true, .read = read_stack, .arg = &whole };
		/* CFA = rsp + 16, the return address at CFA - 8, all else kept */
		uint64_t sum = EHELF_SUM_OK | (uint64_t)2 << EHELF_SUM_CFA_SHIFT |
			       slot_bits(0, -1);
		for (int k = 1; k < EHELF_SUM_SLOTS; k++)
			sum |= slot_bits(k, EHELF_SUM_KEEP);
		const uint64_t a_rip = 0x401000, x_rip = 0x402345, y_rip = 0x403456,
			       b_rip = 0x404567;
		step_cache_entry *la = step_trace_line(s->cache, a_rip - 1),
				 *lx = step_trace_line(s->cache, x_rip - 1),
				 *ly = step_trace_line(s->cache, y_rip - 1);
		CHECK(la != lx && la != ly && lx != ly);
		uint64_t pcs[] = { a_rip, x_rip, y_rip, b_rip };
		for (int k = 0; k < 4; k++) /* each row in a set of its own */
			for (int j = 0; j < k; j++)
				CHECK(step_cache_set(s->cache, pcs[k]) !=
				      step_cache_set(s->cache, pcs[j]));
		for (int k = 0; k < 4; k++) { /* every row in the sets */
			step_cache_entry *e = step_cache_set(s->cache, pcs[k]);
			memset(e, 0, STEP_CACHE_WAYS * sizeof *e);
			step_cache_fill(e, pcs[k] - 1, sum);
		}
		memset(la, 0, STEP_TRACE_LEN * sizeof *la);
		memset(lx, 0, STEP_TRACE_LEN * sizeof *lx);
		memset(ly, 0, STEP_TRACE_LEN * sizeof *ly);
		la[0] = step_cache_set(s->cache, a_rip)[0]; /* A's line: A, B */
		la[1] = step_cache_set(s->cache, b_rip)[0];
		step_cache_entry a_line[STEP_TRACE_LEN];
		memcpy(a_line, la, sizeof a_line);
		/* the stack: A's frame returns to X, X's to Y, Y's to 1 */
		uint64_t rsp = base + 8 * 100;
		stack[101] = x_rip;
		stack[103] = y_rip;
		stack[105] = 1;
		uint64_t rip = a_rip, rbp = 0;
		uint32_t valid = (1u << EHELF_RIP) | (1u << EHELF_RSP), lazy = 0;
		ehelf_regs r = { .valid = valid };
		step_trace tr = { NULL, false };
		/* A: from its own line, followed */
		CHECK(cached_step(s, &rip, &rsp, &rbp, &valid, &r, false,
				  reader_window(&rd), &rd, &tr, &lazy, false));
		CHECK(rip == x_rip && !tr.record && tr.slot == la + 1);
		/* X, not B: recorded into X's line */
		CHECK(cached_step(s, &rip, &rsp, &rbp, &valid, &r, false,
				  reader_window(&rd), &rd, &tr, &lazy, false));
		CHECK(rip == y_rip && tr.record && tr.slot == lx + 1);
		CHECK(!memcmp(la, a_line, sizeof a_line));
		uint64_t p, x;
		CHECK(step_cache_match(&lx[0], x_rip - 1, &p, &x));
		/* Y: after X in X's line, not into its own */
		CHECK(cached_step(s, &rip, &rsp, &rbp, &valid, &r, false,
				  reader_window(&rd), &rd, &tr, &lazy, false));
		CHECK(rip == 1 && tr.record && tr.slot == lx + 2);
		CHECK(step_cache_match(&lx[1], y_rip - 1, &p, &x));
		CHECK(ly[0].p == 0 && ly[0].key == 0);
		CHECK(!memcmp(la, a_line, sizeof a_line));
	}
	/* walks that follow trace lines give the frames walks from the sets
	 * alone give: stacks of return addresses drawn from a few pcs (a
	 * recursion through call sites A, B, C, as qsort's), ending at an
	 * outermost frame D, unwound from a snapshot once with trace lines
	 * of random contents (each pc's own entry first, or not; entries of
	 * the other pcs, D's outermost marker) and once with none: the trace
	 * run and cached_step() leave or follow lines, the same frames come
	 * out */
	{
		const uint64_t pcs[] = { 0x401100, 0x402260, 0x4033a0, 0x4044e0 };
		enum { NPC = 4, D = 3, DEPTH = 40 };
		/* each pc's own CFA offset (rsp + 8 * (2 + k)), the return
		 * address at CFA - 8: a step taken with another pc's entry
		 * gives another stack pointer and return address */
		uint64_t sums[NPC];
		for (int k = 0; k < NPC; k++) {
			sums[k] = EHELF_SUM_OK | (uint64_t)(2 + k) << EHELF_SUM_CFA_SHIFT |
				  slot_bits(0, -1);
			for (int j = 1; j < EHELF_SUM_SLOTS; j++)
				sums[k] |= slot_bits(j, EHELF_SUM_KEEP);
		}
		const uint64_t x0 = 0x405620; /* frame 0, looked up as is */
		step_cache_entry entry[NPC];
		for (int k = 0; k < NPC; k++) {
			step_cache_entry *e = step_cache_set(s->cache, pcs[k]);
			memset(e, 0, STEP_CACHE_WAYS * sizeof *e);
			if (k == D)
				step_cache_fill_outermost(e, pcs[k] - 1);
			else
				step_cache_fill(e, pcs[k] - 1, sums[k]);
			entry[k] = e[0];
			for (int j = 0; j < k; j++)
				CHECK(step_cache_set(s->cache, pcs[j]) != e &&
				      step_trace_line(s->cache, pcs[j] - 1) !=
					      step_trace_line(s->cache, pcs[k] - 1));
		}
		step_cache_entry *e0 = step_cache_set(s->cache, x0);
		memset(e0, 0, STEP_CACHE_WAYS * sizeof *e0);
		step_cache_fill(e0, x0, sums[0]);
		static uint64_t snap[8 * DEPTH + 16];
		const uint64_t at = 0x7f0000100000ull;
		int walks = 0, followed = 0;
		for (int trial = 0; trial < 3000; trial++) {
			int depth = 1 + (int)(next() % DEPTH);
			for (size_t i = 0; i < sizeof snap / 8; i++)
				snap[i] = next() | 1; /* no 0: nothing ends by chance */
			size_t w = 0; /* the frame's stack pointer, in words */
			int k = 0;    /* its pc's index (x0: as A's rule) */
			for (int i = 0; i < depth; i++) {
				w += 2 + (size_t)k; /* its CFA */
				k = i + 1 < depth ? (int)(next() % D) : D;
				snap[w - 1] = pcs[k]; /* its return address */
			}
			ehelf_frame got[2][DEPTH + 4];
			int n[2];
			for (int pass = 0; pass < 2; pass++) {
				for (int q = 0; q < NPC; q++) {
					step_cache_entry *l = step_trace_line(s->cache, pcs[q] - 1);
					memset(l, 0, STEP_TRACE_LEN * sizeof *l);
					for (int v = 0; pass == 0 && v < STEP_TRACE_LEN; v++)
						l[v] = v == 0 && next() % 5 ? entry[q]
						       : entry[next() % NPC];
				}
				memset(step_trace_line(s->cache, x0), 0,
				       STEP_TRACE_LEN * sizeof(step_cache_entry));
				ehelf_regs r0 = { .valid = (1u << EHELF_RIP) | (1u << EHELF_RSP) };
				r0.r[EHELF_RIP] = x0;
				r0.r[EHELF_RSP] = at;
				n[pass] = ehelf_unwind_snapshot(s, &r0, snap, at, sizeof snap,
								NULL, NULL, got[pass],
								DEPTH + 4, 0);
			}
			CHECK(n[0] == n[1] && n[0] == depth + 1);
			for (int i = 0; i < n[0] && i < n[1]; i++)
				CHECK(got[0][i].pc == got[1][i].pc && got[0][i].sp == got[1][i].sp);
			walks++;
			followed += depth > 4;
		}
		CHECK(walks == 3000 && followed > 2000);
	}
	ehelf_space_free(s);

	/* adding modules: one whose range meets none of the space's keeps
	 * the cache (its pcs, none of them cached, change no cached one's
	 * module); one that meets a module's range clears it */
	{
		ehelf_space *m = ehelf_space_new();
		CHECK(m != NULL);
		ehelf_module_desc a = { .start = 0x400000, .end = 0x500000 };
		CHECK(ehelf_space_add_module(m, &a) == 0);
		uint64_t pc = 0x401234, sum = cached_summary();
		step_cache_entry *e = step_cache_set(m->cache, pc);
		step_cache_fill(e, pc, sum);
		atomic_store(&m->cache_used, true);
		uint64_t p, x;
		CHECK(step_cache_match(e, pc, &p, &x));
		ehelf_module_desc apart = { .start = 0x500000, .end = 0x600000 };
		CHECK(ehelf_space_add_module(m, &apart) == 0);
		CHECK(step_cache_match(e, pc, &p, &x));
		ehelf_module_desc over = { .start = 0x480000, .end = 0x490000 };
		CHECK(ehelf_space_add_module(m, &over) == 0);
		CHECK(!step_cache_match(e, pc, &p, &x));
		ehelf_space_free(m);
	}
	UNIT_DONE("test_step_cache");
}
