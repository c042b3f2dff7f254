/* table_check.c - see table_check.h. */
#include "table_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../builder/cfi/uw_dump.h"
#include "../../client-lib/summary_step.h"
#include "ir_eval.h"

/* ---- the synthetic process: a stack full of pointers into itself -------- */

enum { MEM_SIZE = 4 << 20 };
static uint8_t *mem;

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

int table_check_init(void)
{
	if (mem)
		return 0;
	void *m = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	mem = m;
	uint64_t *w = (uint64_t *)mem;
	for (size_t k = 0; k < MEM_SIZE / 8; k++)
		w[k] = (uint64_t)(uintptr_t)mem + MEM_SIZE / 4 +
		       (mix64(k) % (MEM_SIZE / 2) & ~7ull);
	return 0;
}

static int read_mem(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	uint64_t base = (uint64_t)(uintptr_t)mem;
	if (addr < base || addr > base + MEM_SIZE - 8)
		return -1;
	memcpy(value, (const void *)(uintptr_t)addr, 8);
	return 0;
}

/* Registers of a frame at PC; VARIANT 0 has every register valid, others
 * drop some. */
static void make_regs(ehelf_regs *r, uint64_t pc, uint64_t seed, int variant)
{
	uint64_t base = (uint64_t)(uintptr_t)mem + MEM_SIZE / 2;
	for (int i = 0; i < EHELF_NREGS; i++)
		r->r[i] = base + (mix64(seed * 31 + (uint64_t)i) % (256 << 10) & ~7ull);
	r->r[EHELF_RIP] = pc;
	r->valid = EHELF_VALID_REGS;
	if (variant)
		r->valid &= (uint32_t)mix64(seed ^ 0xabcdef) | (1u << EHELF_RSP) |
			    (1u << EHELF_RIP);
	r->valid |= EHELF_SIGNAL_FRAME; /* must not leak into out */
}

typedef struct range {
	uint64_t lo, hi;
	uint32_t seq;
	bool overlaps, debug;
} range;

/* by start, then by sequence */
static int cmp_range(const void *a, const void *b)
{
	const range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_seq(const void *a, const void *b)
{
	const range *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One section's FDEs of non-zero length, sorted by cmp_range. */
typedef struct section_fdes {
	range *v;
	size_t n;
} section_fdes;

/* The FDE of S that owns PC in S, or NULL: the last one starting at or
 * before PC (the first of those with that start), if PC is before its
 * end. */
static const range *section_owner(const section_fdes *s, uint64_t pc)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	size_t i = lo - 1;
	while (i > 0 && s->v[i - 1].lo == s->v[i].lo)
		i--;
	return pc < s->v[i].hi ? &s->v[i] : NULL;
}

/* The FDE that owns PC: .eh_frame's, else .debug_frame's, else NULL. */
static const range *owner(const section_fdes sec[2], uint64_t pc)
{
	const range *o = section_owner(&sec[0], pc);
	return o ? o : section_owner(&sec[1], pc);
}

static void status_count(table_counters *c, int st)
{
	if (st >= -6 && st <= 1)
		c->status[1 - st]++;
}

/* Compare one pc in both modes; returns true if all agree. */
static bool check_pc(const ehelf_object *o, const uw_fde *fde,
		     const uw_row *row, uint64_t pc, uint64_t seed,
		     const table_check_env *env, table_counters *c,
		     const char *path, bool *unsupported)
{
	bool ok = true;
	for (int variant = 0; variant < 2; variant++) {
		ehelf_regs in, want, got;
		make_regs(&in, pc, seed, variant);
		/* modes: the local and remote entry points, and the row's
		 * summary (ehelf_describe) applied by the client library */
		uint64_t sum = ehelf_object_describe(o, pc);
		for (int mode = 0; mode < 3; mode++) {
			if (mode == 2 && !sum)
				break;
			ir_mem m = { .local = mode == 0,
				     .lo = (uint64_t)(uintptr_t)mem,
				     .hi = (uint64_t)(uintptr_t)mem + MEM_SIZE,
				     .read = read_mem };
			memset(&got, 0x5a, sizeof got);
			int gs = mode == 0
				 ? ehelf_object_step_local(o, pc, &in, &got, m.lo, m.hi)
				 : mode == 1
				 ? ehelf_object_step(o, pc, &in, &got, read_mem, NULL)
				 : summary_step(sum, &in, &got, 0, 0, read_mem, NULL);
			c->pcs++;
			c->summarised += mode == 2;
			status_count(c, gs);
			if (gs == EHELF_E_UNSUPPORTED) {
				*unsupported = true;
				continue;
			}
			int ws = ir_eval_row(&row->r, fde->signal_frame, &in,
					     &want, &m);
			bool same = gs == ws &&
				    (gs < 0 || (got.valid == want.valid &&
						memcmp(got.r, want.r, sizeof got.r) == 0));
			if (same)
				continue;
			ok = false;
			char text[512];
			size_t used = 0;
			text[0] = '\0';
			for (int i = 0; i < EHELF_NREGS && gs >= 0 && ws >= 0; i++)
				if (got.r[i] != want.r[i])
					used += (size_t)snprintf(text + used, sizeof text - used,
						" r%d: got %" PRIx64 " want %" PRIx64, i,
						got.r[i], want.r[i]);
			char line[800];
			snprintf(line, sizeof line, "MISMATCH %s pc 0x%" PRIx64
				 " (%s, variant %d): status %d want %d, valid %x "
				 "want %x%s\n", path, pc,
				 mode == 2 ? "summary" : mode ? "remote" : "local",
				 variant, gs, ws, got.valid, want.valid, text);
			if (env->report(env->arg, line)) {
				uw_fde one = *fde;
				one.rows = row;
				one.nrows = 1;
				uw_dump_fde(stderr, &one, true);
			}
		}
	}
	return ok;
}

void table_check(const ehelf_object *o, const char *path,
		 const table_check_env *env, table_counters *c)
{
	/* pass 1: FDE ranges, to find overlaps and uncovered addresses */
	range *rv = NULL;
	size_t nr = 0, cap = 0;
	ehelf_err err = { 0 };
	cfi_reader *r = env->open(env->arg);
	if (!r) {
		c->errors++;
		return;
	}
	uw_fde fde;
	while (cfi_reader_next(r, &fde, &err) > 0) {
		if (nr == cap) {
			cap = cap ? 2 * cap : 1024;
			range *v = realloc(rv, cap * sizeof *rv);
			if (!v)
				abort();
			rv = v;
		}
		rv[nr] = (range){ fde.lo, fde.hi, (uint32_t)nr, false,
				  fde.section &&
				  strcmp(fde.section, ".debug_frame") == 0 };
		nr++;
	}
	cfi_reader_free(r);
	qsort(rv, nr, sizeof *rv, cmp_range);
	section_fdes sec[2] = { { malloc((nr ? nr : 1) * sizeof *rv), 0 },
				{ malloc((nr ? nr : 1) * sizeof *rv), 0 } };
	for (size_t i = 0; i < nr; i++)
		if (rv[i].lo < rv[i].hi)
			sec[rv[i].debug].v[sec[rv[i].debug].n++] = rv[i];
	uint64_t end = 0;
	size_t last = 0;
	for (size_t i = 0; i < nr; i++) {
		if (rv[i].lo == rv[i].hi)
			continue;
		if (i && rv[i].lo < end) {
			rv[i].overlaps = true;
			rv[last].overlaps = true;
		}
		if (rv[i].hi > end) {
			end = rv[i].hi;
			last = i;
		}
	}
	/* addresses just past an FDE that no FDE owns (a sample, and all
	 * of those after overlapping FDEs) */
	for (size_t i = 0; i < nr; i++) {
		uint64_t pc = rv[i].hi;
		if ((i % 7 && !rv[i].overlaps) || owner(sec, pc))
			continue;
		ehelf_regs in, out;
		make_regs(&in, pc, pc, 0);
		int a = ehelf_object_step(o, pc, &in, &out, read_mem, NULL);
		int b = ehelf_object_step_local(o, pc, &in, &out, 0, UINT64_MAX);
		c->not_covered_checks++;
		if (a != EHELF_E_NOT_COVERED || b != EHELF_E_NOT_COVERED ||
		    ehelf_object_describe(o, pc) != 0) {
			char line[600];
			snprintf(line, sizeof line, "MISMATCH %s pc 0x%" PRIx64
				 ": not covered, but status %d/%d\n", path, pc,
				 a, b);
			env->report(env->arg, line);
			c->mismatches++;
		}
	}
	/* by sequence, for pass 2 */
	qsort(rv, nr, sizeof *rv, cmp_seq);

	/* pass 2: every row */
	r = env->open(env->arg);
	size_t k = 0;
	uint64_t file_unsupported = 0;
	while (r && k < nr && cfi_reader_next(r, &fde, &err) > 0) {
		const range *me = &rv[k++];
		c->fdes++;
		for (size_t i = 0; i < fde.nrows; i++) {
			const uw_row *row = &fde.rows[i];
			c->rows++;
			uint64_t seed = mix64(row->lo);
			uint64_t pcs[8];
			int npcs = 0;
			pcs[npcs++] = row->lo;
			for (int n = 0; n < env->random && n < 7; n++)
				pcs[npcs++] = row->lo + mix64(seed + (uint64_t)n) %
							 (row->hi - row->lo);
			bool ok = true, unsupported = false, any = false;
			for (int n = 0; n < npcs && ok; n++) {
				const range *own = me->overlaps ? owner(sec, pcs[n])
							       : me;
				if (!own || own->seq != me->seq)
					continue;
				any = true;
				ok = check_pc(o, &fde, row, pcs[n], seed + (uint64_t)n,
					      env, c, path, &unsupported);
			}
			if (!any)
				c->overlap_rows++;
			if (!ok)
				c->mismatches++;
			if (unsupported)
				file_unsupported++;
		}
	}
	free(sec[0].v);
	free(sec[1].v);
	if (r)
		cfi_reader_free(r);
	c->unsupported_rows += file_unsupported;
	free(rv);
}
