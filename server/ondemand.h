/*
 * ondemand.h - building the eh_elfs the store lacks, from upstream
 * debuginfod servers, while the requests that asked for them wait.
 *
 * A request for an ID not in the store joins the build of that ID (one
 * build per ID however many ask: in this process by a table of builds in
 * flight, across replicas over one store by a lock file STORE/.tmp/
 * lock-HEX) or queues a new one; at most JOBS + MAX_QUEUE builds are in
 * flight, beyond which the request is refused (503).  A build fetches
 * the executable (and, when it has no unwind tables, the debuginfo for
 * .debug_frame) through libdebuginfod, compiles it in a child process
 * under limits (build_child.h) in one of JOBS compile slots, checks the
 * output with eh_elf_check, signs it, puts the .sig and then the eh_elf
 * into the store by rename (a crash leaves only temporaries in
 * STORE/.tmp, removed at the next start), and records it in the index.
 * 4 x JOBS builder threads fetch at once, so that stalled upstreams hold
 * threads but no compile slot; the whole build, fetches and the wait
 * for a slot included, ends at limits.wall_seconds (a timeout: 504).
 * What libdebuginfod downloaded for an ID is removed once its build
 * ends, whatever the outcome (upstream_forget).  Outcomes other than "built" are remembered for
 * NEGATIVE_TTL seconds (negative caching), except upstream transport
 * errors, which may heal at once.
 *
 * Waiting requests are not threads: the caller parks a request (for
 * libmicrohttpd, suspends its connection) under the module's lock, and
 * the builder wakes it (resumes it) under the same lock once the outcome
 * is known, so a wake never precedes its park.
 */
#ifndef EHELF_SERVER_ONDEMAND_H
#define EHELF_SERVER_ONDEMAND_H

#include <stdbool.h>

#include "../common/buildid.h"
#include "../common/err.h"
#include "../common/sign.h"
#include "artifact.h"
#include "build_child.h"
#include "index.h"
#include "metrics.h"

typedef struct ondemand_opts {
	const char *store;          /* the store's root, writable */
	const char *upstream;       /* as in $DEBUGINFOD_URLS, for the index */
	const char *compiler;       /* path of ehelf-compile */
	const sign_key *key;        /* NULL: eh_elfs built unsigned */
	server_index *index;        /* NULL: not recorded */
	artifact_store *artifacts;
	metrics *metrics;
	int jobs;                   /* builds at once, >= 1 */
	int max_queue;              /* builds waiting, >= 0 */
	double negative_ttl;        /* seconds */
	child_limits limits;         /* wall_seconds: the whole build */
	const char *cache;          /* libdebuginfod's $DEBUGINFOD_CACHE_PATH */
	uint64_t max_download;      /* bytes of one upstream file; 0: no limit */
	bool verbose;               /* a line on stderr per build */
} ondemand_opts;

typedef struct ondemand ondemand;

/* A request waiting for a build; owned by the caller, who must keep it
 * alive until WAKE was called (or ondemand_request returned other than
 * ONDEMAND_WAIT). */
typedef struct ondemand_wait {
	void (*park)(void *arg);    /* called under the lock, once */
	void (*wake)(void *arg);    /* called under the lock, once */
	void *arg;
	/* the answer, set before WAKE: */
	int http_code;              /* 200: serve it from the store */
	char msg[512];
	struct ondemand_wait *next;
} ondemand_wait;

enum ondemand_answer {
	ONDEMAND_WAIT,      /* parked; wake will follow */
	ONDEMAND_ANSWERED,  /* W's http_code and msg hold the answer now */
};

/* Start the builder threads.  Removes what earlier runs left in
 * STORE/.tmp.  Returns 0 or ERR_IO / ERR_NOMEM. */
int ondemand_start(ondemand **od, const ondemand_opts *o, ehelf_err *err);

/* HEX's eh_elf is not in the store: build it, or answer from the negative
 * cache, or refuse (queue full, stopping). */
enum ondemand_answer ondemand_request(ondemand *od, const char *hex,
				      ondemand_wait *w);

/* Builds running and waiting now. */
void ondemand_load(ondemand *od, int *running, int *queued);

/* Stop: kill running compiles, answer every waiting request 503, join
 * the threads.  Requests made after it are answered 503 at once.  OD may
 * be NULL. */
void ondemand_stop(ondemand *od);

/* Free a stopped OD (once no request can reach it).  OD may be NULL. */
void ondemand_free(ondemand *od);

#endif
