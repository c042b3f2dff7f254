"""figures_compare.py - for stats_figures.py: the comparison of
`ehelf-stats --json` tables (and, with --db, ehelf-batch's per-file
records) with the expected ones, every difference printed (Report)."""
import sys
from collections import Counter

from figures_elf import COLUMN_NAMES, KINDS, NCOLS
from figures_expected import pct, ruleset_attrs


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
