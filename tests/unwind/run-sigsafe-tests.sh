#!/bin/sh
# Unwinding inside signal handlers and allocators, with and without
# eh_elfs (make sigsafe-test, part of make check):
#  - nomalloc (tests/unwind/nomalloc.cc): unw_backtrace, the unw_step
#    loop, backtrace and ehelf_backtrace, from normal code and from a
#    signal handler, through libc, libstdc++ and the program's own frames,
#    with malloc & co. aborting when called inside an unwind: against
#    Debian's libunwind alone, then with libehelf-unwind preloaded and no
#    eh_elf at all (an empty EHELF_PATH, an empty cache, no server): no
#    allocation and libunwind's frames;
#  - the same walks under strace, without and with eh_elfs: every system
#    call made inside them is one libunwind makes inside its own;
#  - gperftools' CPU profiler (libprofiler, which unwinds with libunwind
#    in its SIGPROF handler) at a high rate on a malloc-heavy program,
#    with libehelf-unwind preloaded and eh_elfs for no module, some (the
#    program and libc: libprofiler, libstdc++ and libunwind without) and
#    all: 20 of 20 runs complete in each mode, and the profile's
#    functions by cumulative share agree with libunwind's alone;
#  - heaptrack (unw_backtrace at every allocation) on the same program,
#    without and with eh_elfs: the stacks of the program's allocations
#    are libunwind's.
# Usage: tests/unwind/run-sigsafe-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-sigsafe-tests.sh BUILD}" && pwd)
bin=$build/tests/unwind
pre=$build/lib/libehelf-unwind.so
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
. "$(dirname "$0")/../common/checks.sh"
mkdir -p "$T/empty" "$T/cache"
# no eh_elf from anywhere: an empty store, an empty cache, no server
noehelf() { env -u EHELF_URLS EHELF_PATH="$T/empty" EHELF_CACHE_PATH="$T/cache" "$@"; }

echo "== nomalloc: no allocation inside an unwind, no eh_elfs"
# Each walk's frames against libunwind's unw_step loop from the same place
# (libunwind's unw_backtrace and backtrace give the same frames, but at the
# bad pc, where only its unw_step takes the return address at rsp).
differ() { # LIBUNWIND EHELF: the walks of EHELF that differ
	awk 'NR == FNR { if ($3 == "step:") { k = $1 " " $2; sub(/^[^:]*:/, ""); ref[k] = $0 }; next }
		{ k = $1 " " $2; f = $0; sub(/^[^:]*:/, "", f)
		  if (!(k in ref) || f != ref[k]) print $0 "\n    libunwind:" ref[k] }' "$1" "$2"
}
"$bin/nomalloc" unw_backtrace,step,backtrace >"$T/lu" 2>"$T/lu.err" ||
	{ bad "nomalloc with libunwind alone"; cat "$T/lu.err"; }
n=$(grep -c ' ' "$T/lu" || true)
[ "$n" -eq 21 ] || bad "nomalloc: $n walks with libunwind (21 expected)"
[ -z "$(grep -v '^badpc' "$T/lu" | differ "$T/lu" -)" ] ||
	bad "nomalloc: libunwind's own walks disagree: $(grep -v '^badpc' "$T/lu" | differ "$T/lu" - | head -2)"
grep ' step:' "$T/lu" | grep -q 'no frame in probe' && bad "nomalloc: libunwind's walks miss probe"
if noehelf LD_PRELOAD="$pre" "$bin/nomalloc" unw_backtrace,step,ehelf_backtrace \
	>"$T/eh" 2>"$T/eh.err"; then
	d=$(differ "$T/lu" "$T/eh")
	[ "$(wc -l <"$T/eh")" -eq 21 ] && [ -z "$d" ] &&
		ok "unw_backtrace, the unw_step loop and ehelf_backtrace: $(wc -l <"$T/eh") walks in and out of signal handlers (the bad pc's too), no allocation, libunwind's frames" ||
		{ bad "nomalloc: frames differ from libunwind's"; echo "$d" | head; }
else
	bad "nomalloc with libehelf-unwind preloaded, no eh_elfs"; cat "$T/eh.err"
fi
# backtrace(3): libunwind.so.8 defines it (a weak alias of its
# unw_backtrace); libehelf-unwind must, for it to be safe under the preload
if noehelf LD_PRELOAD="$pre" "$bin/nomalloc" backtrace >"$T/ehb" 2>"$T/ehb.err"; then
	d=$(differ "$T/lu" "$T/ehb")
	[ -z "$d" ] && ok "backtrace: no allocation, libunwind's frames" ||
		{ bad "nomalloc: backtrace's frames differ from libunwind's"; echo "$d" | head; }
else
	bad "nomalloc: backtrace with libehelf-unwind preloaded failed (status $?; is backtrace libehelf-unwind's?)"
	head -3 "$T/ehb.err"
fi

echo "== eh_elfs for the profiled program and every library it loads"
churn=$bin/malloc-churn
prof=$(readlink -f /usr/lib/x86_64-linux-gnu/libprofiler.so.0)
mkdir -p "$T/files" "$T/somefiles"
for f in "$churn" "$prof" "$pre" "$bin/nomalloc"; do
	cp -n "$f" "$T/files/"
	ldd "$f" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' |
	while read -r lib; do cp -n "$(readlink -f "$lib")" "$T/files/"; done
done
"$build/bin/ehelf-compile" --extract-vdso "$T/files/vdso.so"
"$build/bin/ehelf-batch" --store "$T/all" "$T/files" >/dev/null
cp "$churn" "$(readlink -f "$(ldconfig -p | awk '$1 == "libc.so.6" { print $NF; exit }')")" "$T/somefiles/"
"$build/bin/ehelf-batch" --store "$T/some" "$T/somefiles" >/dev/null
echo "  $(find "$T/all" -name '*.so' | wc -l) eh_elfs (all), $(find "$T/some" -name '*.so' | wc -l) (some)"

echo "== system calls inside unwinds: only those libunwind makes"
# nomalloc's walks under strace, each framed by its marker system calls:
# the names of the system calls between them, with libunwind alone, and
# with libehelf-unwind preloaded without and with eh_elfs
walk_syscalls() { # OUT ENV...
	out=$1
	shift
	env "$@" strace -f -qq -o "$T/strace" "$bin/nomalloc" unw_backtrace,step,backtrace \
		>/dev/null 2>"$T/strace.err" || bad "nomalloc under strace ($*) failed"
	awk '{ t = $1; l = $0; sub(/^[0-9]+ +/, "", l) }
		l ~ /^write\(-1, "<unwind"/ { w[t] = 1; next }
		l ~ /^write\(-1, "unwind>"/ { w[t] = 0; next }
		w[t] && l ~ /^[a-z_0-9]+\(/ { sub(/\(.*/, "", l); print l }' "$T/strace" |
		sort -u >"$out"
}
walk_syscalls "$T/sys.lu" EHELF_PATH="$T/empty"
[ -s "$T/sys.lu" ] || bad "no system call seen inside libunwind's walks (markers lost?)"
for mode in none all; do
	store=$T/empty
	[ "$mode" = all ] && store=$T/all
	walk_syscalls "$T/sys.$mode" -u EHELF_URLS EHELF_PATH="$store" \
		EHELF_CACHE_PATH="$T/cache" LD_PRELOAD="$pre"
	extra=$(comm -13 "$T/sys.lu" "$T/sys.$mode")
	[ -z "$extra" ] && ok "eh_elfs for $mode: the walks' system calls ($(echo $(cat "$T/sys.$mode"))) are among libunwind's ($(echo $(cat "$T/sys.lu")))" ||
		bad "eh_elfs for $mode: system calls libunwind does not make inside unwinds: $(echo $extra)"
done

echo "== gperftools' CPU profiler, libehelf-unwind preloaded"
rounds=12000
# the functions of PROFILES by cumulative share: share, a tab, the name
cum() { # PROFILE...
	google-pprof --text --cum "$churn" "$@" 2>/dev/null |
	awk '$5 ~ /%$/ { p = $5; sub(/%/, "", p); n = $0
		sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", n)
		print p "\t" n }'
}
# profiles of 20 runs each (the kernel's tick bounds SIGPROF's rate: some
# 75 samples a run), read together: no address randomization, so that
# every run has the same mappings
profile_runs() { # NAME ENV...
	name=$1
	shift
	good=0
	for i in $(seq 1 20); do
		# (the preload and the profile for the program only: an
		# itimer outlives exec)
		if timeout -s KILL 60 setarch x86_64 -R env "$@" \
			CPUPROFILE="$T/$name.$i.prof" CPUPROFILE_FREQUENCY=4000 \
			"$churn" "$rounds" >"$T/out" 2>"$T/err" &&
			grep -q '^checksum ' "$T/out"; then
			good=$((good + 1))
		else
			tail -2 "$T/err" | sed "s/^/    run $i: /" >&2
		fi
	done
}
profile_runs lu LD_PRELOAD="$prof"
[ "$good" -eq 20 ] || bad "gperftools with libunwind alone: $good of 20 runs complete"
cum "$T"/lu.*.prof >"$T/lu.cum"
grep -q '	one_round$' "$T/lu.cum" || bad "gperftools with libunwind: no one_round in its profile"
for mode in none some all; do
	case $mode in
	none) store=$T/empty ;;
	some) store=$T/some ;;
	all) store=$T/all ;;
	esac
	profile_runs "$mode" -u EHELF_URLS EHELF_PATH="$store" EHELF_CACHE_PATH="$T/cache" \
		LD_PRELOAD="$pre $prof"
	[ "$good" -eq 20 ] && ok "eh_elfs for $mode: 20 of 20 runs complete" ||
		bad "eh_elfs for $mode: $good of 20 runs complete"
	# whole stacks: main below (nearly) every sample; and the program's
	# own functions by their share of the samples below them, as with
	# libunwind (within 10 points).  Not malloc's internals: which of
	# them a sample is in follows the heap's layout, which the preloaded
	# library's own allocations shift (malloc_consolidate from _int_free
	# or from _int_malloc)
	cum "$T/$mode".*.prof >"$T/$mode.cum"
	off=$(awk -F '\t' 'NR == FNR { e[$2] = $1; next }
		$2 ~ /^(main|one_round|containers|strings( .*)?)$/ {
			d = $1 - e[$2]; n++
			if (!($2 in e) || d > 10 || d < -10) print $2 ": " (e[$2] + 0) "% against " $1 "%" }
		$2 == "main" && e[$2] < 99 { print "main below " e[$2] "% of the samples" }
		END { if (n != 4) print n " of the program'"'"'s 4 functions in libunwind'"'"'s profile" }' \
		"$T/$mode.cum" "$T/lu.cum")
	[ -z "$off" ] && ok "eh_elfs for $mode: main below every sample, main, one_round, containers and strings with libunwind's shares (within 10 points)" ||
		{ bad "eh_elfs for $mode: profile differs from libunwind's"; echo "$off" | head; }
done

echo "== heaptrack, without and with eh_elfs"
if command -v heaptrack >/dev/null 2>&1; then
	stacks() { # NAME ENV...
		name=$1
		shift
		(cd "$T" && env "$@" timeout -s KILL 120 heaptrack -o "h$name" "$churn" 300 \
			>/dev/null 2>&1) || bad "heaptrack ($name) failed or hung"
		heaptrack_print -f "$T/h$name.zst" -F "$T/h$name.stacks" \
			--flamegraph-cost-type allocations >/dev/null 2>&1
		# the program's allocations (the preloaded library's own
		# are not libunwind's to have)
		grep 'one_round' "$T/h$name.stacks" | sort >"$T/h$name.sorted" || true
	}
	stacks lu EHELF_PATH="$T/empty"
	stacks none EHELF_PATH="$T/empty" EHELF_CACHE_PATH="$T/cache" LD_PRELOAD="$pre"
	stacks all EHELF_PATH="$T/all" EHELF_CACHE_PATH="$T/cache" LD_PRELOAD="$pre"
	n=$(wc -l <"$T/hlu.sorted")
	[ "$n" -ge 5 ] || bad "heaptrack with libunwind: $n stacks of the program's allocations"
	for mode in none all; do
		cmp -s "$T/hlu.sorted" "$T/h$mode.sorted" &&
			ok "eh_elfs for $mode: heaptrack's $n stacks of the program's allocations are libunwind's" ||
			{ bad "heaptrack, eh_elfs for $mode: stacks differ"; diff "$T/hlu.sorted" "$T/h$mode.sorted" | cut -c1-300 | head; }
	done
else
	bad "heaptrack is not installed"
fi

[ "$fails" -eq 0 ] && echo "sigsafe tests: all passed" || { echo "sigsafe tests: $fails FAILED"; exit 1; }
