#!/bin/sh
# libunwind users without and with eh_elfs (make bench): each case run
# with Debian's libunwind alone, with libehelf-unwind preloaded and no
# eh_elf at all (modules stepped from their own .eh_frame,
# client-lib/cfi_fallback/), and with eh_elfs for every module, taking
# turns, RUNS times; the medians and their ratios to libunwind's:
#  - heaptrack (unw_backtrace at every allocation) on malloc-churn: the
#    program's own CPU time (bench/rusage_at_exit.c; heaptrack's
#    interpreter, the same work whatever the unwinder, is left out) and
#    the whole run's;
#  - gperftools' heap profiler (libtcmalloc, HEAPPROFILE: a libunwind
#    stack trace at every allocation) on the same program: its CPU time;
#  - the cold sampling programs (bench/cold-sampling/: a SIGPROF handler
#    unwinding with unw_backtrace or the unw_step loop over cache-
#    thrashing work, at the kernel's tick): ns per frame.
# Usage: bench/sigsafe-bench.sh BUILD [RUNS]
set -eu
build=$(cd "${1:?usage: sigsafe-bench.sh BUILD [RUNS]}" && pwd)
runs=${2:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
pre=$build/lib/libehelf-unwind.so
rus=$build/bench/librusage-at-exit.so
churn=$build/tests/unwind/malloc-churn
tcm=$(readlink -f /usr/lib/x86_64-linux-gnu/libtcmalloc.so.4)
C=$build/bench/cold-sampling-c
CXX=$build/bench/cold-sampling-cxx
mkdir -p "$T/files" "$T/empty" "$T/cache"
for f in "$churn" "$C" "$CXX" "$pre" "$tcm" /usr/lib/heaptrack/libheaptrack_preload.so; do
	cp -n "$f" "$T/files/"
	ldd "$f" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' |
	while read -r lib; do cp -n "$(readlink -f "$lib")" "$T/files/" 2>/dev/null || true; done
done
"$build/bin/ehelf-compile" --extract-vdso "$T/files/vdso.so"
"$build/bin/ehelf-batch" --store "$T/all" "$T/files" >/dev/null 2>&1

# one run of CMD... in MODE (lu, none, all), $EXTRA preloaded too; prints
# the CPU seconds of the program (malloc-churn) alone, and leaves the whole
# run's in $T/whole
cpu() { # MODE CMD...
	mode=$1
	shift
	case $mode in
	lu) lp=$rus store=$T/empty ;;
	none) lp="$pre $rus" store=$T/empty ;;
	all) lp="$pre $rus" store=$T/all ;;
	esac
	rm -f "$T/rusage"
	python3 -c '
import os, resource, subprocess, sys
b = resource.getrusage(resource.RUSAGE_CHILDREN)
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
a = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.4f" % (a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime))' \
		env -u EHELF_URLS EHELF_PATH="$store" EHELF_CACHE_PATH="$T/cache" \
		LD_PRELOAD="$lp${EXTRA:+ $EXTRA}" RUSAGE_OUT="$T/rusage" RUSAGE_COMM="$(basename "$churn")" \
		"$@" >"$T/whole"
	cat "$T/rusage"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# a row: NAME, then the three medians and the two ratios
row() { # NAME FILE-PREFIX
	lu=$(median <"$2.lu") none=$(median <"$2.none") all=$(median <"$2.all")
	printf '%-44s %9s %9s %9s   %5.2f  %5.2f\n' "$1" "$lu" "$none" "$all" \
		"$(echo "$none $lu" | awk '{ print $1 / $2 }')" \
		"$(echo "$all $lu" | awk '{ print $1 / $2 }')"
}

echo "== libunwind users: libunwind alone, libehelf-unwind without eh_elfs, with eh_elfs ($(date -u +%F), medians of $runs runs taking turns)"
printf '%-44s %9s %9s %9s   %5s  %5s\n' case libunwind no-ehelf ehelf no/lu eh/lu
for r in $(seq "$runs"); do
	for m in lu none all; do
		cpu "$m" heaptrack -o "$T/htout" "$churn" 20000 >>"$T/ht.$m"
		cat "$T/whole" >>"$T/htall.$m"
		EXTRA=$tcm cpu "$m" env HEAPPROFILE="$T/hp" "$churn" 20000 >>"$T/hp.$m"
		rm -f "$T"/hp.*.heap "$T"/htout.*
	done
done
row "heaptrack: the program's CPU s" "$T/ht"
row "heaptrack: the whole run's CPU s" "$T/htall"
row "gperftools heap profiler: CPU s" "$T/hp"
for w in qsort zlib sqlite cxx; do
	p=$C
	[ "$w" = cxx ] && p=$CXX
	for meth in backtrace step; do
		for r in $(seq "$runs"); do
			for m in lu none all; do
				case $m in
				lu) lp= store=$T/empty ;;
				none) lp=$pre store=$T/empty ;;
				all) lp=$pre store=$T/all ;;
				esac
				env -u EHELF_URLS EHELF_PATH="$store" EHELF_CACHE_PATH="$T/cache" \
					LD_PRELOAD="$lp" timeout -s KILL 60 "$p" "$meth" "$w" tick 1 |
					awk '{ print $6 }' >>"$T/cold.$w.$meth.$m"
			done
		done
		row "cold sampling $w, $meth: ns per frame" "$T/cold.$w.$meth"
	done
done
