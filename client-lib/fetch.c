/*
 * fetch.c - fetch_ids: eh_elfs from HTTP servers into the cache with
 * libcurl's multi interface (contract in fetch.h).
 *
 * One transfer per build-ID and server, all started at once (libcurl
 * queues them beyond its connection limits) and driven by one loop until
 * one deadline.  Per build-ID, the first answer that passes
 * trust_check_bytes wins and the other servers' transfers are cut.  An
 * eh_elf answered without an X-EHELF-SIGNATURE header (a static server)
 * is followed by GET .../eh_elf.sig on the same server.  libcurl is
 * called through curl_api.h (loaded on first use).
 *
 * Memory: an eh_elf's body goes from libcurl's receive buffer (16 KiB a
 * transfer) straight into its temporary file in the cache
 * (fetch_cache_tmp_open), never into the heap; the bytes all transfers
 * have written and not yet committed or discarded are at most
 * c->maxsize together (EHELF_MAXSIZE): when a write would pass that, the
 * transfer holding the most is cut (failed, not remembered: the next
 * fetch asks again).  A body
 * answered with another status than 200 is not read at all.  A finished
 * download is checked from a read-only mapping of its temporary file,
 * one at a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../common/buildid.h"
#include "curl_api.h"
#include "fetch.h"
#include "fetch_cache.h"
#include "trust.h"

/* Transfers at once per server: libcurl 7.88's own queue (beyond
 * CURLMOPT_MAX_HOST_CONNECTIONS) can leave a transfer waiting until
 * curl_multi_poll's timeout, so transfers wait in ours. */
enum { PER_SERVER = 8 };

/* One build-ID. */
typedef struct want {
	const char *hex;
	size_t index;         /* in the caller's arrays */
	int pending;          /* servers whose answer is awaited */
	int not_found;        /* servers that answered 404 */
	bool done;            /* fetched: the other answers are cut */
	bool concluded;       /* its outcome is given */
	bool refused, failed; /* some answer was refused, or failed */
	char why[256];        /* the reason that counts so far */
} want;

struct session;

/* One server's answer for one build-ID: the eh_elf, maybe its .sig. */
typedef struct xfer {
	struct session *S;
	want *w;
	size_t u;             /* the server: c->urls[u] */
	const char *url;
	CURL *h;
	enum { X_QUEUED, X_ACTIVE, X_OVER } state; /* X_ACTIVE: in the multi */
	bool sig_phase;       /* fetching eh_elf.sig */
	int attempts;
	cache_tmp tmp;        /* the eh_elf's temporary file */
	size_t imglen;        /* bytes in it */
	size_t siglen_body;   /* bytes in sigbody */
	bool too_big;         /* more than EHELF_MAXSIZE (a .sig: a line) */
	bool over_budget;     /* cut: the session's budget was full */
	size_t cut_at;        /* then the bytes it held */
	bool not_ok;          /* a body answered with a status other than 200:
			       * not read (the transfer cut at its first byte) */
	bool write_failed;    /* the temporary file could not be written */
	char write_error[256];
	char sigbody[SIG_LINE_MAX]; /* eh_elf.sig's body */
	char sig[SIG_LINE_MAX]; /* X-EHELF-SIGNATURE */
	size_t siglen;
	char errbuf[CURL_ERROR_SIZE];
} xfer;

typedef struct session {
	const fetch_config *c;
	const curl_api *api;  /* libcurl */
	CURLM *multi;
	trust_policy policy;
	double t0, deadline;  /* CLOCK_MONOTONIC seconds */
	int active, queued;   /* transfers in the multi handle, waiting */
	int *busy;            /* active transfers per server */
	size_t held;          /* bytes in the transfers' temporary files */
	xfer *x;
	size_t nx;
	size_t n, concluded;  /* build-IDs asked for, and answered */
} session;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* X's file removed as the budget's: it is cut, its next write fails. */
static void cut_for_budget(struct session *S, xfer *x);

/* The transfer whose file holds the most bytes. */
static xfer *largest(struct session *S);

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	xfer *x = arg;
	struct session *S = x->S;
	n *= size;
	if (x->over_budget)
		return 0; /* cut meanwhile for another transfer */
	long code = 0;
	S->api->easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200) {
		x->not_ok = true;
		return 0; /* cut: the status is the answer */
	}
	if (x->sig_phase) {
		if (n > sizeof x->sigbody - 1 - x->siglen_body) {
			x->too_big = true;
			return 0;
		}
		memcpy(x->sigbody + x->siglen_body, p, n);
		x->siglen_body += n;
		return n;
	}
	if (n > S->c->maxsize - x->imglen) {
		x->too_big = true;
		return 0;
	}
	/* the budget full: the transfer holding the most is cut (a server
	 * sending without end, most likely), this one if it would */
	while (n > S->c->maxsize - S->held) {
		xfer *y = largest(S);
		if (!y || y == x || y->imglen <= x->imglen + n) {
			cut_for_budget(S, x);
			return 0;
		}
		cut_for_budget(S, y);
	}
	ehelf_err err;
	if (x->tmp.fd < 0 &&
	    fetch_cache_tmp_open(S->c, x->w->hex, &x->tmp, &err) < 0) {
		x->write_failed = true;
		snprintf(x->write_error, sizeof x->write_error, "%s", err.msg);
		return 0;
	}
	if (fetch_cache_tmp_write(&x->tmp, p, n, &err) < 0) {
		x->write_failed = true;
		snprintf(x->write_error, sizeof x->write_error, "%s", err.msg);
		return 0;
	}
	x->imglen += n;
	S->held += n;
	return n;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	xfer *x = arg;
	n *= size;
	static const char name[] = "X-EHELF-SIGNATURE:";
	if (n >= 5 && !memcmp(p, "HTTP/", 5)) {
		x->siglen = 0; /* a new response (after a redirect, say) */
	} else if (n > sizeof name - 1 && !strncasecmp(p, name, sizeof name - 1)) {
		const char *v = p + sizeof name - 1, *end = p + n;
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		while (end > v && (end[-1] == '\r' || end[-1] == '\n' ||
				   end[-1] == ' '))
			end--;
		if ((size_t)(end - v) < sizeof x->sig) {
			memcpy(x->sig, v, (size_t)(end - v));
			x->siglen = (size_t)(end - v);
			x->sig[x->siglen] = '\0';
		}
	}
	return n;
}

/* X's temporary file removed, its bytes out of the session's count. */
static void release(session *S, xfer *x)
{
	fetch_cache_tmp_discard(&x->tmp);
	S->held -= x->imglen;
	x->imglen = 0;
}

static void cut_for_budget(session *S, xfer *x)
{
	x->over_budget = true;
	x->cut_at = x->imglen;
	release(S, x);
}

static xfer *largest(session *S)
{
	xfer *best = NULL;
	for (size_t i = 0; i < S->nx; i++)
		if (S->x[i].imglen && (!best || S->x[i].imglen > best->imglen))
			best = &S->x[i];
	return best;
}

/* Start (or restart) X's request. */
static int start(session *S, xfer *x)
{
	const fetch_config *c = S->c;
	char url[4096];
	snprintf(url, sizeof url, "%s/buildid/%s/eh_elf%s", x->url, x->w->hex,
		 x->sig_phase ? ".sig" : "");
	if (!x->sig_phase)
		release(S, x);
	x->siglen_body = 0;
	x->too_big = x->over_budget = x->not_ok = x->write_failed = false;
	x->siglen = 0;
	x->errbuf[0] = '\0';
	curl_off_t max = x->sig_phase ? SIG_LINE_MAX - 1 : (curl_off_t)c->maxsize;
	if (!x->h && !(x->h = S->api->easy_init()))
		return -1;
	double left = S->deadline - now_s();
	long ms = left > 0.001 ? (long)(left * 1000) : 1;
	CURL *h = x->h;
	S->api->easy_setopt(h, CURLOPT_URL, url);
	S->api->easy_setopt(h, CURLOPT_PRIVATE, x);
	S->api->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	S->api->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	S->api->easy_setopt(h, CURLOPT_WRITEDATA, x);
	S->api->easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	S->api->easy_setopt(h, CURLOPT_HEADERDATA, x);
	S->api->easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
	S->api->easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
	S->api->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms);
	S->api->easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	S->api->easy_setopt(h, CURLOPT_MAXREDIRS, 4L);
	S->api->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	S->api->easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	S->api->easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, max);
	S->api->easy_setopt(h, CURLOPT_BUFFERSIZE, (long)CURL_MAX_WRITE_SIZE);
	S->api->easy_setopt(h, CURLOPT_USERAGENT, "ehelf/1 (libehelf)");
	if (S->api->multi_add_handle(S->multi, h) != CURLM_OK)
		return -1;
	x->state = X_ACTIVE;
	S->active++;
	S->busy[x->u]++;
	fetch_say(c, false, "GET %s", url);
	return 0;
}

/* X is over: out of the multi handle, or out of the queue. */
static void stop(session *S, xfer *x)
{
	if (x->state == X_ACTIVE) {
		S->api->multi_remove_handle(S->multi, x->h);
		S->active--;
		S->busy[x->u]--;
	} else if (x->state == X_QUEUED) {
		S->queued--;
	}
	x->state = X_OVER;
}

/* X is over for good: stopped, its file and its handle released. */
static void finish(session *S, xfer *x)
{
	stop(S, x);
	release(S, x);
	if (x->h) {
		S->api->easy_cleanup(x->h);
		x->h = NULL;
	}
}

/* W's outcome into the caller's arrays; a negative entry when every
 * server answered and none had a good one. */
static void conclude(session *S, want *w, fetch_status *status,
		     char (*why)[256])
{
	fetch_status st = w->done ? FETCH_CACHED : w->refused ? FETCH_REFUSED
			  : w->failed ? FETCH_FAILED : FETCH_NOT_FOUND;
	if (st == FETCH_NOT_FOUND)
		snprintf(w->why, sizeof w->why, "no server has it (%d asked)",
			 w->not_found);
	w->concluded = true;
	status[w->index] = st;
	if (why)
		snprintf(why[w->index], sizeof why[0], "%s", w->why);
	ehelf_err err;
	if (!w->failed && st != FETCH_CACHED &&
	    fetch_cache_miss(S->c, w->hex, st == FETCH_REFUSED, w->why, &err) < 0)
		fetch_say(S->c, false, "%s", err.msg);
	S->concluded++;
	fetch_say(S->c, true, "[%zu/%zu] %s: %s%s%s", S->concluded, S->n, w->hex,
		  fetch_status_str(st), st == FETCH_CACHED ? "" : ": ",
		  st == FETCH_CACHED ? "" : w->why);
}

/* X's server has given its answer. */
static void answered(session *S, xfer *x, fetch_status *status,
		     char (*why)[256])
{
	want *w = x->w;
	finish(S, x);
	if (w->concluded)
		return;
	if (--w->pending == 0 || w->done) {
		for (size_t i = 0; i < S->nx; i++)
			if (S->x[i].w == w)
				finish(S, &S->x[i]); /* the others are cut */
		w->pending = 0;
		conclude(S, w, status, why);
	}
}

/* Check the eh_elf in X's temporary file, with SIG (NULL: none), and put
 * it in place if it passes. */
static void check(session *S, xfer *x, const char *sig, size_t siglen)
{
	want *w = x->w;
	char reason[200];
	const uint8_t *img = (const uint8_t *)"";
	if (x->imglen) {
		img = mmap(NULL, x->imglen, PROT_READ, MAP_PRIVATE, x->tmp.fd, 0);
		if (img == MAP_FAILED) {
			w->failed = true;
			snprintf(w->why, sizeof w->why, "cache: cannot map the "
				 "download: %s", strerror(errno));
			return;
		}
	}
	int rc = trust_check_bytes(img, x->imglen, w->hex, sig, siglen,
				   &S->policy, reason, sizeof reason);
	if (x->imglen)
		munmap((void *)img, x->imglen);
	if (rc < 0) {
		w->refused = true;
		snprintf(w->why, sizeof w->why, "%s: %s", x->url, reason);
		fetch_say(S->c, true, "%s: refused from %s: %s", w->hex, x->url,
			  reason);
		return;
	}
	if (x->tmp.fd < 0) { /* an empty file passed: not an eh_elf */
		w->failed = true;
		snprintf(w->why, sizeof w->why, "%s: an empty answer", x->url);
		return;
	}
	char line[SIG_LINE_MAX + 1];
	size_t n = sig ? siglen : 0;
	if (sig) { /* as a .sig file holds it: one line */
		memcpy(line, sig, n);
		if (!n || line[n - 1] != '\n')
			line[n++] = '\n';
	}
	ehelf_err err;
	size_t len = x->imglen;
	S->held -= x->imglen;
	x->imglen = 0;
	if (fetch_cache_tmp_commit(&x->tmp, sig ? line : NULL, n, &err) < 0) {
		w->failed = true;
		snprintf(w->why, sizeof w->why, "%s", err.msg);
		return;
	}
	w->done = true;
	fetch_say(S->c, false, "%s: %zu bytes from %s, %s, kept", w->hex, len,
		  x->url, S->policy.allow_unsigned ? "signature not checked "
		  "(EHELF_ALLOW_UNSIGNED=1)" : "signature verified");
}

/* A transfer of X has ended with RES. */
static void on_done(session *S, xfer *x, CURLcode res, fetch_status *status,
		    char (*why)[256])
{
	if (x->state != X_ACTIVE)
		return;
	long code = 0;
	S->api->easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
	stop(S, x);
	want *w = x->w;
	if (w->done)
		return;
	if ((x->not_ok && res == CURLE_WRITE_ERROR) ||
	    (res == CURLE_FILESIZE_EXCEEDED && code != 200))
		res = CURLE_OK; /* cut at the body of a non-200 answer */
	if (res == CURLE_FILESIZE_EXCEEDED)
		x->too_big = true; /* its Content-Length said so */
	const char *what = x->sig_phase ? "eh_elf.sig" : "eh_elf";
	if (x->over_budget) { /* whatever happened after */
		w->failed = true;
		snprintf(w->why, sizeof w->why, "%s: eh_elf: cut at %zu bytes: "
			 "the downloads at once would hold more than %zu bytes "
			 "(EHELF_MAXSIZE)", x->url, x->cut_at, S->c->maxsize);
	} else if (res == CURLE_OK && code != 200 && code != 404 && code < 500) {
		w->failed = true;
		snprintf(w->why, sizeof w->why, "%s: %s: HTTP %ld", x->url, what,
			 code);
	} else if (res != CURLE_OK && x->too_big) {
		w->refused = true;
		if (x->sig_phase)
			snprintf(w->why, sizeof w->why, "%s: eh_elf.sig longer than "
				 "a signature line (%d bytes)", x->url,
				 SIG_LINE_MAX - 1);
		else
			snprintf(w->why, sizeof w->why, "%s: eh_elf larger than %zu "
				 "bytes (EHELF_MAXSIZE)", x->url, S->c->maxsize);
	} else if (res != CURLE_OK && x->write_failed) {
		w->failed = true;
		snprintf(w->why, sizeof w->why, "%s", x->write_error);
	} else if (res != CURLE_OK || code >= 500) {
		double left = S->deadline - now_s();
		if (++x->attempts < S->c->retry_limit && left > 0.01 &&
		    res != CURLE_OPERATION_TIMEDOUT) {
			char because[64];
			snprintf(because, sizeof because, "HTTP %ld", code);
			fetch_say(S->c, false, "%s: %s: retrying (%s)", x->url, what,
				  res ? S->api->easy_strerror(res) : because);
			if (start(S, x) == 0)
				return;
		}
		w->failed = true;
		if (res == CURLE_OPERATION_TIMEDOUT)
			snprintf(w->why, sizeof w->why, "%s: no answer within "
				 "%g s (EHELF_TIMEOUT)", x->url, S->c->timeout);
		else if (res)
			snprintf(w->why, sizeof w->why, "%s: %s: %s", x->url, what,
				 x->errbuf[0] ? x->errbuf : S->api->easy_strerror(res));
		else
			snprintf(w->why, sizeof w->why, "%s: %s: HTTP %ld", x->url,
				 what, code);
	} else if (!x->sig_phase && code == 404) {
		w->not_found++;
	} else if (!x->sig_phase && !x->siglen) {
		/* no signature header: ask for the .sig file (the eh_elf
		 * stays in its temporary file) */
		x->sig_phase = true;
		x->attempts = 0;
		if (start(S, x) == 0)
			return;
		w->failed = true;
		snprintf(w->why, sizeof w->why, "%s: cannot ask for eh_elf.sig",
			 x->url);
	} else if (x->sig_phase) {
		check(S, x, code == 200 ? x->sigbody : NULL,
		      code == 200 ? x->siglen_body : 0);
	} else {
		check(S, x, x->sig, x->siglen);
	}
	if (w->done || (res == CURLE_OK && code == 404))
		fetch_say(S->c, false, "%s: %s: %s", x->url, what,
			  w->done ? "kept" : "not found");
	else
		fetch_say(S->c, false, "%s", w->why);
	answered(S, x, status, why);
}

/* Start the queued transfers their servers have room for. */
static void fill(session *S, fetch_status *status, char (*why)[256])
{
	for (size_t i = 0; i < S->nx && S->queued; i++) {
		xfer *x = &S->x[i];
		if (x->state != X_QUEUED || S->busy[x->u] >= PER_SERVER)
			continue;
		S->queued--;
		x->state = X_OVER;
		if (x->w->concluded || start(S, x) == 0)
			continue;
		x->w->failed = true;
		snprintf(x->w->why, sizeof x->w->why, "%s: cannot start a "
			 "transfer", x->url);
		answered(S, x, status, why);
	}
}

/* Drive the transfers until all are answered or the deadline. */
static void run(session *S, fetch_status *status, char (*why)[256])
{
	for (;;) {
		fill(S, status, why);
		double rest = S->deadline - now_s();
		if ((S->active == 0 && S->queued == 0) || rest <= 0)
			break;
		int running;
		S->api->multi_perform(S->multi, &running);
		CURLMsg *m;
		int left;
		while ((m = S->api->multi_info_read(S->multi, &left)))
			if (m->msg == CURLMSG_DONE) {
				xfer *x = NULL;
				S->api->easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &x);
				if (x)
					on_done(S, x, m->data.result, status, why);
			}
		if (S->active == 0)
			continue; /* start the next ones, or end */
		rest = S->deadline - now_s();
		if (rest > 0)
			S->api->multi_poll(S->multi, NULL, 0,
					rest > 1 ? 1000 : (int)(rest * 1000) + 1, NULL);
	}
	/* past the deadline: what is still waiting failed */
	for (size_t i = 0; i < S->nx; i++) {
		xfer *x = &S->x[i];
		if (x->state == X_OVER)
			continue;
		finish(S, x);
		if (x->w->concluded)
			continue;
		x->w->failed = true;
		snprintf(x->w->why, sizeof x->w->why, "%s: no answer within %g s "
			 "(EHELF_TIMEOUT)", x->url, S->c->timeout);
		answered(S, x, status, why);
	}
}

/* The cache's answers for the N build-IDs: CACHED and remembered misses
 * settled (into STATUS, WHY), the others in TODO (their number
 * returned). */
static size_t from_cache(const fetch_config *c, const char *const *hex,
			 size_t n, fetch_status *status, char (*why)[256],
			 want *todo)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool refused;
		char line[256] = "";
		cache_state st = fetch_cache_lookup(c, hex[i], &refused, line,
						    sizeof line);
		status[i] = st == CACHE_PRESENT ? FETCH_CACHED
			    : refused ? FETCH_REFUSED : FETCH_NOT_FOUND;
		/* the entry's line without its "not found: " or "refused: " */
		const char *rest = strstr(line, ": ");
		if (why)
			snprintf(why[i], sizeof why[0], "%s%s",
				 st == CACHE_MISS ? "remembered (cache_miss_s): "
						  : "", rest ? rest + 2 : line);
		if (st != CACHE_ABSENT) {
			fetch_say(c, false, "%s: %s in the cache", hex[i],
			    st == CACHE_PRESENT ? "found" : "negative entry");
			continue;
		}
		if (!c->urls[0]) {
			if (why)
				snprintf(why[i], sizeof why[0], "no server "
					 "(EHELF_URLS is not set)");
			continue;
		}
		todo[k++] = (want){ .hex = hex[i], .index = i };
	}
	return k;
}

int fetch_ids(const fetch_config *c, const char *const *hex, size_t n,
	      fetch_status *status, char (*why)[256], ehelf_err *err)
{
	for (size_t i = 0; i < n; i++)
		if (!buildid_valid_hex(hex[i]))
			return err_set(err, ERR_ARG, "invalid build-ID '%.130s'",
				       hex[i]);
	int rc = c->urls[0] ? fetch_cache_prepare(c, err) : 0;
	if (rc < 0)
		return rc;
	size_t nurls = 0;
	while (c->urls[nurls])
		nurls++;
	want *w = calloc(n ? n : 1, sizeof *w);
	if (!w)
		return err_set(err, ERR_NOMEM, "out of memory");
	size_t k = from_cache(c, hex, n, status, why, w);
	session S = {
		.c = c,
		.policy = { .origin = TRUST_SIGNED, .keys = c->keys,
			    .allow_unsigned = c->allow_unsigned },
		.t0 = now_s(),
		.n = k,
	};
	S.deadline = S.t0 + c->timeout;
	char why_not[256];
	if (k && !(S.api = curl_api_get(why_not, sizeof why_not))) {
		rc = err_set(err, ERR_UNSUPPORTED, "%s", why_not);
		k = 0;
	}
	if (k) {
		S.multi = S.api->multi_init();
		S.x = calloc(k * nurls, sizeof *S.x);
		S.busy = calloc(nurls, sizeof *S.busy);
		if (!S.multi || !S.x || !S.busy) {
			rc = err_set(err, ERR_NOMEM, "out of memory");
			k = 0;
		}
	}
	if (k)
		fetch_say(c, true, "fetching %zu eh_elf%s from %zu server%s", k,
		    k == 1 ? "" : "s", nurls, nurls == 1 ? "" : "s");
	for (size_t i = 0; i < k; i++) {
		w[i].pending = (int)nurls;
		for (size_t u = 0; u < nurls; u++)
			S.x[S.nx++] = (xfer){ .S = &S, .w = &w[i], .u = u,
					      .url = c->urls[u],
					      .tmp = CACHE_TMP_INIT };
	}
	S.queued = (int)S.nx;
	run(&S, status, why);
	for (size_t i = 0; i < S.nx; i++)
		finish(&S, &S.x[i]);
	if (S.multi)
		S.api->multi_cleanup(S.multi);
	free(S.x);
	free(S.busy);
	free(w);
	if (k)
		fetch_say(c, true, "%zu eh_elf%s asked for in %.2f s", k,
		    k == 1 ? "" : "s", now_s() - S.t0);
	if (rc < 0)
		return rc;
	int got = 0;
	for (size_t i = 0; i < n; i++)
		got += status[i] == FETCH_CACHED;
	return got;
}
