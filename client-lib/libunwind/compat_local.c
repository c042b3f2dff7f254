/*
 * compat_local.c - libunwind's local API (x86_64) on ehelf: the symbols a
 * program built against Debian's <libunwind.h> calls (_ULx86_64_* with
 * UNW_LOCAL_ONLY, _Ux86_64_* without), so that relinking it against
 * libehelf-unwind, or LD_PRELOADing that library, makes it unwind with
 * eh_elfs.  Types, register numbers and error codes come from libunwind's
 * own header.  Modules without an eh_elf are stepped with libdw.
 *
 * The cursor (unw_cursor_t is 127 opaque words) holds the frame's
 * registers and whether its pc is exact (frame 0, or after a signal frame).
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "../../common/dwarf/fde_lookup.h"
#include "../../common/elf_file.h"
#include "../cached_step.h"
#include "../include/ehelf.h"
#include "../space.h"
#include "../unwind.h"

#define COMPAT __attribute__((visibility("default")))

enum { CURSOR_MAGIC = 0x65686c66 };

typedef struct compat_cursor {
	uint32_t magic;
	bool exact;      /* look the pc up as is (frame 0, after a signal) */
	bool signal;     /* unw_is_signal_frame's answer: whether the FDE looked
			  * up last for this cursor (by unw_step, for the
			  * frame it left, or by unw_get_proc_info, for this
			  * one) is a signal frame, as in libunwind */
	bool crossed;    /* unw_step has gone through a signal frame: this is
			  * probably a signal handler, where libraries loaded
			  * since the space was built are not looked for (a
			  * rebuild allocates, reads and maps eh_elfs) */
	ehelf_regs regs;
	step_trace trace; /* the walk's place in the step cache's traces, */
	const step_cache_entry *trace_cache; /* in this cache (the space may
					      * be rebuilt between steps) */
	uint32_t lazy;   /* registers whose regs.r[] is where their value is
			  * (in the stack, above the frames being walked), as
			  * libunwind keeps locations: loaded when asked for */
} compat_cursor;

_Static_assert(sizeof(compat_cursor) <= sizeof(unw_cursor_t),
	       "the cursor fits in libunwind's");

static compat_cursor *C(unw_cursor_t *c)
{
	compat_cursor *k = (compat_cursor *)c;
	return k->magic == CURSOR_MAGIC ? k : NULL;
}

/*
 * The process space, built when the library is loaded (before main, or
 * inside dlopen; never in a signal handler) rather than by the first
 * unwind: a profiler's first unwind is in its signal handler, where a
 * build (which allocates, walks the loader's list and maps eh_elfs) could
 * wait for ever on a lock the interrupted code holds, or corrupt the heap
 * (malloc's, in the cold sampling bench: a hang in calloc, and glibc's
 * "malloc assertion failure in sysmalloc"), while libunwind, which
 * allocates nothing there, would have unwound.
 */
__attribute__((constructor)) static void compat_space_init(void)
{
	if (!process_space_built())
		ehelf_backtrace_init();
}

/* unw_getcontext is in getcontext_unw.S (_Ux86_64_getcontext), with: */
void ehelf_compat_resume(const ehelf_regs *r) __attribute__((noreturn));

COMPAT int _ULx86_64_init_local(unw_cursor_t *c, unw_context_t *uc)
{
	compat_cursor *k = (compat_cursor *)c;
	memset(k, 0, sizeof *k);
	k->magic = CURSOR_MAGIC;
	k->exact = true;
	ehelf_regs_from_ucontext(&k->regs, uc);
	const ehelf_space *s = process_space_pin();
	process_space_unpin();
	return s ? 0 : -UNW_ENOMEM;
}

COMPAT int _ULx86_64_init_local2(unw_cursor_t *c, unw_context_t *uc, int flag)
{
	(void)flag; /* UNW_INIT_SIGNAL_FRAME: frame 0's pc is exact anyway */
	return _ULx86_64_init_local(c, uc);
}

/* The caller's registers of K's frame into OUT; EHELF_STEP or a code. */
static int peek(const compat_cursor *k, ehelf_regs *out)
{
	const ehelf_space *s = process_space_pin();
	int st = EHELF_E_NOT_COVERED;
	if (s) {
		reader rd = local_reader(k->regs.r[EHELF_RSP]);
		uint32_t path, lazy = k->lazy;
		*out = k->regs;
		cached_step_load(out, &lazy);
		st = unwind_step(s, out, k->exact, &rd, 0, &path, NULL, NULL);
	}
	process_space_unpin();
	return st;
}

COMPAT int _ULx86_64_step(unw_cursor_t *c)
{
	compat_cursor *k = C(c);
	if (!k)
		return -UNW_EINVAL;
	int st = EHELF_E_NOT_COVERED;
	for (int attempt = 0; attempt < 2; attempt++) {
		const ehelf_space *s = process_space_pin();
		bool unknown = false;
		if (s) {
			reader rd = local_reader(k->regs.r[EHELF_RSP]);
			uint32_t path;
			if (k->trace_cache != space_cache(s)) { /* another space */
				k->trace = (step_trace){ NULL, false, 0 };
				k->trace_cache = space_cache(s);
			}
			st = unwind_step(s, &k->regs, k->exact, &rd, 0, &path,
					 &k->trace, &k->lazy);
			unknown = st == EHELF_E_NOT_COVERED &&
				  !space_find(s, k->regs.r[EHELF_RIP] - !k->exact);
		}
		process_space_unpin();
		/* a pc in no module: perhaps a library loaded since (as
		 * libunwind, which looks modules up with dl_iterate_phdr);
		 * not past a signal frame (see crossed) */
		if (!unknown || k->crossed || !process_space_refresh())
			break;
	}
	if (st == EHELF_OUTERMOST || st == EHELF_E_NOT_COVERED)
		return 0;        /* no caller: the end of the chain */
	if (st != EHELF_STEP)
		return -UNW_EBADFRAME;
	k->signal = k->regs.valid & EHELF_SIGNAL_FRAME;
	k->crossed |= k->signal;
	k->exact = k->signal;
	k->regs.valid &= EHELF_VALID_REGS;
	return 1;
}

COMPAT int _ULx86_64_get_reg(unw_cursor_t *c, unw_regnum_t reg, unw_word_t *v)
{
	compat_cursor *k = C(c);
	if (!k)
		return -UNW_EINVAL;
	if (reg >= 0 && reg < EHELF_NREGS) { /* libunwind uses DWARF order */
		if (!((k->regs.valid >> reg) & 1))
			return -UNW_EBADREG;
		if ((k->lazy >> reg) & 1) {
			memcpy(&k->regs.r[reg],
			       (const void *)(uintptr_t)k->regs.r[reg], 8);
			k->lazy &= ~(1u << reg);
		}
		*v = k->regs.r[reg];
		return 0;
	}
	if (reg == UNW_X86_64_CFA) { /* the caller's stack pointer */
		ehelf_regs out;
		if (peek(k, &out) != EHELF_STEP)
			return -UNW_ENOINFO;
		*v = out.r[EHELF_RSP];
		return 0;
	}
	return -UNW_EBADREG;
}

COMPAT int _ULx86_64_set_reg(unw_cursor_t *c, unw_regnum_t reg, unw_word_t v)
{
	compat_cursor *k = C(c);
	if (!k || reg < 0 || reg >= EHELF_NREGS)
		return k ? -UNW_EBADREG : -UNW_EINVAL;
	k->regs.r[reg] = v;
	k->regs.valid |= 1u << reg;
	k->lazy &= ~(1u << reg);
	return 0;
}

COMPAT int _ULx86_64_is_signal_frame(unw_cursor_t *c)
{
	compat_cursor *k = C(c);
	return k ? k->signal : -UNW_EINVAL;
}

/* The module of IP in the pinned process space (unpin after use), after a
 * refresh if no module holds IP (a library loaded since) and REFRESH;
 * NULL if none. */
static module *pinned_module(uint64_t ip, bool refresh)
{
	const ehelf_space *s = process_space_pin();
	const module *m = s ? space_find(s, ip) : NULL;
	if (!m && refresh) {
		process_space_unpin();
		process_space_refresh();
		s = process_space_pin();
		m = s ? space_find(s, ip) : NULL;
	}
	return (module *)m;
}

/* The function around IP, as libunwind finds it: the closest STT_FUNC
 * symbol at or below it in the module's .symtab or .dynsym.  Its name goes
 * to NAME (LEN > 0 bytes, *TRUNCATED when it did not fit). */
static int symbol_of(uint64_t ip, bool refresh, char *name, size_t len,
		     uint64_t *start, uint64_t *size, bool *truncated)
{
	const module *m = pinned_module(ip, refresh);
	elf_file f;
	ehelf_err err;
	int rc = !m || (!m->path && !m->image) ? -1
		 : m->path ? elf_file_open(&f, m->path, &err)
			   : elf_file_open_mem(&f, m->image, m->image_size,
					       "[vdso]", &err);
	uint64_t bias = m ? m->bias : 0;
	process_space_unpin();
	if (rc < 0)
		return -1;
	uint64_t link = ip - bias, best = UINT64_MAX;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f.elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; d && i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || sym.st_value > link ||
			    link - sym.st_value >= best)
				continue;
			const char *nm = elf_strptr(f.elf, sh.sh_link, sym.st_name);
			if (!nm)
				continue;
			best = link - sym.st_value;
			*truncated = (size_t)snprintf(name, len, "%s", nm) >= len;
			*start = sym.st_value + bias;
			*size = sym.st_size;
		}
	}
	elf_file_close(&f);
	return best == UINT64_MAX ? -1 : 0;
}

/*
 * The procedure's FDE: its range, LSDA and personality routine (read from
 * this process's memory when the CIE points at a pointer to it), which is
 * what libunwind's own _Unwind_* functions need to run C++ exceptions over
 * this cursor when libehelf-unwind is preloaded into a program linked with
 * libunwind.
 */
COMPAT int _ULx86_64_get_proc_info(unw_cursor_t *c, unw_proc_info_t *pi)
{
	compat_cursor *k = C(c);
	if (!k)
		return -UNW_EINVAL;
	memset(pi, 0, sizeof *pi);
	uint64_t ip = k->regs.r[EHELF_RIP] - (k->exact ? 0 : 1);
	module *m = pinned_module(ip, !k->crossed);
	fde_info fi;
	int rc = ERR_NOTFOUND;
	uint64_t bias = m ? m->bias : 0;
	if (m) {
		pthread_mutex_lock(&m->dw_lock);
		elf_file *f = module_elf(m);
		if (f)
			rc = fde_lookup(f, ip - bias, &fi, NULL);
		pthread_mutex_unlock(&m->dw_lock);
	}
	process_space_unpin();
	if (rc < 0) {
		/* libunwind answers a one-byte procedure at the pc for code
		 * without unwind info (_start, say), not an error */
		pi->start_ip = k->regs.r[EHELF_RIP];
		pi->end_ip = pi->start_ip + 1;
		return 0;
	}
	k->signal = fi.signal_frame;
	pi->start_ip = fi.lo + bias;
	pi->end_ip = fi.hi + bias;
	pi->lsda = fi.has_lsda ? fi.lsda + bias : 0;
	if (fi.has_personality) {
		uint64_t h = fi.personality + bias;
		if (fi.personality_indirect) {
			reader rd = local_reader(k->regs.r[EHELF_RSP]);
			if (rd.read(rd.arg, h, &h) != 0)
				return -UNW_ENOINFO;
		}
		pi->handler = h;
	}
	pi->format = UNW_INFO_FORMAT_TABLE;
	return 0;
}

/* Continue execution in the cursor's frame with its registers (what
 * libunwind's _Unwind_RaiseException ends with). */
COMPAT int _ULx86_64_resume(unw_cursor_t *c)
{
	compat_cursor *k = C(c);
	if (!k)
		return -UNW_EINVAL;
	cached_step_load(&k->regs, &k->lazy);
	ehelf_compat_resume(&k->regs); /* does not return */
	return -UNW_EINVAL;
}

COMPAT int _ULx86_64_get_proc_name(unw_cursor_t *c, char *buf, size_t len,
				   unw_word_t *off)
{
	compat_cursor *k = C(c);
	if (!k)
		return -UNW_EINVAL;
	/* as libunwind: the symbol of pc-1 for a caller, the offset from pc,
	 * except when the name was truncated (-UNW_ENOMEM), where libunwind
	 * leaves the offset from pc-1 */
	uint64_t ip = k->regs.r[EHELF_RIP] - (k->exact ? 0 : 1), start, size;
	bool truncated = false;
	if (!len || symbol_of(ip, !k->crossed, buf, len, &start, &size,
			      &truncated) < 0)
		return -UNW_ENOINFO;
	if (off)
		*off = ip - start + (!k->exact && !truncated);
	return truncated ? -UNW_ENOMEM : 0;
}

/* Whether return address RA lies in no module of the process space. */
static bool in_no_module(uint64_t ra)
{
	const ehelf_space *s = process_space_pin();
	bool none = s && !space_find(s, ra - 1);
	process_space_unpin();
	return none;
}

/* unw_backtrace is entered in getcontext_unw.S, which stores its caller's
 * registers (see backtrace_from) and calls this */
int compat_backtrace_from(void **buf, int size, ehelf_regs *caller);
int compat_backtrace_from(void **buf, int size, ehelf_regs *caller)
{
	/* the caller of unw_backtrace first, as libunwind does; modules
	 * without an eh_elf through libdw */
	walk_info walk = { false, EHELF_STEP };
	int n = backtrace_from(caller, buf, size, 0, &walk);
	/* ended at a pc in no module: perhaps in a library loaded since (a
	 * Python extension module, say), which libunwind, looking modules
	 * up with dl_iterate_phdr, would find: look again, as unw_step does;
	 * not past a signal frame, where this is probably a signal handler
	 * (a rebuild allocates, reads and maps eh_elfs).  The walk goes on
	 * from that last frame, whose registers are in *CALLER (its pc a
	 * return address: no signal frame was crossed), as a walk from the
	 * start would have gone with the new space */
	if (n > 0 && walk.stop == EHELF_E_NOT_COVERED && !walk.signal_seen &&
	    in_no_module((uint64_t)(uintptr_t)buf[n - 1]) && process_space_refresh())
		n = n - 1 + backtrace_from(caller, buf + n - 1, size - (n - 1), 0,
					   NULL);
	return n;
}

void _ULx86_64_flush_cache(unw_addr_space_t as, unw_word_t lo, unw_word_t hi);
COMPAT void _ULx86_64_flush_cache(unw_addr_space_t as, unw_word_t lo,
				 unw_word_t hi)
{
	(void)as;
	(void)lo;
	(void)hi;
	/* libraries may have come or gone: rebuild the space, if there is
	 * one yet (before the first unwind there is nothing to flush; a
	 * build there would load eh_elfs inside whatever the caller holds,
	 * as heaptrack's setup did when eh_elfs were dlopened, through
	 * libunwind's own unw_set_cache_size before ours was exported).  A
	 * rebuild here, in the caller's context, allocates, reads and maps
	 * new eh_elfs (no dlopen: trust.h). */
	if (process_space_built())
		ehelf_backtrace_init();
}

COMPAT int _ULx86_64_set_caching_policy(unw_addr_space_t as,
					unw_caching_policy_t p)
{
	(void)as;
	(void)p; /* eh_elfs need no cache */
	return 0;
}

COMPAT int _ULx86_64_set_cache_size(unw_addr_space_t as, size_t size,
				    int flag)
{
	(void)as;
	(void)size;
	(void)flag; /* eh_elfs need no cache */
	return 0;
}

COMPAT unw_addr_space_t _ULx86_64_local_addr_space;

COMPAT const char *_Ux86_64_strerror(int err)
{
	switch (-err) {
	case UNW_ESUCCESS: return "no error";
	case UNW_EUNSPEC: return "unspecified (general) error";
	case UNW_ENOMEM: return "out of memory";
	case UNW_EBADREG: return "bad register number";
	case UNW_EINVAL: return "invalid argument";
	case UNW_EBADFRAME: return "bad frame";
	case UNW_ENOINFO: return "no unwind info found";
	}
	return "unknown error";
}

COMPAT const char *_Ux86_64_regname(unw_regnum_t reg)
{
	static const char *const names[] = {
		"RAX", "RDX", "RCX", "RBX", "RSI", "RDI", "RBP", "RSP", "R8",
		"R9", "R10", "R11", "R12", "R13", "R14", "R15", "RIP", "CFA",
	};
	return reg >= 0 && reg <= UNW_X86_64_CFA ? names[reg] : "???";
}
