#!/bin/sh
# libunwind-coredump (_UCD_*) over libehelf-unwind (make coredump-test, in
# make check): a core of coredump-target taken with gcore while it spins
# in main -> c1 -> c2 -> c3, unwound by coredump-walk (libunwind-coredump
# and libunwind-generic) alone, then with libehelf-unwind preloaded and no
# eh_elfs, and with eh_elfs for the program and libc: the same pcs, gdb's
# four frames of the program first; with eh_elfs, eh_elfs step frames.
# (libunwind 1.6.2's own run-coredump-unwind fails here with libunwind
# alone: its coredump accessors take a module's text to start at file
# offset 0, which this machine's linker does not do; coredump-target is
# linked so that it does.)
# Usage: tests/unwind/run-coredump-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-coredump-tests.sh BUILD}" && pwd)
bin=$build/tests/unwind
pre=$build/lib/libehelf-unwind.so
T=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
. "$(dirname "$0")/../common/checks.sh"

echo "== a core of a live process (gcore)"
"$bin/coredump-target" >"$T/ready" &
pid=$!
for _ in $(seq 1 50); do grep -q ready "$T/ready" && break; sleep 0.1; done
timeout 60 gcore -o "$T/core" "$pid" >/dev/null 2>&1 || bad "gcore failed"
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=
core=$T/core.$(ls "$T" | sed -n 's/^core\.//p' | head -n 1)
[ -s "$core" ] || { bad "no core"; exit 1; }
# gdb's pc of frame 0, then its callers' (frame 0's line has no address
# when the pc starts a line)
gdb -q -batch -ex 'p/x $pc' -ex bt "$bin/coredump-target" "$core" 2>/dev/null |
	awk '/^\$1 = 0x/ { print substr($3, 3) } /^#[1-9]/ { print substr($2, 3) }' |
	sed 's/^0*//' >"$T/gdb"
[ "$(wc -l <"$T/gdb")" -ge 4 ] || bad "gdb: $(wc -l <"$T/gdb") frames of the core"

mkdir -p "$T/empty" "$T/cache" "$T/files"
cp "$bin/coredump-target" "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" "$T/files/"
"$build/bin/ehelf-batch" --store "$T/store" "$T/files" >/dev/null
walk() { # STORE PRELOAD
	env -u EHELF_URLS EHELF_PATH="$1" EHELF_CACHE_PATH="$T/cache" EHELF_VERBOSE=1 \
		LD_PRELOAD="$2" timeout 30 "$bin/coredump-walk" "$core"
}
walk "$T/empty" "" >"$T/lu" 2>"$T/lu.err" || bad "coredump-walk alone failed: $(cat "$T/lu.err")"
grep -v '^end' "$T/lu" | head -n 4 | cmp -s - "$T/gdb" &&
	ok "libunwind-coredump alone: $(grep -vc '^end' "$T/lu") frames, gdb's c3, c2, c1, main first" ||
	{ bad "libunwind-coredump alone: not gdb's frames"; paste "$T/lu" "$T/gdb" | head; }
for mode in none all; do
	store=$T/empty
	[ "$mode" = all ] && store=$T/store
	walk "$store" "$pre" >"$T/w.$mode" 2>"$T/w.$mode.err" || bad "preloaded ($mode) failed"
	steps=$(sed -n 's/.*remote unwinding: \([0-9]*\) steps by eh_elfs.*/\1/p' "$T/w.$mode.err")
	cmp -s "$T/lu" "$T/w.$mode" &&
		ok "preloaded, eh_elfs for $mode: the same $(grep -vc '^end' "$T/lu") pcs and end (${steps:-0} steps by eh_elfs)" ||
		{ bad "preloaded, eh_elfs for $mode: pcs differ"; diff "$T/lu" "$T/w.$mode" | head; }
	[ "$mode" = none ] || [ "${steps:-0}" -ge 3 ] || bad "eh_elfs for all: ${steps:-0} steps by eh_elfs"
done

[ "$fails" -eq 0 ] && echo "coredump tests: all passed" || { echo "coredump tests: $fails FAILED"; exit 1; }
