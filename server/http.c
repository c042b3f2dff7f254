/* http.c - see http.h. */
#define _GNU_SOURCE
#include "http.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <sys/socket.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "conditional.h"
#include "repo.h"
#include "route.h"
#include "status_page.h"
#include "wire.h"

/* A client connection, for the reaper: libmicrohttpd's idle timeout
 * restarts with every byte received, so a client trickling its headers a
 * byte at a time is never idle; the reaper cuts a connection that has not
 * completed a request's headers within the timeout of its start or of
 * its previous response. */
typedef struct conn {
	int fd;                     /* -1 once the reaper cut it */
	int wire_fd;                /* watched by wire.h until closed */
	double since;               /* connected, or previous request done */
	bool in_request;            /* headers complete, not yet answered */
	struct conn *prev, *next;
} conn;

struct http_server {
	http_opts o;
	struct MHD_Daemon *d;
	unsigned port;
	pthread_mutex_t conns_lock; /* the list, and conn fields */
	conn *conns;
	pthread_t reaper;
	bool reaper_started;
	pthread_mutex_t stop_lock;
	pthread_cond_t stop_cond;
	bool stopping;
};

/* One request, from its headers to its completion. */
typedef struct request {
	http_server *h;
	struct MHD_Connection *conn;
	double t0;
	route route;
	bool head;
	bool started;               /* the handler has seen it */
	bool encoded;               /* a path with a % in it */
	bool waiting;               /* parked for an on-demand build */
	unsigned code;              /* answered with; 0: not yet */
	uint64_t bytes;
	char method[8];
	char url[160];              /* as sent, for the log */
	ondemand_wait wait;
} request;

/* ---- answering ----------------------------------------------------------------- */

static enum MHD_Result queue(request *rq, unsigned code, struct MHD_Response *r,
			     uint64_t body)
{
	MHD_add_response_header(r, "Server", "ehelf-server");
	rq->code = code;
	rq->bytes = rq->head ? 0 : body;
	enum MHD_Result ok = MHD_queue_response(rq->conn, code, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result answer_text(request *rq, unsigned code, const char *type,
				   const char *text, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		len, (void *)text, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	if (code == 405)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	if (code == 503) {
		MHD_add_response_header(r, "Retry-After", "1");
		if (rq->route.kind != ROUTE_EHELF && rq->route.kind != ROUTE_SIG)
			MHD_add_response_header(r, "Connection", "close");
	}
	return queue(rq, code, r, len);
}

static enum MHD_Result answer_msg(request *rq, unsigned code, const char *msg)
{
	char text[640];
	int n = snprintf(text, sizeof text, "%s\n", msg);
	if (n < 0 || (size_t)n >= sizeof text)
		n = (int)sizeof text - 1;
	return answer_text(rq, code, "text/plain; charset=utf-8", text, (size_t)n);
}

/* A 500: the details (file names, errors) go to the log, not the client. */
static enum MHD_Result answer_internal(request *rq, const char *detail)
{
	fprintf(stderr, "ehelf-server: %s %s: %s\n", rq->method, rq->url, detail);
	return answer_msg(rq, 500, "internal error reading the store (see the "
			  "server's log)");
}

/* A refusal at the request's headers: the connection is closed after it
 * (the body, if any, is never read). */
static enum MHD_Result answer_refusal(request *rq, unsigned code,
				      const char *msg)
{
	char text[300];
	int n = snprintf(text, sizeof text, "%s\n", msg);
	struct MHD_Response *r = MHD_create_response_from_buffer(
		(size_t)n, text, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
	MHD_add_response_header(r, "Connection", "close");
	if (code == 405)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	return queue(rq, code, r, (uint64_t)n);
}

typedef struct framing {
	unsigned content_length;    /* Content-Length headers */
	unsigned transfer_encoding;
	bool nonzero_length;        /* a Content-Length other than 0 */
} framing;

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind,
				     const char *key, const char *value)
{
	(void)kind;
	framing *f = cls;
	if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
		f->content_length++;
		if (strspn(value, "0") != strlen(value) || !*value)
			f->nonzero_length = true;
	} else if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		f->transfer_encoding++;
	}
	return MHD_YES;
}

/* Why the request's framing is refused, or NULL: GET and HEAD carry no
 * body, the other methods are refused before theirs is read, and
 * Content-Length twice or with Transfer-Encoding is ambiguous (RFC 9112
 * 6.3: a smuggling vector behind a proxy). */
static const char *framing_error(struct MHD_Connection *c, const char *method)
{
	framing f = { 0 };
	MHD_get_connection_values(c, MHD_HEADER_KIND, count_framing, &f);
	if (f.content_length > 1)
		return "more than one Content-Length header";
	if (f.content_length && f.transfer_encoding)
		return "both Content-Length and Transfer-Encoding";
	if (f.transfer_encoding > 1)
		return "more than one Transfer-Encoding header";
	bool get = !strcmp(method, MHD_HTTP_METHOD_GET) ||
		   !strcmp(method, MHD_HTTP_METHOD_HEAD);
	if (!get)
		return "only GET and HEAD are served";
	if (f.transfer_encoding || f.nonzero_length)
		return "a GET or HEAD request carries no body";
	return NULL;
}

/* The headers a file and its 304 share. */
static void file_headers(struct MHD_Response *r, const artifact *a,
			 const char *etag, bool sig)
{
	char date[HTTP_DATE_MAX], size[32], file[BUILDID_HEX_MAX + 32];
	http_date(a->mtime, date);
	snprintf(size, sizeof size, "%" PRIu64, a->size);
	snprintf(file, sizeof file, "/%s", a->rel);
	MHD_add_response_header(r, "ETag", etag);
	MHD_add_response_header(r, "Last-Modified", date);
	MHD_add_response_header(r, "Cache-Control", "public, immutable");
	MHD_add_response_header(r, "X-DEBUGINFOD-SIZE", size);
	MHD_add_response_header(r, "X-DEBUGINFOD-FILE", file);
	MHD_add_response_header(r, "Content-Type", sig ? "text/plain; charset=us-ascii"
				: "application/octet-stream");
	if (a->sig[0])
		MHD_add_response_header(r, "X-EHELF-SIGNATURE", a->sig);
	/* eh_elfs are small: Range is ignored, and said so */
	MHD_add_response_header(r, "Accept-Ranges", "none");
}

static void park(void *arg)
{
	request *rq = arg;
	rq->waiting = true;
	MHD_suspend_connection(rq->conn);
}

static void wake(void *arg)
{
	request *rq = arg;
	MHD_resume_connection(rq->conn);
}

static enum MHD_Result serve_artifact(request *rq, bool may_build)
{
	http_server *h = rq->h;
	bool sig = rq->route.kind == ROUTE_SIG;
	artifact a;
	ehelf_err err = { 0 };
	int rc = artifact_open(h->o.artifacts, rq->route.hex, sig, &a, &err);
	if (rc == ERR_NOTFOUND && h->o.ondemand && may_build) {
		rq->wait.park = park;
		rq->wait.wake = wake;
		rq->wait.arg = rq;
		if (ondemand_request(h->o.ondemand, rq->route.hex, &rq->wait)
		    == ONDEMAND_WAIT)
			return MHD_YES; /* parked: called again once woken */
		return answer_msg(rq, (unsigned)rq->wait.http_code, rq->wait.msg);
	}
	if (rc == ERR_NOTFOUND) {
		char msg[300];
		snprintf(msg, sizeof msg, "no %s for build-ID %s",
			 sig ? "signature" : "eh_elf", rq->route.hex);
		return answer_msg(rq, 404, msg);
	}
	if (rc < 0)
		return answer_internal(rq, err.msg);
	char etag[70];
	snprintf(etag, sizeof etag, "\"%s\"", a.sha256);
	const char *inm = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_IF_NONE_MATCH);
	const char *ims = MHD_lookup_connection_value(
		rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_MODIFIED_SINCE);
	if (conditional_not_modified(inm, ims, etag, a.mtime)) {
		close(a.fd);
		struct MHD_Response *r = MHD_create_response_from_buffer(
			0, (void *)"", MHD_RESPMEM_PERSISTENT);
		if (!r)
			return MHD_NO;
		file_headers(r, &a, etag, sig);
		return queue(rq, 304, r, 0);
	}
	/* sent with sendfile from the descriptor, which the response owns */
	struct MHD_Response *r = MHD_create_response_from_fd64(a.size, a.fd);
	if (!r) {
		close(a.fd);
		return MHD_NO;
	}
	file_headers(r, &a, etag, sig);
	return queue(rq, 200, r, a.size);
}

/* A file of the apt repository: validators as a static server's (weak
 * ETag of mtime and size, Last-Modified); dists/ may change, pool/ not. */
static enum MHD_Result serve_repo(request *rq)
{
	repo_file f;
	ehelf_err err = { 0 };
	int rc = repo_file_open(rq->h->o.repo, rq->route.rel, &f, &err);
	if (rc == ERR_NOTFOUND)
		return answer_msg(rq, 404, "no such file in the repository");
	if (rc < 0)
		return answer_internal(rq, err.msg);
	char date[HTTP_DATE_MAX];
	http_date(f.mtime, date);
	const char *inm = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_IF_NONE_MATCH);
	const char *ims = MHD_lookup_connection_value(
		rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_MODIFIED_SINCE);
	bool not_modified = conditional_not_modified(inm, ims, f.etag, f.mtime);
	struct MHD_Response *r;
	if (not_modified) {
		close(f.fd);
		r = MHD_create_response_from_buffer(0, (void *)"",
						    MHD_RESPMEM_PERSISTENT);
	} else {
		r = MHD_create_response_from_fd64(f.size, f.fd);
		if (!r)
			close(f.fd);
	}
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "ETag", f.etag);
	MHD_add_response_header(r, "Last-Modified", date);
	MHD_add_response_header(r, "Content-Type", f.type);
	MHD_add_response_header(r, "Cache-Control", f.immutable
				? "public, max-age=86400" : "no-cache");
	MHD_add_response_header(r, "Accept-Ranges", "none");
	return queue(rq, not_modified ? 304 : 200, r, not_modified ? 0 : f.size);
}

static enum MHD_Result serve_generated(request *rq)
{
	http_server *h = rq->h;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		return answer_msg(rq, 500, "out of memory");
	status_info si = { .store = h->o.store, .upstream = h->o.upstream,
			   .signing_key = h->o.signing_key,
			   .ondemand = h->o.ondemand != NULL, .metrics = h->o.metrics };
	si.have_totals = index_totals(h->o.index, &si.ehelfs, &si.ehelf_bytes,
				      &si.packages) == 0;
	if (h->o.ondemand)
		ondemand_load(h->o.ondemand, &si.running, &si.queued);
	bool is_metrics = rq->route.kind == ROUTE_METRICS;
	if (is_metrics)
		status_write_metrics(&si, out);
	else
		status_write_html(&si, out);
	if (fclose(out) != 0 || !buf) {
		free(buf);
		return answer_msg(rq, 500, "out of memory");
	}
	struct MHD_Response *r = MHD_create_response_from_buffer(
		len, buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", is_metrics
				? "text/plain; version=0.0.4; charset=utf-8"
				: "text/html; charset=utf-8");
	MHD_add_response_header(r, "Cache-Control", "no-cache");
	return queue(rq, 200, r, len);
}

/* ---- libmicrohttpd's callbacks --------------------------------------------------- */

static void conn_mark(http_server *h, struct MHD_Connection *c, bool start);

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **req_cls)
{
	(void)version;
	(void)upload;
	http_server *h = cls;
	request *rq = *req_cls;
	if (!rq)
		return MHD_NO; /* on_uri could not allocate it */
	if (!rq->started) { /* the headers are in */
		rq->started = true;
		route_parse(url, strlen(url), &rq->route);
		if (rq->encoded)
			rq->route.kind = !strncmp(url, "/buildid/", 9)
					 ? ROUTE_BAD_ID : ROUTE_BAD_PATH;
		snprintf(rq->method, sizeof rq->method, "%s", method);
		conn_mark(h, c, true);
		/* answered before any body is read: a request with a body
		 * (never needed here), or with framing a proxy in front
		 * might read otherwise than libmicrohttpd */
		const char *bad = framing_error(c, method);
		if (bad)
			return answer_refusal(rq, strcmp(method, MHD_HTTP_METHOD_GET) &&
					      strcmp(method, MHD_HTTP_METHOD_HEAD)
					      ? 405 : 400, bad);
		return MHD_YES;
	}
	if (*upload_size) { /* unreachable: bodies are refused above */
		*upload_size = 0;
		return MHD_YES;
	}
	if (rq->waiting) { /* woken: the build is over */
		rq->waiting = false;
		if (rq->wait.http_code != 200)
			return answer_msg(rq, (unsigned)rq->wait.http_code,
					  rq->wait.msg);
		return serve_artifact(rq, false);
	}
	rq->head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
	if (!rq->head && strcmp(method, MHD_HTTP_METHOD_GET))
		return answer_msg(rq, 405, "only GET and HEAD are served");
	if (atomic_load(&h->o.metrics->connections) >
	    (int_fast64_t)h->o.max_connections) {
		atomic_fetch_add(&h->o.metrics->connections_refused, 1);
		return answer_msg(rq, 503, "too many connections: try again later");
	}
	switch (rq->route.kind) {
	case ROUTE_EHELF:
	case ROUTE_SIG:
		return serve_artifact(rq, true);
	case ROUTE_METRICS:
	case ROUTE_STATUS:
		return serve_generated(rq);
	case ROUTE_REPO:
		if (h->o.repo)
			return serve_repo(rq);
		break;
	case ROUTE_BAD_ID:
	case ROUTE_BAD_PATH:
		if (rq->encoded)
			return answer_msg(rq, 400, "a percent-encoded path: no path "
					  "this server serves needs encoding");
		return answer_msg(rq, 400, rq->route.kind == ROUTE_BAD_ID
				  ? "malformed build-ID: expected 2 to 128 "
				    "lowercase hex digits, an even number"
				  : "malformed repository path");
	case ROUTE_UNKNOWN:
		break;
	}
	return answer_msg(rq, 404, h->o.repo
			  ? "not found: this server serves /buildid/HEX/eh_elf, "
			    "/buildid/HEX/eh_elf.sig, /debian/ (an apt repository), "
			    "/metrics and /"
			  : "not found: this server serves /buildid/HEX/eh_elf, "
			    "/buildid/HEX/eh_elf.sig, /metrics and /");
}

/* The request line's URI, before libmicrohttpd decodes it: the request's
 * state starts here.  No path served needs percent-encoding (build-IDs
 * are hex, repository paths plain), so a path that has it (%00, %2f,
 * /buildi%64/, ...) is refused whatever it decodes to. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	request *rq = calloc(1, sizeof *rq);
	if (!rq)
		return NULL;
	rq->h = cls;
	rq->conn = c;
	rq->t0 = metrics_now();
	snprintf(rq->url, sizeof rq->url, "%s", uri);
	size_t path = strcspn(uri, "?");
	rq->encoded = memchr(uri, '%', path) != NULL;
	return rq;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)toe;
	http_server *h = cls;
	request *rq = *req_cls;
	if (!rq)
		return;
	double secs = metrics_now() - rq->t0;
	if (rq->code) {
		metrics_request(h->o.metrics, rq->route.kind, rq->code, rq->bytes,
				secs);
		if (h->o.verbose)
			fprintf(stderr, "ehelf-server: %s %s %u %" PRIu64 " %.6f\n",
				rq->method, rq->url, rq->code, rq->bytes, secs);
	}
	free(rq);
	*req_cls = NULL;
	conn_mark(h, c, false);
}

static void on_connection(void *cls, struct MHD_Connection *c,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	http_server *h = cls;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		atomic_fetch_add(&h->o.metrics->connections, 1);
		atomic_fetch_add(&h->o.metrics->connections_total, 1);
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		conn *k = calloc(1, sizeof *k);
		if (!k || !ci) {
			free(k);
			return;
		}
		k->fd = k->wire_fd = ci->connect_fd;
		k->since = metrics_now();
		wire_watch(k->wire_fd);
		pthread_mutex_lock(&h->conns_lock);
		k->next = h->conns;
		if (h->conns)
			h->conns->prev = k;
		h->conns = k;
		pthread_mutex_unlock(&h->conns_lock);
		*socket_context = k;
		return;
	}
	/* closed: before libmicrohttpd closes the descriptor, so the reaper
	 * (under the same lock) never shuts down a reused one */
	atomic_fetch_sub(&h->o.metrics->connections, 1);
	conn *k = *socket_context;
	if (!k)
		return;
	wire_unwatch(k->wire_fd);
	pthread_mutex_lock(&h->conns_lock);
	if (k->prev)
		k->prev->next = k->next;
	else
		h->conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	pthread_mutex_unlock(&h->conns_lock);
	free(k);
	*socket_context = NULL;
}

/* A request of C started (headers complete) or ended. */
static void conn_mark(http_server *h, struct MHD_Connection *c, bool start)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conn *k = ci ? ci->socket_context : NULL;
	if (!k)
		return;
	pthread_mutex_lock(&h->conns_lock);
	k->in_request = start;
	k->since = metrics_now();
	pthread_mutex_unlock(&h->conns_lock);
}

/* Once a second: shut down the connections that have not completed a
 * request's headers within the timeout.  libmicrohttpd then sees the
 * socket end and closes the connection in its own thread. */
static void *reaper_main(void *arg)
{
	http_server *h = arg;
	pthread_mutex_lock(&h->stop_lock);
	while (!h->stopping) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&h->stop_cond, &h->stop_lock, &ts);
		if (h->stopping)
			break;
		double limit = metrics_now() - h->o.timeout;
		pthread_mutex_lock(&h->conns_lock);
		for (conn *k = h->conns; k; k = k->next)
			if (!k->in_request && k->since < limit && k->fd >= 0) {
				shutdown(k->fd, SHUT_RDWR);
				k->fd = -1;
				atomic_fetch_add(&h->o.metrics->connections_cut, 1);
			}
		pthread_mutex_unlock(&h->conns_lock);
	}
	pthread_mutex_unlock(&h->stop_lock);
	return NULL;
}

static void on_error(void *cls, const char *fmt, va_list ap)
{
	http_server *h = cls;
	if (!h->o.verbose)
		return;
	fputs("ehelf-server: libmicrohttpd: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/* ---- start and stop --------------------------------------------------------------- */

int http_start(http_server **out, const http_opts *o, ehelf_err *err)
{
	http_server *h = calloc(1, sizeof *h);
	if (!h)
		return err_set(err, ERR_NOMEM, "out of memory");
	h->o = *o;
	pthread_mutex_init(&h->conns_lock, NULL);
	pthread_mutex_init(&h->stop_lock, NULL);
	pthread_cond_init(&h->stop_cond, NULL);
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
			 MHD_USE_ERROR_LOG | MHD_USE_TURBO;
	const char *addr = o->listen ? o->listen : "::";
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)o->port);
	} else if (inet_pton(AF_INET6, addr, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)o->port);
		flags |= o->listen ? MHD_USE_IPv6 : MHD_USE_DUAL_STACK;
	} else {
		free(h);
		return err_set(err, ERR_ARG, "--listen %s: not a numeric IPv4 or "
			       "IPv6 address", addr);
	}
	/* the daemon's own limit: a margin above ours, so that the requests
	 * beyond ours can still be answered 503 */
	unsigned hard = o->max_connections + 64;
	h->d = MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, on_request, h,
		MHD_OPTION_EXTERNAL_LOGGER, on_error, h,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)o->threads,
		MHD_OPTION_CONNECTION_LIMIT, hard,
		MHD_OPTION_CONNECTION_TIMEOUT, o->timeout,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_HEADER_BYTES,
		MHD_OPTION_URI_LOG_CALLBACK, on_uri, h,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
		MHD_OPTION_END);
	if (!h->d) {
		free(h);
		return err_set(err, ERR_IO, "cannot listen on %s port %u (in use, "
			       "or a privileged port?)", addr, o->port);
	}
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : o->port;
	h->reaper_started = pthread_create(&h->reaper, NULL, reaper_main, h) == 0;
	*out = h;
	return 0;
}

unsigned http_port(const http_server *h)
{
	return h->port;
}

void http_stop(http_server *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->stop_lock);
	h->stopping = true;
	pthread_cond_signal(&h->stop_cond);
	pthread_mutex_unlock(&h->stop_lock);
	if (h->reaper_started)
		pthread_join(h->reaper, NULL);
	MHD_stop_daemon(h->d);
	pthread_mutex_destroy(&h->conns_lock);
	pthread_mutex_destroy(&h->stop_lock);
	pthread_cond_destroy(&h->stop_cond);
	free(h);
}
