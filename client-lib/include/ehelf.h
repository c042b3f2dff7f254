/*
 * ehelf.h - libehelf's public API.  Link with -lehelf (pkg-config libehelf).
 *
 *  - Objects: load one eh_elf and unwind one frame with it.
 *  - Address spaces: the modules of a process (this one, another live one,
 *    or a snapshot's), each resolved to its eh_elf by build-ID.
 *  - Unwinding: whole stacks, of another process or a snapshot through a
 *    read callback (ehelf_unwind), of this thread (ehelf_unwind_local,
 *    ehelf_backtrace); modules without an eh_elf go through libdw's DWARF
 *    CFI, and each frame says which way it was stepped.
 *  - libunwind's local API on the same machinery is libehelf-unwind (see
 *    docs/unwinder.md): relink a libunwind program against it, or preload it.
 *
 * The eh_elf binary interface, the register set and the status codes are
 * in ehelf_abi.h; docs/unwinder.md describes the design and its figures.
 *
 * Errors: two kinds of negative return, never sharing a value.  The step
 * and unwind calls return the step statuses of ehelf_abi.h (EHELF_STEP,
 * EHELF_OUTERMOST, EHELF_E_*: -6..1, the eh_elf ABI's).  Every other call
 * that can fail returns NULL or one of the EHELF_ERR_* codes below (all
 * below -1000: no step status, no -errno), and ehelf_last_error() then
 * says why, in this thread.
 * Thread safety: objects and finished spaces may be used by any number of
 * threads at once.  Async-signal safety: the step and unwind calls, once
 * the space is built, for modules with an eh_elf (see ehelf_unwind_local).
 */
#ifndef EHELF_H
#define EHELF_H

#include <stddef.h>
#include <stdint.h>

#include "ehelf_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define EHELF_API __attribute__((visibility("default")))
#else
#define EHELF_API
#endif

/*
 * The failures of the calls that do not step (ehelf_space_*,
 * ehelf_backtrace_init): one of these, with a message a user can act on
 * in ehelf_last_error() (the file, the pid, the variable, errno's text).
 * ehelf_err_str() names a code.
 */
enum ehelf_error {
	EHELF_ERR_IO = -1001,          /* a file or /proc could not be opened
					* or read (permission, I/O error) */
	EHELF_ERR_FORMAT = -1002,      /* malformed input (a file, a reply) */
	EHELF_ERR_UNSUPPORTED = -1003, /* well-formed, beyond what ehelf does */
	EHELF_ERR_NOMEM = -1004,       /* out of memory */
	EHELF_ERR_ARG = -1005,         /* an invalid argument (NULL space, an
					* empty module range, a bad build-ID) */
	EHELF_ERR_NOT_FOUND = -1006,   /* absent: no such process or file */
	EHELF_ERR_UNTRUSTED = -1007,   /* refused by the trust rules
					* (docs/trust.md) */
	EHELF_ERR_CONFIG = -1008,      /* invalid configuration ($EHELF_URLS,
					* $EHELF_TIMEOUT, a trusted-key file
					* that is not a key, ...) */
};

/* "I/O error", "not found", ... for an EHELF_ERR_* code (and 0:
 * "success"); never NULL. */
EHELF_API const char *ehelf_err_str(int code);

typedef struct ehelf_object ehelf_object;

/*
 * Load the eh_elf at PATH, used as given (never searched for on a library
 * path): a regular file, not a symbolic link, owned by root or this user,
 * not writable by its group or others, read once and checked to be exactly
 * an eh_elf as ehelf's writer emits it for the ABI version this library
 * reads (no relocations, constructors, undefined symbols, IFUNCs, TLS or
 * executable stack; its ehelf_info agreeing with its note), then those
 * same bytes mapped by libehelf itself: no dlopen, no code of the file
 * runs at load (docs/trust.md).  Returns NULL on any failure;
 * ehelf_last_error() then says why.  The object owns the mapping until
 * ehelf_object_close().
 */
EHELF_API ehelf_object *ehelf_object_open(const char *eh_elf_path);
EHELF_API void ehelf_object_close(ehelf_object *o);

/* The reason of the last failure in this thread (ehelf_object_open, the
 * space calls, ehelf_backtrace_init); never NULL.  Only meaningful right
 * after a call failed: successful calls do not clear it. */
EHELF_API const char *ehelf_last_error(void);

/* The eh_elf's ehelf_info (source build-ID, covered range, statistics). */
EHELF_API const struct ehelf_info *ehelf_object_info(const ehelf_object *o);

/*
 * One frame through the eh_elf's remote entry point: PC is a link-time
 * address of the source ELF, used as given (the caller applies pc-1 to
 * return addresses); memory is read through READ(ARG, addr, &value).
 * Returns EHELF_STEP (0), EHELF_OUTERMOST (1), or a negative
 * EHELF_E_* code: EHELF_E_NOT_COVERED, EHELF_E_READ, EHELF_E_UNSUPPORTED,
 * EHELF_E_BADREG, EHELF_E_EXPR.  IN and OUT must not overlap.
 */
EHELF_API int ehelf_object_step(const ehelf_object *o, uint64_t pc,
				const ehelf_regs *in, ehelf_regs *out,
				ehelf_read_fn read, void *arg);

/* The same through the local entry point: memory is read directly, and
 * only inside [stack_lo, stack_hi) (EHELF_E_BOUNDS otherwise). */
EHELF_API int ehelf_object_step_local(const ehelf_object *o, uint64_t pc,
				      const ehelf_regs *in, ehelf_regs *out,
				      uint64_t stack_lo, uint64_t stack_hi);

/* The eh_elf's summary of the row covering PC (ehelf_describe in
 * ehelf_abi.h): a nonzero word when the row's rules are of the common kinds
 * (the unwinder below caches these and steps such frames itself), 0 when
 * only a step entry point can unwind it. */
EHELF_API uint64_t ehelf_object_describe(const ehelf_object *o, uint64_t pc);

/* "not covered", "read failed", ... for a status code. */
EHELF_API const char *ehelf_status_str(int status);

/* ---- address spaces ---------------------------------------------------
 *
 * An ehelf_space holds the modules (mapped ELF files) of one process: their
 * runtime ranges, load biases, paths and build-IDs, and for each, once
 * resolved, its eh_elf.  eh_elfs are looked up by build-ID in the store
 * layout ROOT/.build-id/XX/REST.so under each directory of $EHELF_PATH
 * (colon-separated), then /usr/lib/ehelf, then the cache of fetched
 * eh_elfs ($EHELF_CACHE_PATH, else $XDG_CACHE_HOME/ehelf, else
 * ~/.cache/ehelf; signed ones only, see docs/trust.md); the eh_elf's
 * recorded build-ID must be the module's.  Nothing is fetched while a
 * space is built: ehelf_space_fetch() does that.  An eh_elf is loaded once
 * per process and shared by every space.  Modules without one are
 * unwound by libdw's DWARF CFI.
 *
 * Building a space (the *_add / *_load calls) allocates and takes locks;
 * unwinding with a finished space does neither for modules that have an
 * eh_elf (see ehelf_unwind_local).  A space must not be changed while
 * another thread unwinds with it.
 *
 * Each space keeps a step cache (8,192 four-way sets of 16-byte entries
 * and 4,096 lines of the same entries in the order walks met them: 768
 * KiB mapped with it: only the pages touched cost memory, except in the
 * spaces of this process, ehelf_space_load_self's, whose cache is faulted
 * in when the space is built so that no unwind in a signal handler takes
 * a page fault): the eh_elf's summary of the row of each pc met
 * (ehelf_object_describe), so that a pc seen before is stepped without
 * looking its module and row up again.  Threads share it without locks;
 * adding a module whose range meets another's clears it (it holds only
 * pcs inside the space's modules, which a module meeting none changes for
 * none).
 */
typedef struct ehelf_space ehelf_space;

typedef struct ehelf_module_desc {
	uint64_t start, end;     /* runtime addresses of its code, [start, end) */
	uint64_t bias;           /* runtime address - link-time address */
	const char *path;        /* the ELF file (build-ID, DWARF fallback); may be NULL */
	const uint8_t *build_id; /* NULL: read from the file at PATH */
	size_t build_id_len;
} ehelf_module_desc;

/* A new, empty space; NULL when out of memory (ehelf_last_error()). */
EHELF_API ehelf_space *ehelf_space_new(void);
EHELF_API void ehelf_space_free(ehelf_space *s);

/* Add one module (snapshots: perf.data, core files).  Returns 0, or
 * EHELF_ERR_ARG (S or M NULL, an empty range) or EHELF_ERR_NOMEM, the
 * space unchanged.  A module whose file cannot be read is added all the
 * same (without build-ID, eh_elf or DWARF fallback unless given one). */
EHELF_API int ehelf_space_add_module(ehelf_space *s,
				     const ehelf_module_desc *m);

/*
 * Add the modules of this process (dl_iterate_phdr), or of process PID
 * (/proc/PID/maps and the mapped files' program headers).  Every module
 * that can be added is added.  Returns 0 when all were; else the first
 * failure's EHELF_ERR_* code, its message in ehelf_last_error(), the
 * modules added before and after it staying in the space (a caller may
 * warn and unwind with them: ehelf_space_modules() counts them).
 * load_pid: EHELF_ERR_NOT_FOUND when there is no process PID,
 * EHELF_ERR_IO when its maps cannot be read (permission) or a mapped
 * file cannot be opened (another mount namespace, say: that module is
 * left out).  Executable mappings that are not ELF files, and eh_elfs,
 * are no modules and no failure.
 */
EHELF_API int ehelf_space_load_self(ehelf_space *s);
EHELF_API int ehelf_space_load_pid(ehelf_space *s, int pid);

/* Number of modules, and how many have an eh_elf (eh_elfs themselves,
 * when loaded into the process, are not counted as modules). */
EHELF_API int ehelf_space_modules(const ehelf_space *s, int *with_ehelf);

/*
 * Fetch and attach the eh_elfs the space's modules lack: those that have
 * appeared in the places above since, then the others from the HTTP
 * servers of $EHELF_URLS (space-separated), all at once, into the cache;
 * each download must carry a valid signature by a trusted key
 * ($EHELF_TRUSTED_KEYS, else /etc/ehelf/trusted-keys; docs/trust.md).
 * Takes at most TIMEOUT_SECONDS (<= 0: $EHELF_TIMEOUT, default 10).
 * Without $EHELF_URLS nothing is asked over the network.
 *
 * May run while other threads unwind with the same space (never from an
 * unwind or a signal handler: it allocates, takes locks, waits): a
 * module's eh_elf is published atomically, so an unwind meets either the
 * DWARF fallback or the eh_elf for it.  Not while the space is changed or
 * freed.  Returns the number of eh_elfs newly attached (when some were
 * attached before a failure, that number, the failure's message in
 * ehelf_last_error()), or an EHELF_ERR_* code with ehelf_last_error():
 * EHELF_ERR_ARG (S NULL), EHELF_ERR_CONFIG (the environment, a
 * trusted-key file that is not a key), EHELF_ERR_IO (the cache cannot be
 * created), EHELF_ERR_NOMEM, or the first download's failure.
 */
EHELF_API int ehelf_space_fetch(ehelf_space *s, double timeout_seconds);

/* ---- unwinding -------------------------------------------------------- */

enum ehelf_frame_path {
	EHELF_PATH_FIRST = 0,   /* the initial registers: no step was needed */
	EHELF_PATH_EHELF = 1,   /* stepped with the module's eh_elf */
	EHELF_PATH_DWARF = 2,   /* stepped with the module's own DWARF CFI (no
				 * eh_elf, or a row it did not compile): its
				 * .eh_frame, or libdw's (.debug_frame, outside
				 * local unwinds) */
	EHELF_PATH_FRAME_POINTER = 3, /* no CFI covered the pc: guessed by the
				       * frame-pointer chain (only with
				       * EHELF_UNWIND_FRAME_POINTER) */
	EHELF_PATH_PLT = 4,     /* no CFI covered the pc, the first
				 * instruction of a PLT entry (lld gives
				 * them none), or locally a pc that cannot
				 * be read (a call through a bad pointer):
				 * the return address at the stack pointer */
};

enum ehelf_frame_flags {
	EHELF_FRAME_SIGNAL = 1, /* reached through a signal frame: pc is exact */
	EHELF_FRAME_TRUNCATED = 2, /* the last frame, where unwinding stopped
				    * because memory could not be read (the
				    * end of a stack snapshot, say): the
				    * stack goes on beyond what is known */
};

typedef struct ehelf_frame {
	uint64_t pc;        /* runtime pc (a return address above frame 0) */
	uint64_t sp;        /* rsp in that frame */
	uint32_t path;      /* enum ehelf_frame_path: how this frame was reached */
	uint32_t flags;     /* enum ehelf_frame_flags */
} ehelf_frame;

/* Unwinding flags. */
enum {
	/* stop at a frame whose module has no eh_elf instead of stepping it
	 * with its own CFI (which is allocation-free locally; libdw, which
	 * allocates, only outside local unwinds) */
	EHELF_UNWIND_NO_FALLBACK = 1,
	/* where no CFI covers a pc (code without unwind tables, a pc in no
	 * module), guess the caller with the frame-pointer chain, as
	 * libunwind and libdw do (and so perf); off by default: the guess
	 * is right only for code that keeps a frame pointer */
	EHELF_UNWIND_FRAME_POINTER = 2,
	/* ehelf_unwind_snapshot only: the stack copy is probably in no CPU
	 * cache (a perf.data sample read from its file, say), so ask for its
	 * first 8 KiB at once, overlapping the misses that each frame's
	 * loads would otherwise wait for in turn.  Leave it out for a copy
	 * just made (an in-process sampler's): in the caches already, it
	 * would only pay for 128 prefetch instructions. */
	EHELF_UNWIND_COLD_SNAPSHOT = 4,
};

/*
 * Unwind from INITIAL (rip and rsp at least; other registers as valid
 * says) through memory read by READ(ARG, addr, &value): another process,
 * or a snapshot.  Fills up to MAX frames, frame 0 being INITIAL; returns
 * their number (>= 1 when rip is valid), or a negative EHELF_E_* code.
 * Unwinding stops at the outermost frame, at a pc no CFI covers (in no
 * module, say: but for the first instruction of a PLT entry, where the
 * return address is at the stack pointer, and with
 * EHELF_UNWIND_FRAME_POINTER), when a
 * frame cannot be unwound (the frames so far are returned), when the stack
 * pointer does not move up (except through signal frames; from frame 0
 * it may stay level, here and in ehelf_unwind_snapshot, not locally), and
 * at MAX.
 * Caller frames are looked up at pc - 1, except after a signal frame.
 * *INITIAL is read throughout the walk (not copied first): it must not
 * change meanwhile (from READ, say) nor overlap FRAMES.
 */
EHELF_API int ehelf_unwind(const ehelf_space *s, const ehelf_regs *initial,
			   ehelf_read_fn read, void *arg, ehelf_frame *frames,
			   int max, unsigned flags);

/*
 * The same for a snapshot, as perf.data samples hold: STACK_SIZE bytes of
 * stack copied from address STACK_ADDR are at STACK (read with plain
 * loads); other memory is read through READ(ARG, ...), which may be NULL.
 * Pass EHELF_UNWIND_COLD_SNAPSHOT when the copy is probably in no CPU
 * cache (see there).
 */
EHELF_API int ehelf_unwind_snapshot(const ehelf_space *s,
				    const ehelf_regs *initial,
				    const void *stack, uint64_t stack_addr,
				    uint64_t stack_size, ehelf_read_fn read,
				    void *arg, ehelf_frame *frames, int max,
				    unsigned flags);

/*
 * The same in this process: memory is read directly, within the pages of
 * the calling thread's stack already known to be readable; any other
 * address has its page checked first (a one-byte write(2) from it into a
 * pipe, as libunwind checks an address), so a corrupt stack or bad CFI
 * cannot crash the process.  Async-signal-safe (no allocation, no
 * lock), a module without an eh_elf stepped from its own .eh_frame in
 * memory (located when S's modules were added from this process,
 * ehelf_space_load_self; a module added otherwise, with no eh_elf, ends the
 * walk here).
 */
EHELF_API int ehelf_unwind_local(const ehelf_space *s,
				 const ehelf_regs *initial,
				 ehelf_frame *frames, int max, unsigned flags);

/* The registers of the caller of ehelf_getcontext, as they are just after
 * it returns (rip: its return address; rsp: above it). */
EHELF_API int ehelf_getcontext(ehelf_regs *r);

/* The registers of the interrupted code from a signal handler's third
 * argument (a ucontext_t *). */
EHELF_API void ehelf_regs_from_ucontext(ehelf_regs *r, const void *uc);

/*
 * backtrace(3) for this thread: up to MAX return addresses of the calling
 * function's callers (the caller of ehelf_backtrace first), returned as
 * the number stored.  Uses a process-wide space built on first use
 * (dl_iterate_phdr); call ehelf_backtrace_init() again after loading or
 * unloading libraries (dlopen, dlclose) for their frames to be found.
 * Async-signal-safe once built: modules without an eh_elf are stepped
 * from their own .eh_frame in memory, without allocating.
 */
EHELF_API int ehelf_backtrace(void **ips, int max);

/* Build (or rebuild) the process-wide space now, outside a signal
 * handler.  A space replaced while a signal handler unwinds with it is
 * freed at a later rebuild.  Returns 0; EHELF_ERR_NOMEM when no space
 * could be made (the previous one, if any, stays); or the first failure
 * of ehelf_space_load_self (the new space is in use, without the modules
 * that failed).  ehelf_last_error() says why. */
EHELF_API int ehelf_backtrace_init(void);

#ifdef __cplusplus
}
#endif

#endif
