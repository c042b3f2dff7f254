#!/bin/sh
# The cold sampling benchmark: programs written against
# <libunwind.h> sample themselves with SIGPROF over cache-thrashing work
# (zlib, qsort, sqlite in C; deep templates over libstdc++ in C++) and time
# each unwind in the handler (bench/cold-sampling/cold_sampling.c); run
# against Debian's libunwind, then with libehelf-unwind preloaded, and the
# same program against <ehelf.h> (ehelf_backtrace, ehelf_unwind_local).
# eh_elfs for the programs, every library they load and the vDSO are built
# into a temporary store first.  The times are also given split by whether
# a sample's interrupted pc was new to the process or seen before (the
# lookup of a row not met yet, against a walk the caches can do whole).
# Then the cache misses per frame, counted by valgrind's cache simulator;
# and perf stat's where the VM has counters.
# Usage: bench/cold-bench.sh BUILD [RUNS [SECONDS]]
# (COLD_NO_CACHEGRIND=1: the timings only; COLD_KEEP=DIR: the raw results
# kept in DIR, for bench/cold-sampling/report.py DIR MAXRATE no)
set -eu
build=$(cd "${1:?usage: cold-bench.sh BUILD [RUNS [SECONDS]]}" && pwd)
runs=${2:-3}
secs=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
mkdir "$T/files"
C=$build/bench/cold-sampling-c
CXX=$build/bench/cold-sampling-cxx
N=$build/bench/cold-sampling-native
PRE=$build/lib/libehelf-unwind.so
cp "$C" "$CXX" "$N" "$PRE" "$build/lib/libehelf.so" "$T/files/"
for p in "$C" "$CXX" "$N" "$PRE"; do
	ldd "$p" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }'
done | sort -u | while read -r lib; do
	cp -n "$(readlink -f "$lib")" "$T/files/" 2>/dev/null || true
done
"$build/bin/ehelf-compile" --extract-vdso "$T/files/vdso.so"
"$build/bin/ehelf-batch" --store "$T/store" --json "$T/files" >/dev/null
export EHELF_PATH=$T/store

# the methods: name, program choice (c: cold-sampling-c/-cxx, n: native),
# preload, method argument
methods="lu-bt:c::backtrace lu-step:c::step eu-bt:c:$PRE:backtrace eu-step:c:$PRE:step ne-bt:n::backtrace ne-local:n::local"
workloads="zlib qsort sqlite cxx"

prog() { # KIND WORKLOAD
	if [ "$1" = n ]; then echo "$N"
	elif [ "$2" = cxx ]; then echo "$CXX"
	else echo "$C"; fi
}

run_one() { # METHOD-SPEC WORKLOAD RATE SECONDS [WRAPPER...]
	spec=$1 w=$2 rate=$3 s=$4
	shift 4
	kind=$(echo "$spec" | cut -d: -f2)
	pre=$(echo "$spec" | cut -d: -f3)
	m=$(echo "$spec" | cut -d: -f4)
	# a run that hangs (an unwinder taking a lock in the handler that
	# the interrupted code holds) is stopped
	if [ -n "$pre" ]; then
		LD_PRELOAD=$pre timeout -s KILL 120 "$@" "$(prog "$kind" "$w")" "$m" "$w" "$rate" "$s"
	else
		timeout -s KILL 120 "$@" "$(prog "$kind" "$w")" "$m" "$w" "$rate" "$s"
	fi
}

# the highest rate of a POSIX timer the kernel honours here: the shortest
# period (of 20, 50, 100, 200 us) delivering at least 80% of its samples
maxrate=max:200
for us in 20 50 100 200; do
	got=$("$C" none qsort "max:$us" 0.3 | awk '{ print $4 }')
	if [ "$(echo "$got $us" | awk '{ print ($1 >= 0.8e6 / $2) }')" = 1 ]; then
		maxrate=max:$us
		break
	fi
done

echo "== cold sampling: ns per frame unwinding in a SIGPROF handler over cache-thrashing work ($(date -u +%F), $runs runs of ${secs} s of CPU per method, workload and rate)"
: >"$T/results"
for rate in tick "$maxrate"; do
	for w in $workloads; do
		for r in $(seq "$runs"); do
			for spec in $methods; do
				name=$(echo "$spec" | cut -d: -f1)
				# a run that fails (a crash in the handler) is
				# counted, and run again once
				for try in 1 2; do
					rc=0
					line=$(run_one "$spec" "$w" "$rate" "$secs" 2>"$T/err") || rc=$?
					if [ "$rc" = 0 ]; then
						echo "$rate $name $r $line" >>"$T/results"
						break
					fi
					echo "$rate $name $w: exit $rc $(tail -n 1 "$T/err" | cut -c1-100)" >>"$T/failed"
				done
			done
		done
	done
done

# cache misses per frame: each method run under valgrind's cache simulator
# (callgrind's, the same as cachegrind's --cache-sim=yes, which can count a
# part of a run: the program toggles collection around each unwind but the
# first with CALLGRIND_TOGGLE_COLLECT, so that only the unwinder's own
# accesses are counted while the workload's keep evicting the simulated
# caches between samples).  Caches as lscpu gives this machine's (32 KiB
# L1s, 8-way; 32 MiB of L3 as the last level: valgrind's own guess here is
# a direct-mapped 256 MiB); the
# sampling period is 20 ms of CPU time, valgrind running the work some 50
# times slower.  Deterministic but for which pcs the samples hit.
if [ -z "${COLD_NO_CACHEGRIND:-}" ] && command -v valgrind >/dev/null; then
	for w in $workloads; do
		for spec in $methods; do
			name=$(echo "$spec" | cut -d: -f1)
			out=$T/cg.$name.$w
			line=$(run_one "$spec" "$w" prof:20000 1 valgrind --tool=callgrind \
				--cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 \
				--LL=33554432,16,64 --collect-atstart=no \
				--callgrind-out-file="$out" 2>/dev/null) || line=
			echo "$name $w $line $(grep '^totals:' "$out" 2>/dev/null | cut -d' ' -f2-)" \
				>>"$T/cachegrind"
		done
	done
fi
# perf stat, where the VM has the counters
if perf stat -e instructions true >/dev/null 2>"$T/perf-probe" &&
   ! grep -q 'not supported' "$T/perf-probe"; then
	for w in $workloads; do
		for spec in $methods; do
			name=$(echo "$spec" | cut -d: -f1)
			run_one "$spec" "$w" tick "$secs" perf stat -x, \
				-e cache-misses,L1-dcache-load-misses,instructions \
				-o "$T/perf.$name.$w" >/dev/null || true
		done
	done
	perf=yes
else
	perf=no
fi
if [ -n "${COLD_KEEP:-}" ]; then # the raw results, for report.py
	mkdir -p "$COLD_KEEP"
	cp "$T"/results "$T"/cachegrind "$T"/failed "$T"/perf.* "$COLD_KEEP"/ 2>/dev/null || true
fi
if [ -s "$T/failed" ]; then
	echo "runs that failed (each run again once):"
	sed 's/^/  /' "$T/failed"
fi
python3 "$here/cold-sampling/report.py" "$T" "$maxrate" "$perf"
