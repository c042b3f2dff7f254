/* ondemand.c - see ondemand.h. */
#define _GNU_SOURCE
#include "ondemand.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/eh_elf_check.h"
#include "../common/atomic_file.h"
#include "upstream.h"
#include "../store/layout.h"

/* ehelf-compile's exit status for "no unwind tables in this file". */
enum { COMPILE_EXIT_NO_CFI = 3 };

enum { NEG_BUCKETS = 1024, NEG_MAX = 100000 };

/* Builder threads per compile slot: a fetch waits on the network, a
 * compile on a core, so a stalled upstream holds a thread, not a slot. */
enum { THREADS_PER_JOB = 4 };

typedef struct job {
	char hex[BUILDID_HEX_MAX + 1];
	ondemand_wait *waiters;
	struct job *next;            /* in flight (queued or running) */
	struct job *qnext;           /* queued */
} job;

typedef struct neg_entry {
	char hex[BUILDID_HEX_MAX + 1];
	double expires;
	int code;
	char msg[256];
	struct neg_entry *next;
} neg_entry;

typedef struct worker {
	ondemand *od;
	pthread_t thread;
	volatile pid_t child;        /* the compile running, or 0 */
} worker;

struct ondemand {
	ondemand_opts o;
	char tmp[4200];              /* STORE/.tmp */
	pthread_mutex_t lock;        /* everything below */
	pthread_cond_t work;
	job *inflight;
	job *qhead, *qtail;
	int queued, running;
	int compiling;               /* compile slots taken, <= o.jobs */
	pthread_cond_t slot_free;
	neg_entry *neg[NEG_BUCKETS];
	size_t nneg;
	volatile int stopping;
	worker *workers;
	int nworkers;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t hash(const char *hex)
{
	uint64_t h = 1469598103934665603ull;
	while (*hex)
		h = (h ^ (uint8_t)*hex++) * 1099511628211ull;
	return (size_t)(h % NEG_BUCKETS);
}

/* ---- the negative cache (under the lock) -------------------------------- */

static void neg_clear(ondemand *od, bool expired_only)
{
	double t = now();
	for (size_t b = 0; b < NEG_BUCKETS; b++) {
		neg_entry **pp = &od->neg[b];
		while (*pp) {
			neg_entry *n = *pp;
			if (!expired_only || n->expires <= t) {
				*pp = n->next;
				free(n);
				od->nneg--;
			} else {
				pp = &n->next;
			}
		}
	}
}

static neg_entry *neg_find(ondemand *od, const char *hex)
{
	for (neg_entry *n = od->neg[hash(hex)]; n; n = n->next)
		if (!strcmp(n->hex, hex))
			return n->expires > now() ? n : NULL;
	return NULL;
}

static void neg_put(ondemand *od, const char *hex, int code, const char *msg)
{
	if (od->o.negative_ttl <= 0)
		return;
	if (od->nneg >= NEG_MAX)
		neg_clear(od, true);
	if (od->nneg >= NEG_MAX)
		neg_clear(od, false);
	neg_entry *n = NULL;
	for (neg_entry *x = od->neg[hash(hex)]; x; x = x->next)
		if (!strcmp(x->hex, hex))
			n = x;
	if (!n) {
		n = calloc(1, sizeof *n);
		if (!n)
			return;
		snprintf(n->hex, sizeof n->hex, "%s", hex);
		n->next = od->neg[hash(hex)];
		od->neg[hash(hex)] = n;
		od->nneg++;
	}
	n->expires = now() + od->o.negative_ttl;
	n->code = code;
	snprintf(n->msg, sizeof n->msg, "%s", msg);
}

/* ---- one build ----------------------------------------------------------- */

typedef struct outcome {
	int code;                   /* HTTP status to answer */
	build_outcome kind;         /* for the metrics; BUILD_NOUTCOMES: none */
	bool negative;              /* remember it */
	char msg[512];              /* for the client: no server paths */
	char detail[700];           /* for the log: "" or more than msg */
} outcome;

static void set(outcome *r, int code, build_outcome kind, bool negative,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void set(outcome *r, int code, build_outcome kind, bool negative,
		const char *fmt, ...)
{
	r->code = code;
	r->kind = kind;
	r->negative = negative;
	r->detail[0] = '\0';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof r->msg, fmt, ap);
	va_end(ap);
}

/* Take one of the o.jobs compile slots, waiting until DEADLINE at most.
 * Returns false when none came free in time or the server stops. */
static bool slot_take(ondemand *od, double deadline)
{
	pthread_mutex_lock(&od->lock);
	while (!od->stopping && od->compiling >= od->o.jobs) {
		double left = deadline - now();
		if (left <= 0)
			break;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += (time_t)left;
		ts.tv_nsec += (long)((left - (double)(time_t)left) * 1e9);
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&od->slot_free, &od->lock, &ts);
	}
	bool got = !od->stopping && od->compiling < od->o.jobs;
	if (got)
		od->compiling++;
	pthread_mutex_unlock(&od->lock);
	return got;
}

static void slot_give(ondemand *od)
{
	pthread_mutex_lock(&od->lock);
	od->compiling--;
	pthread_cond_signal(&od->slot_free);
	pthread_mutex_unlock(&od->lock);
}

/* Run the compiler on EXE (and DEBUG) into OUT in a compile slot, killed
 * at DEADLINE.  Returns 0 when it ran (R), 1 when no slot came free
 * before DEADLINE, ERR_IO when it could not be started. */
static int compile(worker *w, const char *hex, const char *exe,
		   const char *debug, const char *out, double deadline,
		   child_result *res, ehelf_err *err)
{
	const ondemand_opts *o = &w->od->o;
	char *argv[12];
	int n = 0;
	argv[n++] = (char *)o->compiler;
	argv[n++] = (char *)"--expect-build-id";
	argv[n++] = (char *)hex;
	argv[n++] = (char *)"--json";
	argv[n++] = (char *)"-o";
	argv[n++] = (char *)out;
	if (debug) {
		argv[n++] = (char *)"--debug-file";
		argv[n++] = (char *)debug;
	}
	argv[n++] = (char *)exe;
	argv[n] = NULL;
	if (!slot_take(w->od, deadline))
		return 1;
	child_limits l = o->limits;
	l.wall_seconds = deadline - now();
	int rc = l.wall_seconds > 0 ? child_run(argv, &l, res, &w->child, err) : 1;
	/* killed at a deadline the fetch left short: not the ELF's fault */
	res->short_budget = l.wall_seconds < o->limits.wall_seconds / 2;
	slot_give(w->od);
	return rc;
}

/* Read the compiled eh_elf at PATH (written by our child: a regular file
 * of bounded size, never followed through a link). */
static uint8_t *slurp(const char *path, uint64_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	uint8_t *buf = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size <= max && st.st_size > 0 &&
	    (buf = malloc((size_t)st.st_size)) != NULL) {
		size_t got = 0;
		while (got < (size_t)st.st_size) {
			ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		if (got != (size_t)st.st_size) {
			free(buf);
			buf = NULL;
		}
		*len = got;
	}
	close(fd);
	return buf;
}

/* Sign, then publish: the .sig first, then the eh_elf by rename, so that a
 * visible eh_elf always has its signature. */
static int publish(ondemand *od, const char *hex, const char *tmpfile,
		   const uint8_t *data, size_t len, char *sha, char *keyid,
		   ehelf_err *err)
{
	const ondemand_opts *o = &od->o;
	char dir[4300], final[4400], sigpath[4400];
	if (store_layout_path(o->store, hex, final, sizeof final) < 0)
		return err_set(err, ERR_ARG, "invalid build-ID");
	snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(final, '/') - final),
		 final);
	snprintf(sigpath, sizeof sigpath, "%s.sig", final);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return err_set(err, ERR_IO, "%s: %s", dir, strerror(errno));
	sign_sha256_hex(data, len, sha);
	keyid[0] = '\0';
	if (o->key) {
		char line[SIG_LINE_MAX];
		int n = sign_ehelf(o->key, hex, data, len, line, sizeof line, err);
		if (n < 0)
			return n;
		int rc = atomic_write(sigpath, od->tmp, line, (size_t)n, err);
		if (rc < 0)
			return rc;
		snprintf(keyid, SIG_KEYID_HEX + 1, "%s", sign_key_id(o->key));
	}
	if (chmod(tmpfile, 0644) < 0 || rename(tmpfile, final) < 0)
		return err_set(err, ERR_IO, "%s: cannot put it in the store: %s",
			       final, strerror(errno));
	return 0;
}

/* Is DATA (LEN bytes) exactly an eh_elf, as the loader will check it, of
 * the build-ID HEX?  The compiler ran on untrusted input: what it wrote
 * is signed and served only if so.  0, or -1 with the reason in WHY. */
static int check_output(const char *hex, const uint8_t *data, size_t len,
			char *why, size_t n)
{
	eh_elf_layout l;
	if (eh_elf_check(data, len, &l, why, n) < 0)
		return -1;
	uint8_t id[BUILDID_MAX_BYTES];
	int idlen = buildid_from_hex(hex, id, sizeof id);
	if (idlen < 0 || (size_t)idlen != l.build_id_len ||
	    memcmp(id, l.build_id, l.build_id_len) != 0) {
		snprintf(why, n, "it records another build-ID");
		return -1;
	}
	return 0;
}

/* An upstream failure's outcome: 504 for a timeout, 502 else. */
static void fetch_failed(outcome *r, upstream_failure why, const char *msg)
{
	set(r, why == UPSTREAM_TIMED_OUT ? 504 : 502,
	    why == UPSTREAM_TIMED_OUT ? BUILD_TIMEOUT : BUILD_FAILED,
	    why == UPSTREAM_TOO_LARGE, "%s", msg);
}

static void build(worker *w, const char *hex, outcome *r)
{
	ondemand *od = w->od;
	const ondemand_opts *o = &od->o;
	r->kind = BUILD_NOUTCOMES;
	r->negative = false;
	r->detail[0] = '\0';
	if (artifact_exists(o->artifacts, hex)) {
		set(r, 200, BUILD_NOUTCOMES, false, "in the store");
		return;
	}
	if (index_conflicted(o->index, hex)) {
		set(r, 404, BUILD_NOUTCOMES, false, "%s: a build-ID in conflict in "
		    "this store's database (files with other unwind tables): "
		    "not built until it is resolved", hex);
		return;
	}
	/* one build of HEX across the replicas over this store */
	char lockpath[4400];
	snprintf(lockpath, sizeof lockpath, "%s/lock-%s", od->tmp, hex);
	int lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lockfd >= 0)
		flock(lockfd, LOCK_EX);
	if (artifact_exists(o->artifacts, hex)) {
		set(r, 200, BUILD_NOUTCOMES, false, "built by another server");
		goto out;
	}
	double t0 = now();
	/* the whole build, fetches included, within --build-timeout */
	double deadline = t0 + o->limits.wall_seconds;
	upstream_limits ul = { .cancel = &od->stopping, .deadline = deadline,
			       .max_bytes = o->max_download };
	upstream_failure why;
	ehelf_err err = { 0 };
	char *exe = NULL, *debug = NULL;
	int efd = upstream_fetch(hex, false, &exe, &ul, &why, o->metrics, &err);
	if (efd == ERR_NOTFOUND) {
		set(r, 404, BUILD_NOT_FOUND, true, "%s", err.msg);
		goto out_exe;
	}
	if (efd < 0) {
		fetch_failed(r, why, err.msg);
		goto out_exe;
	}
	struct stat est;
	int src = fstat(efd, &est);
	close(efd);
	/* the compiler maps the whole ELF: one larger than half its address
	 * space fails there with a misleading message; say why here */
	if (src == 0 && o->limits.memory_bytes != RLIM_INFINITY &&
	    (uint64_t)est.st_size > o->limits.memory_bytes / 2) {
		set(r, 502, BUILD_FAILED, true, "the upstream ELF %s (%llu MiB) "
		    "is too large to compile within the compiler's memory limit "
		    "(%llu MiB, --build-memory)", hex,
		    (unsigned long long)(est.st_size >> 20),
		    (unsigned long long)(o->limits.memory_bytes >> 20));
		goto out_exe;
	}
	char tmpfile[4400];
	snprintf(tmpfile, sizeof tmpfile, "%s/build-%d-%s.so", od->tmp,
		 (int)getpid(), hex);
	child_result *res = malloc(sizeof *res);
	if (!res) {
		set(r, 503, BUILD_FAILED, false, "out of memory");
		goto out_exe;
	}
	int rc = compile(w, hex, exe, NULL, tmpfile, deadline, res, &err);
	if (rc == 0 && res->exit_code == COMPILE_EXIT_NO_CFI) {
		/* no .eh_frame: the debuginfo may have a .debug_frame */
		int dfd = upstream_fetch(hex, true, &debug, &ul, &why, o->metrics,
					 &err);
		if (dfd == ERR_NOTFOUND) {
			set(r, 404, BUILD_NO_CFI, true, "%s has no unwind tables "
			    "and no upstream has its debuginfo", hex);
			goto out_res;
		}
		if (dfd < 0) {
			fetch_failed(r, why, err.msg);
			goto out_res;
		}
		close(dfd);
		rc = compile(w, hex, exe, debug, tmpfile, deadline, res, &err);
		if (rc == 0 && res->exit_code == COMPILE_EXIT_NO_CFI) {
			set(r, 404, BUILD_NO_CFI, true, "%s has no unwind tables, "
			    "nor has its debuginfo", hex);
			goto out_res;
		}
	}
	if (rc == 1) {
		if (od->stopping)
			set(r, 503, BUILD_NOUTCOMES, false, "server shutting down");
		else
			set(r, 504, BUILD_TIMEOUT, false, "the build of %s did not "
			    "finish within the build time limit (%.0f s)", hex,
			    o->limits.wall_seconds);
		goto out_res;
	}
	if (rc < 0) {
		set(r, 503, BUILD_FAILED, false, "cannot run the compiler");
		snprintf(r->detail, sizeof r->detail, "%s", err.msg);
		goto out_res;
	}
	if (res->exit_code != 0) {
		char why_c[600];
		child_describe(res, &o->limits, why_c, sizeof why_c, false);
		if (od->stopping) {
			set(r, 503, BUILD_NOUTCOMES, false, "server shutting down");
		} else {
			set(r, 502, res->timed_out ? BUILD_TIMEOUT : BUILD_FAILED,
			    !(res->timed_out && res->short_budget),
			    "the upstream ELF %s could not be compiled: %s",
			    hex, why_c);
			child_describe(res, &o->limits, why_c, sizeof why_c, true);
			snprintf(r->detail, sizeof r->detail, "%s", why_c);
		}
		goto out_res;
	}
	size_t len = 0;
	uint8_t *data = slurp(tmpfile, o->limits.file_bytes, &len);
	char sha[65], keyid[SIG_KEYID_HEX + 1], bad[200];
	if (!data) {
		set(r, 502, BUILD_FAILED, true, "the compiler left no eh_elf for %s",
		    hex);
		goto out_res;
	}
	if (check_output(hex, data, len, bad, sizeof bad) < 0) {
		free(data);
		set(r, 502, BUILD_FAILED, true, "the compiler's output for %s is "
		    "not a valid eh_elf: %s", hex, bad);
		goto out_res;
	}
	rc = publish(od, hex, tmpfile, data, len, sha, keyid, &err);
	free(data);
	if (rc < 0) {
		set(r, 500, BUILD_FAILED, false, "cannot put the eh_elf of %s in "
		    "the store", hex);
		snprintf(r->detail, sizeof r->detail, "%s", err.msg);
		goto out_res;
	}
	double secs = now() - t0;
	index_build ib = { .hex = hex, .upstream = o->upstream, .json = res->out,
			   .sha256 = sha, .signed_by = keyid[0] ? keyid : NULL,
			   .seconds = secs };
	struct stat st;
	if (stat(exe, &st) == 0)
		ib.elf_bytes = (uint64_t)st.st_size;
	if (index_record_build(o->index, &ib, &err) < 0)
		fprintf(stderr, "ehelf-server: %s: not recorded: %s\n", hex, err.msg);
	set(r, 200, BUILD_BUILT, false, "built in %.3f s", secs);
out_res:
	unlink(tmpfile);
	free(res);
out_exe:
	free(exe);
	free(debug);
	upstream_forget(o->cache, hex);
out:
	if (lockfd >= 0) {
		unlink(lockpath);
		close(lockfd);
	}
}

/* ---- the threads ------------------------------------------------------------ */

static void answer(ondemand_wait *list, int code, const char *msg)
{
	for (ondemand_wait *w = list, *next; w; w = next) {
		next = w->next; /* W is the caller's again once woken */
		w->http_code = code;
		snprintf(w->msg, sizeof w->msg, "%s", msg);
		w->wake(w->arg);
	}
}

static void unlink_job(ondemand *od, job *j)
{
	for (job **pp = &od->inflight; *pp; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			return;
		}
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	ondemand *od = w->od;
	for (;;) {
		pthread_mutex_lock(&od->lock);
		while (!od->stopping && !od->qhead)
			pthread_cond_wait(&od->work, &od->lock);
		if (od->stopping) {
			pthread_mutex_unlock(&od->lock);
			return NULL;
		}
		job *j = od->qhead;
		od->qhead = j->qnext;
		if (!od->qhead)
			od->qtail = NULL;
		od->queued--;
		od->running++;
		pthread_mutex_unlock(&od->lock);

		double t0 = now();
		outcome r;
		build(w, j->hex, &r);
		/* the details (paths, the compiler's stderr) go to the log,
		 * not to the client */
		if (od->o.verbose || r.detail[0])
			fprintf(stderr, "ehelf-server: build %s: %d %s%s%s (%.3f s)\n",
				j->hex, r.code, r.msg, r.detail[0] ? ": " : "",
				r.detail, now() - t0);

		pthread_mutex_lock(&od->lock);
		od->running--;
		unlink_job(od, j);
		if (od->stopping) {
			r.code = 503;
			r.negative = false;
			snprintf(r.msg, sizeof r.msg, "server shutting down");
		}
		if (r.negative)
			neg_put(od, j->hex, r.code, r.msg);
		if (r.kind != BUILD_NOUTCOMES)
			metrics_build(od->o.metrics, r.kind, now() - t0);
		answer(j->waiters, r.code, r.msg);
		pthread_mutex_unlock(&od->lock);
		free(j);
	}
}

enum ondemand_answer ondemand_request(ondemand *od, const char *hex,
				      ondemand_wait *w)
{
	pthread_mutex_lock(&od->lock);
	enum ondemand_answer a = ONDEMAND_ANSWERED;
	neg_entry *n = od->stopping ? NULL : neg_find(od, hex);
	if (!od->stopping)
		metrics_cache(od->o.metrics, CACHE_NEGATIVE, n != NULL);
	job *j = NULL;
	if (od->stopping) {
		w->http_code = 503;
		snprintf(w->msg, sizeof w->msg, "server shutting down");
	} else if (n) {
		w->http_code = n->code;
		snprintf(w->msg, sizeof w->msg, "%s (cached)", n->msg);
	} else {
		for (j = od->inflight; j && strcmp(j->hex, hex); j = j->next)
			;
		/* room: an idle builder, or a place in the queue */
		if (!j && od->queued + od->running >=
			  od->o.jobs + od->o.max_queue) {
			metrics_build(od->o.metrics, BUILD_REJECTED, 0);
			w->http_code = 503;
			snprintf(w->msg, sizeof w->msg, "%d builds are waiting "
				 "already: try again later", od->queued);
		} else if (!j && (j = calloc(1, sizeof *j)) == NULL) {
			w->http_code = 503;
			snprintf(w->msg, sizeof w->msg, "out of memory");
		} else {
			if (!j->hex[0]) { /* new: queue it */
				snprintf(j->hex, sizeof j->hex, "%s", hex);
				j->next = od->inflight;
				od->inflight = j;
				if (od->qtail)
					od->qtail->qnext = j;
				else
					od->qhead = j;
				od->qtail = j;
				od->queued++;
				pthread_cond_signal(&od->work);
			}
			w->next = j->waiters;
			j->waiters = w;
			w->park(w->arg);
			a = ONDEMAND_WAIT;
		}
	}
	pthread_mutex_unlock(&od->lock);
	return a;
}

void ondemand_load(ondemand *od, int *running, int *queued)
{
	pthread_mutex_lock(&od->lock);
	*running = od->running;
	*queued = od->queued;
	pthread_mutex_unlock(&od->lock);
}

/* Remove what killed servers left in TMP: their builds' outputs (named
 * after a process that no longer runs), and temporaries and lock files
 * older than an hour (a compile killed mid-write leaves a .tmp-). */
static void clean_tmp(const char *tmp)
{
	DIR *d = opendir(tmp);
	if (!d)
		return;
	time_t old = time(NULL) - 3600;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		int pid = 0;
		struct stat st;
		bool stale = false;
		if (sscanf(e->d_name, "build-%d-", &pid) == 1 && pid > 0)
			stale = kill(pid, 0) < 0 && errno == ESRCH;
		else if (!strncmp(e->d_name, ".tmp-", 5) ||
			 !strncmp(e->d_name, "lock-", 5))
			stale = fstatat(dirfd(d), e->d_name, &st,
					AT_SYMLINK_NOFOLLOW) == 0 &&
				st.st_mtime < old;
		if (stale)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

int ondemand_start(ondemand **out, const ondemand_opts *o, ehelf_err *err)
{
	ondemand *od = calloc(1, sizeof *od);
	if (!od)
		return err_set(err, ERR_NOMEM, "out of memory");
	od->o = *o;
	snprintf(od->tmp, sizeof od->tmp, "%s/.tmp", o->store);
	if (mkdir(od->tmp, 0755) < 0 && errno != EEXIST) {
		int rc = err_set(err, ERR_IO, "%s: cannot create: %s", od->tmp,
				 strerror(errno));
		free(od);
		return rc;
	}
	clean_tmp(od->tmp);
	child_init();
	pthread_mutex_init(&od->lock, NULL);
	pthread_cond_init(&od->work, NULL);
	pthread_condattr_t ca; /* slot_take waits on the monotonic clock */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&od->slot_free, &ca);
	pthread_condattr_destroy(&ca);
	if (od->o.jobs < 1)
		od->o.jobs = 1;
	od->nworkers = od->o.jobs * THREADS_PER_JOB;
	od->workers = calloc((size_t)od->nworkers, sizeof *od->workers);
	if (!od->workers) {
		free(od);
		return err_set(err, ERR_NOMEM, "out of memory");
	}
	for (int i = 0; i < od->nworkers; i++) {
		od->workers[i].od = od;
		if (pthread_create(&od->workers[i].thread, NULL, worker_main,
				   &od->workers[i]) != 0) {
			od->nworkers = i;
			ondemand_stop(od);
			ondemand_free(od);
			return err_set(err, ERR_IO, "cannot start builder threads");
		}
	}
	*out = od;
	return 0;
}

void ondemand_stop(ondemand *od)
{
	if (!od)
		return;
	pthread_mutex_lock(&od->lock);
	od->stopping = 1;
	for (job *j = od->qhead, *next; j; j = next) {
		next = j->qnext;
		unlink_job(od, j);
		answer(j->waiters, 503, "server shutting down");
		free(j);
	}
	od->qhead = od->qtail = NULL;
	od->queued = 0;
	for (int i = 0; i < od->nworkers; i++)
		if (od->workers[i].child > 0)
			kill(od->workers[i].child, SIGKILL);
	pthread_cond_broadcast(&od->work);
	pthread_cond_broadcast(&od->slot_free);
	int n = od->nworkers;
	pthread_mutex_unlock(&od->lock);
	for (int i = 0; i < n; i++)
		pthread_join(od->workers[i].thread, NULL);
	pthread_mutex_lock(&od->lock);
	od->nworkers = 0;
	pthread_mutex_unlock(&od->lock);
}

void ondemand_free(ondemand *od)
{
	if (!od)
		return;
	neg_clear(od, false);
	pthread_mutex_destroy(&od->lock);
	pthread_cond_destroy(&od->work);
	pthread_cond_destroy(&od->slot_free);
	free(od->workers);
	free(od);
}
