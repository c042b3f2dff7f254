#!/bin/sh
# ehelf-perf against perf itself, on real recordings: the workloads of
# record-workloads.sh are recorded with `perf record --call-graph dwarf`
# (file mode, and one in pipe mode), eh_elfs are built for the files they
# map, and `ehelf-perf script` must print the same samples as `perf script
# -F comm,tid,time,event,ip,sym,symoff,dso --no-inline` (also on
# compressed recordings, perf record -z, file and pipe; and recordings
# with time spent in the vDSO, file and pipe; a program linked with lld,
# whose segments share file pages; one sampled on a PLT entry without
# CFI, by an execute breakpoint; a JIT listing its code in
# /tmp/perf-PID.map; C++ exceptions thrown in a loop; two events, file
# and pipe): the same headers
# and kernel frames, at least 95% of the user stacks identical (a few
# hundred samples each: one difference is 0.3-0.7%), and every differing
# one explained by unwind_crosscheck (libunwind and libdw used directly on
# the sample agree with ehelf, or no CFI covered a pc and libdw guesses as
# ehelf does); the output must not change without eh_elfs (libdw's CFI,
# the fallback, gives the same stacks) nor when the symbols (kernel's and
# files') come from the tables saved by the previous runs; recordings with
# frame-pointer callchains (-g) or none must print exactly what perf
# prints; folded output must count every sample; bad input and bad usage
# must fail cleanly.  ehelf-perf's cache
# is kept in the test's directory ($XDG_CACHE_HOME); perf record fills
# perf's build-ID cache (~/.debug) as it always does.
# Usage: tests/perf/run-perf-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-perf-tests.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
jmap= # the JIT workload's /tmp/perf-PID.map
trap '[ -z "$jmap" ] || rm -f "$jmap"; [ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT INT TERM
fails=0
ok() { echo "  ok: $*"; }
bad() { echo "  FAIL: $*" >&2; fails=$((fails + 1)); }
fields=comm,tid,time,event,ip,sym,symoff,dso
ep="$build/bin/ehelf-perf"
export XDG_CACHE_HOME="$T/cache"

echo "== recordings, and eh_elfs for the files they map"
"$here/record-workloads.sh" "$T/rec" 1 hackbench python cc1plus sqlite exec throw
sq="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
	 WHERE i < 300000) SELECT count(*), sum(i * i % 7) FROM n;"
perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o - -- \
	sqlite3 :memory: "$sq" 2>/dev/null >"$T/rec/pipe.data"
perf record -q -z -e cpu-clock -F 2000 --call-graph dwarf -o "$T/rec/zfile.data" -- \
	sqlite3 :memory: "$sq" >/dev/null 2>&1
perf record -q -z -e cpu-clock -F 2000 --call-graph dwarf -o - -- \
	sqlite3 :memory: "$sq" 2>/dev/null >"$T/rec/zpipe.data"
# two events, whose names perf script pads to the longer one's width, in
# a file and in a pipe
perf record -q -e cpu-clock,task-clock -F 1000 --call-graph dwarf -o "$T/rec/twoev.data" -- \
	sqlite3 :memory: "$sq" >/dev/null 2>&1
perf record -q -e cpu-clock,task-clock -F 1000 --call-graph dwarf -o - -- \
	sqlite3 :memory: "$sq" 2>/dev/null >"$T/rec/twopipe.data"
# a program linked with lld, whose segments share file pages (the
# executable one starts inside the first page): its mapping's offset is
# also the read-only segment's
cc -O1 -g -fuse-ld=lld -o "$T/shared_pages" "$here/data/shared_pages.c"
readelf -lW "$T/shared_pages" | awk '$1 == "LOAD" && / R E / && $2 !~ /000$/ { x = 1 } END { exit !x }' ||
	bad "shared_pages: lld did not start the executable segment inside a page"
perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$T/rec/lld.data" -- \
	"$T/shared_pages" 40000 >/dev/null 2>&1
# a program linked with lld, which gives PLT entries no CFI, recorded
# with an execute breakpoint on one of them: every sample's pc is the
# entry's first instruction, where the return address is at the stack
# pointer (ehelf's PLT rule; libunwind's too, so perf's)
plt=
cc -O1 -g -no-pie -fuse-ld=lld -o "$T/plt_calls" "$here/data/shared_pages.c"
pc=$(objdump -d "$T/plt_calls" | awk '/<strlen@plt>:$/ { print "0x" $1 }')
# the lazy-binding layout the rule knows (jmp *GOT first): not the endbr64
# entries of CET-marked builds
first=$(objdump -d "$T/plt_calls" | awk '/<strlen@plt>:$/ { getline; print; exit }')
covered=0
for r in $(readelf --debug-dump=frames "$T/plt_calls" 2>/dev/null |
	   sed -n 's/.* FDE .*pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\)$/\1:\2/p'); do
	if [ -n "$pc" ] && [ $((pc)) -ge $((0x${r%:*})) ] && [ $((pc)) -lt $((0x${r#*:})) ]; then
		covered=1
	fi
done
if [ -z "$pc" ]; then
	bad "plt: no strlen@plt in the lld-linked program"
elif [ $covered = 1 ]; then
	bad "plt: lld gave its PLT entries CFI: the workload no longer tests the PLT rule"
elif ! echo "$first" | grep -q ':[[:space:]]*ff 25 '; then
	bad "plt: strlen@plt is not a lazy-binding entry here ($first): Debian 12's lld (install-deps.sh) makes one"
elif perf record -q -e "mem:$pc:x" -c 199 --call-graph dwarf -o "$T/rec/plt.data" -- \
	"$T/plt_calls" 600 plt >/dev/null 2>"$T/plt.log"; then
	plt=plt
else
	bad "plt: perf record with an execute breakpoint failed ($(head -n 1 "$T/plt.log"))"
fi
# a JIT: code in anonymous executable memory, listed in /tmp/perf-PID.map;
# its frames named from that file, as perf names them (no CFI there: ehelf
# and libdw follow the frame pointers it keeps, perf's libunwind stops)
jit=
cc -O1 -g -o "$T/jit_map" "$here/data/jit_map.c"
if perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$T/rec/jit.data" -- \
	"$T/jit_map" 300000 >"$T/jit.out" 2>"$T/jit.err"; then
	jmap=$(awk '{ print $1; exit }' "$T/jit.out")
	case $jmap in
	/tmp/perf-[0-9]*.map) jit=jit ;;
	*) bad "jit: no map file named by the JIT: $(head -c 200 "$T/jit.out")"; jmap= ;;
	esac
else
	bad "jit: the JIT did not run here ($(tail -n 1 "$T/jit.err"))"
	rm -f "$T/rec/jit.data"
fi
# time in the vDSO: its symbols from perf's build-ID cache (file) or from
# our own vDSO (pipe, as perf does)
vd='import time
t = 0
for i in range(600000): t += time.time() - time.monotonic()'
perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$T/rec/vdso.data" -- \
	/usr/bin/python3 -c "$vd" >/dev/null 2>&1
perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o - -- \
	/usr/bin/python3 -c "$vd" 2>/dev/null >"$T/rec/vpipe.data"
# symbols longer than ehelf-perf's output buffer's margins: a leaf of
# 40,000 characters (written past the 64 KiB buffer, which is flushed
# first) under eight callers of 8,000 each, so that each sample's lines
# fill the buffer and the leaf's line starts in an empty one: the frame
# lines ehelf-perf caches by pc must be whole, not the tail that followed
# the flush
long40=f40_$(head -c 40000 /dev/zero | tr '\0' a)
{
	echo '#include <time.h>'
	echo "__attribute__((noinline)) unsigned long $long40(unsigned long n)"
	echo '{ unsigned long x = n; for (unsigned long i = 0; i < 200000; i++) x = x * 6364136223846793005ul + i; return x; }'
	prev=$long40
	for c in b c d e f g h i; do
		name=f8${c}_$(head -c 8000 /dev/zero | tr '\0' "$c")
		echo "__attribute__((noinline)) unsigned long $name(unsigned long n)"
		echo "{ return $prev(n) + 1; }"
		prev=$name
	done
	echo 'int main(void) { unsigned long s = 0; clock_t end = clock() + CLOCKS_PER_SEC / 3;'
	echo "	while (clock() < end) s += $prev(s); return (int)(s == 42); }"
} >"$T/longsym.c"
cc -O1 -o "$T/longsym" "$T/longsym.c" &&
	perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$T/rec/longsym.data" -- \
		"$T/longsym" >/dev/null 2>&1 ||
	bad "longsym: could not build or record the long-symbol program"
"$here/store-for-recordings.sh" "$build" "$T/store" "$T"/rec/*.data
export EHELF_PATH="$T/store"

echo "== ehelf-perf script against perf script"
for w in hackbench python cc1plus sqlite pipe zfile zpipe vdso vpipe lld $plt $jit exec throw \
	twoev twopipe; do
	f=$T/rec/$w.data
	perf script -i "$f" -F $fields --no-inline >"$T/$w.perf" 2>/dev/null
	if [ "$w" = pipe ] || [ "$w" = zpipe ] || [ "$w" = vpipe ] || [ "$w" = twopipe ]; then
		"$ep" script -i - --no-progress <"$f" >"$T/$w.ehelf" 2>"$T/$w.err"
	else
		"$ep" script -i "$f" --no-progress >"$T/$w.ehelf" 2>"$T/$w.err"
	fi || { bad "$w: ehelf-perf failed: $(cat "$T/$w.err")"; continue; }
	"$build/tests/perf/unwind_crosscheck" "$f" >"$T/$w.oracle" 2>/dev/null
	# exec: perf's own unwinding fails in many samples of processes
	# started by vfork and exec (from 2% to nearly all of them, from one
	# recording to the next: docs/perf.md), where libunwind and libdw
	# used directly agree with ehelf; what counts there is that every
	# difference is explained: no share of identical stacks is asked
	# (script_compare refuses a --min of 0), but, as everywhere, samples
	# (a few hundred each: 50 at least, or nothing was compared)
	min="--min 95"
	[ "$w" = exec ] && min=
	[ "$w" = plt ] && min="--min 99" # every sample on a PLT entry
	[ "$w" = jit ] && min=  # perf stops at the JIT's frames: guesses
	# shellcheck disable=SC2086
	if "$build/tests/perf/script_compare" $min --min-samples 50 \
		--oracle "$T/$w.oracle" --explained \
		"$T/$w.perf" "$T/$w.ehelf" >"$T/$w.cmp"; then
		ok "$w: $(tail -n 1 "$T/$w.cmp" | sed 's/^script_compare: //')"
	else
		bad "$w: $(tail -n 1 "$T/$w.cmp")"
		head -n 40 "$T/$w.cmp"
	fi
done
# a recording file (not a pipe) on standard input: the same output, and
# the open file it shares with the caller left as it was (ehelf-perf sets
# O_NOATIME and its read-ahead advice only on descriptors of its own)
rc=0
( "$ep" script -i - --no-progress <&3 >"$T/stdin.ehelf" 2>"$T/stdin.err" || exit 1
  awk '/^flags:/ { print $2 }' /proc/self/fdinfo/3 >"$T/stdin.flags" ) \
	3<"$T/rec/hackbench.data" || rc=$?
fl=$(cat "$T/stdin.flags" 2>/dev/null || echo 0)
if [ "$rc" = 0 ] && cmp -s "$T/hackbench.ehelf" "$T/stdin.ehelf" &&
   [ "$(( 0$fl & 01000000 ))" = 0 ]; then
	ok "a file on standard input: the same output, its shared flags untouched ($fl)"
else
	bad "a file on standard input: exit $rc, flags $fl, output $(cmp "$T/hackbench.ehelf" "$T/stdin.ehelf" 2>&1 | head -c 100)"
fi
# every frame line in the long-symbol program is whole: a tab, the ip,
# the symbol (perf prints the same lines)
if [ -s "$T/rec/longsym.data" ]; then
	"$ep" script -i "$T/rec/longsym.data" --no-progress >"$T/longsym.ehelf" 2>"$T/longsym.err" ||
		bad "longsym: ehelf-perf failed: $(cat "$T/longsym.err")"
	perf script -i "$T/rec/longsym.data" -F $fields --no-inline >"$T/longsym.perf" 2>/dev/null
	# (fixed strings: a 40,000-character regular expression takes grep a minute)
	n40=$(grep -Fc "$long40+0x" "$T/longsym.ehelf" || true)
	broken=$(grep "($T/longsym)\$" "$T/longsym.ehelf" | grep -vc "^	 *[0-9a-f]* [a-z_]" || true)
	p40=$(grep -Fc "$long40+0x" "$T/longsym.perf" || true)
	if [ "$n40" -ge 50 ] && [ "$broken" = 0 ] && [ "$n40" = "$p40" ]; then
		ok "longsym: $n40 frames in a 40,000-character symbol under 8,000-character ones, every line whole, as many as perf's"
	else
		bad "longsym: $n40 whole lines of the 40,000-character symbol (perf: $p40), $broken broken lines"
	fi
fi
if [ -n "$jit" ]; then
	# the JIT's innermost frames, address, name and file, line for line
	# as perf prints them (the differences above are explained by the
	# unwinding alone, which says nothing of how a frame is printed)
	grep 'jit_spin+' "$T/jit.perf" >"$T/jit.perf.spin" || true
	grep 'jit_spin+' "$T/jit.ehelf" >"$T/jit.ehelf.spin" || true
	n=$(grep -c '^	 *[0-9a-f]* jit_spin+0x[0-9a-f]* (/tmp/perf-[0-9]*\.map)$' "$T/jit.ehelf.spin" || true)
	if [ "$n" -gt 0 ] && cmp -s "$T/jit.perf.spin" "$T/jit.ehelf.spin"; then
		ok "jit: $n frames named from $jmap, printed as perf prints them"
	else
		bad "jit: frames in the JIT's code not printed as perf prints them ($n named here; first difference: $(diff "$T/jit.perf.spin" "$T/jit.ehelf.spin" | sed -n 2,3p | tr '\n' ' '))"
	fi
fi
for w in vdso vpipe; do
	n=$(grep -c '__vdso_.*(\[vdso\])$' "$T/$w.ehelf" || true)
	[ "$n" -gt 0 ] && ok "$w: $n frames in the vDSO, named as perf names them" ||
		bad "$w: no named vDSO frame (perf: $(grep -c '(\[vdso\])$' "$T/$w.perf" || true) frames)"
done
# a file whose vDSO perf's build-ID cache does not have: our own (the
# same kernel's), as perf does
mkdir -p "$T/no-buildid-cache"
PERF_BUILDID_DIR=$T/no-buildid-cache "$ep" script -i "$T/rec/vdso.data" --no-progress >"$T/vdso.own"
cmp -s "$T/vdso.ehelf" "$T/vdso.own" && ok "vdso: the same from our own vDSO" ||
	bad "vdso: without perf's copy of the vDSO the output differs ($(diff "$T/vdso.ehelf" "$T/vdso.own" | grep -c '^[<>]') lines)"
for w in zfile zpipe; do
	"$build/tests/perf/perf_data_dump" -e "$T/rec/$w.data" 2>/dev/null | grep -q '^count COMPRESSED ' &&
		ok "$w: compressed (COMPRESSED records)" ||
		bad "$w: no COMPRESSED records: perf record -z did not compress"
done
# the check itself: the oracle speaks of pcs, so a wrong name where perf
# and ehelf agree on the frames must not pass as explained
sed -E 's/^(\t +[0-9a-f]+ )[A-Za-z_][A-Za-z0-9_@.]*\+/\1WRONG+/' "$T/sqlite.ehelf" >"$T/sqlite.wrong"
if "$build/tests/perf/script_compare" --oracle "$T/sqlite.oracle" --explained \
	"$T/sqlite.perf" "$T/sqlite.wrong" >/dev/null; then
	bad "script_compare took wrong symbol names for explained differences"
else
	ok "script_compare: wrong symbol names are not explained"
fi

echo "== the same without eh_elfs, and from the saved symbol tables"
tab=$(ls "$XDG_CACHE_HOME"/ehelf/kallsyms/*.tab 2>/dev/null | head -n 1)
[ -n "$tab" ] && ok "kernel symbols saved: $(basename "$tab")" ||
	bad "no saved kernel symbol table under $XDG_CACHE_HOME"
cc1=$(perf buildid-list -i "$T/rec/cc1plus.data" 2>/dev/null | awk '/cc1plus$/ { print $1 }')
[ -n "$cc1" ] && [ -f "$XDG_CACHE_HOME/ehelf/symtab/$cc1.tab" ] &&
	ok "user symbols saved: $(ls "$XDG_CACHE_HOME"/ehelf/symtab | wc -l) tables, cc1plus's among them" ||
	bad "no saved symbol table for cc1plus ($cc1) under $XDG_CACHE_HOME/ehelf/symtab"
# from here on every table is mapped back from what the runs above saved
for w in cc1plus sqlite exec; do
	EHELF_PATH=$T/no-store "$ep" script -i "$T/rec/$w.data" --no-progress >"$T/$w.dwarf"
	cmp -s "$T/$w.ehelf" "$T/$w.dwarf" && ok "$w: DWARF fallback, saved symbols: prints the same" ||
		bad "$w: without eh_elfs the output differs ($(diff "$T/$w.ehelf" "$T/$w.dwarf" | grep -c '^[<>]') lines)"
done
"$ep" script -i "$T/rec/hackbench.data" --no-progress >"$T/hackbench.again"
cmp -s "$T/hackbench.ehelf" "$T/hackbench.again" && ok "hackbench: same output from the saved symbol tables" ||
	bad "hackbench: a second run prints something else"

echo "== recordings without DWARF stacks: frame-pointer callchains, none"
q="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000) SELECT count(*) FROM n;"
perf record -q -e cpu-clock -F 2000 -g -o "$T/rec/fp.data" -- sqlite3 :memory: "$q" >/dev/null 2>&1
perf record -q -e cpu-clock -F 2000 -o "$T/rec/plain.data" -- sqlite3 :memory: "$q" >/dev/null 2>&1
for w in fp plain; do
	perf script -i "$T/rec/$w.data" -F $fields --no-inline >"$T/$w.perf" 2>/dev/null
	"$ep" script -i "$T/rec/$w.data" --no-progress >"$T/$w.ehelf"
	n=$(grep -c 'cpu-clock' "$T/$w.perf" || true)
	[ "$n" -gt 0 ] && cmp -s "$T/$w.perf" "$T/$w.ehelf" &&
		ok "$w: the same $n samples as perf script" ||
		bad "$w: differs from perf script ($(diff "$T/$w.perf" "$T/$w.ehelf" | grep -c '^[<>]') lines)"
done

echo "== folded stacks"
"$ep" script -i "$T/rec/sqlite.data" --folded --no-progress >"$T/folded"
samples=$(grep -c '^[^	]' "$T/sqlite.perf" || true)
total=$(awk '{ s += $NF } END { print s + 0 }' "$T/folded")
[ "$total" = "$samples" ] && ok "every one of $samples samples counted once, $(wc -l <"$T/folded") stacks" ||
	bad "folded stacks count $total samples, perf script printed $samples"
grep -qv '^[^ ;]\{1,\}\(;[^;]*\)* [0-9]\{1,\}$' "$T/folded" &&
	bad "a folded line is not 'comm;frame;... COUNT'" || ok "folded lines well formed"

echo "== bad input and bad usage"
expect() { # STATUS WHAT COMMAND...
	want=$1 what=$2
	shift 2
	set +e
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	set -e
	if [ "$got" = "$want" ] && { [ "$want" = 0 ] || [ -s "$T/err" ]; }; then
		ok "$what: exit $got${want:+, }$(head -c 100 "$T/err" | head -n 1)"
	else
		bad "$what: exit $got (want $want); $(head -c 200 "$T/err")"
	fi
}
size=$(stat -c %s "$T/rec/sqlite.data")
head -c $((size / 2)) "$T/rec/sqlite.data" >"$T/truncated.data"
head -c 100000 /dev/urandom >"$T/random.data"
: >"$T/empty.data"
expect 1 "missing file" "$ep" script -i "$T/nonexistent.data" --no-progress
expect 1 "truncated file" "$ep" script -i "$T/truncated.data" --no-progress
expect 1 "random bytes" "$ep" script -i "$T/random.data" --no-progress
expect 1 "empty file" "$ep" script -i "$T/empty.data" --no-progress
expect 2 "no command" "$ep"
expect 2 "unknown option" "$ep" script --frobnicate
expect 0 "--help" "$ep" --help

[ "$fails" = 0 ] && echo "ehelf-perf tests: PASS" || { echo "ehelf-perf tests: $fails FAILED"; exit 1; }
