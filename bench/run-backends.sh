#!/bin/sh
# The code-generation routes compared: generated C through gcc -O2 (gen-c),
# assembly through as (gcc's assembly output for that C, assembled alone),
# and ehelf's direct emission.  Usage: bench/run-backends.sh BUILD FILE...
set -eu
build=${1:?usage: run-backends.sh BUILD FILE...}
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

secs() { # run "$@", print the elapsed seconds
	start=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	end=$(date +%s.%N)
	echo "$end - $start" | bc -l
}

echo "== code generation routes (one run each; sizes in bytes)"
printf '%-14s %10s | %9s %9s | %9s %9s | %9s %9s | %7s %7s\n' file .eh_frame \
	"gcc -O2 s" "C .so" "as s" "asm .s" "direct s" "eh_elf" "gcc/" "as/"
for f in "$@"; do
	name=$(basename "$f")
	ehf=$("$build/bin/ehelf-compile" "$f" -o "$tmp/eh.so" --stats |
		awk '$1 == ".eh_frame:" { print $2 }')
	"$build/bench/gen-c" "$f" >"$tmp/gen.c"
	t_gcc=$(secs gcc -O2 -shared -fPIC -w -o "$tmp/gen.so" "$tmp/gen.c")
	gcc -O2 -S -fPIC -w -o "$tmp/gen.s" "$tmp/gen.c"
	t_as=$(secs as -o "$tmp/gen.o" "$tmp/gen.s")
	t_direct=$(secs "$build/bin/ehelf-compile" "$f" -o "$tmp/eh.so")
	printf '%-14.14s %10s | %9.3f %9s | %9.3f %9s | %9.4f %9s | %6.0fx %6.0fx\n' \
		"$name" "$ehf" "$t_gcc" "$(stat -c %s "$tmp/gen.so")" "$t_as" \
		"$(stat -c %s "$tmp/gen.s")" "$t_direct" "$(stat -c %s "$tmp/eh.so")" \
		"$(echo "$t_gcc / $t_direct" | bc -l)" "$(echo "$t_as / $t_direct" | bc -l)"
done
echo "(direct includes starting ehelf-compile and reading the ELF; 'as' is the"
echo " assembler stage alone, on the assembly gcc makes from the same C)"
