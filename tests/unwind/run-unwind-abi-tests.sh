#!/bin/sh
# libehelf-unwind's C++ exception ABI (make unwind-abi-test, in make check):
#  - unwind_abi.cc (throw through destructors, rethrow, a thread's throw,
#    _Unwind_Backtrace, _Unwind_FindEnclosingFunction) linked with
#    libunwind (-lunwind) and with libgcc alone: the same output as built,
#    preloaded with no eh_elfs and preloaded with eh_elfs for every
#    module; relinked with -lehelf-unwind, libgcc's output, with and
#    without eh_elfs;
#  - LD_DEBUG=bindings, preloaded: the program's own references to
#    _Unwind_* (unversioned, linked with -lunwind) bind to libehelf-unwind;
#    no versioned reference (libstdc++'s GCC_3.0) ever does;
#  - every symbol Debian's libunwind.so.8 and libunwind-x86_64.so.8
#    export is exported by libehelf-unwind.
# Usage: tests/unwind/run-unwind-abi-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-unwind-abi-tests.sh BUILD}" && pwd)
bin=$build/tests/unwind
pre=$build/lib/libehelf-unwind.so
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
. "$(dirname "$0")/../common/checks.sh"
mkdir -p "$T/empty" "$T/cache" "$T/files"
run() { # STORE PRELOAD PROGRAM ARGS...
	dir_=$1 p_=$2
	shift 2
	env -u EHELF_URLS EHELF_PATH="$dir_" EHELF_CACHE_PATH="$T/cache" \
		LD_LIBRARY_PATH="$build/lib" LD_PRELOAD="$p_" timeout 30 "$@"
}

for p in unwind-abi-lu unwind-abi-gcc unwind-abi-ehelf; do
	cp "$bin/$p" "$T/files/"
	LD_LIBRARY_PATH=$build/lib ldd "$bin/$p" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' |
	while read -r lib; do cp -n "$(readlink -f "$lib")" "$T/files/"; done
done
"$build/bin/ehelf-compile" --extract-vdso "$T/files/vdso.so"
"$build/bin/ehelf-batch" --store "$T/all" "$T/files" >/dev/null
echo "  $(find "$T/all" -name "*.so" | wc -l) eh_elfs for the programs and their libraries"

echo "== throw, rethrow, _Unwind_Backtrace: as built, preloaded, relinked"
for v in lu gcc; do
	args=
	[ "$v" = lu ] && args=--libunwind-names
	run "$T/empty" "" "$bin/unwind-abi-$v" $args >"$T/$v.ref" 2>&1 ||
		bad "unwind-abi-$v alone failed: $(tail -1 "$T/$v.ref")"
	grep -q '^caught: from the bottom after 3 destructors$' "$T/$v.ref" &&
		grep -q '^thread: from the bottom after 3 destructors$' "$T/$v.ref" &&
		grep -q '^rethrown: again: from the bottom$' "$T/$v.ref" &&
		grep -q '^backtrace: program+.*main+.*CFAs rising)$' "$T/$v.ref" ||
		bad "unwind-abi-$v alone: unexpected output: $(head -c 300 "$T/$v.ref")"
	for store in empty all; do
		if run "$T/$store" "$pre" "$bin/unwind-abi-$v" $args >"$T/$v.$store" 2>&1 &&
			cmp -s "$T/$v.ref" "$T/$v.$store"; then
			ok "$v, preloaded, eh_elfs for $([ $store = all ] && echo every || echo no) module: $(wc -l <"$T/$v.ref") lines as without"
		else
			bad "$v preloaded ($store): output differs"; diff "$T/$v.ref" "$T/$v.$store" | head
		fi
	done
done
# __libunwind_Unwind_Backtrace exists under libunwind alone
grep -c '^backtrace:' "$T/lu.ref" | grep -qx 2 || bad "lu: no second backtrace through __libunwind_Unwind_Backtrace"
for store in empty all; do
	run "$T/$store" "" "$bin/unwind-abi-ehelf" --libunwind-names >"$T/eh.$store" 2>&1 ||
		bad "relinked ($store) failed: $(tail -1 "$T/eh.$store")"
	# libgcc's output, and the backtrace again through the __libunwind name
	head -n 5 "$T/eh.$store" | cmp -s "$T/gcc.ref" - &&
		[ "$(sed -n 4p "$T/eh.$store" | sed 's/main+0x[0-9a-f]*//')" = \
		  "$(sed -n 6p "$T/eh.$store" | sed 's/main+0x[0-9a-f]*//')" ] &&
		ok "relinked, $([ $store = all ] && echo with || echo without) eh_elfs: libgcc's output; __libunwind_Unwind_Backtrace the same frames" ||
		{ bad "relinked ($store): output differs from libgcc's"; diff "$T/gcc.ref" "$T/eh.$store" | head; }
done

echo "== which runtime each reference binds to (LD_DEBUG=bindings)"
for v in lu gcc; do
	run "$T/empty" "$pre" env LD_DEBUG=bindings LD_DEBUG_OUTPUT="$T/bind.$v" \
		"$bin/unwind-abi-$v" >/dev/null 2>&1 || bad "$v with LD_DEBUG failed"
	cat "$T/bind.$v".* >"$T/bind.$v"
	versioned=$(grep "to $pre .*normal symbol \`_Unwind_[A-Za-z_]*' \[" "$T/bind.$v" | head -3)
	[ -z "$versioned" ] || bad "$v: a versioned reference bound to libehelf-unwind: $versioned"
	grep -q "libstdc++.so.6 .* to .*: normal symbol \`_Unwind_RaiseException' \[GCC_3.0\]" "$T/bind.$v" ||
		bad "$v: libstdc++'s _Unwind_RaiseException binding not seen"
done
grep -q "unwind-abi-lu \[0\] to $pre \[0\]: normal symbol \`_Unwind_Backtrace'" "$T/bind.lu" &&
	grep -q "libstdc++.so.6 \[0\] to [^ ]*libunwind.so.8 \[0\]: normal symbol \`_Unwind_RaiseException' \[GCC_3.0\]" "$T/bind.lu" &&
	ok "linked with -lunwind: the program's _Unwind_Backtrace is libehelf-unwind's, libstdc++'s GCC_3.0 references stay libunwind.so.8's" ||
	bad "lu: unexpected bindings: $(grep -E "_Unwind_(Backtrace|RaiseException)'" "$T/bind.lu" | head -4)"
grep -q "libstdc++.so.6 \[0\] to [^ ]*libgcc_s.so.1 \[0\]: normal symbol \`_Unwind_RaiseException' \[GCC_3.0\]" "$T/bind.gcc" &&
	ok "libgcc alone: libstdc++'s references stay libgcc_s's" ||
	bad "gcc: unexpected bindings: $(grep "_Unwind_RaiseException'" "$T/bind.gcc" | head -3)"

echo "== every symbol of libunwind.so.8 and libunwind-x86_64.so.8"
defs() { objdump -T "$1" | awk '$2 ~ /^[gw]$/ && $4 != "*UND*" && NF >= 7 { print $NF }' | sort -u; }
lu8=$(readlink -f "$(ldconfig -p | awk '$1 == "libunwind.so.8" { print $NF; exit }')")
lux=$(readlink -f "$(ldconfig -p | awk '$1 == "libunwind-x86_64.so.8" { print $NF; exit }')")
{ defs "$lu8"; defs "$lux"; } | sort -u >"$T/want"
defs "$pre" >"$T/have"
missing=$(comm -23 "$T/want" "$T/have")
[ -z "$missing" ] && ok "all $(wc -l <"$T/want") exported ($(grep -c _Unwind "$T/want") of them _Unwind_*)" ||
	bad "not exported: $(echo $missing)"
n=$(objdump -T "$pre" | grep -c ' EHELF_UNWIND_1 *_\(_libunwind\)\{0,1\}_\?Unwind_' || true)
[ "$n" -eq "$(grep -c _Unwind "$T/want")" ] && ok "the $n _Unwind_* of version EHELF_UNWIND_1" ||
	bad "$n _Unwind_* of version EHELF_UNWIND_1"

[ "$fails" -eq 0 ] && echo "unwind-abi tests: all passed" || { echo "unwind-abi tests: $fails FAILED"; exit 1; }
