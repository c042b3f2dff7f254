#!/bin/sh
# Total eh_elf size against .eh_frame + .eh_frame_hdr over every ELF under
# /usr/bin and /usr/lib/x86_64-linux-gnu, by input size, and the size
# targets (docs/eh_elf.md), each with whether it is met.
# Usage: bench/corpus-sizes.sh BUILD
set -eu
build=${1:?usage: corpus-sizes.sh BUILD}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
find /usr/bin /usr/lib/x86_64-linux-gnu -type f 2>/dev/null | LC_ALL=C sort |
while read -r f; do
	"$build/bin/ehelf-compile" "$f" -o "$tmp/out.so" --stats 2>/dev/null |
		awk '$1 == ".eh_frame:" { a = $2 } $1 == ".eh_frame_hdr:" { b = $2 }
		     $1 == "eh_elf:" { c = $2 } END { if (c) print a, b, c }'
done >"$tmp/sizes"
echo "== eh_elf size over this machine's corpus (every ELF with unwind tables)"
printf '%-14s %6s %14s %14s %7s\n' "input size" files eh_frame+hdr eh_elf ratio
awk '{
	s = $1 + $2
	if (s < 4096) k = "1 < 4 KiB"
	else if (s < 32768) k = "2 4-32 KiB"
	else if (s < 262144) k = "3 32-256 KiB"
	else k = "4 >= 256 KiB"
	A[k] += s; C[k] += $3; N[k]++; TA += s; TC += $3; TN++
}
END {
	for (k in A)
		printf "%s|%6d %14d %14d %7.3f\n", k, N[k], A[k], C[k], C[k] / A[k]
	printf "9 total|%6d %14d %14d %7.3f\n", TN, TA, TC, TC / TA
}' "$tmp/sizes" | sort | sed 's/^[0-9] \([^|]*\)|/\1|/' | awk -F'|' '{ printf "%-14s %s\n", $1, $2 }'
echo "targets:"
awk '{
	s = $1 + $2
	TA += s; TC += $3
	if (s < 4096) { SA += s; SC += $3 }
	if (s >= 262144) { LA += s; LC += $3 }
	if (s < 1024 && $3 > 4096) big++
}
function row(what, got, limit) {
	printf "  %-52s %7.3f <= %-5s %s\n", what, got, limit,
	       got <= limit ? "met" : "NOT met"
}
END {
	row("total / (.eh_frame + .eh_frame_hdr)", TC / TA, "0.5")
	row("files under 4 KiB of tables", SC / SA, "2")
	row("files of 256 KiB and more", LC / LA, "0.45")
	printf "  %-52s %7d == 0     %s\n", "eh_elfs above 4 KiB with tables under 1 KiB",
	       big, big == 0 ? "met" : "NOT met"
}' "$tmp/sizes"
