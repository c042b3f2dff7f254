/* script.c - see script.h. */
#include "script.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_syms.h"
#include "sample_unwind.h"

enum { MAX_FRAMES = 512, FOLD_BUCKETS_MIN = 1024 };

/* ---- frame lines ------------------------------------------------------------- */

/* The lines of frames printed before ("\tIP SYM+0xOFF (DSO)\n"), by pc and
 * the mappings it was named with (proc.maps_id; the kernel's: 0): the
 * same pcs come back sample after sample, and a line found here costs a
 * copy instead of a mapping search, a symbol lookup and its formatting.
 * Direct-mapped; a line too long for a slot is not kept. */
enum { LINE_SLOTS = 4096, LINE_TEXT = 172 };

typedef struct line_slot {
	uint64_t maps_id, ip;   /* maps_id 0 and ip 0: empty */
	uint32_t len;
	char text[LINE_TEXT];
} line_slot;

struct line_cache {
	line_slot slot[LINE_SLOTS];
};

/* ---- folded stacks ---------------------------------------------------------- */

typedef struct fold_entry {
	char *stack;
	uint64_t count;
} fold_entry;

struct folded_table {
	fold_entry *v;
	size_t n, cap;
};

static uint64_t hash_str(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int fold_add(folded_table *t, const char *s, size_t n)
{
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : FOLD_BUCKETS_MIN;
		fold_entry *v = calloc(cap, sizeof *v);
		if (!v)
			return ERR_NOMEM;
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->v[i].stack)
				continue;
			size_t j = hash_str(t->v[i].stack, strlen(t->v[i].stack)) & (cap - 1);
			while (v[j].stack)
				j = (j + 1) & (cap - 1);
			v[j] = t->v[i];
		}
		free(t->v);
		t->v = v;
		t->cap = cap;
	}
	size_t i = hash_str(s, n) & (t->cap - 1);
	for (; t->v[i].stack; i = (i + 1) & (t->cap - 1))
		if (!strncmp(t->v[i].stack, s, n) && t->v[i].stack[n] == '\0') {
			t->v[i].count++;
			return 0;
		}
	if (!(t->v[i].stack = strndup(s, n)))
		return ERR_NOMEM;
	t->v[i].count = 1;
	t->n++;
	return 0;
}

static int cmp_fold(const void *a, const void *b)
{
	return strcmp(((const fold_entry *)a)->stack, ((const fold_entry *)b)->stack);
}

/* ---- the context ---------------------------------------------------------------- */

int script_init(script_ctx *c, const perf_reader *r, procs *p, outbuf *out,
		bool folded)
{
	memset(c, 0, sizeof *c);
	c->reader = r;
	c->procs = p;
	c->out = out;
	c->folded = folded;
	if (folded && !(c->stacks = calloc(1, sizeof *c->stacks)))
		return ERR_NOMEM;
	/* without it, lines are made afresh */
	if (!folded)
		c->lines = calloc(1, sizeof *c->lines);
	return 0;
}

void script_fini(script_ctx *c)
{
	if (c->stacks) {
		for (size_t i = 0; i < c->stacks->cap; i++)
			free(c->stacks->v[i].stack);
		free(c->stacks->v);
		free(c->stacks);
	}
	sym_memo_free(&c->kallsyms_memo);
	free(c->lines);
	symtab_free(c->kallsyms);
}

/* ---- frames ---------------------------------------------------------------------- */

static script_frame kernel_frame(script_ctx *c, uint64_t ip)
{
	if (!c->kallsyms_tried) {
		ehelf_err err;
		c->kallsyms_tried = true;
		const uint8_t *id = NULL;
		size_t n = c->reader ? perf_reader_build_id(c->reader, (uint32_t)-1,
							    "[kernel.kallsyms]", &id)
				     : 0;
		c->kallsyms = kernel_syms_load(id, n, &err);
	}
	script_frame f = { .ip = ip, .dso = "[kernel.kallsyms]", .kernel = true };
	if (c->kallsyms)
		f.sym = sym_memo_find(&c->kallsyms_memo, c->kallsyms, ip, &f.off);
	return f;
}

static script_frame user_frame(const proc *pr, uint64_t ip)
{
	script_frame f = { .ip = ip, .dso = "[unknown]" };
	const pmap *m = pr ? proc_find(pr, ip) : NULL;
	if (!m)
		return f;
	if (!m->identity) /* as perf prints user frames: a file offset */
		f.ip = ip - m->start + m->pgoff;
	f.dso = m->name ? m->name : "[unknown]";
	if (m->d && m->has_bias)
		f.sym = dso_symbol(m->d, ip - m->bias, &f.off);
	return f;
}

enum { SPAN_BUCKET = 512, SPAN_BUCKETS = 128, SPAN_ROUND = 1024 };

/* The part size that costs least for the spans counted (0: none, the
 * copies read in place), in bytes copied:
 * each sample's copy up to the part, twice (out of the page cache, then
 * into the reader's queue), and for those whose frames span more the
 * whole copy again, once (and a read's own cost, some 1 KiB's worth). */
static size_t best_part(const script_ctx *c)
{
	uint64_t full = c->span_full / c->span_n, best = UINT64_MAX;
	size_t part = 2048;
	uint64_t above = c->span_n;
	for (unsigned k = 1; k <= SPAN_BUCKETS / 2; k++) {
		above -= c->span_hist[k - 1]; /* spans under k buckets fit */
		uint64_t p = (uint64_t)k * SPAN_BUCKET;
		uint64_t cost = 2 * c->span_n * (p < full ? p : full) +
				above * (full + 1024);
		if (cost < best) {
			best = cost;
			part = (size_t)p;
		}
	}
	/* reading in place: no copy, but the mapping's page-table work for
	 * every page (the kernel maps the pages around each fault), counted
	 * as half a copy's cost per byte (sqlite3 recordings, 8 KiB copies:
	 * 0.10 s of CPU in place, 0.15 in parts; 64 KiB: 0.04, 0.03) */
	if (c->span_n * (full / 2) < best)
		part = 0;
	return part;
}

/* Sample EV's frames UF (N of them) span this much of its copy. */
static void note_span(script_ctx *c, const perf_event *ev, const ehelf_frame *uf,
		      int n)
{
	/* up to the last frame, and its frame above (what its step read) */
	uint64_t span = uf[n - 1].sp - uf[0].sp + SPAN_BUCKET;
	if ((uf[n - 1].flags & EHELF_FRAME_TRUNCATED) || span > ev->sample.stack_full)
		span = ev->sample.stack_full;
	uint64_t b = span / SPAN_BUCKET;
	c->span_hist[b < SPAN_BUCKETS ? b : SPAN_BUCKETS]++;
	c->span_full += ev->sample.stack_full;
	if (++c->span_n < SPAN_ROUND)
		return;
	/* 0: in place (for good: the reader does not go back to parts) */
	perf_reader_set_partial(c->tune, best_part(c));
	memset(c->span_hist, 0, sizeof c->span_hist);
	c->span_n = 0;
	c->span_full = 0;
}

int script_user_frames(script_ctx *c, const perf_event *ev, raw_frame *f,
		       int max, bool *unwound)
{
	int n = 0;
	proc *pr = procs_proc(c->procs, ev->pid);
	ehelf_frame uf[MAX_FRAMES];
	int lim = max < MAX_FRAMES ? max : MAX_FRAMES;
	int nu = pr ? sample_unwind(pr, c->reader, ev, uf, lim) : 0;
	*unwound = nu > 0;
	if (nu > 0) {
		c->unwound_samples++;
		c->stats.unwound++;
		unwind_stats_stack(&c->stats, pr, uf, nu, lim);
		if (c->tune)
			note_span(c, ev, uf, nu);
		/* as perf: a caller's frame is shown (and named) at its return
		 * address minus 1, inside the call, unless it was reached
		 * through a signal frame (its pc is the interrupted one); a
		 * frame shown at 0 is left out (a return address of 1: what
		 * a stack being rewritten, as by libgcc installing a catch
		 * block, can hold) */
		for (int i = 0; i < nu && n < max; i++) {
			uint64_t ip = uf[i].pc - (i > 0 &&
				!(uf[i].flags & EHELF_FRAME_SIGNAL));
			if (ip != 0)
				f[n++] = (raw_frame){ .ip = ip, .pr = pr };
		}
		/* a stack cut off by the end of the sample's copy: perf shows
		 * one more frame there, the return address it could not read,
		 * as 0 - 1; so does ehelf-perf, for tools that expect it */
		if ((uf[nu - 1].flags & EHELF_FRAME_TRUNCATED) && n < max)
			f[n++] = (raw_frame){ .ip = (uint64_t)-1 };
	} else {
		uint64_t context = 0;
		for (uint64_t i = 0; i < ev->sample.nr && n < max; i++) {
			uint64_t ip = ev->sample.callchain[i];
			if (ip >= (uint64_t)PERF_CONTEXT_MAX)
				context = ip;
			else if (context == (uint64_t)PERF_CONTEXT_USER)
				f[n++] = (raw_frame){ .ip = ip, .pr = pr };
		}
		if (n)
			c->stats.from_chain++;
		else
			c->stats.no_user_stack++;
	}
	c->user_frames += (uint64_t)n;
	c->stats.user_frames += (uint64_t)n;
	return n;
}

uint64_t script_count_kernel(script_ctx *c, const perf_event *ev)
{
	uint64_t n = 0, context = 0;
	for (uint64_t i = 0; i < ev->sample.nr; i++) {
		uint64_t ip = ev->sample.callchain[i];
		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			context = ip;
		else
			n += context == (uint64_t)PERF_CONTEXT_KERNEL;
	}
	c->kernel_frames += n;
	c->stats.kernel_frames += n;
	return n;
}

/* The frames of EV into F (at most MAX), unnamed: see script_frames. */
static int raw_frames(script_ctx *c, const perf_event *ev, raw_frame *f,
		      int max)
{
	int n = 0;
	/* kernel frames: the callchain's kernel context */
	uint64_t context = 0;
	for (uint64_t i = 0; i < ev->sample.nr && n < max; i++) {
		uint64_t ip = ev->sample.callchain[i];
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			context = ip;
			continue;
		}
		if (context == (uint64_t)PERF_CONTEXT_KERNEL)
			f[n++] = (raw_frame){ .ip = ip, .kernel = true };
	}
	script_count_kernel(c, ev);
	/* user frames: unwound from the registers and stack copy, or else
	 * the callchain's user context (frame-pointer callchains) */
	bool unwound;
	return n + script_user_frames(c, ev, f + n, max - n, &unwound);
}

static script_frame name_frame(script_ctx *c, const raw_frame *r)
{
	return r->kernel ? kernel_frame(c, r->ip) : user_frame(r->pr, r->ip);
}

int script_frames(script_ctx *c, const perf_event *ev, script_frame *f,
		  int max)
{
	static raw_frame rf[MAX_FRAMES * 2];
	int n = raw_frames(c, ev, rf, max < MAX_FRAMES * 2 ? max : MAX_FRAMES * 2);
	for (int i = 0; i < n; i++)
		f[i] = name_frame(c, &rf[i]);
	return n;
}

static void print_frame(outbuf *o, const script_frame *f);

static void print_frame_line(script_ctx *c, const raw_frame *r)
{
	outbuf *o = c->out;
	if (!r->kernel && !r->pr) { /* the cut-off marker */
		script_frame f = user_frame(NULL, r->ip);
		ob_char(o, '\t');
		print_frame(o, &f);
		ob_char(o, '\n');
		return;
	}
	uint64_t id = r->kernel ? 0 : r->pr->maps_id;
	line_slot *s = NULL;
	if (c->lines) {
		uint64_t h = (r->ip ^ (id * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
		s = &c->lines->slot[h >> 52];
		if (s->ip == r->ip && s->maps_id == id && s->len) {
			ob_mem(o, s->text, s->len);
			return;
		}
	}
	script_frame f = name_frame(c, r);
	if (o->n + 4096 > sizeof o->buf)
		ob_flush(o);
	size_t start = o->n;
	uint64_t flushes = o->flushes;
	ob_char(o, '\t');
	print_frame(o, &f);
	ob_char(o, '\n');
	size_t len = o->n - start;
	/* cached only when the whole line is in the buffer: a long symbol
	 * (over 4 KiB) flushes it midway, leaving only the line's tail */
	if (s && o->flushes == flushes && o->n > start && len <= LINE_TEXT) {
		memcpy(s->text, o->buf + start, len);
		s->len = (uint32_t)len;
		s->ip = r->ip;
		s->maps_id = id;
	}
}

/* ---- output ---------------------------------------------------------------------- */

/* The width perf script gives event names: the longest of the file's. */
static size_t name_width(const perf_reader *r)
{
	size_t w = 0;
	for (size_t i = 0; r && i < perf_reader_nattrs(r); i++) {
		size_t k = strlen(perf_reader_attr(r, i)->name);
		w = k > w ? k : w;
	}
	return w;
}

/* The header of a sample: "COMM TID SECS.USECS: EVENT: ", the command
 * right-aligned in 16 columns when WIDE (perf's layout for events recorded
 * without callchains), the event name right-aligned to the longest one of
 * the file (when it has several events). */
static void print_header(script_ctx *c, const perf_event *ev, bool wide)
{
	outbuf *o = c->out;
	thread *t = procs_thread(c->procs, ev->tid, ev->pid);
	const char *comm = t ? t->comm : ":-1";
	for (size_t k = strlen(comm); wide && k < 16; k++)
		ob_char(o, ' ');
	ob_str(o, comm);
	ob_char(o, ' ');
	ob_dec(o, ev->tid, 5, 0);
	ob_char(o, ' ');
	ob_dec(o, ev->time / 1000000000ull, 5, 0);
	ob_char(o, '.');
	ob_dec(o, ev->time % 1000000000ull / 1000, 6, 1);
	ob_str(o, ": ");
	const char *name = ev->sample.attr ? ev->sample.attr->name : "unknown";
	if (!c->name_width)
		c->name_width = name_width(c->reader);
	for (size_t k = strlen(name); k < c->name_width; k++)
		ob_char(o, ' ');
	ob_str(o, name);
	ob_str(o, ": ");
}

/* "IP SYM+0xOFF (DSO)", IP right-aligned in 16 columns. */
static void print_frame(outbuf *o, const script_frame *f)
{
	ob_hex(o, f->ip, 16);
	ob_char(o, ' ');
	if (f->sym) {
		ob_str(o, f->sym);
		ob_str(o, "+0x");
		ob_hex(o, f->off, 0);
	} else {
		ob_str(o, "[unknown]");
	}
	ob_str(o, " (");
	ob_str(o, f->dso);
	ob_char(o, ')');
}

static void print_sample(script_ctx *c, const perf_event *ev,
			 const raw_frame *f, int n)
{
	outbuf *o = c->out;
	print_header(c, ev, false);
	ob_char(o, '\n');
	for (int i = 0; i < n; i++)
		print_frame_line(c, &f[i]);
	ob_char(o, '\n');
}

/* An event recorded without callchains: perf script prints the sample's ip
 * on the header line, as recorded (not relative to its file). */
static bool has_callchain(const perf_event *ev)
{
	return !ev->sample.attr ||
	       (ev->sample.attr->sample_type & PERF_SAMPLE_CALLCHAIN);
}

static script_frame ip_frame(script_ctx *c, const perf_event *ev)
{
	uint16_t mode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (mode == PERF_RECORD_MISC_KERNEL)
		return kernel_frame(c, ev->sample.ip);
	script_frame f = user_frame(procs_proc(c->procs, ev->pid), ev->sample.ip);
	f.ip = ev->sample.ip;
	return f;
}

/* Whether NAME looks like a Go method ("net/http.(*Client).Do": ".(" and,
 * after it, ")."), whose parentheses are no argument list. */
static bool go_method(const char *name)
{
	const char *open = strstr(name, ".(");
	return open && strstr(open + 2, ").");
}

size_t script_fold_name(const script_frame *f, bool java, char *buf,
			size_t cap)
{
	const char *name = f->sym;
	char tmp[512];
	if (!name) {
		const char *base = strrchr(f->dso, '/');
		if (!strcmp(f->dso, "[unknown]"))
			name = "[unknown]";
		else {
			snprintf(tmp, sizeof tmp, "[%s]", base ? base + 1 : f->dso);
			name = tmp;
		}
	}
	const char *paren = NULL;
	if (!go_method(name)) {
		paren = strchr(name, '(');
		while (paren && !strncmp(paren, "(anonymous namespace)", 21))
			paren = strchr(paren + 21, '(');
	}
	if (cap == 0)
		return 0;
	const char *p = name;
	/* the script drops quotes before it looks for the class's L */
	while (*p == '"' || *p == '\'')
		p++;
	if (java && *p == 'L' && strchr(p, '/') && (!paren || strchr(p, '/') < paren))
		p++;
	size_t n = 0;
	for (; *p && (!paren || p < paren) && n + 1 < cap; p++)
		if (*p != '"' && *p != '\'')
			buf[n++] = *p == ';' ? ':' : *p;
	buf[n] = '\0';
	return n;
}

static int fold_sample(script_ctx *c, const perf_event *ev,
		       const script_frame *f, int n)
{
	static char line[1 << 16];
	thread *t = procs_thread(c->procs, ev->tid, ev->pid);
	const char *comm = t ? t->comm : ":-1";
	bool java = !strcmp(comm, "java");
	size_t len = 0;
	for (const char *p = comm; *p && len < 64; p++)
		line[len++] = *p == ' ' ? '_' : *p;
	for (int i = n - 1; i >= 0; i--) {
		char name[512];
		size_t k = script_fold_name(&f[i], java, name, sizeof name);
		if (len + k + 2 >= sizeof line)
			break;
		line[len++] = ';';
		memcpy(line + len, name, k);
		len += k;
	}
	return fold_add(c->stacks, line, len);
}

int script_sample(script_ctx *c, const perf_event *ev)
{
	static script_frame f[MAX_FRAMES * 2];
	c->samples++;
	c->stats.samples++;
	if (!has_callchain(ev)) {
		c->stats.no_user_stack++;
		f[0] = ip_frame(c, ev);
		if (c->folded)
			return fold_sample(c, ev, f, 1);
		print_header(c, ev, true);
		ob_char(c->out, ' ');
		print_frame(c->out, &f[0]);
		ob_char(c->out, '\n');
		return 0;
	}
	if (c->folded)
		return fold_sample(c, ev, f, script_frames(c, ev, f, MAX_FRAMES * 2));
	static raw_frame rf[MAX_FRAMES * 2];
	print_sample(c, ev, rf, raw_frames(c, ev, rf, MAX_FRAMES * 2));
	return 0;
}

int script_print_folded(script_ctx *c)
{
	folded_table *t = c->stacks;
	fold_entry *v = malloc((t->n ? t->n : 1) * sizeof *v);
	if (!v)
		return ERR_NOMEM;
	size_t k = 0;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].stack)
			v[k++] = t->v[i];
	qsort(v, k, sizeof *v, cmp_fold);
	for (size_t i = 0; i < k; i++) {
		ob_str(c->out, v[i].stack);
		ob_char(c->out, ' ');
		ob_dec(c->out, v[i].count, 0, 0);
		ob_char(c->out, '\n');
	}
	free(v);
	return 0;
}
