/*
 * unwind.c - the unwinding loop, shared by remote and local unwinding, the
 * complete step and ehelf_backtrace's walk (the process-wide space it
 * walks over: process_space.c).
 *
 * Per frame: the pc to look up is the frame's pc, minus 1 for a return
 * address (every frame but the first, and but those reached through a
 * signal frame, whose pc is the interrupted instruction).  A step is, in
 * order of preference: the space's step cache (cached_step.h); the row
 * summary of the module's eh_elf (ehelf_describe), which then goes into the
 * cache; the eh_elf's local or remote step entry point (lenient_step.h
 * when a load fails); for a module without an eh_elf (or a row it did not
 * compile) its own .eh_frame (cfi_fallback/: allocation-free, the row
 * summarised into the cache when it can be); libdw only outside local
 * unwinds, where those tables cannot step it.  Unwinding
 * stops at the outermost frame, a pc in no module, a frame that cannot be
 * unwound, a stack pointer that does not move up (except across signal
 * frames; level from the first frame of a remote or snapshot unwind) and
 * the frame limit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <ucontext.h>

#include "../common/err.h"
#include "cached_step.h"
#include "cfi_fallback/cfi_apply.h"
#include "cfi_fallback/cfi_row.h"
#include "cfi_fallback/cfi_tables.h"
#include "fallback_dwarf.h"
#include "lenient_step.h"
#include "local_read.h"
#include "space.h"
#include "summary_step.h"
#include "unwind.h"
#include "walk_hot.h"

const uint64_t ehelf_no_window; /* see reader_window() */

/* libdw, for a module of a space not of this process whose own tables
 * could not step it (none, or rules outside cfi_row.h: .debug_frame-only
 * files).  Opened once per module: a failed open is remembered. */
static int step_dwarf(const module *cm, uint64_t pc, const ehelf_regs *in,
		      ehelf_regs *out, const reader *rd)
{
	module *m = (module *)cm; /* the fallback CFI is opened lazily */
	pthread_mutex_lock(&m->dw_lock);
	if (!m->dw && !m->dw_tried && (m->path || m->image)) {
		m->dw = dwarf_module_open(m->path, m->image, m->image_size);
		m->dw_tried = true;
	}
	int rc = m->dw ? dwarf_module_step(m->dw, pc, in, out, rd->read, rd->arg)
		       : EHELF_E_NOT_COVERED;
	pthread_mutex_unlock(&m->dw_lock);
	return rc;
}

/* cfi_step(): the module has no CFI tables of its own */
enum { CFI_NO_TABLES = -100 };

/*
 * A step from the module's own .eh_frame (cfi_fallback/), for a module
 * without an eh_elf, at link-time address PC: the FDE found through the
 * in-memory tables, its row run into a state on the stack.  With SUM not
 * NULL, a row the step cache can hold gives its summary in *SUM and
 * EHELF_STEP, OUT untouched (the caller applies and caches it, as an
 * eh_elf's); any other row is applied into OUT.  Returns the step's
 * status, EHELF_E_NOT_COVERED when no FDE covers PC, or CFI_NO_TABLES.
 * No allocation, no lock once the tables are located (those of a local
 * space are located when it is built; others here, through module_cfi).
 * Not inlined: its 3 KiB of state stay off the walk's own frame.
 */
static __attribute__((noinline)) int
cfi_step(const module *m, uint64_t pc, const ehelf_regs *in, ehelf_regs *out,
	 const reader *rd, uint64_t *sum)
{
	const cfi_tables *t = module_cfi(m, !rd->local);
	if (!t)
		return CFI_NO_TABLES;
	cfi_fde f;
	cfi_row row;
	int st = cfi_tables_find(t, pc, &f);
	if (st == 0)
		st = cfi_row_at(&f, pc, &row);
	if (st < 0)
		return st;
	if (sum && (*sum = cfi_row_summary(&row, f.cie.signal_frame)) != 0)
		return EHELF_STEP;
	return cfi_row_apply(&row, f.cie.signal_frame, in, out, rd->read, rd->arg,
			     !rd->local);
}

/* DST = SRC by eight-byte moves: SRC's registers were usually just stored
 * one by one, and a wider load spanning two stores stalls (see
 * entry_gen.c); so no vectorizing here, nor a call to memcpy (which GCC
 * makes of the loop otherwise, and which copies with wide loads). */
__attribute__((optimize("no-tree-vectorize", "no-tree-loop-distribute-patterns")))
static void regs_copy(ehelf_regs *dst, const ehelf_regs *src)
{
	for (int i = 0; i < EHELF_NREGS; i++)
		dst->r[i] = src->r[i];
	dst->valid = src->valid;
}

/*
 * For a pc that no CFI covers (EHELF_UNWIND_FRAME_POINTER): the caller's
 * frame by the frame-pointer chain, as libunwind and libdw guess it there:
 * rip = [rbp + 8], rsp = rbp + 16, rbp = [rbp]; other registers kept.  In
 * place, with SP the frame's stack pointer; the frame pointer must lie at
 * or above it.
 */
static int frame_pointer_step(ehelf_regs *r, uint64_t sp, const reader *rd,
			      uint32_t *path)
{
	uint64_t fp = r->r[EHELF_RBP], rip, up;
	if (!((r->valid >> EHELF_RBP) & 1) || fp < sp || fp > UINT64_MAX - 16 ||
	    rd->read(rd->arg, fp + 8, &rip) != 0 || rd->read(rd->arg, fp, &up) != 0)
		return EHELF_E_NOT_COVERED;
	if (rip == 0)
		return EHELF_OUTERMOST;
	r->r[EHELF_RIP] = rip;
	r->r[EHELF_RSP] = fp + 16;
	r->r[EHELF_RBP] = up;
	r->valid = (r->valid & EHELF_VALID_REGS) | (1u << EHELF_RIP) |
		   (1u << EHELF_RSP) | (1u << EHELF_RBP);
	*path = EHELF_PATH_FRAME_POINTER;
	return EHELF_STEP;
}

/*
 * For a pc that no CFI covers: the first instruction of a lazy-binding PLT
 * entry, "jmp *GOT(%rip); push $index; jmp PLT0" (ff 25 d32, 68 i32, e9
 * d32: the layout of GNU ld's and lld's .plt, whose entries lld gives no
 * CFI).  Nothing has been pushed there since the call: the return address
 * is at the stack pointer (the rule GNU ld's CFI for .plt states, and
 * libunwind applies when it finds those bytes, so perf too).  Exact, not a
 * guess; in place, like frame_pointer_step.  The code bytes are read
 * through the reader (the mapped file, for a snapshot).  Not a PLT entry:
 * EHELF_E_NOT_COVERED.
 */
static int plt_entry_step(ehelf_regs *r, const reader *rd, uint32_t *path)
{
	uint64_t pc = r->r[EHELF_RIP], sp = r->r[EHELF_RSP], code[2], rip;
	if (pc > UINT64_MAX - 16 || sp > UINT64_MAX - 8 ||
	    rd->read(rd->arg, pc, &code[0]) != 0 ||
	    rd->read(rd->arg, pc + 8, &code[1]) != 0)
		return EHELF_E_NOT_COVERED;
	uint8_t b[16];
	memcpy(b, code, sizeof b); /* little-endian: byte k of the code */
	if (b[0] != 0xff || b[1] != 0x25 || b[6] != 0x68 || b[11] != 0xe9)
		return EHELF_E_NOT_COVERED;
	if (rd->read(rd->arg, sp, &rip) != 0)
		return EHELF_E_READ;
	if (rip == 0)
		return EHELF_OUTERMOST;
	r->r[EHELF_RIP] = rip;
	r->r[EHELF_RSP] = sp + 8;
	r->valid = (r->valid & EHELF_VALID_REGS) | (1u << EHELF_RIP) |
		   (1u << EHELF_RSP);
	*path = EHELF_PATH_PLT;
	return EHELF_STEP;
}

/*
 * For a frame whose pc cannot be read at all (a call through a bad
 * pointer, which faults before anything is pushed): the return address at
 * the stack pointer, rip = [rsp], rsp += 8, when it can be read and points
 * to readable memory: libunwind 1.6's x86_64 rule where DWARF fails on a
 * pc it cannot read.  In place, like plt_entry_step (and reported as its
 * path: the return address at the stack pointer).  Only for a pc where
 * execution was (frame 0, or after a signal frame), and only locally:
 * libunwind's remote unwinding as perf drives it fails the step instead
 * (perf's find_proc_info has no procedure there, an error, not
 * UNW_ENOINFO), and ehelf-perf prints what perf prints.
 */
static int bad_pc_step(ehelf_regs *r, const reader *rd, uint32_t *path)
{
	uint64_t pc = r->r[EHELF_RIP], sp = r->r[EHELF_RSP], v, rip;
	if (rd->read(rd->arg, pc, &v) == 0 || sp > UINT64_MAX - 8 ||
	    rd->read(rd->arg, sp, &rip) != 0 || rip == 0 ||
	    rd->read(rd->arg, rip, &v) != 0)
		return EHELF_E_NOT_COVERED;
	r->r[EHELF_RIP] = rip;
	r->r[EHELF_RSP] = sp + 8;
	r->valid = (r->valid & EHELF_VALID_REGS) | (1u << EHELF_RIP) |
		   (1u << EHELF_RSP);
	*path = EHELF_PATH_PLT;
	return EHELF_STEP;
}

/* No CFI for the frame in *R: a PLT entry's first instruction (EXACT: the
 * pc is where execution was, not a return address), or a pc that cannot be
 * read (the bad-pc rule, EXACT and local), else, with
 * EHELF_UNWIND_FRAME_POINTER, the frame-pointer guess; SP its stack
 * pointer. */
static int uncovered_step(ehelf_regs *r, uint64_t sp, bool exact,
			  const reader *rd, unsigned flags, uint32_t *path)
{
	int st = exact ? plt_entry_step(r, rd, path) : EHELF_E_NOT_COVERED;
	if (st == EHELF_E_NOT_COVERED && exact && rd->local)
		st = bad_pc_step(r, rd, path);
	if (st == EHELF_E_NOT_COVERED && (flags & EHELF_UNWIND_FRAME_POINTER))
		return frame_pointer_step(r, sp, rd, path);
	return st;
}

/*
 * A signal frame's caller, local unwinding: the registers of the kernel's
 * ucontext at SP (the frame's stack pointer, where the signal frame's
 * ucontext starts once the handler has returned to the trampoline), read
 * directly when inside the known stack K.  True with *OUT filled (all 17
 * valid, EHELF_SIGNAL_FRAME).  The step cache's signal markers
 * (step_cache.h) are filled only where the eh_elf's step gave the same.
 */
static bool signal_frame_regs(const local_range *k, uint64_t sp, ehelf_regs *out)
{
	const uint64_t need = offsetof(ucontext_t, uc_mcontext.gregs) +
			      sizeof(gregset_t);
	if (sp < k->lo || sp >= k->hi || k->hi - sp < need)
		return false;
	ehelf_regs_from_ucontext(out, (const void *)(uintptr_t)sp);
	out->valid |= EHELF_SIGNAL_FRAME;
	return true;
}

static bool regs_equal(const ehelf_regs *a, const ehelf_regs *b)
{
	if (a->valid != b->valid)
		return false;
	for (int i = 0; i < EHELF_NREGS; i++)
		if (((a->valid >> i) & 1) && a->r[i] != b->r[i])
			return false;
	return true;
}

/* unwind_step() when the step cache could not do it: the module's eh_elf
 * (through the row's summary, which fills the cache), else libdw, else
 * the frame pointer.  Outermost frames are remembered in the cache too (a
 * marker cached_step() never takes): every stack ends in one.  T: the
 * walk's trace as cached_step() left it (step_cache.h), or NULL. */
static inline __attribute__((always_inline)) int
complete_step_of(const ehelf_space *s, ehelf_regs *r, bool exact,
	     const reader *rd, unsigned flags, uint32_t *path, step_trace *t)
{
	uint64_t pc = r->r[EHELF_RIP] - (exact ? 0 : 1);
	uint64_t sp = r->r[EHELF_RSP];
	int st = EHELF_E_NOT_COVERED;
	ehelf_regs tmp;
	/* a marker from the trace line: the set's line is not needed */
	uint64_t marker = t ? t->marker : 0;
	if (t) {
		t->marker = 0;
		if (!t->record) /* the marker's: followed on after it */
			t->slot = t->slot ? step_trace_next(t->slot) : NULL;
	}
	if (marker == STEP_CACHE_OUTERMOST_P) {
		*path = EHELF_PATH_EHELF;
		return EHELF_OUTERMOST;
	}
	if (marker == STEP_CACHE_SIGNAL_P && rd->local &&
	    signal_frame_regs(rd->arg, sp, &tmp) && tmp.r[EHELF_RIP] != 0) {
		*path = EHELF_PATH_EHELF;
		regs_copy(r, &tmp);
		return EHELF_STEP;
	}
	if (t && !t->record)
		t->slot = NULL;
	step_cache_entry *e = step_cache_set(space_cache(s), r->r[EHELF_RIP]);
	if (step_cache_is_outermost(e, pc)) {
		step_trace_record(t, e, pc);
		*path = EHELF_PATH_EHELF;
		return EHELF_OUTERMOST;
	}
	if (rd->local && step_cache_is_signal(e, pc) &&
	    signal_frame_regs(rd->arg, sp, &tmp) && tmp.r[EHELF_RIP] != 0) {
		step_trace_record(t, e, pc);
		*path = EHELF_PATH_EHELF;
		regs_copy(r, &tmp);
		return EHELF_STEP;
	}
	const module *m = space_find(s, pc);
	if (!m)
		return uncovered_step(r, sp, exact, rd, flags, path);
	const ehelf_object *o = module_object(m);
	uint64_t sum = o ? ehelf_object_describe(o, pc - m->bias) : 0;
	bool fallback = !(flags & EHELF_UNWIND_NO_FALLBACK);
	/* no eh_elf: the module's own CFI, its row summarised when it can
	 * be (then applied and cached as an eh_elf's) */
	bool own = !o && fallback;
	if (own) {
		st = cfi_step(m, pc - m->bias, r, &tmp, rd, &sum);
		*path = EHELF_PATH_DWARF;
	}
	if (sum) {
		/* a common row: computed here from its summary, and cached */
		step_cache_fill(e, pc, sum);
		step_trace_record(t, e, pc);
		/* the space is const to unwinders; this flag is theirs to set */
		atomic_store_explicit(&((ehelf_space *)s)->cache_used, true,
				      memory_order_relaxed);
		*path = own ? EHELF_PATH_DWARF : EHELF_PATH_EHELF;
		if (rd->local) {
			local_range *k = rd->arg;
			st = summary_step(sum, r, &tmp, k->lo, k->hi, local_read, k);
		} else {
			st = summary_step(sum, r, &tmp, 0, 0, rd->read, rd->arg);
			if (st == EHELF_E_READ) /* a register lost, not the frame */
				st = summary_step_lenient(sum, r, &tmp, rd->read, rd->arg);
		}
	} else if (o) {
		*path = EHELF_PATH_EHELF;
		if (rd->local) {
			local_range *k = rd->arg;
			st = ehelf_object_step_local(o, pc - m->bias, r, &tmp,
						     k->lo, k->hi);
			if (st == EHELF_E_BOUNDS)
				st = ehelf_object_step(o, pc - m->bias, r, &tmp,
						       local_read, k);
		} else {
			st = ehelf_object_step(o, pc - m->bias, r, &tmp,
					       rd->read, rd->arg);
			if (st == EHELF_E_READ) /* a register lost, not the frame? */
				st = lenient_object_step(o, pc - m->bias, r, &tmp,
							 rd->read, rd->arg);
		}
		/* a row the eh_elf could not compile: the module's own CFI */
		if ((st == EHELF_E_NOT_COVERED || st == EHELF_E_UNSUPPORTED) &&
		    fallback) {
			int cst = cfi_step(m, pc - m->bias, r, &tmp, rd, NULL);
			if (cst != CFI_NO_TABLES && cst != EHELF_E_NOT_COVERED) {
				st = cst;
				*path = EHELF_PATH_DWARF;
			}
		}
	}
	if (!sum) {
		if (st == EHELF_OUTERMOST) { /* the row's, whatever the registers */
			step_cache_fill_outermost(e, pc);
			step_trace_record(t, e, pc);
			atomic_store_explicit(&((ehelf_space *)s)->cache_used, true,
					      memory_order_relaxed);
		} else if (st == EHELF_STEP && rd->local &&
			   (tmp.valid & EHELF_SIGNAL_FRAME)) {
			ehelf_regs u;
			if (signal_frame_regs(rd->arg, sp, &u) && regs_equal(&u, &tmp)) {
				step_cache_fill_signal(e, pc);
				step_trace_record(t, e, pc);
				atomic_store_explicit(&((ehelf_space *)s)->cache_used,
						      true, memory_order_relaxed);
			}
		}
	}
	/* libdw, only outside this process's unwinds (it allocates and
	 * locks), where the module's own tables could not step it: none, a
	 * row beyond the interpreter's bounds, or a pc they do not cover in
	 * a file with a .debug_frame (so never for ld.so's _start, which no
	 * CFI covers) */
	if (fallback && !rd->local &&
	    (st == CFI_NO_TABLES || st == EHELF_E_UNSUPPORTED ||
	     (st == EHELF_E_NOT_COVERED && (o || own) && m->dw_useful))) {
		*path = EHELF_PATH_DWARF;
		st = step_dwarf(m, pc - m->bias, r, &tmp, rd);
	}
	if (st == CFI_NO_TABLES)
		st = EHELF_E_NOT_COVERED;
	if (st == EHELF_E_NOT_COVERED)
		return uncovered_step(r, sp, exact, rd, flags, path);
	if (st != EHELF_STEP)
		return st;
	bool signal = tmp.valid & EHELF_SIGNAL_FRAME;
	if (!((tmp.valid >> EHELF_RIP) & 1) || tmp.r[EHELF_RIP] == 0 ||
	    !((tmp.valid >> EHELF_RSP) & 1))
		return EHELF_OUTERMOST;
	/* the stack grows down: a caller's frame is above (a signal frame
	 * restores the interrupted context, wherever it was).  At the same
	 * height only from the first frame of a remote or snapshot unwind,
	 * which may be where the return address has left the stack for a
	 * register (__vfork after its pop, as perf samples show it); the next
	 * frame is a return address, so the walk still moves up.  Not in a
	 * local unwind, whose first frame is often one a signal interrupted:
	 * inside libgcc installing a catch block's context, where the CFI no
	 * longer describes the code, that would go on with garbage. */
	if (!signal && (tmp.r[EHELF_RSP] < sp ||
			(tmp.r[EHELF_RSP] == sp && !(flags & UNWIND_FIRST_STEP))))
		return EHELF_E_BADREG;
	regs_copy(r, &tmp);
	return EHELF_STEP;
}

static int complete_step(const ehelf_space *s, ehelf_regs *r, bool exact,
		     const reader *rd, unsigned flags, uint32_t *path,
		     step_trace *t)
{
	step_cache_entry *at = t && t->record ? t->slot : NULL;
	int st = complete_step_of(s, r, exact, rd, flags, path, t);
	if (at && t->slot == at) /* nothing recorded there: leave the line */
		t->slot = NULL;
	return st;
}

/*
 * The frame at stack pointer SP when cached_step() declined it on a
 * marker of its trace line (*T): the outermost frame, or a signal frame
 * whose caller is the kernel's ucontext at SP, straight into *R (no copy,
 * no call: every sample a profiler takes crosses one): rip and rsp, the
 * others as addresses in the ucontext (*LAZY, see cached_step()).  True with *ST EHELF_OUTERMOST or EHELF_STEP (as complete_step
 * would say), else false: complete_step does the frame.  R is written only
 * for a signal marker (it may be NULL for the outermost one).
 */
static inline __attribute__((always_inline)) bool
marker_step(ehelf_regs *r, step_trace *t, const reader *rd, uint64_t sp,
	    uint32_t *lazy, int *st)
{
	bool done = false;
	if (t->marker == STEP_CACHE_OUTERMOST_P) {
		*st = EHELF_OUTERMOST;
		done = true;
	} else if (t->marker == STEP_CACHE_SIGNAL_P && rd->local) {
		const local_range *k = rd->arg;
		const ucontext_t *uc = (const ucontext_t *)(uintptr_t)sp;
		const uint64_t need = offsetof(ucontext_t, uc_mcontext.gregs) +
				      sizeof(gregset_t);
		if (sp >= k->lo && sp < k->hi && k->hi - sp >= need &&
		    uc->uc_mcontext.gregs[REG_RIP] != 0) {
			/* rip and rsp; the others where they are (in a line
			 * or two apart, often not needed: see cached_step) */
			const greg_t *g = uc->uc_mcontext.gregs;
			/* one by one, opaque to the vectorizer: a table of
			 * the indexes or of vector constants would be another
			 * cold line or two */
#define AT(REG, GREG)                                                           \
			do {                                                    \
				uint64_t a_ = (uint64_t)(uintptr_t)&g[GREG];    \
				__asm__("" : "+r"(a_));                         \
				r->r[REG] = a_;                                 \
			} while (0)
			AT(EHELF_RAX, REG_RAX); AT(EHELF_RDX, REG_RDX);
			AT(EHELF_RCX, REG_RCX); AT(EHELF_RBX, REG_RBX);
			AT(EHELF_RSI, REG_RSI); AT(EHELF_RDI, REG_RDI);
			AT(EHELF_RBP, REG_RBP); AT(EHELF_R8, REG_R8);
			AT(EHELF_R9, REG_R9); AT(EHELF_R10, REG_R10);
			AT(EHELF_R11, REG_R11); AT(EHELF_R12, REG_R12);
			AT(EHELF_R13, REG_R13); AT(EHELF_R14, REG_R14);
			AT(EHELF_R15, REG_R15);
#undef AT
			r->r[EHELF_RIP] = (uint64_t)g[REG_RIP];
			r->r[EHELF_RSP] = (uint64_t)g[REG_RSP];
			r->valid = EHELF_VALID_REGS | EHELF_SIGNAL_FRAME;
			*lazy = EHELF_VALID_REGS & ~((1u << EHELF_RIP) |
						     (1u << EHELF_RSP));
			*st = EHELF_STEP;
			done = true;
		}
	}
	if (done) { /* the interrupted frame: its own line */
		t->marker = 0;
		t->record = false;
		t->slot = NULL;
	}
	return done;
}

int unwind_step(const ehelf_space *s, ehelf_regs *r, bool exact,
		const reader *rd, unsigned flags, uint32_t *path,
		step_trace *trace, uint32_t *lazy)
{
	uint64_t rip = r->r[EHELF_RIP], sp = r->r[EHELF_RSP];
	uint64_t rbp = r->r[EHELF_RBP];
	uint32_t valid = r->valid & EHELF_VALID_REGS;
	step_trace none;
	if (!trace) {
		none = (step_trace){ NULL, false, 0, false };
		trace = &none;
	}
	uint32_t own = 0, *lz = lazy ? lazy : &own;
	if (cached_step(s, &rip, &sp, &rbp, &valid, r, exact,
			reader_window(rd), rd, trace, lz, true)) {
		r->r[EHELF_RIP] = rip;
		r->r[EHELF_RSP] = sp;
		r->r[EHELF_RBP] = rbp;
		r->valid = valid;
		if (!lazy)
			cached_step_load(r, lz);
		*path = EHELF_PATH_EHELF;
		return EHELF_STEP;
	}
	int st;
	if (trace->marker && marker_step(r, trace, rd, sp, lz, &st)) {
		if (!lazy)
			cached_step_load(r, lz);
		*path = EHELF_PATH_EHELF;
		return st;
	}
	cached_step_load(r, lz);
	return complete_step(s, r, exact, rd, flags, path, trace);
}

/* Whether the step cache's sets say that the frame whose rip is RIP is
 * the outermost (as complete_step would find first; recorded into the walk's
 * trace line T as it would). */
static inline bool outermost_in_sets(const ehelf_space *s, uint64_t rip,
				     bool exact, step_trace *t)
{
	const step_cache_entry *e = step_cache_set(space_cache(s), rip);
	uint64_t pc = rip - !exact;
	if (!step_cache_is_outermost(e, pc))
		return false;
	step_trace_record(t, e, pc);
	return true;
}

int unwind_step_lean(const ehelf_space *s, ehelf_regs *r, bool exact,
		     const reader *rd, bool *rbp_at, step_trace *trace)
{
	uint64_t rip = r->r[EHELF_RIP], sp = r->r[EHELF_RSP];
	uint64_t rbp = r->r[EHELF_RBP];
	uint32_t valid = r->valid & EHELF_VALID_REGS;
	uint32_t lazy = *rbp_at ? CACHED_RBP_AT : 0;
	step_trace *t = trace;
	if (cached_step_deferred(s, &rip, &sp, &rbp, &valid, r, exact,
				 reader_window(rd), rd, t, &lazy)) {
		if ((lazy >> EHELF_RBP) & 1) /* where it is, inside the window */
			memcpy(&rbp, (const void *)(uintptr_t)rbp, 8);
		r->r[EHELF_RIP] = rip;
		r->r[EHELF_RSP] = sp;
		r->r[EHELF_RBP] = rbp;
		r->valid = valid;
		*rbp_at = lazy & CACHED_RBP_AT;
		return EHELF_STEP;
	}
	int st = t->ra_lost ? UNWIND_NO_RA
	       : t->marker == STEP_CACHE_OUTERMOST_P ||
			 outermost_in_sets(s, r->r[EHELF_RIP], exact, t)
		 ? EHELF_OUTERMOST
		 : UNWIND_DECLINED;
	*t = (step_trace){ NULL, false, 0, false };
	return st;
}

/* Whether complete_step would stop at the frame whose rip is RIP without
 * reading any register: a return address in no module, or in one without
 * an eh_elf when libdw is not to be asked, and no frame-pointer guess. */
static bool stops_uncovered(const ehelf_space *s, uint64_t rip, bool exact,
			    unsigned flags)
{
	if (exact || (flags & EHELF_UNWIND_FRAME_POINTER))
		return false;
	const module *m = space_find(s, rip - 1);
	return !m || (!module_object(m) && (flags & EHELF_UNWIND_NO_FALLBACK));
}

/*
 * No stack prefetching for local walks: it costs more at 19 kHz than it
 * gains at the kernel's tick (docs/journal.md).  A snapshot known to be
 * cold is prefetched whole (EHELF_UNWIND_COLD_SNAPSHOT).
 */

/*
 * The trace run: the frames that follow each other in the trace lines
 * (step_cache.h), stepped in a loop of their own, lean (see cached_step's
 * TRACK), the walk's state in locals: rip, rsp, rbp (an address when
 * bit EHELF_RBP of *LAZY is set), valid, the trace slot *SLOT and the
 * frame count *N (frame *N - 1 is the current one and is recorded).  Each
 * step is cached_step()'s for the frame's entry in the trace: the line's
 * next entry when it is the frame's pc, else the first entry of the
 * frame's own line when it starts one (a line's end, or a recursion
 * through two call sites), inside the window W.  The first frame that is
 * anything else (a marker of its pc in the line, another pc starting no
 * line of its own, a load outside W, a register missing) is left as it is
 * for cached_step(), SLOT as it was (or at the own line's first entry
 * when the step itself failed), which then finds the same and does what
 * it does.  Frames into FRAMES or (NULL) from SKIP on into IPS, as the
 * unwinding loop records them.  Returns whether the walk has MAX frames.
 * Only for a frame whose pc is a return address (not exact).
 */
static inline __attribute__((always_inline)) bool
trace_run(step_cache_entry *cache, step_cache_entry **slotp, uint64_t *ripp,
	  uint64_t *rspp, uint64_t *rbpp, uint32_t *validp, uint32_t *lazyp,
	  window w, ehelf_frame *frames, void **ips,
	  int skip, int *np, int max)
{
	step_cache_entry *slot = *slotp;
	uint64_t rip = *ripp, rsp = *rspp, rbp = *rbpp;
	uint32_t valid = *validp, lazy = *lazyp;
	int n = *np;
	bool full = false;
	for (;;) {
		uint64_t want = rip - 1, p, x;
		if (!slot || !step_cache_match(slot, want, &p, &x)) {
			/* a line's end, or another pc than the line's next
			 * (a recursion through two call sites meets both at
			 * every depth): the frame's own line, if it starts
			 * one, as cached_step() would follow it; else left
			 * to cached_step() with SLOT as it was.  Not for a
			 * marker of this pc in the line (the signal frame's
			 * and the outermost frame's, in every sample), which
			 * cached_step() checks first and takes without
			 * reading the frame's own line (a marked pc starts
			 * none: reading it was 2 lines a sample) */
			if (slot && step_cache_marked(p, x, want))
				break;
			step_cache_entry *own = step_trace_line(cache, want);
			if (!step_cache_match(own, want, &p, &x))
				break;
			slot = own;
		}
		uint64_t base = rsp;
		if (p & STEP_CACHE_CFA_RBP) {
			if (!((valid >> EHELF_RBP) & 1))
				break;
			base = rbp;
			if ((lazy >> EHELF_RBP) & 1)
				memcpy(&base, (const void *)(uintptr_t)base, 8);
		}
		uint64_t cfa = base + (uint64_t)STEP_CACHE_CFA(p);
		uint64_t first = cfa + (uint64_t)STEP_CACHE_LOWEST(x);
		uint64_t last = cfa + (uint64_t)STEP_CACHE_HIGHEST(x);
		if (first - w.lo > w.span8 || last - w.lo > w.span8)
			break;
		uint64_t nrip;
		memcpy(&nrip, (const void *)(uintptr_t)(cfa - 8 + w.delta), 8);
		if (nrip == 0 || cfa <= rsp)
			break;
		if ((uint8_t)RBP_SLOT(p) != STEP_CACHE_KEPT) {
			rbp = cfa + (uint64_t)(int64_t)RBP_SLOT(p) * 8 + w.delta;
			valid |= 1u << EHELF_RBP;
			lazy |= 1u << EHELF_RBP;
		}
		rip = nrip;
		rsp = cfa;
		slot++;
		if (step_trace_end(slot))
			slot = NULL;
		if (frames)
			frames[n] = (ehelf_frame){ .pc = rip, .sp = rsp,
						   .path = EHELF_PATH_EHELF };
		else if (n >= skip)
			ips[n - skip] = (void *)(uintptr_t)rip;
		if (++n == max) {
			full = true;
			break;
		}
	}
	*slotp = slot;
	*ripp = rip;
	*rspp = rsp;
	*rbpp = rbp;
	*validp = valid | ((n != *np) ? (1u << EHELF_RSP) | (1u << EHELF_RIP) : 0);
	*lazyp = lazy;
	*np = n;
	return full;
}

/*
 * The unwinding loop.  Frames whose row is in the step cache (most of
 * them once warm) are stepped here by cached_step on locals that stay in
 * machine registers from frame to frame; anything else goes through
 * complete_step, which also fills the cache.  The frames go into FRAMES, or
 * (FRAMES NULL) only the pcs of the frames from SKIP on into IPS: always
 * inlined with constant arguments, one loop for each.  WALK (when not
 * NULL) tells how the walk went (unwind.h).  The registers are worked on
 * in WORK, which holds INITIAL's (the same): the backtrace entries give
 * the registers they stored, so that the walk writes no other 144 bytes of
 * stack (cold lines, when sampling).  WORK NULL: in a copy of INITIAL's,
 * made when the walk first writes them (a complete step, a signal marker,
 * tracking): a walk that steps every frame from the cache never copies
 * them (the copy's 3 lines of stack written for nothing, per sample, and
 * its instructions per snapshot for ehelf-perf).
 */
static inline __attribute__((always_inline)) int
unwind_loop(const ehelf_space *s, const ehelf_regs *initial, ehelf_regs *work,
	    const reader *rd,
	    ehelf_frame *frames, void **ips, int skip, int max, unsigned flags,
	    walk_info *walk, bool first_exact)
{
	flags &= ~UNWIND_FIRST_STEP; /* ours to set */
	if (max <= 0)
		return 0;
	if (!((initial->valid >> EHELF_RIP) & 1) ||
	    !((initial->valid >> EHELF_RSP) & 1))
		return EHELF_E_BADREG;
	ehelf_regs own, *r = work;
	/* R, writable: the copy made on first need */
#define R_WRITABLE() (r ? r : (regs_copy(&own, initial), r = &own))
	uint64_t rip = initial->r[EHELF_RIP], rsp = initial->r[EHELF_RSP];
	uint64_t rbp = initial->r[EHELF_RBP];
	uint32_t valid = initial->valid & EHELF_VALID_REGS;
	window w = reader_window(rd);
	int n = 0;
	/* frame 0 (unless its pc is a return address: FIRST_EXACT), or
	 * reached through a signal frame */
	bool exact = first_exact;
	uint32_t path = EHELF_PATH_FIRST, fflags = 0;
	step_trace t = { NULL, false, 0, false };
	uint32_t lazy = 0; /* see cached_step() */
	/* The frames carry no registers but pc and sp: cached steps do not
	 * track R (cached_step's TRACK false: rbx and r12-r15 are about a
	 * third of a cached step's instructions) until a frame needs the
	 * complete step, which reads them.  The walk then goes back to the
	 * last frame whose registers R holds (KNOWN: its index and the
	 * loop's locals there) and steps again from it, tracking, up to that
	 * frame: each cached step is done at most twice, and only on walks
	 * that meet a frame the cache cannot step after some it could. */
	struct {
		int n;
		uint64_t rip, rsp, rbp;
		uint32_t valid, lazy, path, fflags;
		bool exact;
	} known = { 0, rip, rsp, rbp, valid, 0, path, fflags, exact };
	bool lean = true;
	for (;;) {
		if (frames)
			frames[n] = (ehelf_frame){ .pc = rip, .sp = rsp,
						   .path = path, .flags = fflags };
		else if (n >= skip)
			ips[n - skip] = (void *)(uintptr_t)rip;
		if (++n == max)
			break;
		if (lean && !exact && t.slot && !t.record) {
			int n0 = n;
			bool full = trace_run(space_cache(s), &t.slot, &rip, &rsp,
					      &rbp, &valid, &lazy, w, frames, ips,
					      skip, &n, max);
			if (n != n0) {
				path = EHELF_PATH_EHELF;
				fflags = 0;
			}
			if (full)
				break;
		}
		if (lean ? cached_step(s, &rip, &rsp, &rbp, &valid, r, exact, w, rd,
				       &t, &lazy, false)
			 : cached_step(s, &rip, &rsp, &rbp, &valid, r, exact, w, rd,
				       &t, &lazy, true)) {
			exact = false;
			path = EHELF_PATH_EHELF;
			fflags = 0;
			continue;
		}
		int st;
		if (t.marker && /* only a signal frame's writes R */
		    marker_step(t.marker == STEP_CACHE_SIGNAL_P ? R_WRITABLE() : r,
				&t, rd, rsp, &lazy, &st)) {
			path = EHELF_PATH_EHELF;
		} else if (t.ra_lost) {
			/* the return address is not in the snapshot nor to be
			 * read (a stack copy's end): the complete step would
			 * fail the same way (the same row, the same CFA) */
			st = EHELF_E_READ;
		} else if (lean && n - 1 > known.n &&
			   outermost_in_sets(s, rip, exact, &t)) {
			st = EHELF_OUTERMOST; /* needs no registers */
		} else if (lean && n - 1 > known.n && !walk &&
			   stops_uncovered(s, rip, exact, flags)) {
			/* neither, and nobody reads R after the walk */
			st = EHELF_E_NOT_COVERED;
		} else if (lean && n - 1 > known.n) {
			/* R is that of frame KNOWN.N: step again from there */
			n = known.n;
			rip = known.rip;
			rsp = known.rsp;
			rbp = known.rbp;
			valid = known.valid;
			lazy = known.lazy;
			path = known.path;
			fflags = known.fflags;
			exact = known.exact;
			t = (step_trace){ NULL, false, 0, false };
			lean = false; /* tracking: cached steps write R */
			R_WRITABLE();
			continue;
		} else {
			R_WRITABLE();
			r->r[EHELF_RIP] = rip;
			r->r[EHELF_RSP] = rsp;
			r->r[EHELF_RBP] = rbp;
			r->valid = valid;
			cached_step_load(r, &lazy);
			st = complete_step(s, r, exact, rd,
				       flags | (n == 1 && !rd->local ? UNWIND_FIRST_STEP : 0),
				       &path, &t);
		}
		if (st != EHELF_STEP) {
			if (st == EHELF_E_READ && frames)
				frames[n - 1].flags |= EHELF_FRAME_TRUNCATED;
			if (walk)
				walk->stop = st;
			break;
		}
		exact = r->valid & EHELF_SIGNAL_FRAME;
		fflags = exact ? EHELF_FRAME_SIGNAL : 0;
		if (walk && exact) /* never through the cache: no summary */
			walk->signal_seen = true;
		valid = r->valid & EHELF_VALID_REGS;
		rip = r->r[EHELF_RIP];
		rsp = r->r[EHELF_RSP];
		rbp = r->r[EHELF_RBP];
		/* the slow step may have learnt more of the stack */
		w = reader_window(rd);
		known = (typeof(known)){ n,    rip,  rsp,    rbp,  valid,
					 lazy, path, fflags, exact };
		lean = true;
	}
#undef R_WRITABLE
	return frames ? n : n > skip ? n - skip : 0;
}

static int unwind(const ehelf_space *s, const ehelf_regs *initial,
		  const reader *rd, ehelf_frame *frames, int max,
		  unsigned flags)
{
	return unwind_loop(s, initial, NULL, rd, frames, NULL, 0, max, flags, NULL,
			   true);
}

int ehelf_unwind(const ehelf_space *s, const ehelf_regs *initial,
		 ehelf_read_fn read, void *arg, ehelf_frame *frames, int max,
		 unsigned flags)
{
	reader rd = { .local = false, .read = read, .arg = arg };
	return unwind(s, initial, &rd, frames, max, flags);
}

int snapshot_read(void *arg, uint64_t addr, uint64_t *value)
{
	const snapshot *sn = arg;
	if (addr >= sn->addr && sn->size >= 8 && addr - sn->addr <= sn->size - 8) {
		memcpy(value, sn->data + (addr - sn->addr), 8);
		return 0;
	}
	return sn->read ? sn->read(sn->arg, addr, value) : -1;
}

int ehelf_unwind_snapshot(const ehelf_space *s, const ehelf_regs *initial,
			  const void *stack, uint64_t stack_addr,
			  uint64_t stack_size, ehelf_read_fn read, void *arg,
			  ehelf_frame *frames, int max, unsigned flags)
{
	snapshot sn = { .addr = stack_addr, .size = stack ? stack_size : 0,
			.data = stack, .read = read, .arg = arg };
	/* A cold snapshot (a perf.data sample read for the first time):
	 * each frame's loads wait for the previous frame's, so asking for
	 * the whole copy at once (up to perf's default 8 KiB) overlaps those
	 * misses.  On the bench's perf.data samples, the copies flushed from
	 * the caches, 8 KiB beat 0, 1, 2 and 4 KiB on all four workloads (an
	 * ad hoc comparison; figures in the message of the commit that chose
	 * it).  Larger copies (perf record --call-graph dwarf,SIZE) are not
	 * asked for beyond 8 KiB: their outer part is rarely used.  A copy
	 * in the caches would only pay for the instructions (about half of
	 * a hot hackbench sample's unwinding): hence the flag. */
	if (flags & EHELF_UNWIND_COLD_SNAPSHOT)
		for (size_t o = 0; o < sn.size && o < 8192; o += 64)
			__builtin_prefetch((const char *)stack + o);
	reader rd = { .local = false, .read = snapshot_read, .arg = &sn, .snap = &sn };
	return unwind(s, initial, &rd, frames, max, flags);
}

reader local_reader(uint64_t sp)
{
	return (reader){ .local = true, .read = local_read,
			 .arg = local_range_for(sp) };
}

int ehelf_unwind_local(const ehelf_space *s, const ehelf_regs *initial,
		       ehelf_frame *frames, int max, unsigned flags)
{
	reader rd = local_reader(initial->r[EHELF_RSP]);
	return unwind(s, initial, &rd, frames, max, flags);
}

void ehelf_regs_from_ucontext(ehelf_regs *r, const void *ucv)
{
	const ucontext_t *uc = ucv;
	const greg_t *g = uc->uc_mcontext.gregs;
	/* one by one: a table of the indexes would be a cold line of its own
	 * when sampling (a miss per sample) */
	r->r[EHELF_RAX] = (uint64_t)g[REG_RAX];
	r->r[EHELF_RDX] = (uint64_t)g[REG_RDX];
	r->r[EHELF_RCX] = (uint64_t)g[REG_RCX];
	r->r[EHELF_RBX] = (uint64_t)g[REG_RBX];
	r->r[EHELF_RSI] = (uint64_t)g[REG_RSI];
	r->r[EHELF_RDI] = (uint64_t)g[REG_RDI];
	r->r[EHELF_RBP] = (uint64_t)g[REG_RBP];
	r->r[EHELF_RSP] = (uint64_t)g[REG_RSP];
	r->r[EHELF_R8] = (uint64_t)g[REG_R8];
	r->r[EHELF_R9] = (uint64_t)g[REG_R9];
	r->r[EHELF_R10] = (uint64_t)g[REG_R10];
	r->r[EHELF_R11] = (uint64_t)g[REG_R11];
	r->r[EHELF_R12] = (uint64_t)g[REG_R12];
	r->r[EHELF_R13] = (uint64_t)g[REG_R13];
	r->r[EHELF_R14] = (uint64_t)g[REG_R14];
	r->r[EHELF_R15] = (uint64_t)g[REG_R15];
	r->r[EHELF_RIP] = (uint64_t)g[REG_RIP];
	r->valid = EHELF_VALID_REGS;
}

/* ---- backtrace(3): its walk over the process-wide space (process_space.c) */

/*
 * ehelf_backtrace and libehelf-unwind's unw_backtrace are entered in
 * assembly (getcontext.S, getcontext_unw.S), which stores the registers
 * their caller has at the return address (rip the return address, rsp
 * above it, the callee-saved ones as they are on entry) and calls this:
 * the walk starts in the caller's frame.  Starting from a getcontext in
 * here would step two more frames per call, whose rows and stack lines
 * are cold when sampling.
 */
int backtrace_from(ehelf_regs *caller, void **ips, int max, unsigned flags,
		   walk_info *walk)
{
	if (max <= 0)
		return 0;
	const ehelf_space *s = process_space_pin();
	int n = 0;
	if (s) {
		reader rd = local_reader(caller->r[EHELF_RSP]);
		/* frame 0's pc is a return address: looked up as pc - 1 */
		n = unwind_loop(s, caller, caller, &rd, NULL, ips, 0, max,
				flags, walk, false);
	}
	process_space_unpin();
	return n;
}

/* ehelf_backtrace (getcontext.S) after its entry */
int ehelf_backtrace_from(void **ips, int max, ehelf_regs *caller);
int ehelf_backtrace_from(void **ips, int max, ehelf_regs *caller)
{
	return backtrace_from(caller, ips, max, 0, NULL);
}
