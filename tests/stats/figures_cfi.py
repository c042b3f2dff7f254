"""figures_cfi.py - for stats_figures.py: the small DWARF CFI
interpreter (DWARF 5 section 6.4) that runs readelf's decoded CIE and FDE
instructions into rows, readelf's own table (`--debug-dump=frames-interp`)
parsed for the cross-check, and both written in readelf's notation."""
import re

from figures_elf import (ENTRY_RE, Error, GPR, NCOLS, RA, SECTION_HDR_RE,
    ZERO_RE, regname)


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
