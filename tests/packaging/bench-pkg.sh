#!/bin/sh
# make bench, packaging: ehelf-pkg on the whole of this machine's store
# (build/store, brought up to date by ehelf-batch first): seconds from
# scratch with one worker and with every core, and for a run where nothing
# changed; packages; the total size of the .debs against the installed size
# of the packages they describe (dpkg's Installed-Size) and against the
# .eh_frame and .eh_frame_hdr they replace; the -ehelf packages' own
# Installed-Size; the size target (the .debs at most a quarter of the
# .eh_frame bytes they describe) and whether it is met.
#
# Usage: tests/packaging/bench-pkg.sh BUILD
set -eu
case ${1:-} in -h | --help)
	sed -n '2,/^set -eu$/{/^#/s/^# \{0,1\}//p}' "$0"
	exit 0 ;;
esac
build=$(cd "${1:?usage: bench-pkg.sh BUILD}" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
json() { sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p" "$1"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
cores=$(nproc)

echo "== packaging: ehelf-pkg over this machine's store ($build/store)"
"$build/bin/ehelf-batch" --store "$build/store" --json >/dev/null || true
for j in 1 "$cores"; do
	rm -rf "$T/repo"
	"$build/bin/ehelf-pkg" --store "$build/store" --out "$T/repo" -j "$j" --json \
		>"$T/cold-$j.json" 2>/dev/null || true
done
"$build/bin/ehelf-pkg" --store "$build/store" --out "$T/repo" -j "$cores" --json \
	>"$T/warm.json" 2>/dev/null || true
c=$T/cold-$cores.json
n=$(json "$c" repository_packages)
debs=$(json "$c" repository_bytes)
ehframe=$(( $(json "$c" eh_frame_bytes) + $(json "$c" eh_frame_hdr_bytes) ))
ehframe_only=$(json "$c" eh_frame_bytes)
# Installed-Size (KiB) of the -ehelf packages, and of the packages they
# describe (Depends: NAME (= VERSION), as dpkg has it installed)
own=0
described=0
for f in $(find "$T/repo/pool" -name '*.deb'); do
	dpkg-deb -f "$f" Installed-Size Depends Architecture >"$T/f"
	own=$((own + $(sed -n 's/^Installed-Size: //p' "$T/f")))
	dep=$(sed -n 's/^Depends: //p' "$T/f")
	name=${dep%% *}
	want=$(echo "$dep" | sed 's/.*(= \(.*\))/\1/')
	size=$(dpkg-query -W -f '${Version} ${Installed-Size}\n' "$name" 2>/dev/null |
		awk -v v="$want" '$1 == v { print $2; exit }')
	described=$((described + ${size:-0}))
done
printf '| run | seconds | packages built | unchanged |\n|---|---|---|---|\n'
printf '| from scratch, -j1 | %s | %s | %s |\n' "$(json "$T/cold-1.json" seconds)" \
	"$(json "$T/cold-1.json" built)" "$(json "$T/cold-1.json" unchanged)"
printf '| from scratch, -j%s | %s | %s | %s |\n' "$cores" "$(json "$c" seconds)" \
	"$(json "$c" built)" "$(json "$c" unchanged)"
printf '| nothing changed, -j%s | %s | %s | %s |\n' "$cores" "$(json "$T/warm.json" seconds)" \
	"$(json "$T/warm.json" built)" "$(json "$T/warm.json" unchanged)"
echo
echo "$n -ehelf packages, $(mib "$debs") MiB of .deb in all"
awk -v d="$debs" -v o="$own" -v i="$described" -v e="$ehframe" -v x="$(json "$c" ehelf_bytes)" 'BEGIN {
	printf "  against the %.1f MiB installed by the packages they describe: %.2f%% (installed -ehelf: %.1f MiB, %.1f%%)\n",
		i / 1024, 100 * d / (i * 1024), o / 1024, 100 * o / i
	printf "  against the %.1f MiB of .eh_frame + .eh_frame_hdr they replace: %.3fx (the eh_elfs themselves: %.1f MiB, %.3fx)\n",
		e / 1048576, d / e, x / 1048576, x / e
}'
awk -v d="$debs" -v e="$ehframe_only" 'BEGIN {
	r = e ? d / e : 0
	printf "target: .debs / .eh_frame %.3f <= 0.25 %s\n", r,
	       e && r <= 0.25 ? "met" : "NOT met"
}'
