#!/bin/sh
# Tests of ehelf-stats (corpus-stats/): a database built by ehelf-batch
# over the fixtures and a few of this machine's ELFs (package names an
# output must escape added), its four outputs agreeing cell by cell
# (check_outputs.py: text, CSV and HTML against JSON, the table ids and
# columns of the contract, a method for every table), --top, an empty
# database, databases it must refuse (missing, truncated, random bytes, a
# text file, an empty file, a foreign sqlite database, damaged pages,
# versions 2 and 99), outputs it cannot write, bad usage and --help.
# An older database is refused with the advice to run ehelf-batch on its
# store, and that advice is followed: it then reads.
# Usage: tests/stats/run-stats-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-stats-tests.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
stats=$build/bin/ehelf-stats
batch=$build/bin/ehelf-batch
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
ok() { echo "  ok: $*"; }
bad() { echo "  FAIL: $*" >&2; fails=$((fails + 1)); }
for f in "$stats" "$batch"; do
	[ -x "$f" ] || { echo "run-stats-tests: $f missing (make all)" >&2; exit 1; }
done
command -v sqlite3 >/dev/null || { echo "run-stats-tests: needs the sqlite3 CLI" >&2; exit 1; }

# make_db STORE SOURCE...: ehelf-batch's database of SOURCE, version 3
# (the functions' variables are global: each has a prefix of its own)
make_db() {
	m_store=$1; shift
	if ! "$batch" --store "$m_store" -j2 "$@" >"$T/batch.out" 2>&1; then
		cat "$T/batch.out" >&2
		echo "run-stats-tests: $batch failed" >&2
		exit 1
	fi
	m_v=$(sqlite3 "$m_store/ehelf.sqlite" 'PRAGMA user_version')
	[ "$m_v" = 3 ] || { echo "run-stats-tests: ehelf-batch wrote version $m_v" >&2; exit 1; }
}

# outputs DB DIR [ARGS...]: the four outputs of DB into DIR
outputs() {
	o_db=$1 o_dir=$2; shift 2
	mkdir -p "$o_dir"
	"$stats" --db "$o_db" --json "$@" >"$o_dir/out.json" &&
	"$stats" --db "$o_db" "$@" >"$o_dir/out.txt" &&
	"$stats" --db "$o_db" --csv "$o_dir/csv" --html "$o_dir/out.html" "$@" \
		>"$o_dir/stdout"
}

echo "ehelf-stats: a database of fixtures and system ELFs"
elfs=""
for f in "$build/fixtures" /usr/lib/x86_64-linux-gnu/libz.so.1 /usr/bin/ls \
	 /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 /usr/lib/x86_64-linux-gnu/libc.so.6 \
	 /bin/bash /usr/lib/x86_64-linux-gnu/libstdc++.so.6; do
	[ -e "$f" ] && elfs="$elfs $f"
done
# shellcheck disable=SC2086
make_db "$T/store" $elfs
db=$T/store/ehelf.sqlite
# names every output must carry unchanged: CSV's comma and quote, HTML's
# < & ' ", JSON's backslash, non-ASCII
odd1='lib<b>&amp;"quoted", '"'"'x'"'"' \back'
odd2='пакет-ü'
# and names a spreadsheet would run as formulas (CSV injection)
odd3='=HYPERLINK("http://example.invalid/","x")'
odd4='@SUM(1+1)'
sqlite3 "$db" "UPDATE packages SET name = '$(printf %s "$odd1" | sed "s/'/''/g")'
	WHERE id = (SELECT min(id) FROM packages);
	UPDATE packages SET name = '$odd2', version = '1:2.3-4'
	WHERE id = (SELECT max(id) FROM packages);
	UPDATE packages SET name = '$odd3', version = '-1+2'
	WHERE id = (SELECT min(id) + 1 FROM packages);
	UPDATE packages SET name = '$odd4'
	WHERE id = (SELECT min(id) + 2 FROM packages);"
if outputs "$db" "$T/a" --top 20; then ok "four outputs written"; else bad "outputs"; fi
if python3 "$here/check_outputs.py" "$T/a/out.json" "$T/a/out.txt" "$T/a/csv" \
	"$T/a/out.html" --top 20 --expect-rows --expect-text "$odd1" \
	--expect-text "$odd2" --expect-text "$odd3" --expect-text "$odd4"; then :
else bad "the outputs disagree"; fi
grep -q "^\"'=HYPERLINK(\"\"http://example.invalid/\"\",\"\"x\"\")\",\"'-1+2\"," "$T/a/csv/packages.csv" &&
	grep -q "^\"'@SUM(1+1)\"," "$T/a/csv/packages.csv" &&
	ok "CSV: names starting with = @ and a version starting with -: quoted after a ' (formula injection)" ||
	bad "CSV: formula-like cells written as they are: $(grep -m2 'HYPERLINK\|SUM' "$T/a/csv/packages.csv")"
[ ! -s "$T/a/stdout" ] && ok "--csv and --html alone print nothing on stdout" ||
	bad "--csv/--html printed on stdout"
grep -q '<script>' "$T/a/out.html" && bad "HTML: a <script> tag" || ok "HTML: no script"
grep -q '@media print' "$T/a/out.html" && ok "HTML: print rules" || bad "HTML: no @media print"
# the database is not changed by reading it
sum1=$(sha256sum <"$db")
"$stats" --db "$db" --json >/dev/null
[ "$(sha256sum <"$db")" = "$sum1" ] && ok "database unchanged" || bad "database changed"

# SOURCE_DATE_EPOCH: the same database, the same bytes
SOURCE_DATE_EPOCH=86400 "$stats" --db "$db" --json >"$T/r1.json"
SOURCE_DATE_EPOCH=86400 "$stats" --db "$db" --html - >"$T/r1.html"
if SOURCE_DATE_EPOCH=86400 "$stats" --db "$db" --json | cmp -s - "$T/r1.json" &&
	grep -q '"generated": "1970-01-02 00:00 UTC"' "$T/r1.json" &&
	grep -q '1970-01-02 00:00 UTC' "$T/r1.html"; then
	ok "SOURCE_DATE_EPOCH: reproducible outputs"
else
	bad "SOURCE_DATE_EPOCH"
fi

# the checker catches a difference (else the agreement above means nothing)
cp -r "$T/a" "$T/a2"
sed -i '2s/,[0-9][0-9]*,/,987654321,/' "$T/a2/csv/sizes.csv"
if python3 "$here/check_outputs.py" "$T/a2/out.json" "$T/a2/out.txt" "$T/a2/csv" \
	"$T/a2/out.html" >/dev/null 2>&1; then
	bad "check_outputs.py missed a changed CSV cell"
else
	ok "check_outputs.py catches a changed cell"
fi

echo "ehelf-stats: --top"
outputs "$db" "$T/top" --top 3
python3 "$here/check_outputs.py" "$T/top/out.json" "$T/top/out.txt" "$T/top/csv" \
	"$T/top/out.html" --top 3 || bad "--top 3"
n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
print(max(len(t["rows"]) for t in d["tables"] if t["id"].startswith("top_")))' "$T/top/out.json")
[ "$n" = 3 ] && ok "--top 3: top tables of 3 rows" || bad "--top 3: $n rows"

echo "ehelf-stats: an empty database"
mkdir "$T/empty-src"
make_db "$T/empty" "$T/empty-src"
if outputs "$T/empty/ehelf.sqlite" "$T/e" && python3 "$here/check_outputs.py" \
	"$T/e/out.json" "$T/e/out.txt" "$T/e/csv" "$T/e/out.html"; then
	ok "no ELF: every table, empty or null"
else
	bad "an empty database"
fi

echo "ehelf-stats: databases it cannot use"
# refused DB EXPECTED-MESSAGE-RE: exit 1, the message on stderr, nothing on stdout
refused() {
	set +e
	"$stats" --db "$1" >"$T/r.out" 2>"$T/r.err"
	r_rc=$?
	set -e
	if [ $r_rc = 1 ] && grep -Eq "$2" "$T/r.err" && [ ! -s "$T/r.out" ]; then
		ok "$(basename "$1"): exit 1, $(sed "s|^ehelf-stats: $T/bad/||" "$T/r.err" |
			cut -c1-100)"
	else
		bad "$(basename "$1"): exit $r_rc, $(cat "$T/r.err")"
	fi
}
mkdir "$T/bad"
cp "$db" "$T/bad/good.sqlite"
size=$(stat -c %s "$db")
head -c $((size / 2)) "$db" >"$T/bad/truncated.sqlite"
head -c 100 "$db" >"$T/bad/truncated-header.sqlite"
head -c 65536 /dev/urandom >"$T/bad/random.sqlite"
echo "not a database" >"$T/bad/text.sqlite"
: >"$T/bad/empty.sqlite"
sqlite3 "$T/bad/foreign.sqlite" "CREATE TABLE notes (id INTEGER PRIMARY KEY, t TEXT);
	INSERT INTO notes (t) VALUES ('hello'); PRAGMA user_version = 3;"
cp "$db" "$T/bad/v2.sqlite"
sqlite3 "$T/bad/v2.sqlite" 'PRAGMA user_version = 2'
cp "$db" "$T/bad/v99.sqlite"
sqlite3 "$T/bad/v99.sqlite" 'PRAGMA user_version = 99'
cp "$db" "$T/bad/no-rulesets.sqlite"
sqlite3 "$T/bad/no-rulesets.sqlite" 'DROP TABLE rulesets'
cp "$db" "$T/bad/damaged.sqlite"
pages=$((size / 4096))
dd if=/dev/urandom of="$T/bad/damaged.sqlite" bs=4096 seek=$((pages / 2)) count=4 \
	conv=notrunc 2>/dev/null
dd if=/dev/urandom of="$T/bad/damaged.sqlite" bs=4096 seek=2 count=1 \
	conv=notrunc 2>/dev/null
not_ours='not an ehelf database'
refused "$T/bad/missing.sqlite" 'no such database'
refused "$T/bad/truncated.sqlite" "$not_ours|damaged"
refused "$T/bad/truncated-header.sqlite" "$not_ours"
refused "$T/bad/random.sqlite" "$not_ours"
refused "$T/bad/text.sqlite" "$not_ours"
refused "$T/bad/empty.sqlite" "$not_ours"
refused "$T/bad/foreign.sqlite" "$not_ours"
refused "$T/bad/damaged.sqlite" "damaged"
refused "$T/bad/no-rulesets.sqlite" 'not a complete ehelf database of version 3 \(no table rulesets\)'
refused "$T/bad/v2.sqlite" 'written by an older ehelf-batch \(version 2\): run ehelf-batch on its store once to migrate it and record the statistics'
refused "$T/bad/v99.sqlite" 'written by a newer ehelf-batch \(version 99'
"$stats" --db "$T/bad/good.sqlite" >/dev/null && ok "the same database, intact: exit 0" ||
	bad "the intact copy"

echo "ehelf-stats: a database of version 2, migrated as the message says"
# version 2 as ehelf-batch wrote it (tests/batch/make-v2-db.sh), with the
# rows of the fixtures' database that version had
mkdir "$T/v2"
src2=$T/v2src
mkdir "$src2" && cp "$build/fixtures/zoo.so" "$build/fixtures/zoo-exec" "$src2/"
make_db "$T/v2new" "$src2"
"$here/../batch/make-v2-db.sh" "$T/v2new" "$T/v2/ehelf.sqlite"
cp -a "$T/v2new/.build-id" "$T/v2/"
refused "$T/v2/ehelf.sqlite" 'written by an older ehelf-batch \(version 2\): run ehelf-batch on its store once to migrate it and record the statistics'
"$batch" --store "$T/v2" "$src2" >/dev/null 2>&1 || bad "ehelf-batch on the version-2 store"
if outputs "$T/v2/ehelf.sqlite" "$T/v2out" && python3 "$here/check_outputs.py" \
	"$T/v2out/out.json" "$T/v2out/out.txt" "$T/v2out/csv" "$T/v2out/out.html" \
	--expect-rows; then
	n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
t={t["id"]: t for t in d["tables"]}["summary"]
print(dict((r[0], r[1]) for r in t["rows"])["eh_elfs_without_statistics"])' "$T/v2out/out.json")
	[ "$n" = 0 ] && ok "after ehelf-batch on its store: read, every eh_elf with statistics" ||
		bad "after the migration: $n eh_elfs without statistics"
else
	bad "the migrated database"
fi

echo "ehelf-stats: outputs it cannot write"
# cannot DESCRIPTION ARGS...: exit 1 with a message naming the path
cannot() {
	c_what=$1; shift
	set +e
	"$stats" --db "$db" "$@" >/dev/null 2>"$T/w.err"
	c_rc=$?
	set -e
	[ $c_rc = 1 ] && grep -q "$T/nodir" "$T/w.err" && ok "$c_what: exit 1" ||
		bad "$c_what: exit $c_rc, $(cat "$T/w.err")"
}
cannot "--csv in a missing directory" --csv "$T/nodir/csv"
cannot "--html in a missing directory" --html "$T/nodir/out.html"
if "$stats" --db "$db" --json >/dev/full 2>"$T/w.err"; then
	bad "writing to /dev/full: exit 0"
else
	ok "writing to /dev/full: exit 1 ($(cut -c1-60 "$T/w.err"))"
fi
: >"$T/afile"
set +e
"$stats" --db "$db" --csv "$T/afile" >/dev/null 2>"$T/w.err"
c_rc=$?
set -e
[ $c_rc = 1 ] && grep -q "not a directory" "$T/w.err" && [ ! -s "$T/afile" ] &&
	ok "--csv naming a regular file: exit 1, saying it is not a directory" ||
	bad "--csv naming a regular file: exit $c_rc, $(cat "$T/w.err")"

echo "ehelf-stats: dates and sizes as a reader sees them"
set +e
SOURCE_DATE_EPOCH=99999999999999999999 "$stats" --db "$db" --json >"$T/sde.json" 2>"$T/sde.err"
c_rc=$?
set -e
[ $c_rc = 0 ] && [ -s "$T/sde.json" ] &&
	ok "SOURCE_DATE_EPOCH out of range: the present date instead (exit 0)" ||
	bad "SOURCE_DATE_EPOCH out of range: exit $c_rc, $(cat "$T/sde.err")"
# every ELF 1,046,064 bytes (1021.5 KiB): a package of one file shows it
mkdir -p "$T/sized"
sqlite3 "$db" ".backup '$T/sized/ehelf.sqlite'"
sqlite3 "$T/sized/ehelf.sqlite" "UPDATE files SET size = 1046064"
"$stats" --db "$T/sized/ehelf.sqlite" --html "$T/sizes.html"
grep -q 'data-value="1046064"' "$T/sizes.html" ||
	bad "the page has no cell of 1,046,064 bytes: the next check would prove nothing"
if grep -Eq '>[0-9.]+e[+-][0-9]+ [KMGT]?i?B<' "$T/sizes.html"; then
	bad "the page shows a size in scientific notation: $(grep -Eo '>[0-9.]+e[+-][0-9]+ [KMGT]?i?B<' "$T/sizes.html" | head -n 1)"
else
	ok "no size in scientific notation on the page"
fi

echo "ehelf-stats: usage"
# usage_bad ARGS...: exit 2, a message on stderr, nothing on stdout
usage_bad() {
	set +e
	"$stats" "$@" >"$T/u.out" 2>"$T/u.err"
	u_rc=$?
	set -e
	[ $u_rc = 2 ] && [ -s "$T/u.err" ] && [ ! -s "$T/u.out" ] &&
		ok "$* : exit 2" || bad "$* : exit $u_rc"
}
usage_bad --bogus
usage_bad --top 0 --db "$db"
usage_bad --top abc --db "$db"
usage_bad --top 5x --db "$db"
usage_bad --db
usage_bad --csv
usage_bad --db "$db" extra-argument
usage_bad --db "$db" --json --text
usage_bad --db "$db" --json --html -
if "$stats" --help >"$T/h.out" 2>"$T/h.err" && grep -q '^Usage: ehelf-stats' "$T/h.out" &&
	grep -q -- '--top N' "$T/h.out" && [ ! -s "$T/h.err" ]; then
	ok "--help: usage on stdout, exit 0"
else
	bad "--help"
fi
"$stats" --db "$db" --html - >"$T/stdout.html" &&
	grep -q '</html>' "$T/stdout.html" && ok "--html -: the page on stdout" ||
	bad "--html -"

if [ $fails -gt 0 ]; then
	echo "run-stats-tests: $fails failures" >&2
	exit 1
fi
echo "run-stats-tests: all passed"
