#!/bin/sh
# The unwinder's tests, on this machine's libraries: eh_elfs are built for
# the test programs and every library they load (ehelf-batch), then
#  - compare-libunwind: ehelf against libunwind in the same process, with
#    every module's eh_elf, and again with libc's and libstdc++'s removed
#    (their frames then go through libdw), and built with IBT PLTs;
#  - sample-compare: the same at arbitrary pcs of real work (zlib, qsort,
#    sqlite, C++), from a SIGPROF handler;
#  - robustness: garbage registers and stacks never crash the process;
#  - compare-remote: ehelf_unwind on a stopped child against libunwind's
#    ptrace unwinder, with and without libc's and libstdc++'s eh_elfs;
#  - unw-api with Debian's libunwind, relinked against libehelf-unwind,
#    and under LD_PRELOAD=libehelf-unwind.so: identical output;
#  - backtrace-dlopen: unw_backtrace allocates nothing in a signal
#    handler raised from a library loaded since, and finds the library
#    outside the handler;
#  - heaptrack (which records a backtrace with libunwind's unw_backtrace
#    at every allocation) on a Python script, as is and with
#    libehelf-unwind.so preloaded: the same backtraces;
#  - gdb's backtraces of the same process at the same points.
# Usage: tests/unwind/run-unwind-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-unwind-tests.sh BUILD}" && pwd)
bin=$build/tests/unwind
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
. "$(dirname "$0")/../common/checks.sh"

echo "== eh_elfs for the test programs and their libraries"
mkdir -p "$T/files"
for p in compare-libunwind compare-libunwind-ibt compare-remote sample-compare \
	 robustness unw-api-libunwind unw-api-ehelf backtrace-dlopen; do
	cp "$bin/$p" "$T/files/"
	LD_LIBRARY_PATH=$build/lib ldd "$bin/$p" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' |
	while read -r lib; do cp -n "$(readlink -f "$lib")" "$T/files/"; done
done
cp -n "$build/lib/libehelf-unwind.so" "$bin/libunwtest-dso.so" "$T/files/"
"$build/bin/ehelf-compile" --extract-vdso "$T/files/vdso.so"
"$build/bin/ehelf-batch" --store "$T/store" --json "$T/files" >"$T/batch.json"
echo "  $(sed 's/.*"built": \([0-9]*\).*/\1/' "$T/batch.json") eh_elfs built"
export EHELF_PATH="$T/store"

echo "== ehelf against libunwind, in the same process"
"$bin/compare-libunwind" >"$T/c1" 2>"$T/c1.err" && ok "$(tail -n 2 "$T/c1" | head -n 1)" ||
	{ bad "compare-libunwind"; cat "$T/c1.err" "$T/c1" | tail -30; }
"$bin/compare-libunwind-ibt" >"$T/c2" 2>&1 && ok "IBT PLTs: $(tail -n 2 "$T/c2" | head -n 1 | sed 's/^compare-libunwind: //')" ||
	{ bad "compare-libunwind with IBT PLTs"; tail -30 "$T/c2"; }
cp -r "$T/store" "$T/partial"
for lib in libc.so.6 libstdc++.so.6; do
	id=$(readelf -n "$(readlink -f "$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')")" |
	     awk '/Build ID/ { print $3 }')
	rm -f "$T/partial/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).so"
done
EHELF_PATH="$T/partial" "$bin/compare-libunwind" --expect-dwarf >"$T/c3" 2>&1 &&
	ok "libc and libstdc++ without eh_elfs: $(tail -n 2 "$T/c3" | head -n 1 | sed 's/^compare-libunwind: //')" ||
	{ bad "mixed stack (DWARF fallback)"; tail -30 "$T/c3"; }

echo "== ehelf against libunwind at arbitrary pcs: a signal handler sampling real work"
"$bin/sample-compare" 0.5 >"$T/s1" 2>&1 && ok "$(tail -n 2 "$T/s1" | head -n 1)" ||
	{ bad "sample-compare"; tail -40 "$T/s1"; }

echo "== garbage registers and stacks: unwinding never crashes"
"$bin/robustness" 100000 >"$T/rob" 2>&1 && ok "$(tail -n 2 "$T/rob" | head -n 1)" ||
	{ bad "robustness"; tail -20 "$T/rob"; }

echo "== ehelf's remote unwinder against libunwind's ptrace unwinder, on a stopped child"
"$bin/compare-remote" >"$T/rem1" 2>&1 && ok "$(tail -n 2 "$T/rem1" | head -n 1)" ||
	{ bad "compare-remote"; tail -30 "$T/rem1"; }
EHELF_PATH="$T/partial" "$bin/compare-remote" --expect-dwarf >"$T/rem2" 2>&1 &&
	ok "libc and libstdc++ without eh_elfs: $(tail -n 2 "$T/rem2" | head -n 1 | sed 's/^compare-remote: //')" ||
	{ bad "compare-remote, mixed stack"; tail -30 "$T/rem2"; }

echo "== a libunwind program: Debian's libunwind, relinked, preloaded"
# Stack pointers are printed relative to frame 0's, but across a signal
# frame or a realigned (DRAP) frame the distance depends on the stack's
# alignment at exec: the three runs get no address randomization, equally
# long paths and equally large environments.
# unw-api-libunwind throws through libunwind's _Unwind_RaiseException (it
# comes first in libunwind.so.8), the relinked program through libgcc's, as
# does unw-api-libunwind-gcceh: r2 is compared with r0, r3 with r1.
for v in r0 r1 r2 r3; do mkdir "$T/$v"; cp "$bin/libunwtest-dso.so" "$T/$v/"; done
cp "$bin/unw-api-libunwind-gcceh" "$T/r0/unw-api"
cp "$bin/unw-api-libunwind" "$T/r1/unw-api"
cp "$bin/unw-api-ehelf" "$T/r2/unw-api"
cp "$bin/unw-api-libunwind" "$T/r3/unw-api"
pre=$build/lib/libehelf-unwind.so
pad=$(printf '%s' "$pre" | tr -c x x)
run_same() { # DIR PRELOAD PAD
	env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$build/lib" EHELF_PATH="$EHELF_PATH" \
		LD_PRELOAD="$2" PAD="$3" setarch -R "$T/$1/unw-api"
}
run_same r0 "" "$pad" >"$T/u0" 2>&1
run_same r1 "" "$pad" >"$T/u1" 2>&1
run_same r2 "" "$pad" >"$T/u2" 2>&1
run_same r3 "$pre" "" >"$T/u3" 2>&1
lines=$(wc -l <"$T/u1")
[ "$lines" -gt 40 ] || bad "unw-api printed only $lines lines"
grep -A3 '^dlopen$' "$T/u1" | grep -q 'libunwtest-dso.so+' ||
	bad "libunwind did not unwind through the library loaded with dlopen"
grep -q 'libunwind.so.8+.*_Unwind_RaiseException' "$T/u1" ||
	bad "unw-api-libunwind did not throw through libunwind's runtime"
grep -q 'libgcc_s.so.1+.*_Unwind_RaiseException' "$T/u0" ||
	bad "unw-api-libunwind-gcceh did not throw through libgcc's runtime"
cmp -s "$T/u0" "$T/u2" && ok "relinked against libehelf-unwind: same $lines lines" ||
	{ bad "relinked output differs"; diff "$T/u0" "$T/u2" | head -20; }
cmp -s "$T/u1" "$T/u3" && ok "LD_PRELOAD=libehelf-unwind.so: same $lines lines" ||
	{ bad "preloaded output differs"; diff "$T/u1" "$T/u3" | head -20; }

echo "== unw_backtrace and a library loaded with dlopen, in and out of a signal handler"
LD_LIBRARY_PATH=$build/lib "$bin/backtrace-dlopen" >"$T/bd" 2>&1 && ok "$(cat "$T/bd")" ||
	bad "$(cat "$T/bd")"

echo "== heaptrack, a libunwind user, with libehelf-unwind preloaded"
# heaptrack's preloaded library calls unw_backtrace at every allocation;
# Python loads the json module's C part with dlopen during the run.  Both
# runs preload a library from the same directory under a name as long
# (libehelf-unwind, or one that does nothing) and get equally long
# environments, and PYTHONHASHSEED is fixed.  Python then allocates alike
# but for a few allocations that follow where its heap lies (which
# libehelf-unwind's own allocations shift) and one the dynamic loader
# makes for the json module unless the eh_elfs' dlopen made it first: so
# the stacks with frames heaptrack could not name in shared objects (its
# addresses at 0x7..., 12 hex digits, cut to their page offset; the json module's among
# them, one ld.so constructor's too) must be the same, and 99% of the
# distinct stacks of the whole run must be found in both.
if command -v heaptrack >/dev/null 2>&1; then
	H=$T/ht
	mkdir -p "$H/files" "$H/p"
	py=$(readlink -f /usr/bin/python3)
	json=$("$py" -c 'import _json; print(_json.__file__)')
	for f in "$py" "$json" /usr/lib/heaptrack/libheaptrack_preload.so; do
		cp -n "$f" "$H/files/"
		ldd "$f" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' |
		while read -r lib; do cp -n "$(readlink -f "$lib")" "$H/files/"; done
	done
	"$build/bin/ehelf-batch" --store "$EHELF_PATH" "$H/files" >/dev/null 2>&1
	cp "$pre" "$H/p/libehelf-unwind.so"
	echo 'void nothing_at_all(void) {}' | cc -shared -fPIC -x c -o "$H/p/libnothing-at-a.so" -
	cat >"$H/w.py" <<'PY'
import json
d = {"k%d" % i: [i, str(i), {"x": i}] for i in range(3000)}
print(len(json.loads(json.dumps(d))))
PY
	for v in b e; do
		lib=$H/p/libnothing-at-a.so
		[ "$v" = e ] && lib=$H/p/libehelf-unwind.so
		# (a deadlock between heaptrack's locks and ours fails, not hangs)
		(cd "$H" && PYTHONHASHSEED=0 LD_PRELOAD="$lib" LD_DEBUG=bindings \
			LD_DEBUG_OUTPUT="$H/bind-$v" timeout -s KILL 120 \
			heaptrack -o "r$v" "$py" w.py >/dev/null 2>&1) ||
			bad "heaptrack ($v) failed or hung"
		heaptrack_print -f "$H/r$v.zst" -F "$H/r$v.stacks" \
			--flamegraph-cost-type allocations >/dev/null 2>&1
		# (shared objects are mapped below 0x7f0000000000 too: 0x7efe...)
		# (libehelf-unwind's constructors allocate, loading the side
		# libunwind: its own allocations, not the program's)
		sed 's/0x7[0-9a-f]\{8,\}\([0-9a-f]\{3\}\)/0x7f..\1/g' "$H/r$v.stacks" |
			grep -v ';\(side_api_init\|side_init\|dyn_init\|image_init\) (' |
			sort >"$H/r$v.sorted"
		grep '0x7f\.\.' "$H/r$v.sorted" >"$H/r$v.mod" || true
		sed 's/ [0-9]*$//' "$H/r$v.sorted" | sort -u >"$H/r$v.set" # no counts
	done
	n=$(wc -l <"$H/rb.sorted")
	m=$(wc -l <"$H/rb.mod")
	distinct=$(wc -l <"$H/rb.set")
	common=$(comm -12 "$H/rb.set" "$H/re.set" | wc -l)
	cat "$H"/bind-e.* 2>/dev/null | grep -q "libehelf-unwind.so .*unw_backtrace" ||
		bad "heaptrack: its unw_backtrace was not libehelf-unwind's"
	[ "$n" -gt 100 ] && [ "$m" -ge 5 ] || bad "heaptrack: $n stacks, $m through the dlopen'ed module"
	cmp -s "$H/rb.mod" "$H/re.mod" &&
		ok "heaptrack: the $m stacks with unnamed frames in shared objects (the json module's, loaded with dlopen, among them) are libunwind's" ||
		{ bad "heaptrack: stacks with frames in unnamed shared-object code differ"; diff "$H/rb.mod" "$H/re.mod" | cut -c1-300 | head; }
	[ $((common * 100)) -ge $((distinct * 99)) ] &&
		ok "heaptrack: $common of its $distinct distinct stacks found by both" ||
		{ bad "heaptrack: only $common of $distinct distinct stacks found by both"; diff "$H/rb.set" "$H/re.set" | cut -c1-300 | head; }
else
	bad "heaptrack is not installed"
fi

echo "== gdb, on the same process"
gdb_compare() { # STORE WHAT ARGS...
	store=$1 what=$2
	shift 2
	EHELF_PATH=$store gdb -batch -nx -x "$(dirname "$0")/gdb-frames.py" \
		--args "$bin/compare-libunwind" "$@" >"$T/g" 2>"$T/g.err" || true
	grep '^EHELF ' "$T/g" | sed 's/^EHELF //' >"$T/ge"
	grep '^GDB ' "$T/g" | sed 's/^GDB //' >"$T/gg"
	n=$(wc -l <"$T/ge")
	# one stop per scenario probe: qsort, signal, drap, recursive,
	# std::sort, the exception's two, four threads, a new thread's signal
	# handler; the CFA in rbx, twice plain and twice from a signal handler
	[ "$n" -ge 16 ] && cmp -s "$T/ge" "$T/gg" &&
		ok "$what: gdb's backtraces equal ehelf's at all $n stops" ||
		{ bad "$what: gdb disagrees ($n stops)"; diff "$T/ge" "$T/gg" | head -20; tail -5 "$T/g.err"; }
}
if command -v gdb >/dev/null 2>&1; then
	gdb_compare "$T/store" "every module with an eh_elf"
	gdb_compare "$T/partial" "libc and libstdc++ through libdw" --expect-dwarf
else
	bad "gdb is not installed"
fi

[ "$fails" = 0 ] && echo "unwind tests: PASS" || { echo "unwind tests: $fails FAILED"; exit 1; }
