#!/bin/sh
# The corpus tests, on three corpora: this machine's ELFs under /usr/bin
# and /usr/lib/x86_64-linux-gnu (a deterministic sample, or all of them with
# --full), the Debian packages of tests/diff/packages.txt, and the fixtures
# built by the Makefile.  On each: cfi-diff (the CFI reader against readelf
# and libdw) and codegen-check (every compiled eh_elf against its rows).
#
# Usage: run-corpus.sh --sample|--full BUILD
# Env: EHELF_SAMPLE_EVERY (default 4): the sample takes every Nth file.
set -eu
mode=${1:?usage: run-corpus.sh --sample|--full BUILD}
build=${2:?usage: run-corpus.sh --sample|--full BUILD}
here=$(dirname "$0")
jobs=$(nproc 2>/dev/null || echo 2)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

find /usr/bin /usr/lib/x86_64-linux-gnu -type f 2>/dev/null | LC_ALL=C sort >"$tmp/machine.all"
case "$mode" in
--full) cp "$tmp/machine.all" "$tmp/machine" ;;
--sample)
	every=${EHELF_SAMPLE_EVERY:-4}
	{
		awk -v n="$every" 'NR % n == 1' "$tmp/machine.all"
		# always the libraries every later stage cares most about
		grep -E '/(libc\.so\.6|libstdc\+\+\.so\.6\.[0-9.]*|libgcc_s\.so\.1)$' \
			"$tmp/machine.all" || true
	} | LC_ALL=C sort -u >"$tmp/machine"
	;;
*) echo "run-corpus: unknown mode $mode" >&2; exit 2 ;;
esac
"$here/fetch-packages.sh" "$here/packages.txt" >"$tmp/packages"
find "$build/fixtures" -type f | LC_ALL=C sort >"$tmp/fixtures"

status=0
for corpus in machine packages fixtures; do
	echo "== $corpus ($(wc -l <"$tmp/$corpus") files, mode ${mode#--})"
	"$build/tests/cfi-diff" -j "$jobs" --files-from "$tmp/$corpus" || status=1
	"$build/tests/codegen-check" -j "$jobs" --files-from "$tmp/$corpus" || status=1
done
exit $status
