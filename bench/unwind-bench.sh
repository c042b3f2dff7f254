#!/bin/sh
# The unwinder's benchmark (bench-unwind): eh_elfs for the benchmark, every
# library it loads and the vDSO are built into a temporary store first.
# Usage: bench/unwind-bench.sh BUILD [SECONDS-PER-WORKLOAD]
set -eu
build=$(cd "${1:?usage: unwind-bench.sh BUILD [SECONDS]}" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
mkdir "$T/files"
cp "$build/bench/bench-unwind" "$build/lib/libehelf-unwind.so" "$T/files/"
ldd "$build/bench/bench-unwind" |
	awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' |
	while read -r lib; do cp -n "$(readlink -f "$lib")" "$T/files/"; done
"$build/bin/ehelf-compile" --extract-vdso "$T/files/vdso.so"
"$build/bin/ehelf-batch" --store "$T/store" --json "$T/files" >/dev/null
echo "== libehelf: ns per frame against libunwind, libgcc, glibc and libdw ($(date -u +%F))"
EHELF_PATH=$T/store "$build/bench/bench-unwind" "$build/lib/libehelf-unwind.so" ${2:-}
