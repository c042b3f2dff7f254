/*
 * procs.h - the processes and threads of a perf.data file, as its records
 * describe them: threads (tid -> pid, command name) from COMM, FORK and
 * EXIT; each process's mappings from MMAP/MMAP2 (all of them: a read of
 * static data may fall in any), and from the executable ones, on demand,
 * the ehelf address space its samples are unwound with.
 *
 * Mappings follow perf's rules: a new mapping replaces the parts of older
 * ones it overlaps; FORK of a new process copies its parent's mappings
 * (the threads of a process share them).
 *
 * Processes with the same executable mappings (a parent and the children
 * it forked, until one of them maps code of its own) share one address
 * space, and so its step cache: hackbench's 80 children are unwound
 * with the cache their parent filled.  Data and anonymous mappings do not
 * change the address space.
 */
#ifndef EHELF_PERF_TOOL_PROCS_H
#define EHELF_PERF_TOOL_PROCS_H

#include <stdbool.h>
#include <stdint.h>

#include "../../../client-lib/include/ehelf.h"
#include "../perfdata/perf_data.h"
#include "dso.h"

typedef struct pmap {
	uint64_t start, end;   /* runtime [start, end) */
	uint64_t pgoff;        /* file offset mapped at start */
	uint64_t bias;         /* runtime - link-time; valid when has_bias */
	bool has_bias;
	bool exec;             /* mapped executable */
	bool identity;         /* anonymous memory or memory of no file:
				* perf prints its addresses as they are */
	dso *d;                /* NULL for anonymous or special mappings */
	const char *name;      /* the mapping's file name (dso path, or e.g.
				* "[vdso]", "//anon") */
} pmap;

typedef struct proc {
	uint32_t pid;
	pmap *maps;            /* sorted by start, not overlapping */
	size_t n, cap;
	unsigned gen;          /* changes whenever the executable mappings
				* (what the address space holds) change */
	uint64_t maps_id;      /* of its mappings as they are now: another,
				* never used before by any process, as any
				* of them changes (a key for what is
				* derived from them) */
	struct space_group *group; /* the space shared with processes of the
				    * same mappings; NULL until needed */
	bool gone;             /* its main thread exited (EXIT) */
	char **names;          /* owned copies of names not in a dso */
	size_t nnames;
} proc;

typedef struct thread {
	uint32_t tid, pid;
	char comm[32];
} thread;

typedef struct procs procs;

procs *procs_new(dso_table *dsos);
void procs_free(procs *p);

/* The process PID / thread TID, created empty if new; NULL only if out of
 * memory. */
proc *procs_proc(procs *p, uint32_t pid);
thread *procs_thread(procs *p, uint32_t tid, uint32_t pid);

/* Records.  Return 0 or ERR_NOMEM. */
int procs_comm(procs *p, uint32_t pid, uint32_t tid, const char *comm);
int procs_fork(procs *p, uint32_t pid, uint32_t tid, uint32_t ppid,
	       uint32_t ptid);
/* EXIT: the main thread's exit lets the address space go when no process
 * sharing it is left (built again, still shared, if a late sample needs
 * it); threads and mappings stay, as in perf. */
int procs_exit(procs *p, uint32_t pid, uint32_t tid);
/* A mapping; EXEC: mapped executable, WRITABLE: writable (when known:
 * MMAP2 records), IDENTITY: of anonymous memory or of no file (pmap). */
int procs_mmap(procs *p, uint32_t pid, uint64_t start, uint64_t len,
	       uint64_t pgoff, bool exec, bool writable, bool identity,
	       const char *filename, const uint8_t *build_id,
	       size_t build_id_len);

/* Apply record EV of reader R (COMM, FORK, EXIT, or MMAP of a process:
 * its build-ID from the record, else from R's BUILD_ID feature; R may be
 * NULL) with the functions above; other records are left alone.  An
 * executable mapping of anonymous memory or of no file (a JIT's code) is
 * named "/tmp/perf-PID.map", as perf names it: the file where JITs list
 * their symbols.  0 or ERR_NOMEM. */
int procs_record(procs *p, const perf_reader *r, const perf_event *ev);

/* The mapping of PR containing ADDR, or NULL. */
const pmap *proc_find(const proc *pr, uint64_t addr);

/* PR's address space (its file mappings with their eh_elfs), built now if
 * needed.  NULL if out of memory. */
const ehelf_space *proc_space(proc *pr);

/* Whether PR's address space is built now (holds memory). */
bool proc_space_held(const proc *pr);

#endif
