#!/bin/bash
# libehelf-unwind's remote API under its real users, each run alone (with
# Debian's libunwind) and with LD_PRELOAD=libehelf-unwind.so, the outputs
# compared:
#  - Debian's perf 6.1 on `perf record --call-graph dwarf -e cpu-clock`
#    recordings of a C program built without frame pointers and of
#    python3: `perf script -F comm,tid,time,event,ip,sym,symoff,dso` and
#    `perf report --stdio -g` must be identical (but for report's random
#    "Tip" line), with eh_elfs for every module (most steps by eh_elfs),
#    for some (libc's left out: both ways) and for none (every step by
#    the side libunwind);
#  - `perf top -p PID --call-graph dwarf` on a running process (its
#    modules known by their executable mappings alone): steps by
#    eh_elfs, call chains to the program's start;
#  - `strace -k` (libunwind-ptrace) on a short command: the same stack
#    traces, with and without eh_elfs;
#  - fetching: perf preloaded with $EHELF_URLS naming an ehelf-server on
#    loopback (a signed store) and an empty cache: the same output, the
#    eh_elfs fetched in the background into the cache, and a second run
#    unwinding with them from the cache;
#  - a libunwind-ptrace program walking a stopped child (with the
#    callee-saved registers of frames that hold known values), and
#    unw_init_remote(unw_local_addr_space) walking its own thread: the
#    same frames; a space that is no one's is refused.
# First, remote_module_read (how a module's bias and build-ID are read
# through access_mem) on real ELF files laid out in a fake space
# (module_read.c), refusals included.
# How the steps went comes from EHELF_VERBOSE's line at exit ("N steps by
# eh_elfs, M by libunwind").  The eh_elfs are built into a store of the
# test's directory ($EHELF_PATH); the cache is an empty directory of it.
# Usage: tests/perf-libunwind/run-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-tests.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/common/checks.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
lib=$build/lib/libehelf-unwind.so
bins=$build/tests/perf-libunwind
unset EHELF_URLS EHELF_PATH
export EHELF_CACHE_PATH=$T/cache
mkdir -p "$T/cache" "$T/none"
fields=comm,tid,time,event,ip,sym,symoff,dso

echo "perf-libunwind: modules read through access_mem"
for f in /usr/lib/x86_64-linux-gnu/libc.so.6 "$(readlink -f /usr/bin/python3)" \
	 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2; do
	if "$bins/module_read" "$f" "$(readelf -n "$f" | awk '/Build ID/ { print $3 }')" >"$T/mr"; then
		ok "module_read $f: $(grep -c 'ok:' "$T/mr") checks"
	else
		bad "module_read $f: $(grep FAIL "$T/mr" | tr '\n' ' ')"
	fi
done

echo "perf-libunwind: recording"
perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$T/c.data" -- \
	"$bins/workload" 100000 30 >/dev/null 2>"$T/rec.log" ||
	{ cat "$T/rec.log" >&2; exit 1; }
"$root/tests/perf/record-workloads.sh" "$T" 2 python >/dev/null

echo "perf-libunwind: eh_elfs"
"$root/tests/perf/store-for-recordings.sh" "$build" "$T/all" "$T/c.data" \
	"$T/python.data"
mkdir -p "$T/more"
for f in "$bins/remote_walk" /usr/bin/echo /usr/bin/strace; do
	cp "$f" "$T/more/"
done
"$build/bin/ehelf-batch" --store "$T/all" -j 2 "$T/more" >/dev/null
# some: all but libc's
libc=/usr/lib/x86_64-linux-gnu/libc.so.6
id=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
cp -a "$T/all" "$T/some"
rm -f "$T/some/.build-id/${id:0:2}/${id:2}".so*
check "libc's eh_elf in the full store, not in the partial one" \
	test -e "$T/all/.build-id/${id:0:2}/${id:2}.so" -a \
	! -e "$T/some/.build-id/${id:0:2}/${id:2}.so"

# the counts of EHELF_VERBOSE's line in FILE: "EHELF LIBUNWIND"
steps() {
	sed -n 's/.*remote unwinding: \([0-9]*\) steps by eh_elfs, \([0-9]*\) by libunwind.*/\1 \2/p' "$1" | tail -n 1
}
# the steps of LOG went as MODE says (all: at least 90% by eh_elfs; some:
# both ways; none: none by eh_elfs)
steps_as() { # MODE LOG
	set -- "$1" $(steps "$2")
	[ $# -eq 3 ] || return 1
	case $1 in
	all) [ "$2" -gt 0 ] && [ $(($3 * 10)) -le $(($2 + $3)) ] ;;
	some) [ "$2" -gt 0 ] && [ "$3" -gt 0 ] ;;
	none) [ "$2" -eq 0 ] && [ "$3" -gt 0 ] ;;
	esac
}
preload() { # MODE COMMAND... (stderr to $T/err)
	mode=$1
	shift
	EHELF_PATH=$T/$mode EHELF_VERBOSE=1 LD_PRELOAD=$lib "$@" 2>"$T/err"
}

for rec in c python; do
	data=$T/$rec.data
	perf script -i "$data" -F $fields >"$T/script.alone" 2>/dev/null
	perf report -i "$data" --stdio -g 2>/dev/null | grep -v '^# (Tip' >"$T/report.alone"
	n=$(grep -c '^[^ 	]' "$T/script.alone" || true)
	check "$rec: perf alone printed $n samples" test "$n" -gt 50
	for mode in all some none; do
		preload $mode perf script -i "$data" -F $fields >"$T/script.$mode"
		check "$rec, eh_elfs for $mode modules: perf script identical to perf alone" \
			cmp -s "$T/script.alone" "$T/script.$mode"
		check "$rec, eh_elfs for $mode modules: steps ($(steps "$T/err"): by eh_elfs, by libunwind) as expected" \
			steps_as $mode "$T/err"
		preload $mode perf report -i "$data" --stdio -g | grep -v '^# (Tip' >"$T/report.$mode"
		check "$rec, eh_elfs for $mode modules: perf report -g identical to perf alone" \
			cmp -s "$T/report.alone" "$T/report.$mode"
	done
	# perf-with-libunwind's trailing frames at pc 0 - 1 (perf's
	# access_mem answers 0, with a positive return, for stack it did not
	# copy, which libunwind takes for a return address): ehelf hands such
	# steps to the side libunwind, so they are in both outputs
	k=$(grep -c 'ffffffffffffffff \[unknown\]' "$T/script.alone" || true)
	ok "$rec: $k trailing ffffffffffffffff frames of libunwind's, the same with ehelf"
done

echo "perf-libunwind: perf top"
# a running process: perf top knows only its executable mappings (no ELF
# header to read a build-ID from); the modules must still be unwound by
# their eh_elfs, through to the program's start
"$bins/workload" 100000 100000 >/dev/null &
wpid=$!
sleep 0.5
preload all timeout -s INT 4 perf top -p $wpid --call-graph dwarf -e cpu-clock \
	--stdio -d 1 >"$T/top.out" || true
kill $wpid 2>/dev/null || true
wait $wpid 2>/dev/null || true
check "perf top -p, eh_elfs for all modules: steps ($(steps "$T/err")) as expected" \
	steps_as all "$T/err"
check "perf top -p: call chains unwound to __libc_start_call_main" \
	grep -aq __libc_start_call_main "$T/top.out"

echo "perf-libunwind: strace -k"
strace_k() { # strace -k of echo, libehelf-unwind left out of the traced command
	strace -E LD_PRELOAD -E EHELF_VERBOSE -E EHELF_PATH -qq -k -e trace=write,openat \
		-o "$1" /usr/bin/echo hi >/dev/null
}
strace_k "$T/strace.alone"
check "strace -k alone printed stack traces" grep -q '^ > .*libc.so.6' "$T/strace.alone"
for mode in all none; do
	preload $mode strace_k "$T/strace.$mode"
	check "strace -k, eh_elfs for $mode modules: the same stack traces" \
		cmp -s "$T/strace.alone" "$T/strace.$mode"
	check "strace -k, eh_elfs for $mode modules: steps ($(steps "$T/err")) as expected" \
		steps_as $mode "$T/err"
done

echo "perf-libunwind: fetching in the background"
mkdir -p "$T/keys"
openssl genpkey -algorithm ed25519 -out "$T/key.pem" 2>/dev/null
openssl pkey -in "$T/key.pem" -pubout -out "$T/keys/key.pub.pem"
SIGN_KEY=$T/key.pem "$root/tests/perf/store-for-recordings.sh" "$build" "$T/signed" \
	"$T/python.data"
"$build/bin/ehelf-server" --store "$T/signed" --listen 127.0.0.1 --port 0 \
	--port-file "$T/port" --upstream "" --threads 2 2>"$T/server.log" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$T"' EXIT INT TERM
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ] && kill -0 $server 2>/dev/null; do
	i=$((i + 1))
	sleep 0.1
done
[ -s "$T/port" ] || { echo "ehelf-server did not start: $(cat "$T/server.log")" >&2; exit 1; }
fetching() { # COMMAND...: preloaded, fetching into $T/fetched (stderr to $T/err)
	EHELF_URLS=http://127.0.0.1:$(cat "$T/port") EHELF_TRUSTED_KEYS=$T/keys \
		EHELF_CACHE_PATH=$T/fetched EHELF_PATH=$T/none EHELF_VERBOSE=1 \
		LD_PRELOAD=$lib "$@" 2>"$T/err"
}
perf report -i "$T/python.data" --stdio -g 2>/dev/null | grep -v '^# (Tip' >"$T/report.alone"
fetching perf report -i "$T/python.data" --stdio -g | grep -v '^# (Tip' >"$T/report.fetch1"
check "first run, fetching: perf report -g identical to perf alone" \
	cmp -s "$T/report.alone" "$T/report.fetch1"
check "first run: eh_elfs fetched in the background ($(grep 'fetched in the background' "$T/err" | tail -n 1))" \
	grep -q 'remote spaces: [1-9][0-9]* of [0-9]* eh_elfs* fetched in the background' "$T/err"
# python3 is no library of perf's own (which libehelf-unwind's local
# background fetch may fetch too): only the remote spaces asked for it
py=$(readelf -n "$(readlink -f /usr/bin/python3)" | awk '/Build ID/ { print $3 }')
check "python3's eh_elf in the cache after the first run" \
	test -e "$T/fetched/.build-id/${py:0:2}/${py:2}.so"
fetching perf report -i "$T/python.data" --stdio -g | grep -v '^# (Tip' >"$T/report.fetch2"
check "second run, from the cache: perf report -g identical to perf alone" \
	cmp -s "$T/report.alone" "$T/report.fetch2"
check "second run: steps ($(steps "$T/err")) by the fetched eh_elfs" steps_as all "$T/err"
kill $server 2>/dev/null || true

echo "perf-libunwind: libunwind-ptrace and unw_init_remote(unw_local_addr_space)"
for walk in ptrace local; do
	"$bins/remote_walk" $walk >"$T/walk.alone" ||
		bad "remote_walk $walk alone: did not reach main"
	# rbx and r12-r15 of the three frames of middle, as they hold them
	[ $walk != ptrace ] ||
		check "remote_walk ptrace alone: middle's rbx and r12-r15 in its 3 frames" \
			test "$(grep -cE 'registers: 0:0xb0[0-2] 0:0xc0[0-2] 0:0xd0[0-2] 0:0xe0[0-2] 0:0xf0[0-2]$' "$T/walk.alone")" = 3
	for mode in all none; do
		if preload $mode "$bins/remote_walk" $walk >"$T/walk.$mode"; then
			check "remote_walk $walk, eh_elfs for $mode modules: the same frames ($(wc -l <"$T/walk.alone"))" \
				cmp -s "$T/walk.alone" "$T/walk.$mode"
		else
			bad "remote_walk $walk, eh_elfs for $mode modules: did not reach main: $(cat "$T/walk.$mode")"
		fi
	done
done
preload all "$bins/remote_walk" ptrace >/dev/null
check "remote_walk ptrace with eh_elfs: steps ($(steps "$T/err")) as expected" \
	steps_as all "$T/err"
check "unw_init_remote on a space that is no one's: -UNW_EINVAL" \
	env LD_PRELOAD="$lib" "$bins/remote_walk" invalid

[ "$fails" -eq 0 ] || { echo "perf-libunwind: $fails check(s) failed" >&2; exit 1; }
echo "perf-libunwind: all checks passed"
