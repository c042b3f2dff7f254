#!/usr/bin/env python3
"""Write a truncated copy of an ELF file, as a download cut short would
leave it, but still indexable by debuginfod: the bytes stop in the middle
of .eh_frame, and the section name table and the section headers (which
come last in a linked file) are appended after the cut so that its build-ID
and sections can still be found.  The build-ID's last byte is flipped so
that the copy does not pass for the original.

Usage: trunc-elf.py SOURCE DEST"""
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
b = bytearray(open(src, 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)


def shdr(i):
    return struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize)


strh = shdr(shstrndx)
names = bytes(b[strh[4]:strh[4] + strh[5]])
cut = None
for i in range(shnum):
    s = shdr(i)
    name = names[s[0]:names.index(0, s[0])].decode()
    if name == '.eh_frame':
        cut = s[4] + s[5] // 2
    if name == '.note.gnu.build-id':
        b[s[4] + s[5] - 1] ^= 0xff
if cut is None:
    sys.exit('trunc-elf.py: %s has no .eh_frame' % src)
out = b[:cut] + names
headers = bytearray(b[shoff:shoff + shentsize * shnum])
struct.pack_into('<Q', headers, shstrndx * shentsize + 0x18, cut)
struct.pack_into('<Q', out, 0x28, len(out))
out += headers
open(dst, 'wb').write(out)
