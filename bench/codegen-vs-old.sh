#!/bin/sh
# Step times of the eh_elfs of this tree against those of an older tree, in
# one run: bench-codegen of both (the older one built from `git archive` of
# REV, kept in BUILD/bench-old/REV), on make bench's four files plus a small
# and a tiny one, the two taking turns over ROUNDS rounds; per cell the
# fastest round (bench-codegen itself keeps the fastest of 5 passes), and
# new / old.  The rule it checks: the compact form and the smaller tables
# must not make the warm and random-pc steps slower; REV defaults to the
# last tree of eh_elf ABI 2, the code before them.
# Usage: bench/codegen-vs-old.sh BUILD [REV] [ROUNDS]
set -eu
build=$(cd "${1:?usage: codegen-vs-old.sh BUILD [REV] [ROUNDS]}" && pwd)
rev=${2:-f92aab8}
rounds=${3:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
if ! full=$(git -C "$here" rev-parse --verify -q "$rev^{commit}"); then
	echo "codegen-vs-old: $rev is not a commit of $here (a git clone with its history is needed)" >&2
	exit 1
fi
old=$build/bench-old/$full
if [ ! -x "$old/build/bench/bench-codegen" ]; then
	echo "(building bench-codegen of $rev in $old)"
	rm -rf "$old"
	mkdir -p "$old"
	git -C "$here" archive "$full" | tar -x -C "$old"
	if ! make -C "$old" -j2 build/bench/bench-codegen >"$old.log" 2>&1; then
		echo "codegen-vs-old: building $rev failed, see $old.log" >&2
		exit 1
	fi
fi
libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
libstdcxx=$(ls /usr/lib/x86_64-linux-gnu/libstdc++.so.6.* 2>/dev/null | head -n 1)
largest=$(find /usr/lib/x86_64-linux-gnu -name '*.so*' -type f -printf '%s %p\n' 2>/dev/null |
	sort -n | tail -n 1 | cut -d' ' -f2-)
python=$(readlink -f /usr/bin/python3)
# 4 KiB of tables (coreutils), and 384 bytes (a gconv module of libc6)
small=/usr/bin/true
tiny=/usr/lib/x86_64-linux-gnu/gconv/ISO8859-1.so
files="$libc $libstdcxx $largest $python $small $tiny"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
r=1
while [ "$r" -le "$rounds" ]; do
	# alternate which one runs first
	if [ $((r % 2)) = 1 ]; then order="old new"; else order="new old"; fi
	for which in $order; do
		if [ "$which" = old ]; then bin=$old/build/bench/bench-codegen
		else bin=$build/bench/bench-codegen; fi
		# file eh_frame hdr eh_elf ratio ms MiB/s | local remote wlocal wremote | ...
		# shellcheck disable=SC2086
		"$bin" $files | awk -v w="$which" '$8 == "|" && $4 ~ /^[0-9]+$/ { print w, $1, $4, $9, $10, $11, $12 }' >>"$T/runs"
	done
	r=$((r + 1))
done
echo "== step times, this tree against $rev (ns, fastest of $rounds rounds, the two taking turns)"
printf '%-20s %9s %9s | %-17s %-17s %-17s %-17s\n' file "eh_elf" "old" \
	"local random" "remote random" "local warm" "remote warm"
awk '
{ k = $2; files[k] = 1; if (!(k in ord)) ord[k] = n++
  if ($1 == "old") { osz[k] = $3; for (i = 4; i <= 7; i++) if (!((k, i) in O) || $i < O[k, i]) O[k, i] = $i }
  else { nsz[k] = $3; for (i = 4; i <= 7; i++) if (!((k, i) in N) || $i < N[k, i]) N[k, i] = $i } }
END {
  for (k in ord) byord[ord[k]] = k
  for (j = 0; j < n; j++) {
    k = byord[j]
    printf "%-20.20s %9d %9d |", k, nsz[k], osz[k]
    for (i = 4; i <= 7; i++) printf " %5.1f->%5.1f %4.2f", O[k, i], N[k, i], N[k, i] / O[k, i]
    printf "\n"
  }
}' "$T/runs"
echo "(eh_elf: the size with this tree, old: with $rev; each cell old -> new ns, new / old)"
