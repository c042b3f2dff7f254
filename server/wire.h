/*
 * wire.h - checks on the raw bytes of request heads, for what
 * libmicrohttpd 0.9.75 (Debian 12's) cannot refuse itself: it cuts a
 * header value at a NUL byte without a word (so a proxy in front and
 * this server could read one request differently), and it answers a
 * malformed Content-Length ("-1", "1x", 20 digits) with its own 400 whose
 * header block it then sends twice.  Neither reaches a request handler,
 * so the check sits where libmicrohttpd reads: this module defines
 * recv(2) for the process (libmicrohttpd calls it through the PLT; the
 * executable's definition comes first), reads with the C library's, and
 * scans the bytes of the connections it watches.
 *
 * A request head (request line and header lines up to the empty line)
 * is refused with 400 and the connection closed when it holds a NUL
 * byte, an obsolete line folding (a line starting with a space or a tab,
 * RFC 9112 5.2), or a Content-Length that is not 1 to 19 digits.  The
 * answer is sent by this module, and libmicrohttpd then sees the
 * connection reset.  After a head that announces a body (a Content-
 * Length other than 0, or a Transfer-Encoding), scanning stops: the
 * handler refuses every body (http.c) and the connection closes.  A
 * refused head pipelined behind a good one in the same read is cut off
 * and answered at the next read (or the connection is closed by the
 * timeouts).
 *
 * Other callers of recv (libcurl's sockets) are not watched and pass
 * through.
 */
#ifndef EHELF_SERVER_WIRE_H
#define EHELF_SERVER_WIRE_H

#include "metrics.h"

/* Before any thread starts: size the table for the descriptor limit now
 * in force.  Refusals are counted in M (as route "other", code 400).
 * Returns 0, or -1 when out of memory or the C library's recv is not
 * found (then nothing is watched). */
int wire_init(metrics *m);

/* Watch the connection on FD (a new one), or stop (it is being closed). */
void wire_watch(int fd);
void wire_unwatch(int fd);

#endif
