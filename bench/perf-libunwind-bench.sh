#!/bin/bash
# Debian's perf 6.1 alone against perf with libehelf-unwind preloaded
# (LD_PRELOAD=libehelf-unwind.so, eh_elfs for every module in a store of
# the bench's directory), same run, same recordings: CPU time (user +
# system, best of 3) of `perf report --stdio -g` and `perf script -F
# comm,tid,time,event,ip,sym,symoff,dso`, each also with --no-inline (perf
# then runs no addr2line for inlined frames), output to /dev/null.  The
# recordings: `perf record --call-graph dwarf -e cpu-clock -F 20000` of
# the perf-libunwind C program (no frame pointers) and of a python3
# script with deep calls, each of 50,000+ samples (checked).
# The floor: the same command on the same samples with no unwinding at
# all, the recording converted by `ehelf-perf inject` (each sample's
# user stack as a frame-pointer callchain, the stack copies left out):
# perf's own per-sample and per-frame work, which no unwinder removes.
# perf shows no inlined frames on such callchains, so the floor of a row
# with inlined frames is its --no-inline row's floor plus what inlined
# frames cost perf alone (its time with them less its time without).
# The ideal: perf in DWARF mode on the recording itself behind an
# unwinder that costs nothing (perf_ideal_unwinder.c replaying the
# results of libehelf-unwind's walks: per sample rip and rsp through
# perf's access_reg, per step the reads libehelf-unwind made through its
# access_mem, nothing else), what perf's remote-API unwinding costs perf
# whatever the unwinder.
# Prints one row per command: perf alone, preloaded, the floor, the
# ideal, their ratios to perf alone, and whether the row meets the target
# (preloaded at most 0.6 times perf alone) or cannot (its floor or its
# ideal above 0.6).
# Usage: bench/perf-libunwind-bench.sh BUILD [DIR]   (DIR: keep the files)
set -eu
build=$(cd "${1:?usage: perf-libunwind-bench.sh BUILD [DIR]}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -ge 2 ]; then
	T=$2
	mkdir -p "$T"
else
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT INT TERM
fi
lib=$build/lib/libehelf-unwind.so
ideal_lib=$build/bench/perf_ideal_unwinder.so
unset EHELF_URLS EHELF_VERBOSE
export EHELF_CACHE_PATH=$T/cache EHELF_PATH=$T/store
mkdir -p "$T/cache"
cat >"$T/work.py" <<'PY'
import json, re, sys
def deep(n, f):
    return f() if n == 0 else deep(n - 1, f)
def one():
    words = [("w%d" % (i * 7919 % 5000)) for i in range(200000)]
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    text = json.dumps(counts)
    return len(json.loads(text)) + len(re.findall(r"w(\d+)7", text))
print(sum(deep(20, one) for _ in range(int(sys.argv[1]))))
PY
rec() { # NAME COMMAND...
	name=$1
	shift
	[ -s "$T/$name.data" ] ||
		perf record -q -e cpu-clock -F 20000 --call-graph dwarf -o "$T/$name.data" \
			-- "$@" >/dev/null 2>"$T/$name.log" ||
		{ cat "$T/$name.log" >&2; exit 1; }
	n=$(perf report -i "$T/$name.data" --stats 2>/dev/null |
		awk '/SAMPLE events:/ { print $3; exit }')
	if [ "${n:-0}" -lt 50000 ]; then
		echo "perf-libunwind-bench: $name: $n samples, fewer than 50,000" >&2
		exit 1
	fi
	echo "$name: $n samples"
}
echo "perf-libunwind-bench: recording"
rec c "$build/tests/perf-libunwind/workload" 100000 600
rec python python3 "$T/work.py" 40
[ -d "$T/store" ] ||
	"$root/tests/perf/store-for-recordings.sh" "$build" "$T/store" "$T/c.data" \
		"$T/python.data"

cpu() { # COMMAND...: the best user + system seconds of 3 runs
	best=
	for _ in 1 2 3; do
		/usr/bin/time -f '%U %S' -o "$T/time" "$@" >/dev/null 2>"$T/err" ||
			{ echo "perf-libunwind-bench: $* failed:" >&2; cat "$T/err" >&2; return 1; }
		s=$(awk '{ printf "%.2f", $1 + $2 }' "$T/time")
		best=$(awk -v a="$s" -v b="${best:-$s}" 'BEGIN { print (a < b ? a : b) }')
	done
	echo "$best"
}
fields=comm,tid,time,event,ip,sym,symoff,dso
for name in c python; do
	[ -s "$T/$name.floor.data" ] ||
		"$build/bin/ehelf-perf" inject --no-progress --no-fetch --no-summary \
			-i "$T/$name.data" -o "$T/$name.floor.data" >/dev/null ||
		{ echo "perf-libunwind-bench: ehelf-perf inject $name failed" >&2; exit 1; }
done
# the ideal unwinder's record: libehelf-unwind's walks in perf's order
for name in c python; do
	[ -s "$T/$name.trace" ] ||
		PERF_IDEAL_MODE=record PERF_IDEAL_TRACE="$T/$name.trace" \
		LD_PRELOAD="$ideal_lib:$lib" perf report --stdio -g --no-inline \
			-i "$T/$name.data" >/dev/null 2>"$T/err" ||
		{ echo "perf-libunwind-bench: recording the walks of $name failed" >&2
		  cat "$T/err" >&2; exit 1; }
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }
printf '%-8s %-30s %8s %8s %8s %8s %9s %9s %9s  %s\n' recording command "perf" \
	preload floor ideal "pre/perf" "floor/perf" "ideal/perf" \
	"(CPU s; target pre/perf <= 0.6)"
for name in c python; do
	for cmd in "report --stdio -g --no-inline" "report --stdio -g" \
		   "script -F $fields --no-inline" "script -F $fields"; do
		alone=$(cpu perf $cmd -i "$T/$name.data") || exit 1
		pre=$(cpu env LD_PRELOAD="$lib" perf $cmd -i "$T/$name.data") || exit 1
		ideal=$(cpu env PERF_IDEAL_MODE=replay PERF_IDEAL_TRACE="$T/$name.trace" \
			LD_PRELOAD="$ideal_lib" perf $cmd -i "$T/$name.data") || exit 1
		mark=
		case $cmd in
		*--no-inline)
			floor=$(cpu perf $cmd -i "$T/$name.floor.data") || exit 1
			base_alone=$alone base_floor=$floor ;;
		*)	# the --no-inline row's floor + inlined frames' cost
			floor=$(awk -v f="$base_floor" -v a="$alone" -v b="$base_alone" \
				'BEGIN { printf "%.2f", f + a - b }')
			mark='*' ;;
		esac
		r=$(ratio "$alone" "$pre")
		fr=$(ratio "$alone" "$floor")
		ir=$(ratio "$alone" "$ideal")
		verdict=$(awk -v r="$r" -v f="$fr" -v i="$ir" 'BEGIN {
			v = "not met"
			if (r + 0 <= 0.6) v = "met"
			else if (f + 0 > 0.6) v = "not met: floor above 0.6"
			else if (i + 0 > 0.6) v = "not met: ideal above 0.6"
			print v }')
		printf '%-8s %-30s %8s %8s %8s %8s %9s %9s %9s  %s\n' "$name" \
			"${cmd/-F $fields/-F ...}" "$alone" "$pre" "$floor$mark" \
			"$ideal" "$r" "$fr" "$ir" "$verdict"
	done
done
echo "* floor of the row without --no-inline: the --no-inline floor plus perf alone's cost of inlined frames"
echo "ideal: perf on the recording behind an unwinder of no cost (its access_reg and access_mem calls alone)"
