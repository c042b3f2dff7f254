#!/bin/sh
# Build the libFuzzer targets with clang (ASan+UBSan), make their seed
# corpora from real inputs, and fuzz each for a third of SECONDS:
#  - fuzz_cfi: the CFI reader, seeded with real .eh_frame/.debug_frame
#    sections;
#  - fuzz_perf: what ehelf-perf reads (perf.data files and streams, symbol
#    names, saved symbol tables, JIT perf maps), seeded with recordings of
#    perf record (when it works here), names and tables of real ELFs;
#  - fuzz_eh_elf_check: the eh_elf validator the loader runs on every
#    eh_elf, seeded with a real eh_elf (zoo.so's, from ehelf-compile:
#    $EHELF_COMPILE, else build/bin/ehelf-compile).
# Fails if a fuzzer finds a crash, leak or sanitizer error; the reproducer
# is left in build/fuzz/.
# Usage: tests/fuzz/run-fuzz.sh [SECONDS]
set -eu
seconds=${1:-60}
share=$(( (seconds + 2) / 3 )) # each target's time
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/fuzz
mkdir -p "$out/seeds" "$out/corpus" "$out/perf-seeds" "$out/perf-corpus" \
	"$out/eh-seeds" "$out/eh-corpus"
common="common/err.c common/elf_file.c common/buildid.c"
src="$common common/dwarf/eh_pe.c common/dwarf/cfi_entry.c
     builder/cfi/unwind_ir.c builder/cfi/cfi_program.c
     builder/cfi/cfi_reader.c builder/cfi/dwarf_op.c builder/cfi/uw_dump.c"
perf_src="$common common/atomic_file.c common/u64_map.c $(ls tools/ehelf-perf/perfdata/*.c)"
cd "$top"
flags="-std=gnu11 -Iabi -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all"
# shellcheck disable=SC2086
clang $flags -fsanitize=fuzzer -o "$out/fuzz_cfi" tests/fuzz/fuzz_cfi.c $src -ldw -lelf
# shellcheck disable=SC2086
clang $flags -o "$out/make-seeds" tests/fuzz/make_seeds.c $src -ldw -lelf
# shellcheck disable=SC2086
clang $flags -fsanitize=fuzzer -o "$out/fuzz_perf" tests/fuzz/fuzz_perf.c $perf_src \
	-ldw -lelf -lzstd -lstdc++
# shellcheck disable=SC2086
clang $flags -o "$out/make-perf-seeds" tests/fuzz/make_perf_seeds.c $perf_src \
	-ldw -lelf -lzstd -lstdc++
# shellcheck disable=SC2086
clang $flags -fsanitize=fuzzer -o "$out/fuzz_eh_elf_check" tests/fuzz/fuzz_eh_elf_check.c \
	common/eh_elf_check.c
if [ -z "$(ls "$out/eh-seeds")" ]; then
	"${EHELF_COMPILE:-$top/build/bin/ehelf-compile}" "$top/build/fixtures/zoo.so" \
		-o "$out/eh-seeds/zoo.so"
fi
if [ -z "$(ls "$out/seeds")" ]; then
	set -- /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6 \
		/usr/lib/x86_64-linux-gnu/libgcrypt.so.20 /usr/bin/bash \
		"$top"/build/fixtures/*
	"$out/make-seeds" "$out/seeds" 3000 "$@"
fi

# fuzz_perf's seeds: byte 0 is the mode (see fuzz_perf.c)
seed() { # seed NAME MODE-BYTE FILE
	{ printf "\\$(printf '%03o' "$2")"; cat "$3"; } >"$out/perf-seeds/$1"
}
if [ -z "$(ls "$out/perf-seeds")" ]; then
	T=$(mktemp -d)
	busy='i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done'
	# perf.data files and streams, plain and compressed, with a few
	# samples each (small stack copies, to stay under -max_len)
	k=0
	for z in "" -z; do
		for o in "$T/rec.data" -; do
			k=$((k + 1))
			# shellcheck disable=SC2086
			if perf record -q $z -c 200000 --call-graph dwarf,256 -o "$o" \
				-- sh -c "$busy" >"$T/rec.out" 2>/dev/null; then
				if [ "$o" = - ]; then
					seed "stream-$k" 1 "$T/rec.out"
				else
					seed "file-$k" 0 "$T/rec.data"
				fi
			fi
		done
	done
	[ -n "$(ls "$out/perf-seeds")" ] ||
		echo "run-fuzz: perf record failed here: no perf.data seeds" >&2
	# symbol names: C++, legacy Rust, Rust v0, OCaml, plain
	nm -D --defined-only /usr/lib/x86_64-linux-gnu/libstdc++.so.6 2>/dev/null |
		awk '$3 ~ /^_Z/ { print $3 }' | head -n 300 >"$T/names"
	for n in _RNvCs1234_7mycrate3foo _RNvMNtCs1234_7mycrate3modNtB2_5Thing3new \
		_RINvNtCs1234_4core3ptr13drop_in_placeNtCs5678_3app5StateEB4_ \
		_ZN4core3fmt5write17h0123456789abcdefE camlStdlib__list__map_123 \
		main; do
		echo "$n" >>"$T/names"
	done
	i=0
	while read -r n; do
		i=$((i + 1))
		printf '%s' "$n" >"$T/name"
		seed "name-$i" 2 "$T/name"
	done <"$T/names"
	# saved symbol tables
	"$out/make-perf-seeds" "$T" /usr/bin/true /usr/lib/x86_64-linux-gnu/libz.so.1 \
		/usr/bin/ls >/dev/null 2>&1 || true
	for f in "$T"/table-*; do
		[ -f "$f" ] && cp "$f" "$out/perf-seeds/"
	done
	# a JIT's perf map
	printf '7f0000001000 40 jit_spin\n7f0000001040 20 [stub] entry\n7f0000001040 8 again\nbad line\n' \
		>"$T/map"
	seed map 4 "$T/map"
	rm -rf "$T"
fi

cd "$out"
fuzz() { # fuzz NAME MAX-LEN CORPUS SEEDS
	status=0
	"./$1" -max_total_time="$share" -max_len="$2" -print_final_stats=1 \
		"$3" "$4" >"$1.log" 2>&1 || status=$?
	grep -E '^(stat::|Done|==[0-9]+==|SUMMARY)' "$1.log" || true
	if [ "$status" -ne 0 ]; then
		echo "run-fuzz: $1 failed (status $status); see $out/$1.log" >&2
		tail -40 "$1.log" >&2
		exit 1
	fi
	echo "run-fuzz: $1: no crash in ${share}s"
}
fuzz fuzz_cfi 4096 corpus seeds
fuzz fuzz_perf 65536 perf-corpus perf-seeds
fuzz fuzz_eh_elf_check 65536 eh-corpus eh-seeds
