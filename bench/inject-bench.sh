#!/bin/sh
# ehelf-perf inject and script against perf 6.1, on recordings made now
# (perf record -e cpu-clock -F 4000 --call-graph dwarf, eh_elfs built for
# the files they map):
#   sqlite-8k   sqlite3 queries (C, no frame pointers), 8 KiB stack copies,
#               50,000+ samples
#   sqlite-64k  the same with 64 KiB copies (--call-graph dwarf,65528),
#               10,000+ samples
#   cc1plus     the C++ compiler proper on a file of template instantiations
#   python      a python3 script (dictionaries, regular expressions, json)
#   threads     hackbench's senders and receivers as threads (-T)
#   clang-8k    clang-14 -O2 -S on the same C++ file: libLLVM-14 and
#   clang-64k   libclang-cpp; 8 KiB and 64 KiB copies
#   clangd-8k   clangd-14 --check on the same file (parsing, indexing,
#   clangd-64k  every feature tried at each token): libclang-cpp and
#               libLLVM-14 with gRPC, protobuf, abseil and OpenSSL, over
#               100,000 symbols in the libraries the program maps
# (tests/perf/record-workloads.sh's, at 4 kHz), 50,000 samples or so each
# with 8 KiB copies, 12,000 with 64 KiB.  For the clang-like recordings,
# the symbols of the shared libraries their program maps (.dynsym and
# .symtab entries, readelf --syms) are printed.
# (a) the inject table: file sizes (original, converted: ratio), `perf
#     report --stdio -g --no-inline` CPU time (user + system) on each
#     (ratio: converted / original), the floor of that report (the
#     converted file reported without callchains, --no-children -g none:
#     what perf spends on the samples themselves; ratio: floor /
#     original; the rest of the converted file's report, its callchains,
#     is said as a share of it), `ehelf-perf inject` CPU time (ratio:
#     convert / one report of the original; and reading alone,
#     tests/perf/read_floor, as the same ratio) and its peak RSS;
# (a') perf report's callchain work per frame (-g minus -g none, over the
#     frames of the samples) on a converted recording and on a native
#     --call-graph fp one of the same program built with frame pointers
#     (tests/perf/data/fp_tree.c): what perf does with a converted file's
#     callchains, against what it does with its own frame-pointer ones;
# (b) the script table: `ehelf-perf script` against `perf script -F
#     comm,tid,time,event,ip,sym,symoff,dso --no-inline`, CPU time, output
#     to /dev/null (ehelf-perf: best of 3 after a first run that saves its
#     symbol tables; perf: one run), and the CPU time of reading alone
#     (tests/perf/read_floor: every record read and decoded by
#     ehelf-perf's reader, the used part of each stack copy touched, one
#     byte a page): perf / that is the most that any unwinding and
#     printing could give.
# Targets: report on the converted file <= 0.4x the original's;
# converting <= 0.15x one report; files >= 25x smaller (8 KiB), >= 100x
# (64 KiB); ehelf-perf script >= 10x perf script.
# Usage: bench/inject-bench.sh BUILD [SCALE]  (SCALE 1: the sizes above;
# 0.2 for a quick look).  With INJECT_BENCH_KEEP=DIR, the recordings and
# their eh_elf store are kept in DIR and reused by the next run with the
# same DIR (made again only when DIR/done is missing).  INJECT_BENCH_ONLY:
# the recordings measured (names above, space-separated; all by default).
set -eu
build=$(cd "${1:?usage: inject-bench.sh BUILD [SCALE]}" && pwd)
scale=${2:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
fields=comm,tid,time,event,ip,sym,symoff,dso
ep="$build/bin/ehelf-perf"
R=${INJECT_BENCH_KEEP:-$T/rec}
mkdir -p "$R"
n() { awk -v s="$scale" -v n="$1" 'BEGIN { v = int(n * s); print v < 1 ? 1 : v }'; }

echo "== ehelf-perf inject and script against perf ($(date -u +%F), scale $scale)"
rec() { # NAME STACK COMMAND...
	name=$1 stack=$2
	shift 2
	perf record -q -e cpu-clock -F 4000 -m 16M --call-graph "dwarf,$stack" -o "$R/$name.data" \
		-- "$@" >/dev/null 2>"$R/$name.log" ||
		{ echo "inject-bench: perf record $name failed: $(head -c 300 "$R/$name.log")" >&2; exit 1; }
}
sq() { echo "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
	 WHERE i < $1) SELECT count(*), sum(i * i % 7) FROM n;"; }
if [ ! -f "$R/done" ]; then
	rec sqlite-8k 8192 sqlite3 :memory: "$(sq "$(n 64000000)")"
	rec sqlite-64k 65528 sqlite3 :memory: "$(sq "$(n 22000000)")"
	# the others from the tests' workloads, 4 kHz
	FREQ=4000 "$here/tests/perf/record-workloads.sh" "$R" "$(n 13)" cc1plus clang
	FREQ=4000 "$here/tests/perf/record-workloads.sh" "$R" "$(n 175)" python
	FREQ=4000 "$here/tests/perf/record-workloads.sh" "$R" "$(n 70)" threads
	mv "$R/clang.data" "$R/clang-8k.data"
	FREQ=4000 CALL_GRAPH=dwarf,65528 "$here/tests/perf/record-workloads.sh" "$R" "$(n 3)" clang
	mv "$R/clang.data" "$R/clang-64k.data"
	mkdir -p "$R/clangd"
	cp "$here/tests/perf/data/templates.cc" "$R/clangd/"
	printf '%s\n' -std=c++17 -DSCALE=80 >"$R/clangd/compile_flags.txt"
	clangd_runs() { # N: clangd's check of the file, N times
		echo "i=0; while [ \$i -lt $1 ]; do clangd-14 --check='$R/clangd/templates.cc' || exit 1; i=\$((i + 1)); done"
	}
	rec clangd-8k 8192 sh -c "$(clangd_runs "$(n 36)")"
	rec clangd-64k 65528 sh -c "$(clangd_runs "$(n 7)")"
	rm -rf "$R/store"
	"$here/tests/perf/store-for-recordings.sh" "$build" "$R/store" "$R"/*.data >/dev/null
	echo "$scale" >"$R/done"
fi
export EHELF_PATH="$R/store"
export XDG_CACHE_HOME="$T/cache"

cpu() { # OUT COMMAND...: CPU seconds (user + system, to the microsecond:
	# the kernel's rusage through wait4, where /usr/bin/time rounds to
	# 10 ms) and peak RSS (KiB)
	cpu_out=$1
	shift
	python3 -c 'import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open("/dev/null", os.O_WRONLY)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
open(sys.argv[1], "w").write("%.4f %d\n" % (ru.ru_utime + ru.ru_stime, ru.ru_maxrss))
sys.exit(0 if status == 0 else 1)' "$cpu_out" "$@" ||
		{ echo "inject-bench: failed: $*" >&2; exit 1; }
}
syms() { # RECORDING COMM: .dynsym + .symtab entries of the shared
	# libraries that COMM maps executable in RECORDING
	perf script -i "$1" --show-mmap-events -F comm 2>/dev/null |
		awk -v c="$2" '$1 == c && /PERF_RECORD_MMAP/ && / r-xp \// { print $NF }' |
		sort -u | grep '\.so' | while read -r lib; do
			readelf -W --syms "$lib" | grep -c '^ *[0-9][0-9]*:'
		done | awk '{ s += $1 } END { print s + 0 }'
}
best() { # N OUT COMMAND...: the least CPU time of N runs
	best_k=$1 best_out=$2
	shift 2
	: >"$T/runs"
	i=0
	while [ $i -lt "$best_k" ]; do
		cpu "$T/one" "$@"
		cat "$T/one" >>"$T/runs"
		i=$((i + 1))
	done
	sort -n "$T/runs" | head -n 1 >"$best_out"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }'; }

echo "(a) inject: sizes, perf report --stdio -g --no-inline CPU s (best of 2), convert CPU s (best of 2)"
printf '%-11s %7s %11s %9s %7s %8s %8s %7s %8s %7s %8s %7s %8s\n' recording samples original converted smaller \
	report-o report-c c/o floor f/o convert cv/rep rss-KiB
workloads=${INJECT_BENCH_ONLY:-sqlite-8k sqlite-64k cc1plus python threads clang-8k clang-64k clangd-8k clangd-64k}
summary=$T/summary
: >"$summary"
for w in $workloads; do
	f=$R/$w.data
	c=$T/$w.ehelf.data
	"$ep" inject -i "$f" -o "$c" --no-progress --json 2>"$T/$w.json"
	ns=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples"])' "$T/$w.json")
	best 2 "$T/conv" "$ep" inject -i "$f" -o "$c" --no-progress --no-summary
	best 2 "$T/ro" perf report -i "$f" --stdio -g --no-inline
	best 2 "$T/rc" perf report -i "$c" --stdio -g --no-inline
	best 2 "$T/rf" perf report -i "$c" --stdio --no-children -g none --no-inline
	best 3 "$T/rd.$w" "$build/tests/perf/read_floor" "$f"
	so=$(stat -c %s "$f") sc=$(stat -c %s "$c")
	ro=$(cut -d' ' -f1 "$T/ro") rc=$(cut -d' ' -f1 "$T/rc") rf=$(cut -d' ' -f1 "$T/rf")
	cv=$(cut -d' ' -f1 "$T/conv") rss=$(cut -d' ' -f2 "$T/conv")
	printf '%-11s %7d %11d %9d %6.1fx %8.3f %8.3f %7s %8.3f %7s %8.3f %7s %8d\n' "$w" "$ns" "$so" "$sc" \
		"$(ratio "$so" "$sc")" "$ro" "$rc" "$(ratio "$rc" "$ro")" "$rf" "$(ratio "$rf" "$ro")" \
		"$cv" "$(ratio "$cv" "$ro")" "$rss"
	echo "$w $ns $(ratio "$so" "$sc") $(ratio "$rc" "$ro") $(ratio "$cv" "$ro") $(ratio "$rf" "$ro") $(ratio "$(cut -d' ' -f1 "$T/rd.$w")" "$ro")" >>"$summary"
done
awk '{ big = $1 ~ /64k/; need = big ? 100 : 25
       s = $3 >= need ? "met" : "NOT met"; r = $4 <= 0.4 ? "met" : "NOT met"; c = $5 <= 0.15 ? "met" : "NOT met"
       f = $4 > 0.4 && $6 > 0.4 ? ", beyond the floor" : ""
       ch = $4 > 0 ? 100 * (1 - $6 / $4) : 0
       printf "  %-11s smaller %sx (>= %dx: %s); report %s (<= 0.4: %s; floor %s%s; callchains %.0f%% of it); convert %s (<= 0.15: %s; reading alone %s)\n", $1, $3, need, s, $4, r, $6, f, ch, $5, c, $7 }' "$summary"

echo "(a') perf report's callchain work per frame: a converted recording against a native"
echo "     --call-graph fp one of the same program, built with frame pointers (tests/perf/data/fp_tree.c);"
echo "     chains: report (-g) minus its floor (-g none), CPU s; per frame: chains / frames, us"
cc -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o "$T/fp_tree" "$here/tests/perf/data/fp_tree.c"
for cg in dwarf fp; do
	perf record -q -e cpu-clock -F 4000 -m 16M --call-graph $cg -o "$T/fp_tree.$cg.data" \
		-- "$T/fp_tree" "$(n 3000000)" >/dev/null 2>"$T/fp_tree.log" ||
		{ echo "inject-bench: perf record fp_tree ($cg) failed: $(head -c 300 "$T/fp_tree.log")" >&2; exit 1; }
done
"$ep" inject -i "$T/fp_tree.dwarf.data" -o "$T/fp_tree.converted.data" --no-progress --no-summary
printf '%-11s %7s %8s %6s %8s %8s %8s %9s\n' recording samples frames per-s report floor chains per-frame
for k in converted fp; do
	f=$T/fp_tree.$k.data
	ns=$(perf report -i "$f" --stats 2>/dev/null | awk '/SAMPLE events/ { print $3; exit }')
	nf=$(perf script -i "$f" -F ip --no-inline 2>/dev/null | grep -c '[0-9a-f]')
	best 2 "$T/ro" perf report -i "$f" --stdio -g --no-inline
	best 2 "$T/rf" perf report -i "$f" --stdio --no-children -g none --no-inline
	ro=$(cut -d' ' -f1 "$T/ro") rf=$(cut -d' ' -f1 "$T/rf")
	pf=$(awk -v a="$ro" -v b="$rf" -v n="$nf" 'BEGIN { printf "%.3f", (n > 0) ? (a - b) * 1e6 / n : 0 }')
	echo "$pf" >"$T/per-frame.$k"
	printf '%-11s %7d %8d %6.2f %8.3f %8.3f %8.3f %9.3f\n' "$([ $k = fp ] && echo native-fp || echo $k)" \
		"$ns" "$nf" "$(ratio "$nf" "$ns")" "$ro" "$rf" "$(awk -v a="$ro" -v b="$rf" 'BEGIN { print a - b }')" "$pf"
done
echo "  per frame, converted / native-fp: $(ratio "$(cat "$T/per-frame.converted")" "$(cat "$T/per-frame.fp")")"

echo "(b) script: ehelf-perf script (best of 3 after a first run) against perf script --no-inline, CPU s"
echo "    read: tests/perf/read_floor, reading alone (best of 3); perf/read: the speedup that unwinding and printing for nothing would give"
printf '%-11s %7s %9s %9s %9s %7s %9s %9s\n' recording samples ehelf-1st ehelf perf speedup read perf/read
for w in $workloads; do
	f=$R/$w.data
	cpu "$T/e1" "$ep" script -i "$f" --no-progress
	best 3 "$T/e" "$ep" script -i "$f" --no-progress
	cpu "$T/p" perf script -i "$f" -F $fields --no-inline
	case $w in
	clang-*) echo "  ($w: $(syms "$f" clang++-14) symbols in the shared libraries clang maps)" >"$T/syms" ;;
	clangd-*) echo "  ($w: $(syms "$f" clangd-14) symbols in the shared libraries clangd maps)" >"$T/syms" ;;
	*) : >"$T/syms" ;;
	esac
	e1=$(cut -d' ' -f1 "$T/e1") e=$(cut -d' ' -f1 "$T/e") p=$(cut -d' ' -f1 "$T/p")
	rd=$(cut -d' ' -f1 "$T/rd.$w")
	sp=$(ratio "$p" "$e")
	printf '%-11s %7d %9.3f %9.3f %9.3f %6.1fx %9.3f %8.1fx %s\n' "$w" "$(grep "^$w " "$summary" | cut -d' ' -f2)" \
		"$e1" "$e" "$p" "$sp" "$rd" "$(ratio "$p" "$rd")" \
		"$(awk -v s="$sp" 'BEGIN { print ((s >= 10) ? "(>= 10x: met)" : "(>= 10x: NOT met)") }')"
	cat "$T/syms"
done
