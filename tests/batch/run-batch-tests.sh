#!/bin/sh
# Integration tests of ehelf-batch on real packages: .deb (and .ddeb), .rpm
# (made from a Debian package by alien), .pkg.tar.xz/.zst (the files of
# Debian packages with a .PKGINFO), a plain directory tree, corrupt inputs;
# then incremental reruns, sharding with merge, and kill -9 mid-run.
# Usage: tests/batch/run-batch-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-batch-tests.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
batch=$build/bin/ehelf-batch
check=$build/tests/store-check
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
ok() { echo "  ok: $*"; }
bad() { echo "  FAIL: $*" >&2; fails=$((fails + 1)); }
json() { # json FILE KEY: a number from a summary object
	sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p" "$1"
}
q() { sqlite3 "$1/ehelf.sqlite" "$2"; }
# files rows as (format, package, version, arch, path, build-ID, outcome)
dump() {
	q "$1" "SELECT p.format, p.name, p.version, p.architecture, f.path,
	        coalesce(f.build_id, ''), CASE WHEN f.status IN ('built', 'present')
	        THEN 'ok' ELSE f.status END FROM files f JOIN packages p
	        ON p.id = f.package_id ORDER BY 1, 2, 3, 4, 5"
}

echo "== ehelf-batch: inputs"
debs=$("$here/../diff/fetch-packages.sh" --debs "$here/../diff/packages.txt")
deb() { echo "$debs" | grep "/$1_" | head -n 1; }
mkdir -p "$T/repo/debian" "$T/repo/other" "$T/work"
for p in zlib1g libgcc-s1 rt-tests libxml2 libsqlite3-0 coreutils libc6 libc6-dbg; do
	cp "$(deb "$p")" "$T/repo/debian/"
done
cp "$(deb zlib1g)" "$T/repo/other/zlib1g-dbgsym_1.2.13_amd64.ddeb"
(cd "$T/work" && alien --to-rpm --keep-version "$(deb xz-utils)" >/dev/null 2>&1) ||
	{ echo "alien could not make an rpm" >&2; exit 1; }
mv "$T"/work/*.rpm "$T/repo/other/"
for spec in "bash:zst" "libcurl4:xz"; do
	p=${spec%%:*}
	comp=${spec##*:}
	r=$T/work/$p
	mkdir -p "$r"
	dpkg-deb -x "$(deb "$p")" "$r"
	v=$(dpkg-deb -f "$(deb "$p")" Version)
	printf 'pkgname = %s\npkgver = %s\narch = x86_64\n' "$p" "$v" >"$r/.PKGINFO"
	(cd "$r" && tar --"$( [ "$comp" = zst ] && echo zstd || echo xz )" \
		-cf "$T/repo/other/$p-$v-x86_64.pkg.tar.$comp" .PKGINFO $(ls))
done
mkdir -p "$T/tree"
dpkg-deb -x "$(deb curl)" "$T/tree"
npkgs=$(find "$T/repo" -type f | wc -l)
echo "  $npkgs package files, and one directory tree"

echo "== first run"
"$batch" --store "$T/s1" -j 2 --json "$T/repo" "$T/tree" >"$T/j1"
[ "$(json "$T/j1" packages)" = $((npkgs + 1)) ] && ok "every package read" ||
	bad "packages: $(cat "$T/j1")"
[ "$(json "$T/j1" failed)" = 0 ] && ok "no ELF failed" || bad "failed: $(cat "$T/j1")"
[ "$(json "$T/j1" built)" -gt 100 ] && ok "$(json "$T/j1" built) eh_elfs built" ||
	bad "built: $(cat "$T/j1")"
"$check" --complete "$T/s1" && ok "store and database consistent" || bad "store-check"
# ELFs per package, against dpkg-deb's own unpacking
for d in "$T"/repo/debian/*.deb; do
	rm -rf "$T/x" && mkdir "$T/x" && dpkg-deb -x "$d" "$T/x"
	want=$(find "$T/x" -type f -exec sh -c 'head -c 4 "$1" | grep -q "^.ELF" && echo' _ {} \; | wc -l)
	got=$(q "$T/s1" "SELECT count(*) FROM files f JOIN packages p ON p.id = f.package_id
	                 WHERE p.source = '$d'")
	[ "$want" = "$got" ] || bad "$(basename "$d"): $got ELF files recorded, dpkg-deb has $want"
	meta=$(dpkg-deb -f "$d" Package Version Architecture | sed 's/^[^:]*: //' | paste -sd'|')
	got=$(q "$T/s1" "SELECT name || '|' || version || '|' || architecture FROM packages
	                 WHERE source = '$d'")
	[ "$meta" = "$got" ] || bad "$(basename "$d"): metadata '$got', dpkg-deb says '$meta'"
done
ok "ELF counts and metadata of every .deb match dpkg-deb"
rpm=$(ls "$T"/repo/other/*.rpm)
want=$(rpm -qp --qf '%{NAME}|%{VERSION}-%{RELEASE}|%{ARCH}' "$rpm" 2>/dev/null)
got=$(q "$T/s1" "SELECT name || '|' || version || '|' || architecture FROM packages
                 WHERE format = 'rpm'")
[ "$want" = "$got" ] && ok "rpm metadata matches rpm -qp ($got)" || bad "rpm: '$got' vs '$want'"
n=$(q "$T/s1" "SELECT count(*) FROM files f JOIN packages p ON p.id = f.package_id
               WHERE p.format = 'rpm' AND f.status IN ('built', 'present')")
[ "$n" -ge 2 ] && ok "rpm: $n ELF files" || bad "rpm: $n ELF files"
for fmt in arch dir; do
	n=$(q "$T/s1" "SELECT count(*) FROM files f JOIN packages p ON p.id = f.package_id
	               WHERE p.format = '$fmt' AND f.status IN ('built', 'present')")
	[ "$n" -ge 1 ] && ok "$fmt: $n ELF files" || bad "$fmt: no ELF files"
done
n=$(q "$T/s1" "SELECT count(*) FROM files WHERE path LIKE '/usr/lib/debug/%'
               AND status = 'no-cfi'")
[ "$n" -gt 100 ] && ok "separate debug files recorded ($n without unwind tables)" ||
	bad "debug files: $n"
n=$(q "$T/s1" "SELECT count(*) FROM files f JOIN packages p ON p.id = f.package_id
               WHERE p.name = 'libc6' AND f.path LIKE '%/libc.so.6' AND f.status = 'built'")
[ "$n" = 1 ] && ok "libc.so.6 built although libc6-dbg shares its build-ID" || bad "libc.so.6"

echo "== incremental reruns"
"$batch" --store "$T/s1" --json "$T/repo" "$T/tree" >"$T/j2"
[ "$(json "$T/j2" built)" = 0 ] && [ "$(json "$T/j2" packages)" = 1 ] &&
	[ "$(json "$T/j2" packages_done_before)" = "$npkgs" ] &&
	ok "second run: nothing rebuilt, every package done before (the tree re-read)" ||
	bad "rerun: $(cat "$T/j2")"
cp "$(deb sqlite3)" "$T/repo/debian/"
"$batch" --store "$T/s1" --json "$T/repo" "$T/tree" >"$T/j3"
[ "$(json "$T/j3" packages)" = 2 ] && [ "$(json "$T/j3" built)" -ge 1 ] &&
	ok "a new package: only it (and the tree) is read" || bad "new package: $(cat "$T/j3")"
"$check" --complete "$T/s1" >/dev/null || bad "store-check after reruns"
dump "$T/s1" >"$T/d1"

echo "== sharding and merge"
for k in 1 2 3; do
	"$batch" --store "$T/shard$k" --shard "$k/3" --json "$T/repo" "$T/tree" >"$T/js$k"
done
total=$(( $(json "$T/js1" packages) + $(json "$T/js2" packages) + $(json "$T/js3" packages) ))
[ "$total" = $((npkgs + 2)) ] && ok "3 shards read $total packages, each once" ||
	bad "shards read $total packages"
"$batch" merge --store "$T/merged" --json "$T/shard1" "$T/shard2" "$T/shard3" >"$T/jm"
"$check" --complete "$T/merged" && ok "merged store consistent" || bad "merged store"
dump "$T/merged" >"$T/dm"
cmp -s "$T/d1" "$T/dm" && ok "merged database = one run's ($(wc -l <"$T/d1") files rows)" ||
	{ bad "merge differs"; diff "$T/d1" "$T/dm" | grep '^<' | head -3
	  diff "$T/d1" "$T/dm" | grep '^>' | head -3; }
"$batch" merge --store "$T/merged" "$T/shard2" 2>/dev/null
dump "$T/merged" | cmp -s - "$T/d1" && ok "merging a shard again duplicates nothing" ||
	bad "second merge changed the database"

echo "== kill -9 mid-run"
for delay in 0.2 0.5 1.0 1.6; do
	rm -rf "$T/k"
	"$batch" --store "$T/k" -j 1 "$T/repo" "$T/tree" 2>/dev/null &
	pid=$!
	sleep "$delay"
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	"$check" "$T/k" >/dev/null || bad "after kill -9 at ${delay}s: inconsistent"
	"$batch" --store "$T/k" "$T/repo" "$T/tree" >/dev/null 2>&1
	"$check" --complete "$T/k" >/dev/null || bad "after the rerun: inconsistent"
	dump "$T/k" >"$T/dk"
	cmp -s "$T/dk" "$T/d1" || { bad "killed at ${delay}s and rerun: rows differ"
		diff "$T/d1" "$T/dk" | head -4; }
done
ok "killed at 0.2, 0.5, 1.0 and 1.6 s, then rerun: same rows as one run, nothing dangling"

echo "== a source given twice"
z=$(find "$T/repo" -name 'zlib1g_*' | head -n 1)
ndist=$(find "$T/repo" -type f | wc -l)
"$batch" --store "$T/dup" --json -j 2 "$z" "$T/repo" "$z" >"$T/jd"
[ "$(( $(json "$T/jd" packages) + $(json "$T/jd" packages_done_before) ))" = "$ndist" ] &&
	ok "a package given three times (once in its directory) is one job" ||
	bad "duplicates: $(json "$T/jd" packages) read and $(json "$T/jd" packages_done_before) done before, $ndist distinct"

echo "== bad inputs"
mkdir -p "$T/bad/tree"
head -c 40000 "$(deb libxml2)" >"$T/bad/truncated_1.0_amd64.deb"
echo "not a package" >"$T/bad/garbage_1.0_amd64.deb"
cp "$(deb zlib1g)" "$T/bad/"
rm -rf "$T/x" && mkdir "$T/x" && dpkg-deb -x "$(deb libsqlite3-0)" "$T/x"
lib=$(find "$T/x" -name 'libsqlite3.so.*' -type f | head -n 1)
head -c 3000 "$lib" >"$T/bad/tree/truncated.so"
objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr "$lib" "$T/bad/tree/no-eh-frame.so"
status=0
"$batch" --store "$T/b" --json "$T/bad" >"$T/jb" 2>"$T/eb" || status=$?
[ "$status" = 1 ] && [ "$(json "$T/jb" packages_failed)" = 2 ] &&
	ok "two unreadable packages: reported, exit status 1" || bad "bad packages: $status $(cat "$T/jb")"
[ "$(json "$T/jb" built)" -ge 1 ] && ok "the run went on" || bad "the good package was not built"
n=$(q "$T/b" "SELECT count(*) FROM packages WHERE status = 'failed' AND error != ''")
[ "$n" = 2 ] && ok "their errors are recorded" || bad "package errors: $n"
e=$(q "$T/b" "SELECT status || ': ' || error FROM files WHERE path LIKE '%/truncated.so'")
case "$e" in failed:*|ignored:*) ok "truncated ELF: $e" ;; *) bad "truncated ELF: '$e'" ;; esac
e=$(q "$T/b" "SELECT status || ': ' || error FROM files WHERE path LIKE '%/no-eh-frame.so'")
case "$e" in no-cfi:*) ok "ELF without .eh_frame: $e" ;; *) bad "no .eh_frame: '$e'" ;; esac
"$check" --complete "$T/b" >/dev/null || bad "store-check after bad inputs"

echo "== ELF files given by themselves"
"$batch" --store "$T/f" --json "$lib" "$T/bad/tree/no-eh-frame.so" >"$T/jf" ||
	{ bad "ehelf-batch refused ELF files given by themselves"; exit 1; }
[ "$(json "$T/jf" built)" = 1 ] && [ "$(json "$T/jf" no_cfi)" = 1 ] &&
	[ "$(json "$T/jf" packages)" = 2 ] &&
	ok "two ELF files: two packages, one built, one without unwind tables" ||
	bad "ELF files: $(cat "$T/jf")"
real=$(realpath "$lib")
r=$(q "$T/f" "SELECT p.format || ' ' || p.name || ' ' || f.path || ' ' || f.status
	FROM files f JOIN packages p ON p.id = f.package_id WHERE f.status = 'built'")
[ "$r" = "file $(basename "$real") $real built" ] &&
	ok "recorded as a package of format file, under its absolute path" ||
	bad "ELF file rows: '$r'"
"$check" --complete "$T/f" >/dev/null && ok "store-check" || bad "store-check after ELF files"
"$batch" --store "$T/f" --json "$lib" >"$T/jf2"
[ "$(json "$T/jf2" built)" = 0 ] && [ "$(json "$T/jf2" skipped)" = 1 ] &&
	ok "given again: read again, nothing rebuilt" || bad "ELF file rerun: $(cat "$T/jf2")"
status=0
"$batch" --store "$T/f" "$T/jf2" 2>"$T/ef" || status=$?
[ "$status" = 2 ] && grep -q "not a package .*, an ELF file nor a directory" "$T/ef" &&
	ok "a file that is neither: exit status 2, $(cat "$T/ef")" ||
	bad "neither a package nor an ELF file: status $status, '$(cat "$T/ef")'"

[ "$fails" = 0 ] && echo "batch tests: PASS" || { echo "batch tests: $fails FAILED"; exit 1; }
