"""figures_expected.py - for stats_figures.py: the tables ehelf-stats
should print, derived from the computed per-file figures by ehelf's
definitions (archive-wide sums over distinct eh_elfs, per-package ones,
percentiles, size classes, rule-set texts)."""
import json
from collections import Counter, defaultdict

from figures_elf import COLUMN_NAMES, Error, GPR, KINDS, NCOLS, RA, regname
from figures_cfi import CFA_BASES, SAVED, cell, cfa_base


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
