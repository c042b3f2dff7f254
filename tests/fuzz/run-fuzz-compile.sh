#!/bin/sh
# Build the compiler's libFuzzer target (tests/fuzz/fuzz_compile.c) with
# clang (ASan+UBSan) and fuzz it for SECONDS, from seeds written here (a
# looping expression, overlapping FDEs, a .debug_frame FDE of 128 GiB, a
# value expression, a plain CFA program).  Each input must end within 10 s
# and 1 GiB: every table the compiler accepts must load and pass
# codegen-check's comparison (see fuzz_compile.c).  Fails on a crash,
# leak, timeout, memory limit or sanitizer error; the reproducer is left
# in build/fuzz/.
# Usage: tests/fuzz/run-fuzz-compile.sh SECONDS SOURCES
#   SOURCES: the library sources it needs (the Makefile passes them)
set -eu
seconds=${1:?usage: run-fuzz-compile.sh SECONDS SOURCES}
sources=${2:?usage: run-fuzz-compile.sh SECONDS SOURCES}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/fuzz
mkdir -p "$out/compile-seeds" "$out/compile-corpus"
cd "$top"
flags="-std=gnu11 -Iabi -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all"
# shellcheck disable=SC2086
clang $flags -fsanitize=fuzzer -o "$out/fuzz_compile" tests/fuzz/fuzz_compile.c \
	$sources $(pkg-config --cflags libdw) -ldw -lelf -lcrypto -ldl -lpthread

# seeds, in fuzz_compile.c's record format
seed() { # seed NAME OCTAL-BYTES
	printf "$2" >"$out/compile-seeds/$1"
}
# CFA = breg7 0; L: lit1; bra L
seed loop '\002\000\000\020\006\167\000\061\050\374\377'
# two FDEs over 0x112f..0x113f, the second with a row at +5
seed overlap '\000\057\021\020\003\016\020\000\000\057\021\020\003\105\016\030\000'
# a .debug_frame FDE of 128 GiB
seed wide '\101\000\000\040\003\101\016\020'
# rax = CFA + 5, and a plain program (push rbp; mov rbp, rsp)
seed vexp '\004\000\001\020\002\065\042'
seed plain '\000\000\002\040\010\101\016\020\206\002\104\015\006'

status=0
(cd "$out" && ./fuzz_compile -max_total_time="$seconds" -timeout=10 \
	-rss_limit_mb=1024 -max_len=2048 -print_final_stats=1 \
	compile-corpus compile-seeds >fuzz_compile.log 2>&1) || status=$?
grep -E '^(stat::|Done|==[0-9]+==|SUMMARY)' "$out/fuzz_compile.log" || true
if [ "$status" -ne 0 ]; then
	echo "run-fuzz-compile: fuzz_compile failed (status $status); see $out/fuzz_compile.log" >&2
	tail -40 "$out/fuzz_compile.log" >&2
	exit 1
fi
echo "run-fuzz-compile: fuzz_compile: every accepted table loaded and passed codegen-check for ${seconds}s"
