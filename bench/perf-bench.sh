#!/bin/sh
# ehelf-perf's benchmark, on perf.data files recorded now from real
# workloads (tests/perf/record-workloads.sh: hackbench, a python3 script,
# cc1plus, sqlite3, and for (c) also the same compilation through the g++
# driver), with eh_elfs for the files they map:
#  (a) ns per frame of the unwinding alone, same samples, same memory
#      reader, the stack copies cold: ehelf, libunwind's remote API, libdw
#      (bench-perf-unwind);
#      and the memory floors: only reading, in address order, the part of
#      each (cold) stack copy that the unwinding spans; only the lines of
#      it that hold the frames' return addresses, their addresses known in
#      advance (a bound no walk reaches); and those lines each waiting on
#      the one before (the chain a walk that read nothing else would be);
#      then the copies as ehelf-perf reads them (copied into buffers just
#      before the unwinding: in the caches), the tables as above;
#      then the same hot: each sample unwound again and again, its copy
#      and the method's tables in the caches (the unwinders' own work;
#      ehelf called as for a copy just made, and as for a cold one);
#  (b) the whole command: `ehelf-perf script` against `perf script
#      --no-inline`, same file, same fields, output to /dev/null (best of 5;
#      ehelf-perf's first run, which makes its saved symbol tables, shown too);
#  (c) agreement: the share of samples whose user stacks are identical in
#      both outputs, and the differing ones by class (script_compare, with
#      unwind_crosscheck telling those where libunwind and libdw used
#      directly agree with ehelf).
# Usage: bench/perf-bench.sh BUILD [SCALE]
set -eu
build=$(cd "${1:?usage: perf-bench.sh BUILD [SCALE]}" && pwd)
scale=${2:-4}
here=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
fields=comm,tid,time,event,ip,sym,symoff,dso
workloads="hackbench python cc1plus sqlite"

echo "== ehelf-perf: perf.data unwinding ($(date -u +%F), workloads at scale $scale)"
"$here/tests/perf/record-workloads.sh" "$T/rec" "$scale" $workloads gxx
"$here/tests/perf/store-for-recordings.sh" "$build" "$T/store" "$T"/rec/*.data
export EHELF_PATH="$T/store"
# ehelf-perf saves the symbol tables it parses (cache_dir.h): here, so that
# the first run of (b) makes them and the others map them back
export XDG_CACHE_HOME="$T/cache"

echo "(a) unwinding alone, ns per frame (same samples, same reader; the stack"
echo "    copies flushed from the caches before each pass; per method, blocks"
echo "    of a warm-up pass and 3 timed ones, the blocks taking turns, 2 rounds;"
echo "    the best pass; the very first in parentheses); floor: reading the"
echo "    stack bytes the frames span, and no more, in address order; ra-fl:"
echo "    only the lines that hold the frames' return addresses, all at once"
echo "    (their addresses known in advance); chain: the same lines, each"
echo "    load waiting on the one before"
printf '%-10s %7s %8s %8s %8s %8s %8s %8s %8s %8s %7s %8s %7s %8s %7s %8s\n' \
	workload samples frames ehelf frames libunw frames libdw libunw/ \
	libdw/ floor libdw/fl ra-fl libdw/ra chain libdw/ch
for w in $workloads; do
	"$build/bench/bench-perf-unwind" "$T/rec/$w.data" "$w"
done
echo "    as ehelf-perf reads: each sample's copy read (copied out of the cold"
echo "    file data) into a buffer just before it is unwound, 8 samples at a time"
echo "    (their copies then in the L1 and L2 caches, as ehelf-perf's pread leaves"
echo "    them), the methods' tables as their previous passes and the copying"
echo "    leave them; the unwinding timed; ehelf called as ehelf-perf calls it for"
echo "    such a copy; blocks and rounds as above, the best pass"
printf '%-10s %7s %8s %8s %8s %8s %8s %8s %8s %8s\n' workload samples \
	frames ehelf frames libunw frames libdw libunw/ libdw/
for w in $workloads; do
	"$build/bench/bench-perf-unwind" "$T/rec/$w.data" "$w" --read
done
echo "    hot: each sample unwound 16 times in a row, the last 15 timed (its copy"
echo "    and the method's tables in the caches: the unwinders' own work; the"
echo "    timing's own cost taken out); best of 3 passes, the methods taking"
echo "    turns; ehelf as for a copy just made (no EHELF_UNWIND_COLD_SNAPSHOT),"
echo "    and with it (the copy prefetched, as for a copy in a file's mapping:"
echo "    ehelf,pf; ehelf-perf reads its copies into buffers: no flag); timing:"
echo "    the ns per frame of timing cost taken out of ehelf's figure"
printf '%-10s %7s %8s %8s %8s %8s %8s %8s %8s %8s %8s %7s\n' workload samples \
	frames ehelf frames libunw frames libdw libunw/ libdw/ "ehelf,pf" timing
for w in $workloads; do
	"$build/bench/bench-perf-unwind" "$T/rec/$w.data" "$w" --hot
done

first="" # the first of best()'s times
best() { # the best of 5 wall-clock times of a command, in seconds
	b=""
	first=""
	for i in 1 2 3 4 5; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		[ -n "$first" ] || first=$t
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	echo "$b $first"
}
echo
echo "(b) the whole command, seconds (best of 5, the first run in parentheses:"
echo "    for ehelf-perf, the one that parses and saves the symbol tables),"
echo "    output to /dev/null"
printf '%-10s %6s %8s %20s %20s %8s\n' workload MiB samples "perf script" ehelf-perf speedup
for w in $workloads; do
	f=$T/rec/$w.data
	set -- $(best perf script -i "$f" -F $fields --no-inline)
	p=$1 p1=$2
	set -- $(best "$build/bin/ehelf-perf" script -i "$f" --no-progress)
	e=$1 e1=$2
	n=$(perf script -i "$f" -F tid 2>/dev/null | wc -l)
	printf '%-10s %6.1f %8d %9.3f (%7.3f) %9.3f (%7.3f) %7.1fx\n' "$w" \
		"$(echo "$(stat -c %s "$f") / 1048576" | bc -l)" "$n" "$p" "$p1" \
		"$e" "$e1" "$(echo "$p / $e" | bc -l)"
done

echo
echo "(c) agreement with perf script: identical user stacks, and the others"
for w in $workloads gxx; do
	f=$T/rec/$w.data
	perf script -i "$f" -F $fields --no-inline >"$T/$w.perf" 2>/dev/null
	"$build/bin/ehelf-perf" script -i "$f" --no-progress >"$T/$w.ehelf"
	"$build/tests/perf/unwind_crosscheck" "$f" >"$T/$w.oracle" 2>/dev/null
	printf '%-10s ' "$w"
	"$build/tests/perf/script_compare" --oracle "$T/$w.oracle" "$T/$w.perf" \
		"$T/$w.ehelf" | tail -n 1 | sed 's/^script_compare: //'
	# the first differing sample of each class, as evidence
	"$build/tests/perf/script_compare" --examples 1 "$T/$w.perf" "$T/$w.ehelf" |
		grep -v '^script_compare:' | head -n 30 | sed 's/^/    /'
done
