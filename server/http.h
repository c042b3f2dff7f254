/*
 * http.h - the HTTP side of ehelf-server, on libmicrohttpd: epoll, a pool
 * of threads, the routes of route.h, conditional requests, the connection
 * limit, timeouts for idle and slow clients, and requests parked while
 * their eh_elf is built on demand.
 *
 * Limits: a request's headers must fit in HTTP_HEADER_BYTES (beyond:
 * 431, answered by libmicrohttpd); a connection idle for TIMEOUT seconds
 * (nothing received, including a client trickling a header a byte at a
 * time slower than that) is closed, and so is one that has not completed
 * a request's headers within TIMEOUT seconds (the reaper); a request with
 * a body, or with ambiguous framing (Content-Length twice, or with
 * Transfer-Encoding), is refused at its headers and the connection
 * closed, the body never read; a path with a '%' is refused before
 * anything is opened; the raw request heads are checked by wire.h; above
 * MAX_CONNECTIONS open connections, requests are answered 503 with
 * Retry-After, and connections beyond a margin above it are refused at
 * accept.  Error bodies carry no file names of the server.
 */
#ifndef EHELF_SERVER_HTTP_H
#define EHELF_SERVER_HTTP_H

#include <stdbool.h>

#include "../common/err.h"
#include "artifact.h"
#include "index.h"
#include "metrics.h"
#include "ondemand.h"

enum { HTTP_HEADER_BYTES = 16 * 1024 };

typedef struct http_opts {
	const char *listen;         /* numeric address; NULL: every address */
	unsigned port;              /* 0: any free port */
	int threads;                /* >= 1 */
	unsigned max_connections;
	unsigned timeout;           /* seconds */
	bool verbose;               /* one line per request on stderr */
	artifact_store *artifacts;
	server_index *index;        /* may be NULL */
	ondemand *ondemand;         /* NULL: no on-demand builds */
	struct repo *repo;          /* an apt repository for /debian/, or NULL */
	metrics *metrics;
	const char *store;          /* for the status page */
	const char *upstream;       /* for the status page; may be NULL */
	const char *signing_key;    /* key ID, for the status page; or NULL */
} http_opts;

typedef struct http_server http_server;

/* Listen and serve (in libmicrohttpd's threads).  Returns 0, ERR_ARG (a
 * bad address) or ERR_IO (cannot listen). */
int http_start(http_server **h, const http_opts *o, ehelf_err *err);

/* The port it listens on. */
unsigned http_port(const http_server *h);

/* Stop accepting, finish, free.  H may be NULL. */
void http_stop(http_server *h);

#endif
