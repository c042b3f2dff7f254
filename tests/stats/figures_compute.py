"""figures_compute.py - for stats_figures.py: `compute`, the figures of
every ELF of the given packages (analyse: sizes, rows, rule sets, rule
kinds, with the interpreter cross-checked against readelf), in parallel."""
import json
import os
import re
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor

from figures_elf import (Error, FDE_ROWS_CAP, KINDS, NCOLS, RA, elf_info,
    parse_entries, run)
from figures_cfi import (State, execute, kind_of, norm_push, parse_interp,
    render, row_text)


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
