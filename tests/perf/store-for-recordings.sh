#!/bin/bash
# Build eh_elfs for every file mapped executable in the given perf.data
# files (perf script --show-mmap-events), and for this kernel's vDSO, into
# STORE: what ehelf-perf needs for those recordings, without compiling all
# of the installed packages.  With SIGN_KEY set (an Ed25519 PEM private
# key), every eh_elf is signed with it (ehelf-batch --sign-key).
# Usage: tests/perf/store-for-recordings.sh BUILD STORE FILE...
# bash for pipefail (dash has none): perf script failing on a recording
# fails the script (its files would otherwise go without eh_elfs, and
# ehelf-perf would unwind them by the DWARF fallback unnoticed)
set -euo pipefail
build=${1:?usage: store-for-recordings.sh BUILD STORE FILE...}
store=${2:?usage: store-for-recordings.sh BUILD STORE FILE...}
shift 2
files=$(mktemp -d)
err=$(mktemp)
trap 'rm -rf "$files" "$err"' EXIT INT TERM
for f in "$@"; do
	perf script -i "$f" --show-mmap-events -G -F comm 2>"$err" |
		awk '/PERF_RECORD_MMAP/ && / r-xp \// { print $NF }' ||
		{ echo "store-for-recordings: perf script -i $f failed: $(head -n 3 "$err")" >&2; exit 1; }
done | sort -u | while read -r path; do
	[ -f "$path" ] || continue
	# flat names that stay distinct: the path with / made _
	cp "$path" "$files/$(echo "$path" | tr / _)"
done
"$build/bin/ehelf-compile" --extract-vdso "$files/vdso.so"
"$build/bin/ehelf-batch" --store "$store" -j 2 ${SIGN_KEY:+--sign-key "$SIGN_KEY"} \
	"$files" >/dev/null
