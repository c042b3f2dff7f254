#!/usr/bin/env python3
"""Damage the cpio payload of a real .rpm (gzip payload, newc cpio).

Usage: rpm_damage.py IN.rpm OUT.rpm MODE
MODE: magic     the header of the second ELF member gets a bad magic
      namesize0 its namesize field is 0
      namehuge  its namesize field is 0x7fffffff
The lead, signature and header are copied as they are (libarchive and
ehelf-batch read the metadata from the header, not its digests)."""
import gzip
import struct
import sys


def payload_offset(data):
    off = 96
    for which in range(2):
        assert data[off:off + 4] == b'\x8e\xad\xe8\x01', 'not an RPM header'
        nidx, dsize = struct.unpack('>II', data[off + 8:off + 16])
        off += 16 + nidx * 16 + dsize
        if which == 0:
            off = (off + 7) & ~7
    return off


def entries(cpio):
    """(header offset, name, data offset, data size) of each newc entry."""
    off = 0
    while cpio[off:off + 6] == b'070701':
        f = [int(cpio[off + 6 + 8 * i:off + 14 + 8 * i], 16) for i in range(13)]
        size, namesize = f[6], f[11]
        name = cpio[off + 110:off + 110 + namesize - 1].decode()
        data = (off + 110 + namesize + 3) & ~3
        if name == 'TRAILER!!!':
            return
        yield off, name, data, size
        off = (data + size + 3) & ~3


def main():
    src, dst, mode = sys.argv[1:4]
    data = open(src, 'rb').read()
    off = payload_offset(data)
    cpio = bytearray(gzip.decompress(data[off:]))
    elfs = [e for e in entries(cpio) if cpio[e[2]:e[2] + 4] == b'\x7fELF']
    assert len(elfs) >= 2, 'fewer than two ELF members'
    hdr, name = elfs[1][0], elfs[1][1]
    if mode == 'magic':
        cpio[hdr:hdr + 6] = b'070799'
    elif mode == 'namesize0':
        cpio[hdr + 94:hdr + 102] = b'00000000'
    elif mode == 'namehuge':
        cpio[hdr + 94:hdr + 102] = b'7fffffff'
    else:
        sys.exit('unknown mode ' + mode)
    open(dst, 'wb').write(data[:off] + gzip.compress(bytes(cpio), mtime=0))
    print(name)


main()
