#!/bin/sh
# ehelf-perf on large recordings: xz -T1 -6 compressing MB
# megabytes of generated text (words and numbers, 12 to a line), recorded
# at 2 kHz with `--call-graph dwarf,16384` and `dwarf,65528` (perf's
# largest stack copy), 10,000+ samples each at the default size on this
# machine; eh_elfs for the files they map (store-for-recordings.sh); then
# the whole command, `ehelf-perf script` against `perf script --no-inline`
# with the same fields, same file, output to /dev/null, best of 5 (the
# saved symbol tables made by a first run), as in (b) of perf-bench.sh,
# with the ratio and whether it meets the 10x target.
# Usage: bench/perf-bench-large.sh BUILD [MB] [BASELINE_BUILD]
# With BASELINE_BUILD, that build's ehelf-perf is timed too, the two taking
# turns run by run (old and new in the same minutes).
set -eu
build=$(cd "${1:?usage: perf-bench-large.sh BUILD [MB] [BASELINE_BUILD]}" && pwd)
mb=${2:-10}
base=${3:+$(cd "$3" && pwd)}
here=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
fields=comm,tid,time,event,ip,sym,symoff,dso

# the input: deterministic text that xz works on for about 0.8 s per MB
awk -v mb="$mb" 'BEGIN {
	srand(1)
	for (i = 0; i < 5000; i++) {
		w = ""; k = 3 + int(rand() * 8)
		for (j = 0; j < k; j++) w = w sprintf("%c", 97 + int(rand() * 26))
		words[i] = w
	}
	n = 0
	while (n < mb * 1000000) {
		line = ""
		for (j = 0; j < 12; j++) line = line words[int(rand() * 5000)] " "
		line = line int(rand() * 1073741824)
		print line
		n += length(line) + 1
	}
}' >"$T/in.txt"

echo "== ehelf-perf on large recordings ($(date -u +%F), xz -T1 -6 on $mb MB)"
for size in 16384 65528; do
	perf record -q -e cpu-clock -F 2000 --call-graph dwarf,$size -m 1024 \
		-o "$T/xz$size.data" -- xz -T1 -6 -c "$T/in.txt" >/dev/null \
		2>"$T/record.log" ||
		{ echo "perf-bench-large: perf record failed:" >&2; cat "$T/record.log" >&2; exit 1; }
done
"$here/tests/perf/store-for-recordings.sh" "$build" "$T/store" "$T"/xz*.data
export EHELF_PATH="$T/store"
export XDG_CACHE_HOME="$T/cache"

secs() { # the wall-clock seconds of a command, its output to /dev/null
	s=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	e=$(date +%s.%N)
	echo "$e - $s" | bc
}
min() { if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc)" = 1 ]; then echo "$2"; else echo "$1"; fi; }

echo "the whole command, seconds, best of 5 (the commands taking turns), output to /dev/null"
printf '%-12s %8s %7s %11s %10s %7s  %s\n' stack samples MiB "perf script" ehelf-perf ratio "target 10x"
for size in 16384 65528; do
	f=$T/xz$size.data
	ehelf="$build/bin/ehelf-perf"
	"$ehelf" script -i "$f" --no-progress >/dev/null # saves the symbol tables
	[ -z "$base" ] || "$base/bin/ehelf-perf" script -i "$f" --no-progress >/dev/null
	p="" e="" b=""
	for i in 1 2 3 4 5; do
		p=$(min "$p" "$(secs perf script -i "$f" -F $fields --no-inline)")
		e=$(min "$e" "$(secs "$ehelf" script -i "$f" --no-progress)")
		[ -z "$base" ] || b=$(min "$b" "$(secs "$base/bin/ehelf-perf" script -i "$f" --no-progress)")
	done
	n=$(perf script -i "$f" -F tid 2>/dev/null | wc -l)
	r=$(echo "$p / $e" | bc -l)
	met="NOT met"
	[ "$(echo "$r >= 10" | bc)" = 1 ] && met=met
	printf '%-12s %8d %7.1f %11.3f %10.3f %6.1fx  %s\n' "dwarf,$size" "$n" \
		"$(echo "$(stat -c %s "$f") / 1048576" | bc -l)" "$p" "$e" "$r" "$met"
	[ -z "$base" ] || printf '%-12s %8s %7s %11s %10.3f %6.1fx  (baseline build)\n' "" "" "" "" \
		"$b" "$(echo "$p / $b" | bc -l)"
done
echo "agreement with perf script (script_compare): identical user stacks"
for size in 16384 65528; do
	f=$T/xz$size.data
	perf script -i "$f" -F $fields --no-inline >"$T/perf.txt" 2>/dev/null
	"$build/bin/ehelf-perf" script -i "$f" --no-progress >"$T/ehelf.txt"
	printf '%-12s ' "dwarf,$size"
	"$build/tests/perf/script_compare" "$T/perf.txt" "$T/ehelf.txt" | tail -n 1 |
		sed 's/^script_compare: //'
	rm -f "$T/perf.txt" "$T/ehelf.txt"
done
