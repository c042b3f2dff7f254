#!/usr/bin/env python3
"""raw-http.py - send one raw byte string to an HTTP server on loopback
and print the status codes of the responses that came back, in order
("400", "200 400", ...; "none" for none; "garbage" for bytes after a
response's framed end that do not start another), for the tests of what a client
like curl never sends (NUL bytes, two Content-Length headers, ...).

Usage: raw-http.py PORT REQUEST [SECONDS]
REQUEST takes Python escapes (\\r, \\n, \\x00).  It reads until the server
closes the connection or SECONDS (default 3) pass.
"""
import re
import socket
import sys
import time


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: raw-http.py PORT REQUEST [SECONDS]")
    port = int(sys.argv[1])
    data = sys.argv[2].encode("latin-1").decode("unicode_escape").encode("latin-1")
    limit = time.monotonic() + (float(sys.argv[3]) if len(sys.argv) == 4 else 3)
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(data)
    out = b""
    while time.monotonic() < limit:
        s.settimeout(max(0.01, limit - time.monotonic()))
        try:
            b = s.recv(65536)
        except (socket.timeout, ConnectionResetError):
            break
        if not b:
            break
        out += b
    s.close()
    print(" ".join(parse(out)) or "none")


def parse(out):
    """The status codes of the responses in OUT, each framed by its
    Content-Length; "garbage" for bytes that do not start a response."""
    codes = []
    while out:
        end = out.find(b"\r\n\r\n")
        m = re.match(rb"HTTP/1\.[01] (\d{3}) ", out)
        if end < 0 or not m:
            codes.append("garbage")
            break
        head = out[:end].decode("latin-1")
        codes.append(m.group(1).decode())
        length = re.search(r"(?im)^content-length: *(\d+)", head)
        out = out[end + 4 + (int(length.group(1)) if length else 0):]
    return codes


if __name__ == "__main__":
    main()
