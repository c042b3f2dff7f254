#!/usr/bin/env python3
"""check_outputs.py - ehelf-stats' four outputs of one database agree.

Usage: check_outputs.py OUT.json OUT.txt CSV_DIR OUT.html [--top N]
                        [--expect-rows] [--expect-text TEXT ...]

Parses the JSON (numbers kept as the literal text ehelf-stats wrote), the
text tables (sliced by their lines of dashes), the CSV files (RFC 4180) and
the HTML page (data-value of number cells, the text of text cells), and
checks, table by table and cell by cell, the formatting contract of
corpus-stats/render_text.h, render_csv.h, render_json.h, render_html.h:

  JSON  integers exact, reals %.6g, null;
  CSV   the same text as JSON's literal, null empty;
  text  integers exact, reals %.4g, null "-";
  HTML  data-value = JSON's literal, text cells = JSON's strings.

Also: the table ids of the contract with their columns, a non-empty method
and title everywhere, --top bounding the top tables, plots naming real
columns, and a self-contained page (no script, no external reference).
--expect-text TEXT: TEXT (an odd package name, say) appears, unchanged, in
some text cell of every output.  Prints one line per failure; exits 1 if
any.
"""
import argparse
import csv
import io
import html.parser
import json
import math
import os
import re
import sys

# the contract with the test writer: ids and the columns each must have
REQUIRED = {
    "summary": ["figure", "value", "unit"],
    "sizes": ["class", "files", "elf_bytes", "text_bytes", "eh_frame_bytes",
              "eh_frame_hdr_bytes", "debug_frame_bytes", "ehelf_bytes",
              "ehelf_per_eh_frame", "ehelf_percent_of_elf"],
    "ratio_histogram": ["files"],
    "rule_kinds": ["column", "no_rule", "undefined", "same_value", "offset",
                   "val_offset", "register", "expression", "val_expression"],
    "coverage": ["rows", "unsupported_rows", "expression_rows"],
    "dwarf_ops": ["opcode", "name", "uses", "files"],
    "fde_rows": ["rows_per_fde", "fdes"],
    "fde_sizes": ["fdes", "bytes"],
    "cfa_base": ["base", "rows", "percent"],
    "cfa_offset": ["rows"],
    "saved_regs": ["saved_regs", "rows"],
    "rulesets": ["figure", "value", "unit"],
    "top_rulesets": ["text", "rows", "files", "cumulative_percent"],
    "summaries": ["rows", "summarised_rows"],
    "sections": ["section", "fdes", "rows"],
    "unsupported": ["reason", "rulesets", "rows", "files", "example"],
    "compile_time": ["figure", "value", "unit"],
    "packages": ["name", "version", "elfs", "elf_bytes", "text_bytes",
                 "eh_frame_bytes", "eh_frame_hdr_bytes", "debug_frame_bytes",
                 "ehelf_bytes", "fdes", "rows", "rulesets"],
    "alternatives": ["bytes"],
    "conflicts": ["build_id", "package", "version", "path", "cfi_sha256"],
}
for m in ("eh_frame_bytes", "ehelf_bytes", "ratio", "rows", "rulesets",
          "compile_ms"):
    REQUIRED["top_packages_" + m] = ["package"]
PLOTTED = {"ratio_histogram", "fde_rows", "fde_sizes", "saved_regs"}
UNITS = {"count", "bytes", "ratio", "percent", "ms", "text", "mixed", "id"}
RULE_COLUMNS = ["cfa", "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp"] + \
    ["r%d" % i for i in range(8, 16)] + ["ra"]

failures = []


def fail(msg):
    failures.append(msg)
    print("  FAIL: " + msg, file=sys.stderr)


class Lit:
    """A JSON number kept as the text ehelf-stats wrote."""
    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return "Lit(%s)" % self.text


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_int=Lit, parse_float=Lit,
                         parse_constant=lambda c: fail("JSON constant " + c))


def is_int_text(s):
    return re.fullmatch(r"-?[0-9]+", s) is not None


def check_json_literal(tid, i, k, lit):
    """JSON's number format: an integer, or C's %.6g of some real."""
    s = lit.text
    if is_int_text(s):
        return
    v = float(s)
    if not math.isfinite(v) or "%.6g" % v != s:
        fail("%s row %d col %d: JSON real %s is not %%.6g" % (tid, i, k, s))


def text_agrees(tc, jc):
    """Whether the text cell TC shows the JSON cell JC: null "-", text the
    same (trimmed), an integer exact; a real as C's %.4g of the value JSON
    shows with %.6g (both from one double: TC must be a %.4g form within
    half a unit of its 4th digit of JSON's value, as rounding twice may
    differ in the last digit).  A number printed like an integer may be an
    integer cell or a real one: either reading is accepted."""
    if jc is None:
        return tc == "-"
    if isinstance(jc, str):
        return tc == jc.strip()
    s = jc.text
    if is_int_text(s) and tc == s:
        return True
    try:
        t, j = float(tc), float(s)
    except ValueError:
        return False
    if "%.4g" % t != tc:
        return False
    if j == 0:
        return t == 0
    unit = 10 ** (math.floor(math.log10(abs(j))) - 3)
    return abs(t - j) <= unit * 0.5 * 1.0001 + abs(j) * 1e-9


def csv_of_cell(c):
    if c is None:
        return ""
    if isinstance(c, Lit):
        return c.text
    # a text a spreadsheet would read as a formula: after a "'" (OWASP)
    if c[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + c
    return c


def parse_text(path):
    """{id: (title, method, columns, rows)} from the text output."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    tables = {}
    i = 0
    while i < len(lines):
        m = re.fullmatch(r"== (.*) \[([a-z0-9_]+)\] ==", lines[i])
        if not m:
            i += 1
            continue
        title, tid = m.group(1), m.group(2)
        method = lines[i + 1]
        if not method.startswith("method: "):
            fail("text %s: no method line" % tid)
        method = method[len("method: "):]
        if lines[i + 2] != "":
            fail("text %s: no blank line after the method" % tid)
        header, dashes = lines[i + 3], lines[i + 4]
        spans = [(mm.start(), mm.end()) for mm in re.finditer(r"-+", dashes)]
        if not re.fullmatch(r"-+(  -+)*", dashes):
            fail("text %s: bad line of dashes %r" % (tid, dashes))
        cut = lambda line: [line[a:b].strip() for a, b in spans]
        cols = cut(header)
        rows = []
        i += 5
        while i < len(lines) and lines[i] != "":
            if lines[i] != "(no rows)":
                if lines[i] != lines[i].rstrip():
                    fail("text %s: trailing spaces" % tid)
                # a cell never spills into the two-space gap
                for a, b in spans[1:]:
                    if a >= 2 and lines[i][a - 2:a].strip():
                        fail("text %s: cell over a column gap: %r" % (tid, lines[i]))
                rows.append(cut(lines[i]))
            i += 1
        tables[tid] = (title, method, cols, rows)
    return tables


class Page(html.parser.HTMLParser):
    """The tables of the HTML page: {id: [[cell, ...], ...]} with cells
    ("num", data-value) / ("null", None) / ("text", text); and what a
    self-contained page must not have."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.heads, self.sections, self.bad = {}, {}, set(), []
        self.table = None
        self.row = None
        self.cell = None
        self.in_th = False
        self.in_unit = False
        self.svgs = 0
        self.stack = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "iframe", "object", "embed", "link", "img"):
            self.bad.append("<%s>" % tag)
        for k, v in attrs:
            if k.startswith("on"):
                self.bad.append("event handler %s" % k)
            if k in ("href", "src") and v and not v.startswith("#"):
                self.bad.append("external reference %s=%s" % (k, v))
        if tag == "svg":
            self.svgs += 1
            if "viewbox" not in a:
                self.bad.append("svg without viewBox")
        if tag == "section" and "data-table" in a:
            self.sections.add(a["data-table"])
        if tag == "table" and "data-table" in a:
            self.table = a["data-table"]
            self.tables[self.table] = []
            self.heads[self.table] = []
        elif tag == "tr" and self.table:
            self.row = []
        elif tag == "span" and self.in_th and a.get("class") == "unit":
            self.in_unit = True
        elif tag == "th" and self.table:
            self.in_th = True
            self.heads[self.table].append(["", a.get("data-unit")])
        elif tag == "td" and self.row is not None:
            cls = a.get("class", "")
            if "colspan" in a:
                self.cell = None
                return
            if cls == "num":
                self.cell = ["num", a.get("data-value")]
            elif cls == "null":
                self.cell = ["null", None]
                if "data-value" in a:
                    self.bad.append("null cell with data-value")
            else:
                self.cell = ["text", ""]

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag == "tr" and self.row is not None:
            if self.row:
                self.tables[self.table].append(self.row)
            self.row = None
        elif tag == "th":
            self.in_th = False
        elif tag == "span":
            self.in_unit = False
        elif tag == "td" and self.cell is not None:
            self.row.append(tuple(self.cell))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None and self.cell[0] == "text":
            self.cell[1] += data
        elif self.in_th and self.table and not self.in_unit:
            self.heads[self.table][-1][0] += data


def main():
    ap = argparse.ArgumentParser()
    for name in ("json", "text", "csv_dir", "html"):
        ap.add_argument(name)
    ap.add_argument("--top", type=int)
    ap.add_argument("--expect-rows", action="store_true")
    ap.add_argument("--expect-text", action="append", default=[])
    o = ap.parse_args()
    jpath, tpath, cdir, hpath = o.json, o.text, o.csv_dir, o.html
    top, expect_rows, expect_text = o.top, o.expect_rows, o.expect_text
    doc = load_json(jpath)

    # ---- JSON: shape and contract
    if not isinstance(doc.get("ehelf_stats"), Lit) or doc["ehelf_stats"].text != "1":
        fail("JSON: ehelf_stats is not 1")
    if not isinstance(doc.get("schema_version"), Lit) or doc["schema_version"].text != "3":
        fail("JSON: schema_version is not 3")
    if not isinstance(doc.get("database"), str):
        fail("JSON: no database")
    tables = doc.get("tables", [])
    ids = [t["id"] for t in tables]
    if len(set(ids)) != len(ids):
        fail("JSON: duplicate table ids")
    byid = {t["id"]: t for t in tables}
    for tid, cols in REQUIRED.items():
        if tid not in byid:
            fail("JSON: no table %s" % tid)
            continue
        names = [c["name"] for c in byid[tid]["columns"]]
        for c in cols:
            if c not in names:
                fail("JSON %s: no column %s" % (tid, c))
    for t in tables:
        tid = t["id"]
        if not re.fullmatch(r"[a-z][a-z0-9_]*", tid):
            fail("JSON: id %r is not snake_case" % tid)
        for key in ("title", "method"):
            if not isinstance(t.get(key), str) or not t[key].strip():
                fail("JSON %s: empty %s" % (tid, key))
        ncol = len(t["columns"])
        for c in t["columns"]:
            if c.get("unit") not in UNITS:
                fail("JSON %s: column %s has unit %r" % (tid, c.get("name"), c.get("unit")))
        for i, row in enumerate(t["rows"]):
            if len(row) != ncol:
                fail("JSON %s row %d: %d cells for %d columns" % (tid, i, len(row), ncol))
            for k, c in enumerate(row):
                if isinstance(c, Lit):
                    check_json_literal(tid, i, k, c)
                elif c is not None and not isinstance(c, str):
                    fail("JSON %s row %d col %d: %r" % (tid, i, k, c))
        if "plot" in t:
            names = [c["name"] for c in t["columns"]]
            p = t["plot"]
            if p.get("label") not in names or p.get("value") not in names:
                fail("JSON %s: plot names unknown columns" % tid)
        if top is not None and (tid.startswith("top_") and len(t["rows"]) > top):
            fail("JSON %s: %d rows for --top %d" % (tid, len(t["rows"]), top))
    for tid in PLOTTED:
        if tid in byid and "plot" not in byid[tid]:
            fail("JSON %s: no plot" % tid)
    if "rule_kinds" in byid:
        got = [r[0] for r in byid["rule_kinds"]["rows"]]
        if got != RULE_COLUMNS:
            fail("JSON rule_kinds: columns %r" % got)
    if expect_rows:
        for tid in ("sizes", "rule_kinds", "dwarf_ops", "fde_rows", "fde_sizes",
                    "cfa_base", "saved_regs", "top_rulesets", "packages",
                    "top_packages_ehelf_bytes"):
            if tid in byid and not byid[tid]["rows"]:
                fail("JSON %s: no rows" % tid)

    # ---- text
    text = parse_text(tpath)
    if sorted(text) != sorted(byid):
        fail("text tables %s != JSON tables %s" % (sorted(text), sorted(byid)))
    for tid, (title, method, cols, rows) in text.items():
        t = byid.get(tid)
        if not t:
            continue
        if title != t["title"] or method != t["method"]:
            fail("text %s: title or method differs from JSON's" % tid)
        if cols != [c["name"] for c in t["columns"]]:
            fail("text %s: columns %r" % (tid, cols))
        if len(rows) != len(t["rows"]):
            fail("text %s: %d rows, JSON %d" % (tid, len(rows), len(t["rows"])))
            continue
        for i, (trow, jrow) in enumerate(zip(rows, t["rows"])):
            for k, (tc, jc) in enumerate(zip(trow, jrow)):
                if not text_agrees(tc, jc):
                    fail("text %s row %d col %s: %r, JSON %r" %
                         (tid, i, cols[k] if k < len(cols) else k, tc, jc))

    # ---- CSV
    files = sorted(f[:-4] for f in os.listdir(cdir) if f.endswith(".csv"))
    if files != sorted(byid):
        fail("CSV files %s != JSON tables" % files)
    for tid, t in byid.items():
        path = os.path.join(cdir, tid + ".csv")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", newline="") as f:
            data = f.read()
        if data and not data.endswith("\r\n"):
            fail("CSV %s: lines do not end with CRLF" % tid)
        rows = list(csv.reader(io.StringIO(data, newline="")))
        if not rows or rows[0] != [c["name"] for c in t["columns"]]:
            fail("CSV %s: header %r" % (tid, rows[:1]))
            continue
        if len(rows) - 1 != len(t["rows"]):
            fail("CSV %s: %d rows, JSON %d" % (tid, len(rows) - 1, len(t["rows"])))
            continue
        for i, (crow, jrow) in enumerate(zip(rows[1:], t["rows"])):
            if [csv_of_cell(c) for c in jrow] != crow:
                fail("CSV %s row %d: %r, JSON %r" % (tid, i, crow, jrow))

    # ---- HTML
    page = Page()
    with open(hpath, encoding="utf-8") as f:
        page.feed(f.read())
    for b in sorted(set(page.bad)):
        fail("HTML: " + b)
    if sorted(page.tables) != sorted(byid):
        fail("HTML tables %s != JSON tables" % sorted(page.tables))
    if page.sections != set(byid):
        fail("HTML: sections %s" % sorted(page.sections))
    nplots = sum(1 for t in tables if "plot" in t and t["rows"])
    if page.svgs != nplots:
        fail("HTML: %d plots, JSON %d" % (page.svgs, nplots))
    for tid, t in byid.items():
        hrows = page.tables.get(tid)
        if hrows is None:
            continue
        heads = [h[0] for h in page.heads[tid]]
        if heads != [c["name"] for c in t["columns"]]:
            fail("HTML %s: header %r" % (tid, heads))
        if len(hrows) != len(t["rows"]):
            fail("HTML %s: %d rows, JSON %d" % (tid, len(hrows), len(t["rows"])))
            continue
        for i, (hrow, jrow) in enumerate(zip(hrows, t["rows"])):
            for k, (hc, jc) in enumerate(zip(hrow, jrow)):
                if jc is None:
                    ok = hc[0] == "null"
                elif isinstance(jc, Lit):
                    ok = hc == ("num", jc.text)
                else:
                    ok = hc == ("text", jc)
                if not ok:
                    fail("HTML %s row %d col %d: %r, JSON %r" % (tid, i, k, hc, jc))

    # ---- odd text, unchanged everywhere
    for s in expect_text:
        injson = any(s == c for t in tables for r in t["rows"] for c in r)
        if not injson:
            fail("JSON: no cell %r" % s)
        intext = any(s == c for (_, _, _, rows) in text.values() for r in rows for c in r)
        if not intext:
            fail("text: no cell %r" % s)
        incsv = False
        for tid in byid:
            path = os.path.join(cdir, tid + ".csv")
            if os.path.exists(path):
                with open(path, encoding="utf-8", newline="") as f:
                    incsv |= any(csv_of_cell(s) in r for r in csv.reader(f))
        if not incsv:
            fail("CSV: no cell %r" % s)
        inhtml = any(("text", s) == c for rows in page.tables.values()
                     for r in rows for c in r)
        if not inhtml:
            fail("HTML: no cell %r" % s)

    n = sum(len(t["rows"]) for t in tables)
    if failures:
        print("check_outputs: %d failures" % len(failures), file=sys.stderr)
        return 1
    print("  ok: %d tables, %d rows: text, CSV and HTML agree with JSON cell by cell"
          % (len(tables), n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
