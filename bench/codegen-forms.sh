#!/bin/sh
# Sizes and step times of the eh_elfs in the form the generator picks by
# size (auto: the compact form for files of at most 256 rule sets and
# 16,384 entries, compiled bodies for larger ones) against compiled bodies
# forced for every file (bench-codegen --form full), both built by this
# tree, in one run: make bench's four files plus a small and a tiny one,
# the two forms taking turns over ROUNDS rounds; per cell the fastest
# round (bench-codegen itself keeps the fastest of 5 passes), and
# auto / full.  Where auto picks compiled bodies both sides are the same
# code, and their ratio shows the run's noise.
# Usage: bench/codegen-forms.sh BUILD [ROUNDS]
set -eu
build=$(cd "${1:?usage: codegen-forms.sh BUILD [ROUNDS]}" && pwd)
rounds=${2:-3}
bin=$build/bench/bench-codegen
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
	if [ $((r % 2)) = 1 ]; then order="full auto"; else order="auto full"; fi
	for form in $order; do
		# file eh_frame hdr eh_elf ratio ms MiB/s | local remote wlocal wremote | ...
		# shellcheck disable=SC2086
		"$bin" --form "$form" $files |
			awk -v w="$form" '$8 == "|" && $4 ~ /^[0-9]+$/ { print w, $1, $4, $9, $10, $11, $12 }' >>"$T/runs"
	done
	r=$((r + 1))
done
n=$(awk '$1 == "auto"' "$T/runs" | wc -l)
if [ "$n" -ne $((6 * rounds)) ]; then
	echo "codegen-forms: bench-codegen measured $n of $((6 * rounds)) files in the auto form" >&2
	exit 1
fi
echo "== step times, the generator's choice of form against compiled bodies (ns, fastest of $rounds rounds, the two taking turns)"
printf '%-20s %9s %9s | %-17s %-17s %-17s %-17s\n' file "auto" "full" \
	"local random" "remote random" "local warm" "remote warm"
awk '
{ k = $2; if (!(k in ord)) ord[k] = n++
  if ($1 == "full") { fsz[k] = $3; for (i = 4; i <= 7; i++) if (!((k, i) in F) || $i < F[k, i]) F[k, i] = $i }
  else { asz[k] = $3; for (i = 4; i <= 7; i++) if (!((k, i) in A) || $i < A[k, i]) A[k, i] = $i } }
END {
  for (k in ord) byord[ord[k]] = k
  for (j = 0; j < n; j++) {
    k = byord[j]
    printf "%-20.20s %9d %9d |", k, asz[k], fsz[k]
    for (i = 4; i <= 7; i++) printf " %5.1f->%5.1f %4.2f", F[k, i], A[k, i], A[k, i] / F[k, i]
    printf "%s\n", asz[k] == fsz[k] ? "  (same form)" : "  (compact)"
  }
}' "$T/runs"
echo "(auto, full: the eh_elf's bytes in each form; each cell full -> auto ns, auto / full)"
