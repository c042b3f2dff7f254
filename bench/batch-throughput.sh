#!/bin/sh
# ehelf-batch over this machine's installed packages, from an empty store,
# with 1 and 2 workers.  Usage: bench/batch-throughput.sh BUILD
set -eu
build=${1:?usage: batch-throughput.sh BUILD}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "== ehelf-batch on the installed packages (empty store each time; a first"
echo "   untimed run reads every file into the page cache)"
"$build/bin/ehelf-batch" --store "$tmp/warm" -j 2 >/dev/null 2>&1 || true
rm -rf "$tmp/warm"
printf '%-4s %9s %6s %6s %12s %12s %9s %9s %9s\n' -j packages ELFs built \
	".eh_frame" eh_elfs seconds "MiB/s" "ELFs/s"
for j in 1 2; do
	rm -rf "$tmp/s"
	"$build/bin/ehelf-batch" --store "$tmp/s" -j "$j" --json >"$tmp/out" 2>/dev/null
	awk -v j="$j" '{
		for (i = 1; i <= NF; i++) { gsub(/[{},":]/, "", $i) }
		for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
		printf "%-4s %9d %6d %6d %12d %12d %9.1f %9.1f %9.1f\n", j,
		       v["packages"], v["elfs"], v["built"], v["eh_frame_bytes"],
		       v["ehelf_bytes"], v["seconds"],
		       v["eh_frame_bytes"] / 1048576 / v["seconds"],
		       v["elfs"] / v["seconds"] }' "$tmp/out"
done
echo "(each eh_elf is fsync'd before it is renamed into the store)"
