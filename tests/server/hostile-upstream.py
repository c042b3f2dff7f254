#!/usr/bin/env python3
"""hostile-upstream.py - a debuginfod look-alike that misbehaves on purpose,
for the on-demand tests of ehelf-server (loopback only).

Usage: hostile-upstream.py PORT_FILE ROUTES [LOG]

It listens on a free port of 127.0.0.1 (written to PORT_FILE once
listening) and answers GET /buildid/ID/executable (and /debuginfo) from
ROUTES, lines of "ID ACTION [ARG]":
  stall          read the request, then answer nothing, ever
  file PATH      200 with the bytes of PATH and their Content-Length
  zeros MIB      200 with MIB MiB of zeros and their Content-Length
  chunked MIB    200 with MIB MiB of zeros, chunked (no Content-Length)
Any other ID: 404.  Each request's path is appended to LOG (a line).
It runs until killed.
"""
import http.server
import os
import socketserver
import sys
import threading
import time

ROUTES = {}
LOG = None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if LOG:
            with open(LOG, "a") as f:
                f.write(self.path + "\n")
        parts = self.path.split("/")
        route = None
        if len(parts) == 4 and parts[1] == "buildid" and \
                parts[3] in ("executable", "debuginfo"):
            route = ROUTES.get(parts[2])
        if route is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        action, arg = route
        if action == "stall":
            while True:
                time.sleep(3600)
        if action == "file":
            with open(arg, "rb") as f:
                data = f.read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        block = b"\0" * (1 << 20)
        self.send_response(200)
        if action == "zeros":
            self.send_header("Content-Length", str(int(arg) << 20))
            self.end_headers()
            for _ in range(int(arg)):
                self.wfile.write(block)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for _ in range(int(arg)):
            self.wfile.write(b"%x\r\n" % len(block) + block + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # a client that hangs up on a large file is expected


def main():
    global LOG
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: hostile-upstream.py PORT_FILE ROUTES [LOG]")
    LOG = sys.argv[3] if len(sys.argv) == 4 else None
    with open(sys.argv[2]) as f:
        for line in f:
            w = line.split()
            if w:
                ROUTES[w[0]] = (w[1], w[2] if len(w) > 2 else None)
    srv = Server(("127.0.0.1", 0), Handler)
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, sys.argv[1])
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    t.join()


if __name__ == "__main__":
    main()
