"""figures_elf.py - for stats_figures.py: the ELF facts readelf gives
(`readelf -h -S -n -W`: type, machine, section sizes, build-ID) and the
CIE/FDE entries of `readelf --debug-dump=frames`, with the constants of the
figures (columns, rule kinds) and the script's Error."""
import hashlib
import os
import re
import subprocess



NCOLS = 17
RA = 16
GPR = ["rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9",
       "r10", "r11", "r12", "r13", "r14", "r15", "rip"]
# ehelf-stats' names of the columns of rule_kinds: the CFA, then DWARF
# registers 0..15, then the return address column
COLUMN_NAMES = ["cfa"] + GPR[:16] + ["ra"]
KINDS = ["no_rule", "undefined", "same_value", "offset", "val_offset",
         "register", "expression", "val_expression"]
FDE_ROWS_CAP = 64  # schema.sql: rows_per_fde 64 means 64 or more


class Error(Exception):
    pass


def regname(n):
    """readelf's x86_64 name of DWARF register N (binutils
    dwarf_regnames_x86_64)."""
    if n < 17:
        return GPR[n]
    if n <= 32:
        return "xmm%d" % (n - 17)
    if n <= 40:
        return "st%d" % (n - 33)
    if n <= 48:
        return "mm%d" % (n - 41)
    if n == 49:
        return "rflags"
    if 50 <= n <= 55:
        return ["es", "cs", "ss", "ds", "fs", "gs"][n - 50]
    if n == 58:
        return "fs.base"
    if n == 59:
        return "gs.base"
    return "r%d" % n


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors="replace")
    if p.returncode != 0:
        raise Error("%s: exit %d: %s" % (" ".join(argv), p.returncode,
                                         p.stderr.strip()[:300]))
    return p.stdout


# ---- ELF header, sections, build-ID ------------------------------------------

SECTION_RE = re.compile(
    r"^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+"
    r"([0-9a-f]+)\s+([0-9a-f]+)\s+([A-Za-z]*)\s+(\d+)\s+(\d+)\s+(\d+)\s*$")


def elf_info(path):
    """None if PATH is not an x86_64 executable or shared object, else a
    dict of its sizes and build-ID."""
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic != b"\x7fELF":
        return None
    out = run(["readelf", "-h", "-S", "-n", "-W", path])
    hdr = {}
    for line in out.splitlines():
        m = re.match(r"^\s+(Class|Data|Type|Machine):\s+(.*)$", line)
        if m and m.group(1) not in hdr:
            hdr[m.group(1)] = m.group(2).strip()
    if (hdr.get("Class") != "ELF64" or "little endian" not in hdr.get("Data", "")
            or hdr.get("Machine") != "Advanced Micro Devices X86-64"
            or hdr.get("Type", "").split(" ")[0] not in ("EXEC", "DYN")):
        return {"x86_64": False}
    sizes = {}
    for line in out.splitlines():
        m = SECTION_RE.match(line)
        if not m:
            continue
        name, typ, size, flags = m.group(2), m.group(3), int(m.group(6), 16), m.group(8)
        if name in sizes:
            continue  # the first section of that name, as ehelf looks it up
        if "C" in flags and name in (".eh_frame", ".debug_frame", ".text"):
            # readelf -S shows the compressed size, ehelf the decompressed
            # one: not in this corpus; say so rather than compare wrongly
            raise Error("%s: %s is compressed: this test does not compute "
                        "its uncompressed size" % (path, name))
        sizes[name] = 0 if typ == "NOBITS" else size
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    if m:
        build_id = m.group(1)
    else:
        with open(path, "rb") as f:
            build_id = hashlib.sha256(f.read()).hexdigest()[:40]
    return {
        "x86_64": True,
        "size": os.path.getsize(path),
        "text": sizes.get(".text", 0),
        "eh_frame": sizes.get(".eh_frame", 0),
        "eh_frame_hdr": sizes.get(".eh_frame_hdr", 0),
        "debug_frame": sizes.get(".debug_frame", 0),
        "build_id": build_id,
    }


# ---- readelf --debug-dump=frames: entries and decoded instructions -----------

ENTRY_RE = re.compile(r"^([0-9a-f]{8,16}) ([0-9a-f]{8,16}) ([0-9a-f]{8,16}) "
                      r"(CIE|FDE cie=([0-9a-f]+) pc=([0-9a-f]+)\.\.([0-9a-f]+))")
ZERO_RE = re.compile(r"^([0-9a-f]{8,16}) ZERO terminator")
SECTION_HDR_RE = re.compile(r"^Contents of the (\.[A-Za-z_.]+?)[ :]")


def parse_entries(text):
    """[(section, kind, offset, cie, lo, hi, lines)] in readelf's order;
    kind 'CIE', 'FDE' or 'ZERO' (a zero terminator); lines are the entry's
    indented lines."""
    entries = []
    section = None
    cur = None
    for line in text.splitlines():
        m = SECTION_HDR_RE.match(line)
        if m:
            section = m.group(1)
            cur = None
            continue
        m = ENTRY_RE.match(line)
        if m:
            if m.group(4) == "CIE":
                cur = [section, "CIE", int(m.group(1), 16), None, None, None, []]
            else:
                cur = [section, "FDE", int(m.group(1), 16), int(m.group(5), 16),
                       int(m.group(6), 16), int(m.group(7), 16), []]
            entries.append(cur)
            continue
        m = ZERO_RE.match(line)
        if m:
            entries.append([section, "ZERO", int(m.group(1), 16), None, None, None, []])
            cur = None
            continue
        if cur is not None and line.startswith("  "):
            cur[6].append(line)
    return entries
