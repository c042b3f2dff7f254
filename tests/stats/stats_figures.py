#!/usr/bin/python3
"""stats_figures.py - the figures of ehelf-stats computed independently of
ehelf, from binutils readelf alone, for tests/stats/run-stats-figures-test.sh.

    stats_figures.py compute --package NAME VERSION DIR [--package ...]
                             [--store STORE] [-j N] OUT.json
    stats_figures.py compare FIGURES.json EHELF-STATS.json

`compute` reads every regular file of each DIR (a package unpacked by
dpkg-deb -x, or a directory of fixtures) and, for each x86_64 executable or
shared object with unwind tables, computes with readelf only:

  * sizes: the file, .text, .eh_frame, .eh_frame_hdr, .debug_frame
    (`readelf -h -S -n -W`: type, machine, section sizes, build-ID);
  * the unwind table (`readelf --debug-dump=frames`): every CIE's initial
    instructions and every FDE's instructions, as readelf decodes them, are
    run by a small interpreter written here (DWARF 5 section 6.4), giving
    rows [lo, hi) with the CFA rule and the rules of columns 0..16;
  * a cross-check of that interpreter against readelf's own
    (`readelf --debug-dump=frames-interp`): for every FDE both tables,
    written in readelf's notation and normalised as tests/diff/cfi_diff.c
    does (rows past the FDE's end dropped, a later row at the same address
    wins, identical neighbours merged, "u" and no rule equal), must be the
    same.  Any difference is an error of this script and fails the test.

Why an interpreter and not readelf's table alone: frames-interp prints "u"
both for DW_CFA_undefined and for "no rule yet", and "exp"/"vexp" for every
expression whatever its bytes.  ehelf's rows distinguish both (its merging
of identical neighbours, its rule-set identity and its rule_kinds table's
no_rule/undefined columns do), so the interpreter keeps readelf's decoded
expression text and the undefined/unset difference, and the cross-check
proves its rows are readelf's.

The figures are ehelf's definitions (builder/cfi/cfi_program.c,
builder/codegen/compile.c, store/schema.sql), restated here:

  * FDEs whose initial location is 0 (functions the linker discarded) are
    not counted: ehelf's reader skips them (cfi_reader.h);
  * a row is an address range [lo, hi) with one rule set; rows are clipped
    at the FDE's end, empty ones dropped, and a row identical to the
    previous one (same CFA and 17 column rules, expressions compared by
    their bytes - here by readelf's text of them) extends it.  An FDE
    without instructions has one row, its CIE's initial rules;
  * .eh_frame and then .debug_frame are read; the rows of both count,
    also where .debug_frame describes functions .eh_frame already covers
    (the eh_elf's lookup table takes .eh_frame's rows there, but
    eh_elfs.rows and debug_frame_rows count what was read: the fixture
    zoo-both.so has 59 + 38 rows, all 10 of its .debug_frame FDEs inside
    .eh_frame ones);
  * a rule set is (CFA rule, the 17 column rules, the CIE's 'S' signal
    frame flag); distinct rule sets are counted per ELF;
  * rule kinds count rows per column: no_rule, undefined, same_value,
    offset, val_offset, register, expression, val_expression; the CFA's
    rows count as offset (register+offset), expression or no_rule;
  * an ELF whose tables give no row at all has no eh_elf (ehelf-batch
    records it no-cfi), like one without .eh_frame or .debug_frame
    contents (NOBITS sections, as in separate debug files, are empty);
  * eh_elfs are distinct by build-ID (the GNU build-ID note, else the
    first 20 bytes of the file's SHA-256): archive-wide tables sum over
    distinct eh_elfs, per-package ones over the package's files.

`compare` checks an `ehelf-stats --json` output against these figures:
exact equality, table by table, and prints every difference.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor

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


REG = r"r(\d+) \([^)]*\)"
INSN_RE = re.compile(r"^\s+(DW_CFA_\w+)(.*)$")
ARG = {
    "loc": re.compile(r"^: \d+ to ([0-9a-f]+)$"),
    "set_loc": re.compile(r"^: ([0-9a-f]+)"),
    "reg_at": re.compile(r"^: " + REG + r" at cfa([+-]\d+)$"),
    "reg_is": re.compile(r"^: " + REG + r" is cfa([+-]\d+)$"),
    "reg": re.compile(r"^: " + REG + r"$"),
    "reg_in": re.compile(r"^: " + REG + r" in " + REG + r"$"),
    "reg_ofs": re.compile(r"^: " + REG + r" ofs (-?\d+)$"),
    "num": re.compile(r"^: (-?\d+)$"),
    "expr": re.compile(r"^ \((.*)\)$"),
    "reg_expr": re.compile(r"^: " + REG + r" \((.*)\)$"),
}


def arg(kind, rest, line):
    m = ARG[kind].match(rest)
    if not m:
        raise Error("unparsed instruction: %r" % line.strip())
    return m.groups()


class State:
    """The rules in force: CFA (kind 'none', 'reg' or 'expr', with the
    register and offset kept across an expression as readelf and libgcc
    keep them) and the rules of columns 0..16 (absent: no rule)."""
    __slots__ = ("cfa_kind", "cfa_reg", "cfa_off", "cfa_expr", "regs")

    def __init__(self):
        self.cfa_kind, self.cfa_reg, self.cfa_off, self.cfa_expr = "none", 0, 0, None
        self.regs = {}

    def copy(self):
        s = State()
        s.cfa_kind, s.cfa_reg, s.cfa_off, s.cfa_expr = (
            self.cfa_kind, self.cfa_reg, self.cfa_off, self.cfa_expr)
        s.regs = dict(self.regs)
        return s

    def key(self):
        """The row's identity: CFA rule and the 17 column rules."""
        if self.cfa_kind == "reg":
            cfa = ("reg", self.cfa_reg, self.cfa_off)
        elif self.cfa_kind == "expr":
            cfa = ("expr", self.cfa_expr)
        else:
            cfa = ("none",)
        return (cfa,) + tuple(self.regs.get(i) for i in range(NCOLS))


def execute(lines, st, init, fde_lo, fde_hi, emit, where):
    """Run the decoded instructions LINES on state ST (INIT: the CIE's
    initial state, None while running the CIE).  EMIT(lo, hi, st) is called
    for each row ended by a location change."""
    loc = fde_lo
    stack = []
    for line in lines:
        m = INSN_RE.match(line)
        if not m:
            continue  # CIE fields (Version:, Augmentation:, ...)
        op, rest = m.group(1), m.group(2)
        if op in ("DW_CFA_advance_loc", "DW_CFA_advance_loc1", "DW_CFA_advance_loc2",
                  "DW_CFA_advance_loc4", "DW_CFA_MIPS_advance_loc8", "DW_CFA_set_loc"):
            if init is None:
                raise Error("%s: location change in a CIE" % where)
            (new,) = arg("set_loc" if op == "DW_CFA_set_loc" else "loc", rest, line)
            new = int(new, 16)
            if new < loc:
                raise Error("%s: location moves backwards" % where)
            emit(loc, new, st)
            loc = new
        elif op in ("DW_CFA_offset", "DW_CFA_offset_extended",
                    "DW_CFA_offset_extended_sf", "DW_CFA_GNU_negative_offset_extended"):
            r, off = arg("reg_at", rest, line)
            set_rule(st, int(r), ("c", int(off)))
        elif op in ("DW_CFA_val_offset", "DW_CFA_val_offset_sf"):
            r, off = arg("reg_is", rest, line)
            set_rule(st, int(r), ("v", int(off)))
        elif op in ("DW_CFA_restore", "DW_CFA_restore_extended"):
            if init is None:
                raise Error("%s: DW_CFA_restore in a CIE" % where)
            (r,) = arg("reg", rest, line)
            r = int(r)
            if r < NCOLS:
                if init.regs.get(r) is None:
                    st.regs.pop(r, None)
                else:
                    st.regs[r] = init.regs[r]
        elif op == "DW_CFA_undefined":
            (r,) = arg("reg", rest, line)
            set_rule(st, int(r), ("u",))
        elif op == "DW_CFA_same_value":
            (r,) = arg("reg", rest, line)
            set_rule(st, int(r), ("s",))
        elif op == "DW_CFA_register":
            r, r2 = arg("reg_in", rest, line)
            set_rule(st, int(r), ("r", int(r2)))
        elif op == "DW_CFA_expression":
            r, e = arg("reg_expr", rest, line)
            set_rule(st, int(r), ("e", e))
        elif op == "DW_CFA_val_expression":
            r, e = arg("reg_expr", rest, line)
            set_rule(st, int(r), ("ve", e))
        elif op == "DW_CFA_remember_state":
            stack.append(st.copy())
        elif op == "DW_CFA_restore_state":
            if not stack:
                raise Error("%s: DW_CFA_restore_state without remember" % where)
            s = stack.pop()
            st.cfa_kind, st.cfa_reg, st.cfa_off, st.cfa_expr, st.regs = (
                s.cfa_kind, s.cfa_reg, s.cfa_off, s.cfa_expr, s.regs)
        elif op in ("DW_CFA_def_cfa", "DW_CFA_def_cfa_sf"):
            r, off = arg("reg_ofs", rest, line)
            st.cfa_kind, st.cfa_reg, st.cfa_off = "reg", int(r), int(off)
        elif op == "DW_CFA_def_cfa_register":
            (r,) = arg("reg", rest, line)
            st.cfa_kind, st.cfa_reg = "reg", int(r)
        elif op in ("DW_CFA_def_cfa_offset", "DW_CFA_def_cfa_offset_sf"):
            # the offset only: an expression CFA stays an expression
            (off,) = arg("num", rest, line)
            st.cfa_off = int(off)
        elif op == "DW_CFA_def_cfa_expression":
            (e,) = arg("expr", rest, line)
            st.cfa_kind, st.cfa_expr = "expr", e
        elif op in ("DW_CFA_nop", "DW_CFA_GNU_args_size"):
            pass
        else:
            raise Error("%s: instruction this test does not know: %r"
                        % (where, line.strip()))
    return loc


def set_rule(st, r, rule):
    if r < NCOLS:
        st.regs[r] = rule
    # columns above 16 are outside ehelf's register model: ignored


# ---- readelf --debug-dump=frames-interp: readelf's own table -----------------

def parse_interp(text):
    """{(section, offset): (kind, rows)}; rows [(loc, cfa, [17 cells])]
    with "" for "u" and for columns readelf does not print."""
    out = {}
    section = None
    cur = None
    colmap = []
    for line in text.splitlines():
        m = SECTION_HDR_RE.match(line)
        if m:
            section, cur = m.group(1), None
            continue
        m = ENTRY_RE.match(line)
        if m:
            cur = []
            out[(section, int(m.group(1), 16))] = (m.group(4)[:3], cur)
            colmap = []
            continue
        if ZERO_RE.match(line):
            cur = None
            continue
        if cur is None:
            continue
        if line.startswith("   LOC "):
            colmap = []
            for name in line.split()[2:]:
                colmap.append(RA if name == "ra" else
                              GPR.index(name) if name in GPR[:16] else -1)
            continue
        if re.match(r"^[0-9a-f]{16} ", line):
            toks = line.split()
            loc, cfa, toks = int(toks[0], 16), toks[1], toks[2:]
            cells = []
            i = 0
            while i < len(toks):
                t = toks[i]
                # "r9 (r9)": a register rule, number then name
                if (re.match(r"^r\d+$", t) and i + 1 < len(toks)
                        and toks[i + 1].startswith("(")):
                    t = toks[i + 1][1:-1]
                    i += 1
                cells.append(t)
                i += 1
            if len(cells) != len(colmap):
                raise Error("unparsed interp row: %r" % line)
            row = [""] * NCOLS
            for c, v in zip(colmap, cells):
                if c >= 0:
                    row[c] = "" if v == "u" else v
            cur.append((loc, cfa, row))
    return out


def cell(rule):
    """A column's rule in readelf's notation."""
    return {"u": lambda: "u", "s": lambda: "s", "c": lambda: "c%+d" % rule[1],
            "v": lambda: "v%+d" % rule[1], "r": lambda: regname(rule[1]),
            "e": lambda: "exp", "ve": lambda: "vexp"}[rule[0]]()


def render(key):
    """A row identity in readelf's frames-interp notation."""
    cfa = key[0]
    if cfa[0] == "reg":
        c = "%s%+d" % (regname(cfa[1]), cfa[2])
    elif cfa[0] == "expr":
        c = "exp"
    else:
        c = "none"
    cells = ["" if r is None or r[0] == "u" else cell(r) for r in key[1:]]
    return c, cells


def row_text(rows, i):
    if i >= len(rows):
        return "(none)"
    lo, cfa, cells = rows[i]
    return "%x cfa=%s %s" % (lo, cfa, " ".join(
        "%s=%s" % ("ra" if c == RA else GPR[c], v) for c, v in enumerate(cells) if v))


def norm_push(lst, lo, cfa, cells):
    """tests/diff/cfi_diff.c's nrows_push: a later row at the same address
    wins, identical neighbours merge."""
    if lst and lst[-1][0] == lo:
        lst[-1] = (lo, cfa, cells)
    else:
        lst.append((lo, cfa, cells))
    if len(lst) >= 2 and lst[-2][1:] == lst[-1][1:]:
        lst.pop()


# ---- one file ------------------------------------------------------------------

CFA_BASES = ("rsp", "rbp", "reg", "expr", "none")
SAVED = ("c", "v", "r", "e", "ve")


def kind_of(rule):
    if rule is None:
        return "no_rule"
    return {"u": "undefined", "s": "same_value", "c": "offset", "v": "val_offset",
            "r": "register", "e": "expression", "ve": "val_expression"}[rule[0]]


def cfa_base(cfa):
    if cfa[0] == "reg":
        return "rsp" if cfa[1] == 7 else "rbp" if cfa[1] == 6 else "reg"
    return cfa[0]  # 'expr', 'none'


def analyse(path):
    info = elf_info(path)
    if info is None or not info["x86_64"]:
        return path, info
    if not info["eh_frame"] and not info["debug_frame"]:
        info["rows"] = 0
        return path, info
    where = path
    raw = run(["readelf", "--debug-dump=frames", "--debug-dump=no-follow-links",
               "-W", path])
    interp = parse_interp(run(["readelf", "--debug-dump=frames-interp",
                               "--debug-dump=no-follow-links", "-W", path]))
    entries = parse_entries(raw)
    cies = {}
    for e in entries:
        if e[1] == "CIE":
            cies[(e[0], e[2])] = e
    cie_state = {}

    def cie_init(section, off):
        k = (section, off)
        if k not in cie_state:
            if k not in cies:
                raise Error("%s: %s: no CIE at 0x%x" % (where, section, off))
            e = cies[k]
            aug = ""
            ra = None
            for line in e[6]:
                m = re.match(r'^\s+Augmentation:\s+"(.*)"', line)
                if m:
                    aug = m.group(1)
                m = re.match(r"^\s+Return address column:\s+(\d+)", line)
                if m:
                    ra = int(m.group(1))
            if ra != RA:
                raise Error("%s: CIE 0x%x: return address column %s, not 16"
                            % (where, off, ra))
            st = State()
            execute(e[6], st, None, 0, 0, None, "%s %s+0x%x" % (where, section, off))
            cie_state[k] = (st, "S" in aug)
        return cie_state[k]

    # an entry's size (its length field included): from its offset to the
    # next entry's, or to the end of the section
    ends = {".eh_frame": info["eh_frame"], ".debug_frame": info["debug_frame"]}
    starts = defaultdict(list)
    for e in entries:
        starts[e[0]].append(e[2])
    next_off = {}
    for sec, offs in starts.items():
        offs.sort()
        for a, b in zip(offs, offs[1:] + [ends.get(sec)]):
            next_off[(sec, a)] = b
    fde_sizes = defaultdict(lambda: [0, 0])
    fdes = 0
    fde_rows = Counter()
    kinds = [Counter() for _ in range(NCOLS + 1)]  # [0] the CFA, [1+i] column i
    rulesets = {}  # (signal, key) -> rows
    nrows = 0
    by_section = defaultdict(lambda: [0, 0])
    ops = Counter()
    mismatches = []
    for section, kind, off, cie, lo, hi, lines in entries:
        if kind != "FDE":
            continue
        if lo == 0:
            continue  # a discarded function: ehelf's reader skips it
        init, signal = cie_init(section, cie)
        st = init.copy()
        rows = []  # [lo, hi, key]

        def emit(a, b, s, rows=rows, hi=hi):
            b = min(b, hi)
            if a >= b:
                return
            k = s.key()
            if rows and rows[-1][1] == a and rows[-1][2] == k:
                rows[-1][1] = b
            else:
                rows.append([a, b, k])

        w = "%s %s+0x%x" % (where, section, off)
        loc = execute(lines, st, init, lo, hi, emit, w)
        emit(loc, hi, st)
        # cross-check with readelf's own interpretation
        if (section, off) not in interp:
            raise Error("%s: frames-interp has no such FDE" % w)
        theirs = []
        re_rows = interp[(section, off)][1]
        if not re_rows:
            # readelf prints no rows for an FDE without instructions: its
            # CIE's initial row (printed with the CIE) applies
            cie_rows = interp.get((section, cie), ("CIE", []))[1]
            if cie_rows:
                norm_push(theirs, lo, cie_rows[0][1], list(cie_rows[0][2]))
        for loc_, cfa_, cells_ in re_rows:
            if loc_ >= hi:
                break  # rows past the FDE's end do not apply
            norm_push(theirs, loc_, cfa_, list(cells_))
        ours = []
        for a, b, k in rows:
            c, cells = render(k)
            norm_push(ours, a, c, cells)
        if ours != theirs:
            n = next((i for i in range(max(len(ours), len(theirs)))
                      if i >= len(ours) or i >= len(theirs) or ours[i] != theirs[i]), 0)
            mismatches.append("%s row %d:\n    this script: %s\n    readelf:     %s"
                              % (w, n, row_text(ours, n), row_text(theirs, n)))
        # ehelf's figures
        fdes += 1
        fde_rows[min(len(rows), FDE_ROWS_CAP)] += 1
        size = next_off[(section, off)] - off
        b = max(size, 1).bit_length() - 1
        fde_sizes[b][0] += 1
        fde_sizes[b][1] += size
        by_section[section][0] += 1
        by_section[section][1] += len(rows)
        for a, b, k in rows:
            nrows += 1
            kinds[0][{"reg": "offset", "expr": "expression", "none": "no_rule"}[k[0][0]]] += 1
            for i in range(NCOLS):
                kinds[1 + i][kind_of(k[1 + i])] += 1
            rulesets[(signal, k)] = rulesets.get((signal, k), 0) + 1
            # DWARF operations of the row's expressions, by name
            for r in (k[0],) + k[1:]:
                if r is not None and r[0] in ("expr", "e", "ve"):
                    for op in re.findall(r"(?:^|; )(DW_OP_\w+)", r[-1]):
                        ops[op] += 1
    if mismatches:
        raise Error("the interpreter of this test disagrees with readelf's "
                    "frames-interp (%d FDEs):\n  %s" % (len(mismatches),
                                                        "\n  ".join(mismatches[:10])))
    info.update({
        "fdes": fdes,
        "rows": nrows,
        "rulesets": len(rulesets),
        "fde_rows": {str(k): v for k, v in fde_rows.items()},
        "rule_kinds": [{k: c.get(k, 0) for k in KINDS} for c in kinds],
        # the rule sets (as JSON text: their identity across ELFs) and
        # the rows using each
        "ruleset_rows": {json.dumps([s, k]): n for (s, k), n in rulesets.items()},
        "dwarf_ops": dict(ops),
        "fde_sizes": {str(b): v for b, v in fde_sizes.items()},
        "eh_frame_fdes": by_section[".eh_frame"][0],
        "eh_frame_rows": by_section[".eh_frame"][1],
        "debug_frame_fdes": by_section[".debug_frame"][0],
        "debug_frame_rows": by_section[".debug_frame"][1],
    })
    return path, info


# ---- compute --------------------------------------------------------------------

def cmd_compute(a):
    jobs = []
    for name, version, root in a.package:
        for d, dirs, files in os.walk(root):
            dirs.sort()
            for f in sorted(files):
                p = os.path.join(d, f)
                if os.path.islink(p) or not os.path.isfile(p):
                    continue
                jobs.append((name, version, root, p))
    with ProcessPoolExecutor(max_workers=a.jobs) as ex:
        results = dict(ex.map(analyse, [j[3] for j in jobs], chunksize=4))
    files = []
    for name, version, root, p in jobs:
        info = results[p]
        if info is None:
            continue  # not an ELF file
        rec = {"package": name, "version": version,
               "path": "/" + os.path.relpath(p, root), "disk": p}
        rec.update(info)
        if info.get("x86_64") and info.get("rows"):
            if a.store:
                b = info["build_id"]
                so = os.path.join(a.store, ".build-id", b[:2], b[2:] + ".so")
                rec["ehelf_bytes"] = os.path.getsize(so) if os.path.exists(so) else None
        files.append(rec)
    json.dump({"files": files}, open(a.out, "w"), indent=0, sort_keys=True)
    n = sum(1 for f in files if f.get("rows"))
    print("stats_figures: %d files, %d ELF files, %d with unwind tables, "
          "%d distinct build-IDs" % (len(jobs), len(files), n,
                                     len({f["build_id"] for f in files if f.get("rows")})))


# ---- the expected tables ----------------------------------------------------------

def load_figures(path):
    files = json.load(open(path))["files"]
    # ehelf-batch's built and present files: x86_64 ELFs whose tables have
    # rows (the others are ignored or no-cfi)
    built = [f for f in files if f.get("x86_64") and f.get("rows")]
    for f in built:
        if f.get("ehelf_bytes") is None:
            raise Error("%s: no eh_elf for build-ID %s in the store"
                        % (f["disk"], f["build_id"]))
    # one file per build-ID for the archive-wide tables
    by_id = {}
    for f in built:
        if f["build_id"] in by_id:
            g = by_id[f["build_id"]]
            if any(f[k] != g[k] for k in ("size", "text", "eh_frame", "rows")):
                # ehelf-stats takes the first file recorded for a build-ID,
                # which depends on the order ehelf-batch read them in
                raise Error("%s and %s share build-ID %s but differ: choose "
                            "another corpus" % (f["disk"], g["disk"], f["build_id"]))
            continue
        by_id[f["build_id"]] = f
    return files, built, list(by_id.values())


def union_rulesets(fs):
    """{ruleset JSON: [rows, eh_elfs using it]} over the files FS."""
    u = {}
    for f in fs:
        for k, n in f["ruleset_rows"].items():
            e = u.setdefault(k, [0, 0])
            e[0] += n
            e[1] += 1
    return u


def ruleset_attrs(k):
    signal, key = json.loads(k)
    cfa = key[0]
    saved = sum(1 for r in key[1:1 + 16] if r is not None and r[0] in SAVED)
    return cfa_base(cfa), saved


def ruleset_text(k):
    """A rule set as ruleset_texts writes it: readelf's notation, "cfa=..."
    then the columns with a rule, " signal" for a signal frame's."""
    signal, key = json.loads(k)
    cfa = key[0]
    out = ["cfa=" + ("%s%+d" % (regname(cfa[1]), cfa[2]) if cfa[0] == "reg" else
                     "exp" if cfa[0] == "expr" else "u")]
    for i, r in enumerate(key[1:]):
        if r is None:
            continue
        out.append("%s=%s" % ("ra" if i == RA else GPR[i], cell(r)))
    if signal:
        out.append("signal")
    return " ".join(out)


def has_expression(k):
    signal, key = json.loads(k)
    return key[0][0] == "expr" or any(r is not None and r[0] in ("e", "ve") for r in key[1:])


def pct(a, b):
    """100 a / b as sqlite computes it (100.0 * a / b) and ehelf-stats
    prints it (%.6g): compared exactly after the same rounding."""
    return float("%.6g" % (100.0 * a / b)) if b else None


def ratio(a, b):
    return float("%.6g" % (1.0 * a / b)) if b else None


def nearest_rank(values, p):
    v = sorted(values)
    return v[(len(v) * p + 99) // 100 - 1] if v else None


SIZE_CLASSES = [("all files", 0, None), ("< 1 KiB", 0, 1024), ("1-4 KiB", 1024, 4096),
                ("4-64 KiB", 4096, 65536), ("64-256 KiB", 65536, 262144),
                (">= 256 KiB", 262144, None)]


def expected(figfile):
    files, built, uniq = load_figures(figfile)
    t = {}
    # packages: each package's own built and present files, a build-ID
    # shipped twice counted twice; rulesets: distinct rule sets of its ELFs
    pk = {}
    for f in files:
        pk.setdefault((f["package"], f["version"]), {
            "elfs": 0, "elf_bytes": 0, "text_bytes": 0, "eh_frame_bytes": 0,
            "eh_frame_hdr_bytes": 0, "debug_frame_bytes": 0, "ehelf_bytes": 0,
            "fdes": 0, "rows": 0, "status": "done", "_files": []})
    for f in built:
        p = pk[(f["package"], f["version"])]
        p["elfs"] += 1
        p["elf_bytes"] += f["size"]
        p["text_bytes"] += f["text"]
        p["eh_frame_bytes"] += f["eh_frame"]
        p["eh_frame_hdr_bytes"] += f["eh_frame_hdr"]
        p["debug_frame_bytes"] += f["debug_frame"]
        p["ehelf_bytes"] += f["ehelf_bytes"]
        p["fdes"] += f["fdes"]
        p["rows"] += f["rows"]
        p["_files"].append(f)
    for p in pk.values():
        fs = p.pop("_files")
        p["rulesets"] = len(union_rulesets(fs)) if fs else None
    t["packages"] = pk
    # the top packages by a measure (ties: by name and version)
    top = {}
    for tid, col, val, where in (
            ("top_packages_eh_frame_bytes", "eh_frame_bytes", lambda p: p["eh_frame_bytes"],
             lambda p: p["eh_frame_bytes"] > 0),
            ("top_packages_ehelf_bytes", "ehelf_bytes", lambda p: p["ehelf_bytes"],
             lambda p: p["ehelf_bytes"] > 0),
            ("top_packages_rows", "rows", lambda p: p["rows"], lambda p: p["rows"] > 0),
            ("top_packages_rulesets", "rulesets", lambda p: p["rulesets"],
             lambda p: (p["rulesets"] or 0) > 0),
            ("top_packages_ratio", "ratio",
             lambda p: 1.0 * p["ehelf_bytes"] / (p["eh_frame_bytes"] + p["eh_frame_hdr_bytes"]),
             lambda p: p["eh_frame_bytes"] + p["eh_frame_hdr_bytes"] >= 4096)):
        ranked = sorted(((val(p), k) for k, p in pk.items() if where(p)),
                        key=lambda x: (-x[0], x[1]))
        rows = {}
        for i, (v, k) in enumerate(ranked):
            r = {"package": k[0], "version": k[1], "elfs": pk[k]["elfs"],
                 col: float("%.6g" % v) if col == "ratio" else v}
            if col == "ratio":
                r["ehelf_bytes"] = pk[k]["ehelf_bytes"]
                r["eh_tables_bytes"] = pk[k]["eh_frame_bytes"] + pk[k]["eh_frame_hdr_bytes"]
            rows[(i + 1,)] = r
        top[tid] = rows
    t["top_packages"] = top
    total_rows = sum(f["rows"] for f in uniq)
    # rule kinds per column, summed over distinct eh_elfs
    rk = {}
    for i, col in enumerate(COLUMN_NAMES):
        rk[(col,)] = {k: sum(f["rule_kinds"][i][k] for f in uniq) for k in KINDS}
        rk[(col,)]["rows"] = total_rows
    t["rule_kinds"] = rk
    t["rule_kinds_percent"] = {c: dict({k: pct(v[k], v["rows"]) for k in KINDS}, rows=v["rows"])
                               for c, v in rk.items()}
    fr = Counter()
    for f in uniq:
        for k, v in f["fde_rows"].items():
            fr[int(k)] += v
    nf = sum(fr.values())
    t["fde_rows"] = {(k,): {"fdes": v, "label": ">= 64" if k >= 64 else str(k),
                            "percent": pct(v, nf)} for k, v in fr.items()}
    fs = defaultdict(lambda: [0, 0])
    for f in uniq:
        for b, (n, nb) in f["fde_sizes"].items():
            fs[int(b)][0] += n
            fs[int(b)][1] += nb
    allb = sum(v[1] for v in fs.values())
    t["fde_sizes"] = {(b,): {"bytes_range": "%d-%d" % (1 << b, (1 << (b + 1)) - 1),
                             "fdes": n, "bytes": nb, "fde_percent": pct(n, nf),
                             "byte_percent": pct(nb, allb)}
                      for b, (n, nb) in fs.items()}
    # rule sets archive-wide (distinct across eh_elfs), by CFA base, by
    # number of saved registers, by CFA offset
    u = union_rulesets(uniq)
    cb = {b: {"rulesets": 0, "rows": 0} for b in CFA_BASES}
    sv = {}
    offs = {"rsp": Counter(), "rbp": Counter()}
    for k, (rows, n) in u.items():
        b, saved = ruleset_attrs(k)
        cb[b]["rulesets"] += 1
        cb[b]["rows"] += rows
        s = sv.setdefault(saved, {"rulesets": 0, "rows": 0})
        s["rulesets"] += 1
        s["rows"] += rows
        if b in offs:
            offs[b][json.loads(k)[1][0][2]] += rows
    for v in list(cb.values()) + list(sv.values()):
        v["percent"] = pct(v["rows"], total_rows)
    t["cfa_base"] = {(b,): v for b, v in cb.items()}
    t["saved_regs"] = {(k,): v for k, v in sv.items()}
    co = {}
    for b, c in offs.items():
        ranked = sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))
        for off, rows in ranked[:12]:
            co[(b, "%s%+d" % (b, off))] = {"offset": off, "rows": rows,
                                           "percent": pct(rows, total_rows)}
        if len(ranked) > 12:
            rows = sum(r for o, r in ranked[12:])
            co[(b, b + "+other")] = {"offset": None, "rows": rows,
                                     "percent": pct(rows, total_rows)}
    t["cfa_offset"] = co
    # all files once per build-ID, then by .eh_frame + .eh_frame_hdr size
    sz = {}
    for name, lo, hi in SIZE_CLASSES:
        fs = [f for f in uniq if f["eh_frame"] + f["eh_frame_hdr"] >= lo and
              (hi is None or f["eh_frame"] + f["eh_frame_hdr"] < hi)]
        v = {"files": len(fs)}
        for col, key in (("elf_bytes", "size"), ("text_bytes", "text"),
                         ("eh_frame_bytes", "eh_frame"), ("eh_frame_hdr_bytes", "eh_frame_hdr"),
                         ("debug_frame_bytes", "debug_frame"), ("ehelf_bytes", "ehelf_bytes")):
            v[col] = sum(f[key] for f in fs)
        v["ehelf_per_eh_frame"] = ratio(v["ehelf_bytes"], v["eh_frame_bytes"] + v["eh_frame_hdr_bytes"])
        v["ehelf_percent_of_elf"] = pct(v["ehelf_bytes"], v["elf_bytes"])
        sz[(name,)] = v
    t["sizes"] = sz
    # FDEs and rows by section
    se = {}
    for sec, key in ((".eh_frame", "eh_frame"), (".debug_frame", "debug_frame")):
        se[(sec,)] = {"files": sum(1 for f in uniq if f[key + "_fdes"]),
                      "fdes": sum(f[key + "_fdes"] for f in uniq),
                      "rows": sum(f[key + "_rows"] for f in uniq)}
    for v in se.values():
        v["fde_percent"] = pct(v["fdes"], sum(x["fdes"] for x in se.values()))
        v["row_percent"] = pct(v["rows"], sum(x["rows"] for x in se.values()))
    t["sections"] = se
    # DWARF operations by name
    ops = Counter()
    opfiles = Counter()
    for f in uniq:
        for op, n in f["dwarf_ops"].items():
            ops[op] += n
            opfiles[op] += 1
    nops = sum(ops.values())
    t["dwarf_ops"] = {(op,): {"uses": n, "files": opfiles[op], "percent": pct(n, nops)}
                      for op, n in ops.items()}
    # rule sets: per file, archive-wide, the fewest covering P % of rows
    ranked = sorted((rows for rows, n in u.values()), reverse=True)
    cover = {}
    for name, permille in (("50", 500), ("90", 900), ("99", 990), ("99.9", 999),
                           ("100", 1000)):
        c = 0
        for i, rows in enumerate(ranked):
            c += rows
            if c * 1000 >= total_rows * permille:
                cover["rulesets_for_%s_percent_rows" % name] = i + 1
                break
    per = [f["rulesets"] for f in uniq]
    t["rulesets"] = dict({
        "files": len(uniq),
        "rulesets_per_file_median": nearest_rank(per, 50),
        "rulesets_per_file_p90": nearest_rank(per, 90),
        "rulesets_per_file_max": max(per),
        "distinct_rulesets": len(u),
        "rows": total_rows}, **cover)
    exprows = sum(rows for k, (rows, n) in u.items() if has_expression(k))
    t["coverage"] = {
        "rows": total_rows,
        "expression_rows": exprows,
        "expression_percent": pct(exprows, total_rows),
        "expression_rules": sum(f["rule_kinds"][i][k] for f in uniq
                                for i in range(NCOLS + 1)
                                for k in ("expression", "val_expression")),
        "rulesets": sum(per),
        "distinct_rulesets": len(u),
    }
    t["top_rulesets"] = sorted(((ruleset_text(k), rows, n) for k, (rows, n) in u.items()),
                               key=lambda x: -x[1])
    t["total_rows"] = total_rows
    eh = sum(f["eh_frame"] for f in uniq) + sum(f["eh_frame_hdr"] for f in uniq)
    ignored = sum(1 for f in files if not f.get("x86_64"))
    t["summary"] = {
        "packages": len(pk),
        "packages_done": len(pk),
        "packages_failed": 0,
        "elf_files": len(files),
        # a fresh store: the first file of a build-ID is built, the others
        # present
        "elf_files_built": len(uniq),
        "elf_files_present": len(built) - len(uniq),
        "elf_files_no_cfi": len(files) - len(built) - ignored,
        "elf_files_ignored": ignored,
        "elf_files_failed": 0,
        "eh_elfs": len(uniq),
        "eh_elfs_of_files": len(uniq),
        "eh_elfs_in_rule_tables": len(uniq),
        "eh_elfs_without_statistics": 0,
        "eh_elfs_without_files": 0,
        "fdes": sum(f["fdes"] for f in uniq),
        "rows": total_rows,
        "elf_bytes": sz[("all files",)]["elf_bytes"],
        "text_bytes": sz[("all files",)]["text_bytes"],
        "eh_frame_bytes": sz[("all files",)]["eh_frame_bytes"],
        "eh_frame_hdr_bytes": sz[("all files",)]["eh_frame_hdr_bytes"],
        "debug_frame_bytes": sz[("all files",)]["debug_frame_bytes"],
        "ehelf_bytes": sz[("all files",)]["ehelf_bytes"],
        "ehelf_per_eh_frame": ratio(sz[("all files",)]["ehelf_bytes"], eh),
        "distinct_rulesets": len(u),
        "rows_with_statistics": total_rows,
    }
    t["_files"] = (files, built, uniq)
    return t


# ---- compare -------------------------------------------------------------------------

class Report:
    def __init__(self):
        self.fails = 0
        self.oks = 0

    def ok(self, msg):
        print("  ok: %s" % msg)
        self.oks += 1

    def bad(self, msg):
        print("  FAIL: %s" % msg, file=sys.stderr)
        self.fails += 1


def table(stats, tid, rep):
    for t in stats["tables"]:
        if t["id"] == tid:
            cols = [c["name"] for c in t["columns"]]
            return cols, [dict(zip(cols, r)) for r in t["rows"]]
    rep.bad("ehelf-stats --json has no table %r" % tid)
    return None, None


def compare_keyed(rep, stats, tid, keycols, want, what, zero_ok=True):
    """Table TID's rows keyed by KEYCOLS against WANT {key tuple: {col: v}}:
    every expected column must be there, every value equal."""
    cols, rows = table(stats, tid, rep)
    if cols is None:
        return
    need = sorted({c for v in want.values() for c in v} | set(keycols))
    missing = [c for c in need if c not in cols]
    if missing:
        rep.bad("table %s has no column %s (columns: %s)" % (tid, ", ".join(missing), ", ".join(cols)))
        return
    got = {}
    for r in rows:
        k = tuple(r[c] for c in keycols)
        if k in got:
            rep.bad("table %s: two rows for %s" % (tid, k))
        got[k] = r
    diffs = []
    for k, v in sorted(want.items(), key=lambda kv: str(kv[0])):
        r = got.get(k)
        if r is None:
            if zero_ok and all(x == 0 for x in v.values()):
                continue
            diffs.append("%s: no row (expected %s)" % (k, v))
            continue
        for c, x in v.items():
            if r[c] != x:
                diffs.append("%s %s: ehelf-stats %s, readelf %s" % (k, c, r[c], x))
    for k, r in got.items():
        if k not in want and any(r[c] not in (0, None) for c in need if c not in keycols):
            diffs.append("%s: a row readelf has nothing for: %s" % (k, r))
    unchecked = [c for c in cols if c not in need]
    if diffs:
        rep.bad("table %s (%s): %d differences:\n      %s" % (tid, what, len(diffs), "\n      ".join(diffs[:25])))
    else:
        rep.ok("table %s (%s): %d rows x %d columns equal%s" % (
            tid, what, len(want), len(need) - len(keycols),
            "; not checked: " + ", ".join(unchecked) if unchecked else ""))


def compare_row(rep, stats, tid, want, what):
    """A one-row table, or the first row of one."""
    cols, rows = table(stats, tid, rep)
    if cols is None:
        return
    if not rows:
        rep.bad("table %s is empty" % tid)
        return
    r = rows[0]
    missing = [c for c in want if c not in cols]
    if missing:
        rep.bad("table %s has no column %s (columns: %s)" % (tid, ", ".join(missing), ", ".join(cols)))
        return
    diffs = ["%s: ehelf-stats %s, readelf %s" % (c, r[c], x) for c, x in want.items() if r[c] != x]
    unchecked = [c for c in cols if c not in want]
    if diffs:
        rep.bad("table %s (%s): %s" % (tid, what, "; ".join(diffs)))
    else:
        rep.ok("table %s (%s): %d figures equal%s" % (
            tid, what, len(want), "; not checked: " + ", ".join(unchecked) if unchecked else ""))


def compare_top(rep, stats, want, total, top):
    """top_rulesets: the rule sets with the most rows.  Ties are ordered by
    ehelf's fingerprint, which this test does not compute, so: every rule
    set with more rows than the table's last must be in it, and the last
    ones' (text, rows, files) must be among those of that many rows."""
    cols, rows = table(stats, "top_rulesets", rep)
    if cols is None:
        return
    need = ["rank", "text", "rows", "files", "percent", "cumulative_percent"]
    missing = [c for c in need if c not in cols]
    if missing or not rows:
        rep.bad("table top_rulesets: no column %s, or no row" % ", ".join(missing))
        return
    got = Counter((r["text"], r["rows"], r["files"]) for r in rows)
    last = rows[-1]["rows"]
    above = Counter(x for x in want if x[1] > last)
    at = Counter(x for x in want if x[1] == last)
    diffs = []
    for x, n in above.items():
        if got[x] < n:
            diffs.append("missing (text, rows, files) %s" % (x,))
    for x, n in got.items():
        if x[1] > last and above[x] < n or x[1] == last and at[x] < n:
            diffs.append("(text, rows, files) %s is not among readelf's rule sets with "
                         "that many rows" % (x,))
    if len(rows) != min(len(want), top):
        diffs.append("%d rows, not the %d asked for (--top %d, %d rule sets)"
                     % (len(rows), min(len(want), top), top, len(want)))
    c = 0
    for i, r in enumerate(rows):
        c += r["rows"]
        if r["rank"] != i + 1 or r["percent"] != pct(r["rows"], total) or \
                r["cumulative_percent"] != pct(c, total):
            diffs.append("rank %s: rank, percent or cumulative_percent %s %s %s, expected "
                         "%d %s %s" % (r["rank"], r["rank"], r["percent"],
                                       r["cumulative_percent"], i + 1, pct(r["rows"], total),
                                       pct(c, total)))
    if diffs:
        rep.bad("table top_rulesets: %d differences:\n      %s" % (len(diffs), "\n      ".join(diffs[:15])))
    else:
        rep.ok("table top_rulesets (the commonest rule sets): %d rows, their text, rows, "
               "files and percentages equal (rule sets of %d rows and more)" % (len(rows), last))


def compare_figures(rep, stats, tid, want, what):
    """A figure/value/unit table: the figures named in WANT."""
    cols, rows = table(stats, tid, rep)
    if cols is None:
        return
    got = {r.get("figure"): r.get("value") for r in rows}
    diffs = []
    for name, x in want.items():
        if name not in got:
            diffs.append("no figure %r (figures: %s)" % (name, ", ".join(map(str, got))))
        elif got[name] != x:
            diffs.append("%s: ehelf-stats %s, readelf %s" % (name, got[name], x))
    if diffs:
        rep.bad("table %s (%s): %s" % (tid, what, "; ".join(diffs)))
    else:
        rep.ok("table %s (%s): %s" % (tid, what, ", ".join("%s %s" % kv for kv in want.items())))


def compare_db(rep, db, exp):
    """ehelf-batch's own per-file records against the figures: names the
    file (and the figure) behind any difference in the tables."""
    import sqlite3
    files, built, uniq = exp["_files"]
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    diffs = []
    seen = set()
    for f in files:
        r = con.execute(
            "SELECT f.size, f.text_bytes, f.eh_frame_bytes, f.eh_frame_hdr_bytes, "
            "f.debug_frame_bytes, f.status, f.build_id, f.ehelf_bytes FROM files f "
            "JOIN packages p ON p.id = f.package_id WHERE p.name = ? AND p.version = ? "
            "AND f.path = ?", (f["package"], f["version"], f["path"])).fetchone()
        where = "%s %s" % (f["package"], f["path"])
        if r is None:
            diffs.append("%s: not in the database" % where)
            continue
        if not f.get("x86_64"):
            if r[5] != "ignored":
                diffs.append("%s: status %s, not an x86_64 executable or shared object" % (where, r[5]))
            continue
        mine = (f["size"], f["text"], f["eh_frame"], f["eh_frame_hdr"], f["debug_frame"])
        if tuple(r[:5]) != mine:
            diffs.append("%s: sizes (file, .text, .eh_frame, .eh_frame_hdr, .debug_frame) "
                         "ehelf-batch %s, readelf %s" % (where, tuple(r[:5]), mine))
        if not f.get("rows"):
            if r[5] != "no-cfi":
                diffs.append("%s: status %s, but no unwind rows" % (where, r[5]))
            continue
        if r[5] not in ("built", "present"):
            diffs.append("%s: status %s" % (where, r[5]))
            continue
        if r[6] != f["build_id"]:
            diffs.append("%s: build-ID %s, readelf %s" % (where, r[6], f["build_id"]))
            continue
        if r[7] != f["ehelf_bytes"]:
            diffs.append("%s: ehelf_bytes %s, the store's file %s" % (where, r[7], f["ehelf_bytes"]))
        if r[6] in seen:
            continue
        seen.add(r[6])
        e = con.execute("SELECT fdes, rows, unique_rows, eh_frame_fdes, eh_frame_rows, "
                        "debug_frame_fdes, debug_frame_rows FROM eh_elfs WHERE build_id = ?",
                        (r[6],)).fetchone()
        mine = (f["fdes"], f["rows"], f["rulesets"], f["eh_frame_fdes"], f["eh_frame_rows"],
                f["debug_frame_fdes"], f["debug_frame_rows"])
        if e is None or tuple(e) != mine:
            diffs.append("%s: (fdes, rows, rule sets, .eh_frame fdes/rows, .debug_frame "
                         "fdes/rows) ehelf-batch %s, readelf %s" % (where, e, mine))
        for i, col in enumerate([-1] + list(range(NCOLS))):
            k = con.execute("SELECT " + ", ".join(KINDS) + " FROM rule_kinds WHERE "
                            "build_id = ? AND column_no = ?", (r[6], col)).fetchone()
            k = tuple(k) if k else (0,) * len(KINDS)
            mk = tuple(f["rule_kinds"][i][x] for x in KINDS)
            if k != mk:
                diffs.append("%s: rule kinds of %s (%s) ehelf-batch %s, readelf %s"
                             % (where, COLUMN_NAMES[i], " ".join(KINDS), k, mk))
        got = dict(con.execute("SELECT rows_per_fde, fdes FROM fde_rows WHERE build_id = ?",
                               (r[6],)).fetchall())
        if got != {int(k): v for k, v in f["fde_rows"].items()}:
            diffs.append("%s: FDEs by rows ehelf-batch %s, readelf %s" % (where, got, f["fde_rows"]))
        got = {b: [n, nb] for b, n, nb in con.execute(
            "SELECT log2, fdes, bytes FROM fde_sizes WHERE build_id = ?", (r[6],))}
        if got != {int(b): v for b, v in f["fde_sizes"].items()}:
            diffs.append("%s: FDEs by log2 size [FDEs, bytes] ehelf-batch %s, readelf %s"
                         % (where, got, f["fde_sizes"]))
        got = dict(con.execute("SELECT name, uses FROM dwarf_ops WHERE build_id = ?", (r[6],)))
        if got != f["dwarf_ops"]:
            diffs.append("%s: DWARF operations ehelf-batch %s, readelf %s"
                         % (where, got, f["dwarf_ops"]))
        got = {(b, s): (n, c) for b, s, n, c in con.execute(
            "SELECT cfa_base, saved_regs, sum(rows), count(*) FROM rulesets WHERE "
            "build_id = ? GROUP BY 1, 2", (r[6],))}
        mine = Counter()
        mc = Counter()
        for k, n in f["ruleset_rows"].items():
            a = ruleset_attrs(k)
            mine[a] += n
            mc[a] += 1
        mine = {a: (mine[a], mc[a]) for a in mine}
        if got != mine:
            diffs.append("%s: rule sets by (CFA base, saved registers): (rows, rule sets) "
                         "ehelf-batch %s, readelf %s" % (where, sorted(got.items()), sorted(mine.items())))
    if diffs:
        rep.bad("ehelf-batch's per-file records: %d differences:\n      %s"
                % (len(diffs), "\n      ".join(diffs[:25])))
    else:
        rep.ok("ehelf-batch's records of %d files (%d eh_elfs) equal readelf's figures: sizes, "
               "status, build-ID, FDEs, rows, rule sets, rule kinds, FDEs by rows and by size, "
               "DWARF operations, rule sets by CFA base and saved registers" % (len(files), len(seen)))


def cmd_compare(a):
    exp = expected(a.figures)
    stats = json.load(open(a.stats))
    rep = Report()
    if stats.get("ehelf_stats") != 1 or stats.get("schema_version") != 3:
        rep.bad("ehelf-stats --json: ehelf_stats %r, schema_version %r (expected 1 and 3)"
                % (stats.get("ehelf_stats"), stats.get("schema_version")))
    if a.db:
        compare_db(rep, a.db, exp)
    compare_figures(rep, stats, "summary", exp["summary"], "archive-wide figures")
    compare_keyed(rep, stats, "packages", ["name", "version"], exp["packages"],
                  "per package: its files with unwind tables")
    compare_keyed(rep, stats, "sizes", ["class"], exp["sizes"],
                  "all files once per build-ID, and by .eh_frame size")
    compare_keyed(rep, stats, "rule_kinds", ["column"], exp["rule_kinds"],
                  "rows by rule kind per column")
    compare_keyed(rep, stats, "rule_kinds_percent", ["column"], exp["rule_kinds_percent"],
                  "rule kinds per column in percent of rows")
    for tid, want in sorted(exp["top_packages"].items()):
        n = min(a.top, len(want))
        compare_keyed(rep, stats, tid, ["rank"], {k: v for k, v in want.items() if k[0] <= n},
                      "the top %d packages of %d" % (n, len(want)))
    compare_keyed(rep, stats, "fde_rows", ["rows_per_fde"], exp["fde_rows"],
                  "FDEs by rows")
    compare_keyed(rep, stats, "fde_sizes", ["log2"], exp["fde_sizes"],
                  "FDEs by size in bytes")
    compare_keyed(rep, stats, "sections", ["section"], exp["sections"],
                  "FDEs and rows by section")
    compare_keyed(rep, stats, "cfa_base", ["base"], exp["cfa_base"],
                  "rule sets and their rows by CFA base")
    compare_keyed(rep, stats, "cfa_offset", ["base", "cfa"], exp["cfa_offset"],
                  "rows by CFA offset")
    compare_keyed(rep, stats, "saved_regs", ["saved_regs"], exp["saved_regs"],
                  "rule sets and their rows by saved registers")
    compare_keyed(rep, stats, "dwarf_ops", ["name"], exp["dwarf_ops"],
                  "DWARF operations in the rows' expressions")
    compare_figures(rep, stats, "rulesets", exp["rulesets"], "rule sets per file and archive-wide")
    compare_row(rep, stats, "coverage", exp["coverage"], "rows and rule sets")
    compare_top(rep, stats, exp["top_rulesets"], exp["total_rows"], a.top)
    print("stats-figures: %d passed, %d failed" % (rep.oks, rep.fails))
    return min(rep.fails, 100)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compute")
    c.add_argument("--package", nargs=3, action="append", required=True,
                   metavar=("NAME", "VERSION", "DIR"))
    c.add_argument("--store")
    c.add_argument("-j", "--jobs", type=int, default=2)
    c.add_argument("out")
    c = sub.add_parser("compare")
    c.add_argument("--db", help="ehelf-batch's database: its per-file records "
                   "are checked too, naming the file behind a difference")
    c.add_argument("--top", type=int, default=20,
                   help="the --top N ehelf-stats ran with (default 20)")
    c.add_argument("figures")
    c.add_argument("stats")
    a = ap.parse_args()
    try:
        if a.cmd == "compute":
            cmd_compute(a)
        else:
            sys.exit(cmd_compare(a))
    except Error as e:
        print("stats_figures: %s" % e, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
