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

The parts, modules beside this script: figures_elf (what readelf gives),
figures_cfi (the interpreter and readelf's own table), figures_compute
(`compute`), figures_expected (the tables ehelf-stats should print),
figures_compare (the comparison).
"""
import sys

# the modules beside this script; no __pycache__ left in the source tree
sys.dont_write_bytecode = True

import argparse
import json

from figures_elf import Error
from figures_compute import cmd_compute
from figures_expected import expected
from figures_compare import (Report, compare_db, compare_figures,
    compare_keyed, compare_row, compare_top)


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
