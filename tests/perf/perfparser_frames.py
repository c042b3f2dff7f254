#!/usr/bin/env python3
"""The samples of hotspot-perfparser's output stream (hotspot 1.3.0, as
Debian 12 packages it), one block per sample: "pid tid time guessed N" (N: perfparser's
count of frames it guessed, from the frame-pointer chain), then one line
per frame, innermost first: "address symbol binary" (the runtime address
perfparser gives the frame, in hex; symbol "?" when perfparser names none;
an inlined frame's symbol is that of the location it was inlined into).  The stream: "QPERFSTREAM\\0", a little-endian qint32
QDataStream version, then events, each a little-endian quint32 size and
that many bytes in QDataStream's big-endian encoding: a qint8 type, then
its fields (types 13 sample, 3 location, 4 symbol, 5 string, the rest not
needed here).  A stream that does not decode so fails loudly.
Usage: perfparser_frames.py STREAM
"""
import struct
import sys

SAMPLE, LOCATION, SYMBOL, STRING = 13, 3, 4, 5


def main(path):
    d = open(path, "rb").read()
    if not d.startswith(b"QPERFSTREAM\0"):
        sys.exit("perfparser_frames: %s: no QPERFSTREAM magic" % path)
    i = 16
    strings, symbols, locations, samples, out = {}, {}, {}, [], []
    while i < len(d):
        (n,) = struct.unpack_from("<I", d, i)
        e = d[i + 4:i + 4 + n]
        i += 4 + n
        t = e[0]
        if t == STRING:
            sid, slen = struct.unpack_from(">iI", e, 1)
            strings[sid] = e[9:9 + slen].decode("utf-8", "replace")
        elif t == LOCATION:
            if len(e) != 33:
                sys.exit("perfparser_frames: location of %d bytes" % len(e))
            lid, addr, _file, _pid, _line, _col, parent = \
                struct.unpack_from(">iQiIiii", e, 1)
            locations[lid] = (addr, parent)
        elif t == SYMBOL:
            if len(e) != 18:
                sys.exit("perfparser_frames: symbol of %d bytes" % len(e))
            lid, name, binary, _path = struct.unpack_from(">iiii", e, 1)
            symbols[lid] = (name, binary)
        elif t == SAMPLE:
            pid, tid, time, _cpu, nframes = struct.unpack_from(">IIQII", e, 1)
            ids = struct.unpack_from(">%di" % nframes, e, 25)
            rest = 25 + 4 * nframes
            guessed = e[rest]
            (ncosts,) = struct.unpack_from(">I", e, rest + 1)
            if rest + 5 + 12 * ncosts != len(e):
                sys.exit("perfparser_frames: sample of %d bytes does not "
                         "decode" % len(e))
            samples.append(("%d %d %d guessed %d" % (pid, tid, time, guessed),
                            ids))
    # symbols may come after the samples that use them
    for head, ids in samples:
        out.append(head)
        for lid in ids:
            addr = locations.get(lid, (0, -1))[0]
            # an inlined frame's location names its function's through
            # its parent
            seen = 0
            while lid not in symbols and lid in locations and seen < 64:
                lid = locations[lid][1]
                seen += 1
            name, binary = symbols.get(lid, (-1, -1))
            out.append("%x %s %s" % (addr, strings.get(name) or "?",
                                     strings.get(binary, "?")))
        out.append("")
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: perfparser_frames.py STREAM")
    main(sys.argv[1])
