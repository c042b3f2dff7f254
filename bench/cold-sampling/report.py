#!/usr/bin/env python3
# The tables of bench/cold-bench.sh from its raw results (DIR/results,
# DIR/cachegrind, DIR/perf.*).  Usage: report.py DIR MAXRATE PERF(yes|no)
import os
import statistics
import sys

d, maxrate, perf = sys.argv[1], sys.argv[2], sys.argv[3]
NAMES = {
    "lu-bt": "libunwind unw_backtrace",
    "lu-step": "libunwind unw_step loop",
    "eu-bt": "libehelf-unwind unw_backtrace",
    "eu-step": "libehelf-unwind unw_step loop",
    "ne-bt": "ehelf_backtrace (native)",
    "ne-local": "ehelf_unwind_local (native)",
}
EHELF = ["eu-bt", "eu-step", "ne-bt", "ne-local"]
WORK = ["zlib", "qsort", "sqlite", "cxx"]

# rate name run | method workload samples hz frames/sample ns/frame first
# frames median check program-frames ns/program-frame first(program)
# samples-new ns/program-frame(new) samples-seen ns/program-frame(seen)
# Every figure is per program frame (from the interrupted pc outwards, see
# cold_sampling.c): the methods starting in the handler walk 2-3 more
# frames (handler, trampoline) per sample than ehelf_unwind_local.
res = {}
for line in open(os.path.join(d, "results")):
    f = line.split()
    if len(f) < 20:
        continue
    rate, name, w = f[0], f[1], f[4]
    samples = int(f[5])
    res.setdefault((rate, name, w), []).append(
        dict(samples=samples, hz=float(f[6]), fps=float(f[7]),
             pps=float(f[13]) / (samples - 1) if samples > 1 else 0,
             ns=float(f[14]), first=float(f[15]),
             new_share=int(f[16]) / (samples - 1) if samples > 1 else 0,
             new=float(f[17]), seen=float(f[19])))


def fmt(v):
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def med(rate, name, w, key="ns"):
    r = res.get((rate, name, w))
    return statistics.median(x[key] for x in r) if r else None


for rate in ["tick", maxrate]:
    label = ("ITIMER_PROF every 1 ms of CPU (the kernel's tick)" if rate == "tick"
             else f"POSIX timer every {rate[4:]} us (the highest rate honoured)")
    hz = [x["hz"] for k, v in res.items() if k[0] == rate for x in v]
    print(f"\n-- {label}: achieved {min(hz):.0f}-{max(hz):.0f} samples/s")
    print("ns per program frame (from the interrupted pc out), median (min-max)"
          " over the runs, first sample excluded; first unwind of the process"
          " (median); frames per sample: unwound / of the program")
    print(f"| method | " + " | ".join(WORK) + " | first unwind (" + ", ".join(WORK) + ") |")
    print("|---|" + "---|" * (len(WORK) + 1))
    for name in NAMES:
        cells, firsts = [], []
        for w in WORK:
            r = res.get((rate, name, w))
            if not r:
                cells.append("-")
                firsts.append("-")
                continue
            ns = [x["ns"] for x in r]
            cells.append(f"{fmt(statistics.median(ns))} ({fmt(min(ns))}-{fmt(max(ns))})"
                         f" [{statistics.median(x['fps'] for x in r):.1f} /"
                         f" {statistics.median(x['pps'] for x in r):.1f} f]")
            firsts.append(fmt(statistics.median(x["first"] for x in r)))
        print(f"| {NAMES[name]} | " + " | ".join(cells) + " | " + ", ".join(firsts) + " |")
    # where the time goes: a sample whose interrupted pc is new to the
    # process costs its unwinder the lookup of a row it has not met (for
    # ehelf, the module, the eh_elf's tables and code; for libunwind, the
    # FDE search and the CFI interpretation); one at a pc seen before can
    # be stepped from the unwinders' caches all the way
    print("\nthe same, split by the sample's interrupted pc: new to the process"
          " (no earlier sample there) / seen before; ns per program frame,"
          " median over the runs; share of samples at a new pc")
    print(f"| method | " + " | ".join(WORK) + " |")
    print("|---|" + "---|" * len(WORK))
    for name in NAMES:
        cells = []
        for w in WORK:
            r = res.get((rate, name, w))
            if not r:
                cells.append("-")
                continue
            cells.append(f"{fmt(statistics.median(x['new'] for x in r))} /"
                         f" {fmt(statistics.median(x['seen'] for x in r))}"
                         f" ({100 * statistics.median(x['new_share'] for x in r):.0f}% new)")
        print(f"| {NAMES[name]} | " + " | ".join(cells) + " |")

print("\n-- targets (medians per workload and rate; first unwinds apart)")
ok_all = True


def target(title, pairs, factor):
    global ok_all
    worst = None
    for rate, e, l, w in pairs:
        a, b = med(rate, e, w), med(rate, l, w)
        if a is None or b is None or a <= 0:
            continue
        x = b / a
        if worst is None or x < worst[0]:
            worst = (x, rate, e, w)
    met = worst is not None and worst[0] >= factor
    ok_all &= met
    print(f"{title}: lowest ratio {worst[0]:.2f} ({NAMES[worst[2]]}, {worst[3]}, "
          f"{worst[1]}): {'met' if met else 'NOT met'}" if worst else f"{title}: no data")


rates = ["tick", maxrate]
# like for like: libehelf-unwind's calls against libunwind's same call;
# the native calls against both of libunwind's
for e, l, x in [("eu-bt", "lu-bt", 3), ("eu-step", "lu-step", 10),
                ("ne-bt", "lu-bt", 3), ("ne-bt", "lu-step", 10),
                ("ne-local", "lu-bt", 3), ("ne-local", "lu-step", 10)]:
    target(f"{NAMES[e]} >= {x}x faster than {NAMES[l]}",
           [(r, e, l, w) for r in rates for w in WORK], x)
# the same ratios on the samples at a pc seen before and at a new one
# (not targets: where the distance to them lies)
for part, key in [("seen before", "seen"), ("new", "new")]:
    for e, l, x in [("eu-bt", "lu-bt", 3), ("eu-step", "lu-step", 10)]:
        worst = None
        for r in rates:
            for w in WORK:
                a, b = med(r, e, w, key), med(r, l, w, key)
                if a and b and (worst is None or b / a < worst[0]):
                    worst = (b / a, r, w)
        if worst:
            print(f"  samples at a pc {part}: {NAMES[e]} against {NAMES[l]}:"
                  f" lowest ratio {worst[0]:.2f} ({worst[2]}, {worst[1]}; the {x}x"
                  f" above is of all samples)")
# never slower than libunwind: libehelf-unwind's calls against libunwind's
# same call, the native ones against the faster of libunwind's two; in
# every workload and rate, steady and first unwind
worst = None
for r in rates:
    for w in WORK:
        for key in ("ns", "first"):
            for e, ls in [("eu-bt", ["lu-bt"]), ("eu-step", ["lu-step"]),
                          ("ne-bt", ["lu-bt", "lu-step"]),
                          ("ne-local", ["lu-bt", "lu-step"])]:
                lu = [v for v in (med(r, l, w, key) for l in ls) if v]
                v = med(r, e, w, key)
                if v and lu:
                    x = min(lu) / v
                    if worst is None or x < worst[0]:
                        worst = (x, e, w, r, key)
if worst:
    print(f"never slower than libunwind (same call; native against the faster of"
          f" libunwind's; every workload, rate, steady or first unwind): lowest ratio"
          f" {worst[0]:.2f} ({NAMES[worst[1]]}, {worst[2]}, {worst[3]},"
          f" {'first unwind' if worst[4] == 'first' else 'steady'}):"
          f" {'met' if worst[0] >= 1 else 'NOT met'}")

cg = os.path.join(d, "cachegrind")
if os.path.exists(cg):
    print("\n-- cache misses per program frame (valgrind's cache simulator, only the unwinds"
          " but the first; 20 ms of CPU time between samples under valgrind)")
    print("| method | workload | frames | Ir/frame | I1 misses | D1 read misses | D1 write misses | LL misses |")
    print("|---|---|---|---|---|---|---|---|")
    per = {}
    for line in open(cg):
        f = line.split()
        # name w | method workload samples hz fps ns first frames median check
        #   program-frames ns/program-frame first new ns-new seen ns-seen
        #   | 9 events (callgrind leaves trailing zero counts out)
        if len(f) < 20:
            print(f"| {NAMES.get(f[0], f[0])} | {f[1] if len(f) > 1 else '?'} | failed | | | | |")
            continue
        name, w = f[0], f[1]
        frames = float(f[12])  # the program's
        ev = [float(x) for x in f[19:28]]  # Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
        ev += [0.0] * (9 - len(ev))
        if frames <= 0:
            continue
        ir, i1, d1r, d1w, ll = ev[0] / frames, ev[3] / frames, ev[4] / frames, \
            ev[5] / frames, (ev[6] + ev[7] + ev[8]) / frames
        per[(name, w)] = (d1r + d1w, ll, i1, d1r)
        print(f"| {NAMES[name]} | {w} | {frames:.0f} | {ir:.0f} | {i1:.2f} | {d1r:.2f} |"
              f" {d1w:.2f} | {ll:.3f} |")
    for title, f in [("L1 misses (I1 + D1 reads and writes)", lambda v: v[0] + v[2]),
                     ("D1 read misses", lambda v: v[3])]:
        worst = None
        for (name, w), v in per.items():
            if name not in EHELF or ("lu-bt", w) not in per:
                continue
            b = f(per[("lu-bt", w)])
            x = f(v) / b if b else 0
            if worst is None or x > worst[0]:
                worst = (x, name, w)
        if worst:
            print(f"{title} per frame at most half libunwind unw_backtrace's:"
                  f" highest ratio {worst[0]:.2f} ({NAMES[worst[1]]}, {worst[2]}):"
                  f" {'met' if worst[0] <= 0.5 else 'NOT met'}")

print("\n-- perf stat (cache-misses, L1-dcache-load-misses per frame, kernel tick)")
if perf != "yes":
    print("perf stat: hardware counters not supported by this VM")
else:
    for name in NAMES:
        for w in WORK:
            p = os.path.join(d, f"perf.{name}.{w}")
            if os.path.exists(p):
                vals = [l.split(",")[0] for l in open(p) if "," in l]
                print(f"{NAMES[name]} {w}: " + " ".join(vals) + " (whole run)")
