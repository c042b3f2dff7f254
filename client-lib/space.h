/*
 * space.h - libehelf's internal view of address spaces and modules
 * (the public side is in include/ehelf.h).
 */
#ifndef EHELF_CLIENT_SPACE_H
#define EHELF_CLIENT_SPACE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "include/ehelf.h"
#include "step_cache.h"

typedef struct dwarf_module dwarf_module;

typedef struct module {
	uint64_t start, end;    /* runtime, [start, end) */
	uint64_t bias;          /* runtime - link-time */
	char *path;             /* may be NULL */
	const void *image;      /* in-memory ELF (the vDSO) when no path */
	size_t image_size;
	uint8_t build_id[64];
	size_t build_id_len;
	/* shared eh_elf, or NULL; set once, when the space is built or later
	 * by module_attach while others unwind: read it with one acquire load
	 * (module_object) */
	_Atomic(struct cached_object *) eh;
	dwarf_module *dw;       /* libdw fallback, opened on first use */
	struct elf_file *elf;   /* the ELF, for procedure info; on first use */
	pthread_mutex_t dw_lock; /* dw and elf */
} module;

struct ehelf_space {
	module **mods;          /* sorted by start */
	uint64_t *starts;       /* mods[i]->start, for a cache-friendly search */
	size_t n, cap;
	step_cache_entry *cache; /* STEP_CACHE_SIZE entries (step_cache.h) */
	atomic_bool cache_used;  /* filled since last cleared (so that building
				  * a space module by module clears nothing) */
	struct ehelf_space *retired_next; /* the process-wide space's list of
					   * replaced ones (unwind.c) */
};

/* The module containing runtime address PC, or NULL.  No allocation. */
const module *space_find(const ehelf_space *s, uint64_t pc);

/* The module's ELF file, opened on first use (NULL if unreadable); use it
 * under m->dw_lock. */
struct elf_file *module_elf(module *m);

/* The eh_elf object of a module, or NULL. */
const ehelf_object *module_object(const module *m);

/* Give M, if it has none, the eh_elf of its build-ID from the resolution
 * chain (resolve.h), published atomically: unwinders of M's space meet
 * either no eh_elf or the whole one.  Returns 1 when attached, else 0.
 * Takes locks, reads files: not from an unwind. */
int module_attach(module *m);

/* A copy of a stack: the bytes of [addr, addr + size) are at data. */
typedef struct snapshot {
	uint64_t addr, size;
	const uint8_t *data;
	ehelf_read_fn read;  /* memory outside it */
	void *arg;
} snapshot;

/* How memory is read during an unwind. */
typedef struct reader {
	bool local;          /* ARG is the thread's local_range */
	ehelf_read_fn read;
	void *arg;           /* a snapshot for snapshot_read */
	const snapshot *snap; /* reads inside it may be direct loads */
} reader;

/* ehelf_read_fn over a snapshot: inside it from the copy, else through
 * its read function. */
int snapshot_read(void *arg, uint64_t addr, uint64_t *value);

/* A reader for this process, anchored at stack pointer SP. */
reader local_reader(uint64_t sp);

/* One step from the frame in *R (EXACT: look its pc up as is, not pc - 1),
 * in place.  Returns EHELF_STEP with *R the caller's registers (with
 * EHELF_SIGNAL_FRAME in valid after a signal frame) and *PATH filled,
 * EHELF_OUTERMOST, or a negative code (EHELF_E_BADREG also for a stack
 * pointer that did not move up); *R is unchanged unless EHELF_STEP. */
int unwind_step(const ehelf_space *s, ehelf_regs *r, bool exact,
		const reader *rd, unsigned flags, uint32_t *path);

/* Internal unwinding flag, beside the public EHELF_UNWIND_* (cleared
 * from callers' flags): the step from the first frame of a remote or
 * snapshot unwind, whose caller may have the same stack pointer. */
#define UNWIND_FIRST_STEP 0x80000000u

/* How a walk went: whether it crossed a signal frame, and why it stopped
 * (EHELF_STEP when it filled the buffer or met its limit, else the last
 * step's status; set by the unwinding loop, zeroed by the caller). */
typedef struct walk_info {
	bool signal_seen;
	int stop;
} walk_info;

/* ehelf_backtrace with unwinding FLAGS, for the caller of its caller;
 * WALK (may be NULL) says how the walk went. */
int backtrace_with(void **ips, int max, unsigned flags, walk_info *walk);

/* The process-wide space of ehelf_backtrace and the libunwind API, built
 * on first use, pinned while in use: every process_space_pin() (NULL if it
 * could not be built) needs its process_space_unpin().  Async-signal-safe
 * once built. */
const ehelf_space *process_space_pin(void);
void process_space_unpin(void);

/* Rebuild the process-wide space if objects were loaded or unloaded since
 * it was built (dl_iterate_phdr's counters); true if it was.  Takes the
 * dynamic loader's lock, and a rebuild allocates and dlopens: not
 * async-signal-safe (callers skip it once a walk has crossed a signal
 * frame). */
bool process_space_refresh(void);

/* Whether the process-wide space has been built (by a first unwind or
 * ehelf_backtrace_init). */
bool process_space_built(void);

/* eh_elfs have been fetched into the cache: rebuild the process-wide
 * space if it is built, and make a build under way now build again, so
 * that unwinds from then on find them.  Not async-signal-safe (as
 * process_space_refresh). */
void process_space_pickup(void);

/* Set the thread's last error (ehelf_last_error). */
void ehelf_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
