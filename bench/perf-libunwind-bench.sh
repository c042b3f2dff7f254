#!/bin/bash
# Debian's perf 6.1 alone against perf with libehelf-unwind preloaded
# (LD_PRELOAD=libehelf-unwind.so, eh_elfs for every module in a store of
# the bench's directory), same run, same recordings: CPU time (user +
# system, best of 3) of `perf report --stdio -g` and `perf script -F
# comm,tid,time,event,ip,sym,symoff,dso`, each also with --no-inline (perf
# then runs no addr2line for inlined frames), output to /dev/null.  The
# recordings: `perf record --call-graph dwarf -e cpu-clock -F 20000` of
# the perf-libunwind C program (no frame pointers) and of a python3
# script with deep calls, each of 50,000+ samples (checked).  Prints one
# row per command: the two times and their ratio (target: 0.6 or less).
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
		/usr/bin/time -f '%U %S' -o "$T/time" "$@" >/dev/null 2>/dev/null
		s=$(awk '{ printf "%.2f", $1 + $2 }' "$T/time")
		best=$(awk -v a="$s" -v b="${best:-$s}" 'BEGIN { print (a < b ? a : b) }')
	done
	echo "$best"
}
fields=comm,tid,time,event,ip,sym,symoff,dso
printf '%-8s %-34s %10s %12s %7s\n' recording command "perf (s)" "preload (s)" ratio
for name in c python; do
	for cmd in "report --stdio -g" "report --stdio -g --no-inline" \
		   "script -F $fields" "script -F $fields --no-inline"; do
		alone=$(cpu perf $cmd -i "$T/$name.data")
		pre=$(cpu env LD_PRELOAD="$lib" perf $cmd -i "$T/$name.data")
		printf '%-8s %-34s %10s %12s %7s\n' "$name" "${cmd/-F $fields/-F ...}" \
			"$alone" "$pre" "$(awk -v a="$alone" -v p="$pre" 'BEGIN { printf "%.2f", p / a }')"
	done
done
