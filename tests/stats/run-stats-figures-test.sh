#!/bin/bash
# The figures of ehelf-stats proved against binutils readelf, and its HTML
# report as Debian's headless chromium shows it.
#
# 1. ehelf-batch builds a store and its database from real Debian packages
#    (a subset of tests/diff/packages.txt, fetched and cached by
#    tests/diff/fetch-packages.sh) and fixtures built here from
#    tests/fixtures (both unwind sections, .debug_frame only, an executable,
#    one ELF twice under two names, a relocatable object).
# 2. tests/stats/stats_figures.py computes the same figures without ehelf:
#    each package unpacked by dpkg-deb -x, each file's sizes and build-ID
#    from readelf -h -S -n, its unwind rows from readelf's decoded CFI
#    (--debug-dump=frames) run by the script's own interpreter, which is
#    checked FDE by FDE against readelf's (--debug-dump=frames-interp); the
#    sizes of the eh_elfs from the store's files.  Compared exactly with
#    ehelf-stats --json, every table readelf can check: summary, packages,
#    sizes, rule_kinds, fde_rows, fde_sizes, sections, cfa_base, cfa_offset,
#    saved_regs, dwarf_ops, rulesets, coverage, top_rulesets (percentages
#    after the same %.6g rounding); and with ehelf-batch's per-file records
#    (which names the file behind any difference).
# 3. The HTML report: no script needed; in chromium at 1280 px every plot
#    has a box and drawn marks, no table cell overflows, no table is wider
#    than its container or the window; the screenshot is not blank and shows
#    the plot colours the page declares; printing to PDF works.
# Each check is also shown to fail on a report or figures made wrong.
#
# Usage: tests/stats/run-stats-figures-test.sh BUILD_DIR
#   (BUILD_DIR/bin/ehelf-batch and BUILD_DIR/bin/ehelf-stats)
set -euo pipefail
build=$(cd "${1:?usage: run-stats-figures-test.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
batch=$build/bin/ehelf-batch
stats=$build/bin/ehelf-stats
# Debian's python3 (its python3-pil), whatever python3 comes first in PATH
py=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
. "$root/tests/common/checks.sh"
start=$(date +%s)

"$root/scripts/install-deps.sh" binutils dpkg gcc sqlite3 chromium python3 \
	python3-pil poppler-utils
for x in "$batch" "$stats"; do
	[ -x "$x" ] || { echo "run-stats-figures-test: $x is not built" >&2; exit 1; }
done

echo "== corpus: Debian packages and fixtures"
PACKAGES="libc6 libstdc++6 zlib1g coreutils libsqlite3-0 python3.11-minimal xz-utils libcurl4"
# packages of tests/diff/packages.txt, fetched (only these) into its cache
for p in $PACKAGES; do
	grep -qx "$p" "$root/tests/diff/packages.txt" ||
		{ echo "run-stats-figures-test: $p is not in tests/diff/packages.txt" >&2; exit 1; }
	echo "$p"
done >"$T/packages.txt"
all=$("$root/tests/diff/fetch-packages.sh" --debs "$T/packages.txt")
debs=()
figargs=()
for p in $PACKAGES; do
	deb=$(echo "$all" | grep "/${p}_" | head -n 1)
	[ -n "$deb" ] || { echo "run-stats-figures-test: no .deb of $p" >&2; exit 1; }
	debs+=("$deb")
	name=$(dpkg-deb -f "$deb" Package)
	mkdir -p "$T/x/$name"
	dpkg-deb -x "$deb" "$T/x/$name"
	figargs+=(--package "$name" "$(dpkg-deb -f "$deb" Version)" "$T/x/$name")
done
# fixtures: a directory, one package of format dir named after it
fix=$T/fixtures
mkdir -p "$fix"
src=("$root/tests/fixtures/cfi_zoo.S" "$root/tests/fixtures/frames.c")
cc="gcc -O2 -fPIC -w"
$cc -shared -o "$fix/zoo.so" "${src[@]}"
cp "$fix/zoo.so" "$fix/zoo-again.so"   # one build-ID, two files
$cc -shared -DZOO_BOTH_SECTIONS -o "$fix/zoo-both.so" "${src[@]}"
$cc -shared -g -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-DZOO_DEBUG_FRAME_ONLY -o "$fix/zoo-debugframe.so" "${src[@]}"
$cc -no-pie -fno-pic -DFIXTURE_MAIN -o "$fix/zoo-exec" "${src[@]}"
$cc -c -o "$fix/zoo.o" "$root/tests/fixtures/cfi_zoo.S"   # ignored: relocatable
figargs+=(--package fixtures "" "$fix")
ok "${#debs[@]} packages ($PACKAGES) and $(find "$fix" -type f | wc -l) fixtures"

echo "== ehelf-batch"
"$batch" --store "$T/store" -j 2 --json "${debs[@]}" "$fix" >"$T/batch.json"
check "ehelf-batch: $(sed 's/.*"elfs": \([0-9]*\).*"built": \([0-9]*\).*/\1 ELF files, \2 eh_elfs built/' "$T/batch.json"), none failed" \
	grep -q '"failed": 0,' "$T/batch.json"
db=$T/store/ehelf.sqlite
check "the database is schema version 3" [ "$(sqlite3 "$db" 'PRAGMA user_version')" = 3 ]

echo "== the figures from readelf"
t0=$(date +%s)
$py "$here/stats_figures.py" compute -j 2 --store "$T/store" "${figargs[@]}" "$T/figures.json"
ok "computed in $(($(date +%s) - t0)) s, the script's interpreter agreeing with readelf's on every FDE"

echo "== ehelf-stats --json against them"
# --top 5: fewer than the 9 packages, so the top tables are cut
"$stats" --db "$db" --json --top 5 >"$T/stats.json"
status=0
$py "$here/stats_figures.py" compare --db "$db" --top 5 "$T/figures.json" "$T/stats.json" ||
	status=$?
fails=$((fails + status))
# the comparison can fail: one figure off by one in a copy of the output
$py - "$T/stats.json" "$T/wrong.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
t = next(t for t in s["tables"] if t["id"] == "rule_kinds")
i = [c["name"] for c in t["columns"]].index("undefined")
t["rows"][-1][i] += 1
json.dump(s, open(sys.argv[2], "w"))
EOF
status=0
$py "$here/stats_figures.py" compare --top 5 "$T/figures.json" "$T/wrong.json" >"$T/wrong.out" 2>&1 ||
	status=$?
check "... and the comparison fails on an output with one count off by one" \
	sh -c "[ $status = 1 ] && grep -q 'rule_kinds.*1 differences' '$T/wrong.out'"

echo "== the HTML report"
"$stats" --db "$db" --html "$T/report.html"
status=0
$py "$here/report_checks.py" static "$T/report.html" || status=$?
fails=$((fails + status))
chrome() {
	local u
	u=$(mktemp -d "$T/chrome.XXXXXX")
	timeout 120 chromium --headless=new --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$u" "$@" 2>>"$T/chromium.log"
}
# layout, measured in the browser by a script appended to a copy
$py "$here/report_checks.py" probe "$T/report.html" "$T/probe.html"
chrome --window-size=1280,900 --virtual-time-budget=5000 --dump-dom \
	"file://$T/probe.html" >"$T/dom.html" || true
status=0
$py "$here/report_checks.py" layout "$T/dom.html" >"$T/layout.out" || status=$?
grep -v '^HEIGHT ' "$T/layout.out" || true
fails=$((fails + status))
height=$(sed -n 's/^HEIGHT //p' "$T/layout.out")
height=${height:-2000}
[ "$height" -lt 900 ] && height=900
[ "$height" -gt 32000 ] && height=32000
# the screenshot of the whole page, the report itself
chrome --window-size=1280,"$height" --hide-scrollbars --screenshot="$T/shot.png" \
	"file://$T/report.html" >/dev/null || true
if [ -s "$T/shot.png" ]; then
	status=0
	$py "$here/report_checks.py" screenshot "$T/report.html" "$T/dom.html" "$T/shot.png" || status=$?
	fails=$((fails + status))
else
	bad "chromium made no screenshot: $(tail -n 3 "$T/chromium.log")"
fi
# printed
chrome --no-pdf-header-footer --print-to-pdf="$T/report.pdf" "file://$T/report.html" \
	>/dev/null || true
if [ -s "$T/report.pdf" ] && pdftotext "$T/report.pdf" "$T/report.txt" 2>/dev/null; then
	status=0
	$py "$here/report_checks.py" pdf "$T/report.html" "$T/report.pdf" "$T/report.txt" || status=$?
	fails=$((fails + status))
else
	bad "chromium printed no readable PDF: $(tail -n 3 "$T/chromium.log")"
fi
# the layout checks can fail: a copy whose cells cannot hold their text,
# whose tables are wider than the page (nothing scrolls), and whose plots
# are hidden
sed 's|</head>|<style>*{overflow:visible !important} td,th{display:block !important;width:2px !important;min-width:0 !important;white-space:nowrap !important} table{display:block !important;width:3000px !important} svg{display:none !important}</style></head>|' \
	"$T/report.html" >"$T/broken.html"
$py "$here/report_checks.py" probe "$T/broken.html" "$T/broken-probe.html"
chrome --window-size=1280,900 --virtual-time-budget=5000 --dump-dom \
	"file://$T/broken-probe.html" >"$T/broken-dom.html" || true
$py "$here/report_checks.py" layout "$T/broken-dom.html" >"$T/broken.out" 2>&1 || true
check "... and the layout checks fail on a copy made wrong, naming the elements" sh -c \
	"grep -q 'FAIL: plot 0 .*empty box' '$T/broken.out' &&
	 grep -q 'FAIL: table cell .* overflows' '$T/broken.out' &&
	 grep -q 'FAIL: table 0 .* wide' '$T/broken.out'"

echo "stats figures test: $(($(date +%s) - start)) s"
[ "$fails" = 0 ] && echo "stats figures test: PASS" ||
	{ echo "stats figures test: $fails FAILED"; exit 1; }
