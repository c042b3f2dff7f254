#!/bin/sh
# Build the CFI reader's libFuzzer target with clang (ASan+UBSan), make a
# seed corpus from real .eh_frame/.debug_frame sections, and fuzz for
# SECONDS.  Fails if the fuzzer finds a crash, leak or sanitizer error;
# the reproducer is left in build/fuzz/.
# Usage: tests/fuzz/run-fuzz.sh [SECONDS]
set -eu
seconds=${1:-60}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/fuzz
mkdir -p "$out/seeds" "$out/corpus"
src="common/err.c common/elf_file.c common/buildid.c builder/cfi/eh_pe.c
     builder/cfi/unwind_ir.c builder/cfi/cfi_entry.c builder/cfi/cfi_program.c
     builder/cfi/cfi_reader.c builder/cfi/dwarf_op.c builder/cfi/uw_dump.c"
cd "$top"
flags="-std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all"
# shellcheck disable=SC2086
clang $flags -fsanitize=fuzzer -o "$out/fuzz_cfi" tests/fuzz/fuzz_cfi.c $src -ldw -lelf
# shellcheck disable=SC2086
clang $flags -o "$out/make-seeds" tests/fuzz/make_seeds.c $src -ldw -lelf
if [ -z "$(ls "$out/seeds")" ]; then
	set -- /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6 \
		/usr/lib/x86_64-linux-gnu/libgcrypt.so.20 /usr/bin/bash \
		"$top"/build/fixtures/*
	"$out/make-seeds" "$out/seeds" 3000 "$@"
fi
cd "$out"
status=0
./fuzz_cfi -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
	corpus seeds >fuzz.log 2>&1 || status=$?
grep -E '^(stat::|Done|==[0-9]+==|SUMMARY)' fuzz.log || true
if [ "$status" -ne 0 ]; then
	echo "run-fuzz: the fuzzer failed (status $status); see $out/fuzz.log" >&2
	tail -40 fuzz.log >&2
	exit 1
fi
echo "run-fuzz: no crash in ${seconds}s"
