#!/bin/sh
# make bench: every benchmark, each against its baselines in the same run.
# Usage: bench/run-bench.sh BUILD
set -eu
build=${1:?usage: run-bench.sh BUILD}
here=$(dirname "$0")

# the fixed set: libc, libstdc++, the largest shared object, python3
libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
libstdcxx=$(ls /usr/lib/x86_64-linux-gnu/libstdc++.so.6.* 2>/dev/null | head -n 1)
largest=$(find /usr/lib/x86_64-linux-gnu -name '*.so*' -type f -printf '%s %p\n' 2>/dev/null |
	sort -n | tail -n 1 | cut -d' ' -f2-)
python=$(readlink -f /usr/bin/python3)

echo "== eh_elf code generation: size, compile speed, ns per step ($(date -u +%F))"
echo "   (random pcs: a row chosen at random, a pc in it; warm: 32 such pcs"
echo "   stepped in turn; libdw: dwarf_cfi_addrframe + CFA and RA rules)"
"$build/bench/bench-codegen" "$libc" "$libstdcxx" "$largest" "$python"
echo
"$here/codegen-forms.sh" "$build"
echo
"$here/run-backends.sh" "$build" "$libc" /usr/bin/true
echo
"$here/corpus-sizes.sh" "$build"
echo
"$here/batch-throughput.sh" "$build"
echo
"$here/unwind-bench.sh" "$build"
echo
"$here/cold-bench.sh" "$build"
echo
"$here/perf-bench.sh" "$build"
"$here/perf-bench-large.sh" "$build"
echo
"$here/server-bench.sh" "$build"
