#!/bin/sh
# check-words.sh fed what it refuses: a tree whose docs (docs/journal.md
# among them) and comments carry issue numbers, work-log words, commit
# hashes and a link out of the repository must fail with each one listed;
# the same tree cleaned must pass, a hash in docs/figures.md included.
# Usage: tests/layering/check-words-test.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "check-words-test: $*" >&2; exit 1; }

# the refused words are put together at run time, so that this script's
# own text does not hold them
issue="iss""ue 21"; stop="fifth st""op"; dropped="measured and dr""opped"
hash="ead781f"

mkdir -p "$T/tree/docs" "$T/tree/src"
printf 'Journal\n\nThe run of %s, %s: %s.\n\nAt %s.\n\nSee [it](../../outside.md).\n' \
	"$issue" "$stop" "$dropped" "$hash" >"$T/tree/docs/journal.md"
printf 'Figures\n\nMeasured at %s.\n' "$hash" >"$T/tree/docs/figures.md"
printf 'Readme\n' >"$T/tree/README.md"
printf '/* fixed in %s */\nint x;\n' "$issue" >"$T/tree/src/a.c"

if "$here/check-words.sh" "$T/tree" >"$T/out" 2>&1; then
	cat "$T/out"; fail "a tree with refused words passed"
fi
for want in "docs/journal.md:3: issue number" "docs/journal.md:3: stop" \
	    "docs/journal.md:3: work-log phrase" "docs/journal.md:5: commit hash" \
	    "docs/journal.md:7: link outside the repository" \
	    "src/a.c:1: issue number"; do
	grep -qF "$want" "$T/out" || { cat "$T/out"; fail "not listed: $want"; }
done
grep -q "docs/figures.md" "$T/out" && { cat "$T/out"; fail "docs/figures.md's hash refused"; }

printf 'Journal\n\nThe run of 2026-11-27, the commit of 2026-11-27 04:30.\n' \
	>"$T/tree/docs/journal.md"
printf '/* fixed */\nint x;\n' >"$T/tree/src/a.c"
"$here/check-words.sh" "$T/tree" >"$T/out" 2>&1 || { cat "$T/out"; fail "the clean tree failed"; }
echo "check-words-test: refused words listed in docs, the journal and comments; the clean tree passes"
