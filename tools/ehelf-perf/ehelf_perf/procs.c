/* procs.c - see procs.h. */
#include "procs.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../../common/u64_map.h"
#include "vdso_file.h"


/*
 * An address space, shared by processes with the same mappings.  Members
 * stay in it after they exit (their mappings stay too, for late records),
 * but the space itself, with its step cache and eh_elf references, is let
 * go once no member is alive, and built again, once for all of them,
 * should a late sample need it: a tool that reads a whole recording
 * before unwinding (the benchmark) then still finds hackbench's 80
 * children sharing one space, as ehelf-perf does while they run.
 */
struct space_group {
	ehelf_space *space;    /* built on first use */
	unsigned refs;         /* member processes */
	unsigned live;         /* members whose main thread has not exited */
};

static void group_leave(proc *pr)
{
	struct space_group *g = pr->group;
	pr->group = NULL;
	if (!g)
		return;
	g->refs--;
	/* the last one alive gone: the space too (one built again for late
	 * samples stays while the group has members) */
	if (g->refs == 0 || (!pr->gone && --g->live == 0)) {
		ehelf_space_free(g->space);
		g->space = NULL;
	}
	if (g->refs == 0)
		free(g);
}

static struct space_group *group_of(proc *pr)
{
	if (!pr->group && (pr->group = calloc(1, sizeof *pr->group)) != NULL) {
		pr->group->refs = 1;
		pr->group->live = !pr->gone;
	}
	return pr->group;
}

static void group_join(proc *pr, struct space_group *g)
{
	g->refs++;
	if (!pr->gone)
		g->live++;
	pr->group = g;
}

struct procs {
	dso_table *dsos;
	u64_map pids, tids;     /* pid -> proc, tid -> thread */
	uint64_t maps_ids;      /* the last proc.maps_id given */
};

procs *procs_new(dso_table *dsos)
{
	procs *p = calloc(1, sizeof *p);
	if (p)
		p->dsos = dsos;
	return p;
}

static void proc_free(proc *pr)
{
	group_leave(pr);
	for (size_t i = 0; i < pr->nnames; i++)
		free(pr->names[i]);
	free(pr->names);
	free(pr->maps);
	free(pr);
}

void procs_free(procs *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->pids.cap; i++)
		if (p->pids.v[i].val)
			proc_free((proc *)p->pids.v[i].val);
	for (size_t i = 0; i < p->tids.cap; i++)
		free((thread *)p->tids.v[i].val);
	u64_map_free(&p->pids);
	u64_map_free(&p->tids);
	free(p);
}

proc *procs_proc(procs *p, uint32_t pid)
{
	proc *pr = (proc *)u64_map_get(&p->pids, pid);
	if (pr)
		return pr;
	pr = calloc(1, sizeof *pr);
	if (!pr || u64_map_put(&p->pids, pid, (uintptr_t)pr, false) < 0) {
		free(pr);
		return NULL;
	}
	pr->pid = pid;
	pr->maps_id = ++p->maps_ids;
	return pr;
}

thread *procs_thread(procs *p, uint32_t tid, uint32_t pid)
{
	thread *t = (thread *)u64_map_get(&p->tids, tid);
	if (t) {
		t->pid = pid;
		return t;
	}
	t = calloc(1, sizeof *t);
	if (!t || u64_map_put(&p->tids, tid, (uintptr_t)t, false) < 0) {
		free(t);
		return NULL;
	}
	t->tid = tid;
	t->pid = pid;
	/* as perf, until a COMM record: the idle task is "swapper" (perf
	 * registers it so for every session), any other ":TID" */
	if (tid == 0)
		snprintf(t->comm, sizeof t->comm, "swapper");
	else
		snprintf(t->comm, sizeof t->comm, ":%u", tid);
	return t;
}

int procs_comm(procs *p, uint32_t pid, uint32_t tid, const char *comm)
{
	thread *t = procs_thread(p, tid, pid);
	if (!t)
		return ERR_NOMEM;
	snprintf(t->comm, sizeof t->comm, "%s", comm);
	return 0;
}

/* Copy FROM's mappings into TO (a process just forked). */
static int copy_maps(procs *p, proc *to, proc *from)
{
	/* TO is a new process, alive even if an older one of its pid exited:
	 * the old one's mappings and space go first, so that a failure below
	 * leaves it with none rather than with a space of other mappings */
	group_leave(to);
	to->gone = false;
	to->gen++;
	to->maps_id = ++p->maps_ids;
	free(to->maps);
	to->maps = NULL;
	to->n = to->cap = 0;
	if (from->n) {
		pmap *m = malloc(from->n * sizeof *m);
		if (!m)
			return ERR_NOMEM;
		memcpy(m, from->maps, from->n * sizeof *m);
		/* names not of dsos (anonymous mappings, [vdso]) stay owned
		 * by the parent, which outlives no one in particular: keep
		 * our own copies */
		for (size_t i = 0; i < from->n; i++)
			if (m[i].name && (!m[i].d || m[i].name != m[i].d->path)) {
				char *c = strdup(m[i].name);
				char **v = realloc(to->names,
						   (to->nnames + 1) * sizeof *v);
				if (v)
					to->names = v;
				if (!c || !v) {
					free(c);
					free(m);
					return ERR_NOMEM;
				}
				to->names[to->nnames++] = c;
				m[i].name = c;
			}
		to->maps = m;
		to->n = to->cap = from->n;
	}
	/* same mappings: same address space */
	struct space_group *g = group_of(from);
	if (g)
		group_join(to, g);
	return 0;
}

int procs_fork(procs *p, uint32_t pid, uint32_t tid, uint32_t ppid,
	       uint32_t ptid)
{
	thread *parent = procs_thread(p, ptid, ppid);
	thread *t = procs_thread(p, tid, pid);
	if (!parent || !t)
		return ERR_NOMEM;
	memcpy(t->comm, parent->comm, sizeof t->comm);
	if (pid != ppid) {
		proc *child = procs_proc(p, pid), *par = procs_proc(p, ppid);
		if (!child || !par)
			return ERR_NOMEM;
		return copy_maps(p, child, par);
	}
	return 0;
}

int procs_exit(procs *p, uint32_t pid, uint32_t tid)
{
	/* perf keeps exited threads and their mappings for later records:
	 * so do we.  The address space is let go when the last process
	 * sharing it exits (see struct space_group). */
	proc *pr = pid == tid ? (proc *)u64_map_get(&p->pids, pid) : NULL;
	if (pr && !pr->gone) {
		pr->gone = true;
		struct space_group *g = pr->group;
		if (g && --g->live == 0) {
			ehelf_space_free(g->space);
			g->space = NULL;
		}
	}
	return 0;
}

/* Mapping M's module into space S, if it is one (executable, of a file
 * ehelf-perf can read, placed); a failure leaves the module out. */
static void space_add_map(ehelf_space *s, const pmap *m)
{
	if (!m->exec || !m->d || !m->d->usable || !m->has_bias)
		return;
	ehelf_module_desc d = {
		.start = m->start, .end = m->end, .bias = m->bias,
		.path = m->d->file,
		.build_id = m->d->build_id_len ? m->d->build_id : NULL,
		.build_id_len = m->d->build_id_len,
	};
	ehelf_space_add_module(s, &d);
}

int procs_mmap(procs *p, uint32_t pid, uint64_t start, uint64_t len,
	       uint64_t pgoff, bool exec, bool writable, bool identity,
	       const char *filename, const uint8_t *build_id,
	       size_t build_id_len)
{
	proc *pr = procs_proc(p, pid);
	if (!pr || !len)
		return pr ? 0 : ERR_NOMEM;
	uint64_t end = start + len;
	pmap m = { .start = start, .end = end, .pgoff = pgoff, .exec = exec,
		   .identity = identity };
	/* the vDSO: a file where perf finds one (vdso_file.h), named as
	 * recorded */
	char vdso[4096];
	bool is_vdso = !strcmp(filename, "[vdso]") &&
		       vdso_file(build_id, build_id_len, vdso, sizeof vdso) == 0;
	if (filename[0] == '/' || is_vdso) {
		m.d = dso_get(p->dsos, is_vdso ? vdso : filename, build_id,
			      build_id_len);
		if (!m.d)
			return ERR_NOMEM;
		m.has_bias = dso_bias(m.d, start, pgoff, exec, writable,
					&m.bias) == 0;
	}
	if (filename[0] == '/') {
		m.name = m.d->path;
	} else {
		char *c = strdup(filename);
		char **v = c ? realloc(pr->names, (pr->nnames + 1) * sizeof *v) : NULL;
		if (!v) {
			free(c);
			return ERR_NOMEM;
		}
		pr->names = v;
		pr->names[pr->nnames++] = c;
		m.name = c;
	}
	/* the old mappings minus what the new one covers (at most one is
	 * split in two), and the new one, in order */
	pmap *v = malloc((pr->n + 2) * sizeof *v);
	if (!v)
		return ERR_NOMEM;
	size_t out = 0;
	bool placed = false, space_changed = exec, exec_replaced = false;
	for (size_t i = 0; i < pr->n; i++) {
		pmap o = pr->maps[i];
		if (!placed && o.start >= start) {
			v[out++] = m;
			placed = true;
		}
		if (o.end <= start || o.start >= end) {
			v[out++] = o;
			continue;
		}
		exec_replaced |= o.exec;
		if (o.start < start) { /* the part before */
			v[out] = o;
			v[out++].end = start;
		}
		if (o.end > end) { /* the part after */
			if (!placed) {
				v[out++] = m;
				placed = true;
			}
			v[out] = o;
			v[out].pgoff += end - o.start;
			v[out++].start = end;
		}
	}
	if (!placed)
		v[out++] = m;
	free(pr->maps);
	pr->maps = v;
	pr->n = out;
	pr->cap = pr->n + 2;
	pr->maps_id = ++p->maps_ids;
	/* The address space holds the executable mappings only: data and
	 * anonymous mappings (malloc's arenas, thread stacks) leave it, and
	 * the processes sharing it, as they are.  Otherwise the mappings
	 * are this process's own now. */
	if (space_changed || exec_replaced) {
		pr->gen++;
		/* an executable mapping added over none (the dynamic loader
		 * mapping a library, dlopen): the space of a process that
		 * shares it with no other gets the module, as a space built
		 * anew would hold it; it keeps what its other modules learnt
		 * (their CFI tables, a pc no FDE covers).  Otherwise the
		 * process leaves its group, for a space built anew. */
		struct space_group *g = pr->group;
		if (!exec_replaced && g && g->refs == 1) {
			if (g->space)
				space_add_map(g->space, &m);
		} else {
			group_leave(pr);
		}
	}
	return 0;
}

/*
 * The name perf gives the mapping of record EV: an executable mapping of
 * anonymous memory ("//anon", "/dev/zero...", "/anon_hugepage...", or
 * MAP_HUGETLB) or of memory of no file ("[stack...", "[heap]",
 * "/SYSV...") is "/tmp/perf-PID.map", the file where JITs list their
 * code's symbols (perf's map__new; an MMAP record, which has no prot,
 * counts as executable unless marked as data).  BUF holds it.  *IDENTITY:
 * anonymous or of no file, executable or not (perf prints addresses there
 * as they are, not as file offsets).
 */
static const char *map_name(const perf_event *ev, char *buf, size_t cap,
			    bool *identity)
{
	const char *f = ev->mmap.filename;
	bool exec = ev->type == PERF_RECORD_MMAP ? ev->mmap.exec
						  : (ev->mmap.prot & PROT_EXEC) != 0;
	bool anon = !strcmp(f, "//anon") || !strncmp(f, "/dev/zero", 9) ||
		    !strncmp(f, "/anon_hugepage", 14) ||
		    (ev->mmap.flags & MAP_HUGETLB);
	bool no_file = !strncmp(f, "[stack", 6) || !strncmp(f, "/SYSV", 5) ||
		       !strcmp(f, "[heap]");
	*identity = anon || no_file;
	if (!exec || !(anon || no_file))
		return f;
	snprintf(buf, cap, "/tmp/perf-%d.map", (int)ev->pid);
	return buf;
}

int procs_record(procs *p, const perf_reader *r, const perf_event *ev)
{
	switch (ev->kind) {
	case PERF_EV_COMM:
		return procs_comm(p, ev->pid, ev->tid, ev->comm.comm);
	case PERF_EV_FORK:
		return procs_fork(p, ev->pid, ev->tid, ev->task.ppid, ev->task.ptid);
	case PERF_EV_EXIT:
		return procs_exit(p, ev->pid, ev->tid);
	case PERF_EV_MMAP: {
		if (ev->pid == (uint32_t)-1)
			return 0; /* the kernel's own maps */
		const uint8_t *id = ev->mmap.build_id;
		size_t n = ev->mmap.build_id_len;
		if (!n && r)
			n = perf_reader_build_id(r, ev->pid, ev->mmap.filename, &id);
		char name[64];
		bool identity;
		const char *f = map_name(ev, name, sizeof name, &identity);
		return procs_mmap(p, ev->pid, ev->mmap.start, ev->mmap.len,
				  ev->mmap.pgoff, ev->mmap.exec,
				  (ev->mmap.prot & PROT_WRITE) != 0, identity, f,
				  id, n);
	}
	default:
		return 0;
	}
}

const pmap *proc_find(const proc *pr, uint64_t addr)
{
	size_t lo = 0, hi = pr->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pr->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= pr->maps[lo - 1].end)
		return NULL;
	return &pr->maps[lo - 1];
}

const ehelf_space *proc_space(proc *pr)
{
	struct space_group *g = group_of(pr);
	if (!g)
		return NULL;
	if (g->space)
		return g->space;
	ehelf_space *s = ehelf_space_new();
	if (!s)
		return NULL;
	for (size_t i = 0; i < pr->n; i++)
		space_add_map(s, &pr->maps[i]);
	g->space = s;
	return s;
}

bool proc_space_held(const proc *pr)
{
	return pr->group && pr->group->space;
}
