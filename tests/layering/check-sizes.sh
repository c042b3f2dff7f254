#!/bin/sh
# Small files, one concept each: fails, naming each, on a source file
# (*.c *.h *.cc *.S *.sh *.py *.mk, Makefile; tests/fixtures/ and test data
# under tests/*/data/ excepted) of more than 1,000 lines whose header (its
# first 40 lines) does not say why it is "one concept".
# Usage: tests/layering/check-sizes.sh [ROOT]   (default: the source tree)
set -eu
root=${1:-$(dirname "$0")/../..}
cd "$root"
max=1000
bad=0
if git ls-files >/dev/null 2>&1; then
	git ls-files
else    # not a git clone (an unpacked archive)
	find . -path ./build -prune -o -type f -print | sed 's|^\./||'
fi | grep -E '(^|/)Makefile$|\.(c|h|cc|S|sh|py|mk)$' |
	grep -vE '^tests/fixtures/|^tests/[^/]+/data/' | sort > "${TMPDIR:-/tmp}/check-sizes.$$"
while read -r f; do
	[ -f "$f" ] || continue
	n=$(wc -l < "$f")
	[ "$n" -gt $max ] || continue
	head -n 40 "$f" | grep -qi 'one concept' && continue
	echo "$f: $n lines (over $max, and its header does not say why it is one concept)"
	bad=1
done < "${TMPDIR:-/tmp}/check-sizes.$$"
rm -f "${TMPDIR:-/tmp}/check-sizes.$$"
[ $bad = 0 ] || exit 1
echo "check-sizes: no source file over $max lines but those whose header says why it is one concept"
