#!/usr/bin/env python3
"""hostile_server.py MODE PORTFILE: an HTTP server on 127.0.0.1 that
answers every request of tests/fetch/run-hostile-tests.sh as MODE says,
writing its port into PORTFILE once it listens:

  endless      200, no Content-Length, a body that never ends
  chunked      200, Transfer-Encoding: chunked, chunks that never end
  huge-length  200, Content-Length: 10^12, a body that never ends
  signed       200, an X-EHELF-SIGNATURE header, no Content-Length, a body
               that never ends (no eh_elf.sig request follows)
  headers      200, header lines that never end
  under        200, an X-EHELF-SIGNATURE header, no Content-Length,
               HOSTILE_BYTES bytes of junk, then the connection closed

Each connection stops after 120 s or 32 GiB, whichever is first, so the
server ends its work by itself; the test kills the process.
"""
import os
import socket
import sys
import threading
import time

CHUNK = b"\xcc" * (1 << 20)
LIMIT_S = 120
LIMIT_BYTES = 32 << 30


def read_request(c):
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 65536:
        got = c.recv(4096)
        if not got:
            return False
        data += got
    return True


def pour(c, piece, head=b""):
    """Send HEAD then PIECE over and over until a limit or the client
    goes."""
    t0 = time.monotonic()
    sent = 0
    c.sendall(head)
    while sent < LIMIT_BYTES and time.monotonic() - t0 < LIMIT_S:
        c.sendall(piece)
        sent += len(piece)


def serve(c, mode):
    try:
        if not read_request(c):
            return
        if mode == "endless":
            pour(c, CHUNK, b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
        elif mode == "chunked":
            piece = b"%x\r\n" % len(CHUNK) + CHUNK + b"\r\n"
            pour(c, piece, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        elif mode == "huge-length":
            pour(c, CHUNK, b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n")
        elif mode == "signed":
            pour(c, CHUNK, b"HTTP/1.1 200 OK\r\nConnection: close\r\n"
                 b"X-EHELF-SIGNATURE: ehelf-sig-v1 junk\r\n\r\n")
        elif mode == "headers":
            pour(c, b"X-Padding: " + b"a" * 1000 + b"\r\n",
                 b"HTTP/1.1 200 OK\r\n")
        elif mode == "under":
            n = int(os.environ.get("HOSTILE_BYTES", "1000"))
            c.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n"
                      b"X-EHELF-SIGNATURE: ehelf-sig-v1 junk\r\n\r\n")
            while n > 0:
                k = min(n, len(CHUNK))
                c.sendall(CHUNK[:k])
                n -= k
    except OSError:
        pass
    finally:
        c.close()


def main():
    mode, portfile = sys.argv[1], sys.argv[2]
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(128)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(s.getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c, mode), daemon=True).start()


main()
