/* wire.c - see wire.h. */
#define _GNU_SOURCE
#include "wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

/* Where a head's scan is. */
enum scan_state {
	S_IDLE,        /* not watched */
	S_LINE_START,  /* at the start of a line */
	S_REQLINE,     /* in the request line */
	S_NAME,        /* in a header's name */
	S_VALUE,       /* in a value not checked */
	S_LENGTH,      /* in a Content-Length value */
	S_PASS,        /* after a head with a body: no longer scanned */
};

typedef struct head_scan {
	_Atomic unsigned char state;
	bool request_line;          /* this head's request line is in */
	bool body;                  /* this head announces a body */
	signed char cl, te;         /* name bytes matched so far, -1: not it */
	unsigned char digits;       /* of a Content-Length value */
	bool after_digits;          /* its trailing white space started */
	const char *refusal;        /* to answer at the next read, or NULL */
} head_scan;

static ssize_t (*libc_recv)(int, void *, size_t, int);
static head_scan *scans;
static size_t nscans;
static metrics *counted;

static const char content_length[] = "content-length";
static const char transfer_encoding[] = "transfer-encoding";

/* Match byte C as the next one of a header name against NAME. */
static void match(signed char *at, const char *name, char c)
{
	if (*at < 0)
		return;
	if ((size_t)*at < strlen(name) && (c | 0x20) == name[(size_t)*at])
		(*at)++;
	else
		*at = -1;
}

enum step { STEP_ON, STEP_HEAD_END, STEP_PASS };

/* Scan one byte C.  Returns STEP_* or sets *WHY (a refusal). */
static enum step scan_byte(head_scan *s, unsigned char c, const char **why)
{
	if (c == '\0') {
		*why = "a NUL byte in the request head";
		return STEP_ON;
	}
	switch (s->state) {
	case S_LINE_START:
		if (c == '\n') {
			if (!s->request_line)
				return STEP_ON; /* empty lines before a request */
			s->request_line = false;
			if (s->body) {
				s->state = S_PASS;
				return STEP_PASS;
			}
			return STEP_HEAD_END;
		}
		if (c == '\r')
			return STEP_ON; /* the CR of an empty line */
		if (!s->request_line) {
			s->state = S_REQLINE;
			return STEP_ON;
		}
		if (c == ' ' || c == '\t') {
			*why = "an obsolete line folding in the request head";
			return STEP_ON;
		}
		s->cl = s->te = 0;
		s->state = S_NAME;
		match(&s->cl, content_length, (char)c);
		match(&s->te, transfer_encoding, (char)c);
		return STEP_ON;
	case S_REQLINE:
		if (c == '\n') {
			s->request_line = true;
			s->body = false;
			s->state = S_LINE_START;
		}
		return STEP_ON;
	case S_NAME:
		if (c == '\n') { /* no colon: libmicrohttpd answers 400 */
			s->state = S_LINE_START;
		} else if (c == ':') {
			bool cl = s->cl == (signed char)strlen(content_length);
			if (s->te == (signed char)strlen(transfer_encoding))
				s->body = true;
			s->digits = 0;
			s->after_digits = false;
			s->state = cl ? S_LENGTH : S_VALUE;
		} else {
			match(&s->cl, content_length, (char)c);
			match(&s->te, transfer_encoding, (char)c);
		}
		return STEP_ON;
	case S_VALUE:
		if (c == '\n')
			s->state = S_LINE_START;
		return STEP_ON;
	case S_LENGTH:
		if (c >= '0' && c <= '9' && !s->after_digits) {
			if (++s->digits > 19)
				*why = "a Content-Length of more than 19 digits";
			if (c != '0')
				s->body = true;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			if (s->digits)
				s->after_digits = true;
		} else if (c == '\n' && s->digits) {
			s->state = S_LINE_START;
		} else {
			*why = "a malformed Content-Length";
		}
		return STEP_ON;
	default:
		return STEP_PASS;
	}
}

/* Answer 400 with WHY on FD, as libmicrohttpd would, once; count it. */
static void refuse(int fd, const char *why)
{
	char msg[400];
	int body = (int)strlen(why) + 1;
	int n = snprintf(msg, sizeof msg, "HTTP/1.1 400 Bad Request\r\n"
			 "Connection: close\r\nServer: ehelf-server\r\n"
			 "Content-Type: text/plain; charset=utf-8\r\n"
			 "Content-Length: %d\r\n\r\n%s\n", body, why);
	if (n > 0 && (size_t)n < sizeof msg)
		send(fd, msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(fd, SHUT_WR);
	if (counted)
		metrics_request(counted, ROUTE_UNKNOWN, 400, (uint64_t)body, 0);
}

__attribute__((visibility("default")))
ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	if (!libc_recv) { /* a call before wire_init: find it now */
		libc_recv = (ssize_t (*)(int, void *, size_t, int))
			dlsym(RTLD_NEXT, "recv");
		if (!libc_recv) {
			errno = ENOSYS;
			return -1;
		}
	}
	head_scan *s = fd >= 0 && (size_t)fd < nscans ? &scans[fd] : NULL;
	unsigned char st = s ? atomic_load_explicit(&s->state,
						    memory_order_relaxed) : S_IDLE;
	if (st == S_IDLE || st == S_PASS || (flags & MSG_PEEK))
		return libc_recv(fd, buf, len, flags);
	if (s->refusal) {
		refuse(fd, s->refusal);
		s->refusal = NULL;
		errno = ECONNRESET;
		return -1;
	}
	ssize_t n = libc_recv(fd, buf, len, flags);
	if (n <= 0)
		return n;
	const unsigned char *p = buf;
	size_t good = 0; /* bytes up to the end of the last good head */
	for (size_t i = 0; i < (size_t)n; i++) {
		const char *why = NULL;
		enum step e = scan_byte(s, p[i], &why);
		if (why) {
			if (good) {
				/* answer the heads before it first; the
				 * socket's end of input (a new epoll event)
				 * brings the next read, which refuses */
				s->refusal = why;
				shutdown(fd, SHUT_RD);
				return (ssize_t)good;
			}
			refuse(fd, why);
			errno = ECONNRESET;
			return -1;
		}
		if (e == STEP_HEAD_END)
			good = i + 1;
		else if (e == STEP_PASS)
			break;
	}
	return n;
}

int wire_init(metrics *m)
{
	libc_recv = (ssize_t (*)(int, void *, size_t, int))dlsym(RTLD_NEXT, "recv");
	if (!libc_recv)
		return -1;
	struct rlimit nofile;
	size_t n = 65536;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY)
		n = nofile.rlim_cur < (1u << 20) ? (size_t)nofile.rlim_cur : 1u << 20;
	/* calloc'd pages are not touched until a descriptor that high is */
	scans = calloc(n, sizeof *scans);
	if (!scans)
		return -1;
	nscans = n;
	counted = m;
	return 0;
}

void wire_watch(int fd)
{
	if (fd < 0 || (size_t)fd >= nscans)
		return;
	head_scan *s = &scans[fd];
	s->request_line = false;
	s->body = false;
	s->refusal = NULL;
	atomic_store_explicit(&s->state, S_LINE_START, memory_order_relaxed);
}

void wire_unwatch(int fd)
{
	if (fd < 0 || (size_t)fd >= nscans)
		return;
	atomic_store_explicit(&scans[fd].state, S_IDLE, memory_order_relaxed);
}
