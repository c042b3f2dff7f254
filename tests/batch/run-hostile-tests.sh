#!/bin/sh
# ehelf-batch under unlucky and hostile conditions, on real packages and
# packages the test builds from them: a full disk (a small tmpfs store, the
# database on it or elsewhere), two runs on one store, SIGINT and kill -9
# mid-run, each followed by a rerun that must end with the store and
# database of a clean run; databases of other programs and damaged ones
# (refused, unchanged; an index not matching its table too); a read-only
# store; damaged .rpm payloads, an ELF over the size limit, member paths
# over 4,095 bytes, hard-linked ELF members, a directory of symbolic links
# to .debs, a file of a tree its reader cannot read; two packages sharing
# a build-ID with different unwind tables (a conflict; ehelf-server does
# not build it on demand); the directory flushed after each rename.  Exit status: non-zero whenever something was not built.
# Usage: tests/batch/run-hostile-tests.sh BUILD   (as root: tmpfs mounts)
set -eu
build=$(cd "${1:?usage: run-hostile-tests.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
batch=$build/bin/ehelf-batch
check=$build/tests/store-check
T=$(mktemp -d)
mounted=""
cleanup() {
	for m in $mounted; do umount "$m" 2>/dev/null || true; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
fails=0
ok() { echo "  ok: $*"; }
bad() { echo "  FAIL: $*" >&2; fails=$((fails + 1)); }
. "$here/common.sh"
. "$here/../common/free-port.sh"
[ "$(id -u)" = 0 ] || { echo "run-hostile-tests: needs root (tmpfs mounts, a run as nobody)" >&2; exit 1; }
# same STORE [DB]: STORE's eh_elfs, their sums and files rows are those of
# the clean run, every package is done, and store-check --complete passes
same() {
	db=${2:-$1/ehelf.sqlite}
	dump "$1" "$db" | cmp -s - "$T/ref.dump" && store_sums "$1" | cmp -s - "$T/ref.sums" &&
		[ "$(sqlite3 "$db" "SELECT count(*) FROM packages WHERE status != 'done'")" = 0 ] &&
		db_sums "$1" "$db" | cmp -s - "$T/ref.sums" && "$check" --complete "$1" "$db" >/dev/null
}
run() { # run NAME ARGS...: ehelf-batch ARGS, its status in $status, output in $T/NAME.{j,e}
	n=$1
	shift
	status=0
	"$batch" --json "$@" >"$T/$n.j" 2>"$T/$n.e" || status=$?
}

echo "== inputs"
debs=$("$here/../diff/fetch-packages.sh" --debs "$here/../diff/packages.txt")
deb() { echo "$debs" | grep "/$1_" | head -n 1; }
mkdir -p "$T/repo"
for p in zlib1g libgcc-s1 rt-tests libxml2 libsqlite3-0 coreutils libc6 xz-utils curl libcurl4; do
	cp "$(deb "$p")" "$T/repo/"
done
run ref --store "$T/ref" -j 2 "$T/repo"
[ "$status" = 0 ] && [ "$(json "$T/ref.j" built)" -gt 100 ] &&
	ok "clean run: $(json "$T/ref.j" built) eh_elfs, status 0" || bad "clean run: $status $(cat "$T/ref.j" "$T/ref.e")"
dump "$T/ref" >"$T/ref.dump"
store_sums "$T/ref" >"$T/ref.sums"

echo "== a full disk"
mkdir "$T/full" "$T/fulldb"
mount -t tmpfs -o size=3m tmpfs "$T/full" && mounted="$T/full $mounted"
run full --store "$T/full/s" -j 2 "$T/repo"
[ "$status" = 1 ] && grep -q "No space left on device\|database or disk is full" "$T/full.e" &&
	ok "store and database on an 3 MB tmpfs: status 1, $(head -c 200 "$T/full.e")" ||
	bad "full disk: status $status, $(cat "$T/full.e")"
n=$(q "$T/full/s" "SELECT count(*) FROM files WHERE status = 'failed'" 2>/dev/null || echo 0)
[ "$n" = 0 ] && ok "no ELF recorded failed for the store's fault" || bad "$n files rows failed on a full disk"
mount -o remount,size=64m "$T/full"
run full2 --store "$T/full/s" -j 2 "$T/repo"
[ "$status" = 0 ] && same "$T/full/s" &&
	ok "space freed, run again: status 0, the store and database of the clean run" ||
	{ bad "rerun after a full disk: status $status $(cat "$T/full2.e")"; dump "$T/full/s" | diff "$T/ref.dump" - | head -5; }
umount "$T/full"
mount -t tmpfs -o size=1m tmpfs "$T/full" && mounted="$T/full $mounted"
run full3 --store "$T/full/s" --db "$T/fulldb/db.sqlite" -j 2 "$T/repo"
[ "$status" = 1 ] && grep -q "No space left on device" "$T/full3.e" &&
	ok "a 1 MB store, the database elsewhere: status 1" || bad "full store, db elsewhere: $status $(cat "$T/full3.e")"
mount -o remount,size=64m "$T/full"
run full4 --store "$T/full/s" --db "$T/fulldb/db.sqlite" -j 2 "$T/repo"
[ "$status" = 0 ] && same "$T/full/s" "$T/fulldb/db.sqlite" &&
	ok "space freed, run again: the store and database of the clean run" ||
	{ bad "rerun, db elsewhere: $status $(cat "$T/full4.e")"; dump "$T/full/s" "$T/fulldb/db.sqlite" | diff "$T/ref.dump" - | head -5; }
umount "$T/full"
mounted=""

echo "== two runs on one store"
mkdir -p "$T/two/.tmp"
: >"$T/two/.tmp/.tmp-fresh"
: >"$T/two/.tmp/.tmp-stale" && touch -d '2 hours ago' "$T/two/.tmp/.tmp-stale"
"$batch" --store "$T/two" -j 1 "$T/repo" >/dev/null 2>&1 &
first=$!
i=0
while [ "$(cat "$T/two/.tmp/ehelf-batch.lock" 2>/dev/null)" != "$first" ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
run second --store "$T/two" -j 1 "$T/repo"
wait "$first" && fst=0 || fst=$?
[ "$status" = 1 ] && grep -q "another ehelf-batch (process $first) is writing this store" "$T/second.e" &&
	ok "a second run while the first runs: refused, $(cat "$T/second.e")" ||
	bad "second run: status $status, $(cat "$T/second.e")"
[ "$fst" = 0 ] && same "$T/two" && ok "the first run: the store and database of the clean run" ||
	bad "the first of two runs: status $fst"
[ -e "$T/two/.tmp/.tmp-fresh" ] && [ ! -e "$T/two/.tmp/.tmp-stale" ] &&
	ok "temporaries: a fresh one (another writer's) kept, one over an hour old removed" ||
	bad "temporaries: $(ls -a "$T/two/.tmp")"

echo "== SIGINT and kill -9, then a rerun"
f0=$fails
for sig in INT KILL; do
	for delay in 0.3 0.8; do
		rm -rf "$T/k"
		env --default-signal=INT "$batch" --store "$T/k" -j 1 "$T/repo" >/dev/null 2>&1 &
		pid=$!
		sleep "$delay"
		kill -s "$sig" "$pid" 2>/dev/null || true
		st=0
		wait "$pid" 2>/dev/null || st=$?
		[ "$st" != 0 ] || bad "SIG$sig at ${delay}s: the run had ended already"
		run rerun --store "$T/k" -j 2 "$T/repo"
		[ "$status" = 0 ] && same "$T/k" || bad "SIG$sig at ${delay}s, rerun: status $status, other rows"
	done
done
[ "$fails" = "$f0" ] && ok "SIGINT and kill -9 at 0.3 and 0.8 s, rerun: the store and database of the clean run"

echo "== databases of other programs"
z=$(deb zlib1g)
sqlite3 "$T/foreign.sqlite" "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);
	INSERT INTO notes (text) VALUES ('mine')"
sum=$(sha256sum <"$T/foreign.sqlite")
run foreign --store "$T/fs" --db "$T/foreign.sqlite" "$z"
[ "$status" = 1 ] && grep -q "not an ehelf-batch database (it has the table 'notes'" "$T/foreign.e" &&
	[ "$(sha256sum <"$T/foreign.sqlite")" = "$sum" ] && [ ! -e "$T/foreign.sqlite-wal" ] &&
	ok "a database with a table of its own: refused, not changed: $(cat "$T/foreign.e")" ||
	bad "foreign database: status $status, $(cat "$T/foreign.e")"
# ehelf-server writes the database for on-demand builds: the same refusal
st=0
timeout 20 "$build/bin/ehelf-server" --store "$T/fs" --db "$T/foreign.sqlite" --upstream http://127.0.0.1:9 \
	--listen 127.0.0.1 --port 0 >/dev/null 2>"$T/foreign-server.e" || st=$?
[ "$st" = 1 ] && grep -q "not an ehelf-batch database (it has the table 'notes'" "$T/foreign-server.e" &&
	[ "$(sha256sum <"$T/foreign.sqlite")" = "$sum" ] &&
	ok "ehelf-server building on demand into it: refused, not changed: $(cat "$T/foreign-server.e")" ||
	bad "ehelf-server on a foreign database: status $st, $(cat "$T/foreign-server.e")"
sqlite3 "$T/uv.sqlite" "PRAGMA user_version = 1"
run uv --store "$T/fs" --db "$T/uv.sqlite" "$z"
[ "$status" = 1 ] && grep -q "user_version 1, no tables" "$T/uv.e" &&
	[ "$(sqlite3 "$T/uv.sqlite" "SELECT count(*) FROM sqlite_master")" = 0 ] &&
	ok "an empty database with a user_version: refused" || bad "user_version 1: $status $(cat "$T/uv.e")"
: >"$T/empty.sqlite"
run empty --store "$T/fs" --db "$T/empty.sqlite" "$z"
[ "$status" = 0 ] && [ "$(sqlite3 "$T/empty.sqlite" "SELECT count(*) FROM eh_elfs")" = 1 ] &&
	ok "an empty file: used" || bad "empty database file: $status $(cat "$T/empty.e")"
# a database of ehelf's whose table pages are damaged
cp "$T/ref/ehelf.sqlite" "$T/damaged.sqlite"
sqlite3 "$T/damaged.sqlite" "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE" >/dev/null
root=$(sqlite3 "$T/damaged.sqlite" "SELECT rootpage FROM sqlite_master WHERE name = 'files'")
psize=$(sqlite3 "$T/damaged.sqlite" "PRAGMA page_size")
printf '\377\377\377\377\377\377\377\377' | dd of="$T/damaged.sqlite" bs=1 seek=$(( (root - 1) * psize + 8 )) conv=notrunc 2>/dev/null
sum=$(sha256sum <"$T/damaged.sqlite")
run damaged --store "$T/fs" --db "$T/damaged.sqlite" "$z"
[ "$status" = 1 ] && grep -q "a damaged database (PRAGMA integrity_check" "$T/damaged.e" &&
	[ "$(sha256sum <"$T/damaged.sqlite")" = "$sum" ] &&
	ok "a damaged database: refused, not changed: $(head -c 160 "$T/damaged.e")" ||
	bad "damaged database: status $status, $(cat "$T/damaged.e")"
# one whose index files_build_id no longer holds its table's entries (the
# index's definition changed under it): quick_check passes, integrity_check
# does not
cp "$T/ref/ehelf.sqlite" "$T/badindex.sqlite"
sqlite3 "$T/badindex.sqlite" "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE" >/dev/null
sqlite3 "$T/badindex.sqlite" "PRAGMA writable_schema = ON; UPDATE sqlite_master
	SET sql = 'CREATE INDEX files_build_id ON files(path)' WHERE name = 'files_build_id'"
[ "$(sqlite3 "$T/badindex.sqlite" "PRAGMA quick_check")" = ok ] &&
	[ "$(sqlite3 "$T/badindex.sqlite" "PRAGMA integrity_check(1)")" != ok ] ||
	bad "the test's damaged index: quick_check or integrity_check say otherwise"
sum=$(sha256sum <"$T/badindex.sqlite")
run badindex --store "$T/fs" --db "$T/badindex.sqlite" "$z"
[ "$status" = 1 ] && grep -q "a damaged database (PRAGMA integrity_check: .*missing from index" "$T/badindex.e" &&
	[ "$(sha256sum <"$T/badindex.sqlite")" = "$sum" ] &&
	ok "an index not matching its table (quick_check passes): refused, not changed" ||
	bad "damaged index: status $status, $(cat "$T/badindex.e")"

echo "== a read-only store"
cp -a "$T/ref" "$T/ro" && chmod 711 "$T"
status=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$batch" --store "$T/ro" "$T/repo/${z##*/}" \
	>/dev/null 2>"$T/ro.e" || status=$?
[ "$status" = 1 ] && grep -q "the store cannot be written (Permission denied): ehelf-batch needs a store it can write" "$T/ro.e" &&
	ok "a store this user cannot write: $(cat "$T/ro.e")" || bad "read-only store: $status $(cat "$T/ro.e")"
cp "$T/ref/ehelf.sqlite" "$T/rodb.sqlite" && chmod 644 "$T/rodb.sqlite" && mkdir -p "$T/rostore" && chmod 777 "$T/rostore"
status=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$batch" --store "$T/rostore" --db "$T/rodb.sqlite" \
	"$T/repo/${z##*/}" >/dev/null 2>"$T/rodb.e" || status=$?
[ "$status" = 1 ] && grep -q "rodb.sqlite: the database cannot be written" "$T/rodb.e" &&
	ok "a database this user cannot write: $(cat "$T/rodb.e")" || bad "read-only database: $status $(cat "$T/rodb.e")"

echo "== damaged .rpm payloads"
(cd "$T" && alien --to-rpm --keep-version "$(deb xz-utils)" >/dev/null 2>&1)
rpm=$(ls "$T"/*.rpm)
f0=$fails
for mode in magic namesize0 namehuge; do
	mkdir -p "$T/rpm-$mode"
	lost=$(python3 "$here/rpm_damage.py" "$rpm" "$T/rpm-$mode/xz-utils-$mode.x86_64.rpm" "$mode")
	run "rpm-$mode" --store "$T/srpm-$mode" "$T/rpm-$mode"
	pst=$(q "$T/srpm-$mode" "SELECT status || ': ' || error FROM packages")
	case "$status:$pst" in
	1:failed:*damaged*) ok "$mode: status 1, package $pst" ;;
	*) bad "$mode ($lost damaged): status $status, package '$pst'" ;;
	esac
	grep -q "(null)" "$T/rpm-$mode.e" && bad "$mode: a message with (null): $(cat "$T/rpm-$mode.e")"
	run "rpm-$mode-2" --store "$T/srpm-$mode" "$T/rpm-$mode"
	[ "$status" = 1 ] && [ "$(json "$T/rpm-$mode-2.j" packages_done_before)" = 0 ] ||
		bad "$mode: the rerun took the damaged package for done"
done
[ "$fails" = "$f0" ] && ok "damaged payloads: never done, read again by the next run"

echo "== members: too large, long paths, hard links; a directory of links"
rm -rf "$T/x" && mkdir -p "$T/x" && dpkg-deb -x "$z" "$T/x"
libz=$(find "$T/x" -name 'libz.so.1.*' -type f | head -n 1)
mk_arch() { # mk_arch DIR NAME: DIR as NAME-1-1-x86_64.pkg.tar.xz, sparse files kept sparse
	printf 'pkgname = %s\npkgver = 1-1\narch = x86_64\n' "$2" >"$1/.PKGINFO"
	(cd "$1" && tar --sparse -cJf "$T/hostile/$2-1-1-x86_64.pkg.tar.xz" .PKGINFO usr)
}
mkdir -p "$T/hostile" "$T/big/usr/lib"
cp "$libz" "$T/big/usr/lib/big.so"
truncate -s 1100M "$T/big/usr/lib/big.so"
cp "$libz" "$T/big/usr/lib/small.so"
mk_arch "$T/big" big
python3 - "$libz" "$T/hostile/long-1-1-x86_64.pkg.tar.xz" <<'PY'
import io, sys, tarfile
lib = open(sys.argv[1], 'rb').read()
with tarfile.open(sys.argv[2], 'w:xz', format=tarfile.PAX_FORMAT) as t:
    def add(name, data):
        i = tarfile.TarInfo(name)
        i.size = len(data)
        t.addfile(i, io.BytesIO(data))
    add('.PKGINFO', b'pkgname = long\npkgver = 1-1\narch = x86_64\n')
    d = 'usr/lib/' + '/'.join(['d' * 200] * 25)
    add(d + '/a.so', lib)
    add(d + '/b.so', lib)
PY
rm -rf "$T/hard" && mkdir -p "$T/hard" && dpkg-deb -R "$z" "$T/hard"
hl=$(find "$T/hard" -name 'libz.so.1.*' -type f | head -n 1)
ln "$hl" "${hl%/*}/libz-hard.so.1"
sed -i 's/^Package: .*/Package: zlib-hard/' "$T/hard/DEBIAN/control"
dpkg-deb --root-owner-group -b "$T/hard" "$T/hostile/zlib-hard_1_amd64.deb" >/dev/null
link=$(dpkg-deb --fsys-tarfile "$T/hostile/zlib-hard_1_amd64.deb" | tar tv | sed -n 's|.* \./\(.*\) link to .*|/\1|p')
[ -n "$link" ] || bad "the test's .deb has no hard link"
run hostile --store "$T/sh" "$T/hostile"
r=$(q "$T/sh" "SELECT status || ': ' || error FROM files WHERE path = '/usr/lib/big.so'")
case "$r" in "failed: an ELF file of 1153433600 bytes, over the limit of 1073741824: not read")
	ok "an ELF of 1.1 GB: recorded, $r" ;; *) bad "ELF over the limit: '$r'" ;; esac
r=$(q "$T/sh" "SELECT status FROM packages WHERE name = 'big'")
[ "$r" = failed ] && [ "$status" = 1 ] && ok "its package: not done, status 1" || bad "big package: '$r', status $status"
r=$(q "$T/sh" "SELECT count(DISTINCT path) || ' ' || min(length(path)) FROM files f JOIN packages p
              ON p.id = f.package_id WHERE p.name = 'long' AND f.status IN ('built', 'present')")
[ "$r" = "2 5038" ] && ok "two members with paths of 5,038 bytes: two rows, whole" || bad "long paths: '$r'"
want=$(find "$T/hard" -path "$T/hard/DEBIAN" -prune -o -type f -exec sh -c 'head -c 4 "$1" | grep -q "^.ELF" && echo "$1"' _ {} \; | wc -l)
got=$(q "$T/sh" "SELECT count(*) FROM files f JOIN packages p ON p.id = f.package_id
                WHERE p.name = 'zlib-hard' AND f.status IN ('built', 'present')")
h=$(q "$T/sh" "SELECT f.status FROM files f JOIN packages p ON p.id = f.package_id
              WHERE p.name = 'zlib-hard' AND f.path = '$link'")
[ "$got" = "$want" ] && [ "$h" = present ] &&
	ok "a hard-linked ELF member ($link, an entry of 0 bytes): recorded ($got ELF files, as dpkg-deb unpacks them)" ||
	bad "hard link: $got rows, dpkg-deb has $want; the link: '$h'"
mkdir "$T/links"
for p in zlib1g libgcc-s1 rt-tests; do ln -s "$T/repo/$(basename "$(deb "$p")")" "$T/links/"; done
run links --store "$T/sl" "$T/links"
[ "$status" = 0 ] && [ "$(json "$T/links.j" packages)" = 3 ] && [ "$(json "$T/links.j" built)" -ge 3 ] &&
	ok "a directory of 3 links to .debs: 3 packages read" || bad "links: $status $(cat "$T/links.j" "$T/links.e")"
ln -s "$T/nowhere_1_amd64.deb" "$T/links/"
run links2 --store "$T/sl" "$T/links"
[ "$status" = 1 ] && [ "$(json "$T/links2.j" packages_failed)" = 1 ] && grep -q nowhere_1_amd64.deb "$T/links2.e" &&
	ok "a link that leads nowhere: reported, status 1: $(cat "$T/links2.e")" ||
	bad "dangling link: $status $(cat "$T/links2.e")"

# a package with an ELF that cannot be compiled (truncated): status 3,
# and 3 again when a later run finds the package done
rm -rf "$T/tr" && mkdir -p "$T/trdeb" && dpkg-deb -R "$z" "$T/tr" && mkdir -p "$T/tr/usr/lib"
python3 "$here/../server/trunc-elf.py" "$libz" "$T/tr/usr/lib/libz-trunc.so"
sed -i 's/^Package: .*/Package: zlib-trunc/' "$T/tr/DEBIAN/control"
dpkg-deb --root-owner-group -b "$T/tr" "$T/trdeb/zlib-trunc_1_amd64.deb" >/dev/null
run tr1 --store "$T/str" "$T/trdeb"
s1=$status
run tr2 --store "$T/str" "$T/trdeb"
[ "$s1" = 3 ] && [ "$(json "$T/tr1.j" failed)" = 1 ] && [ "$status" = 3 ] &&
	[ "$(json "$T/tr2.j" packages_done_before)" = 1 ] && [ "$(json "$T/tr2.j" failed_before)" = 1 ] &&
	ok "an ELF that cannot be compiled: status 3, and 3 again when its package is done before" ||
	bad "failed ELF: status $s1 then $status, $(cat "$T/tr2.j" "$T/tr2.e")"
# a directory tree holding an ELF file its reader cannot read (as nobody)
mkdir -p "$T/tree/lib" "$T/stree" && chmod 777 "$T/stree"
cp "$libz" "$T/tree/lib/libz-ok.so"
cp "$libz" "$T/tree/lib/libz-secret.so" && chmod 600 "$T/tree/lib/libz-secret.so"
status=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$batch" --store "$T/stree" "$T/tree" \
	>/dev/null 2>"$T/tree.e" || status=$?
r=$(q "$T/stree" "SELECT group_concat(x, '; ') FROM (SELECT f.path || ' ' || f.status || ': ' ||
              coalesce(f.error, '') || ' / ' || p.status AS x FROM files f JOIN packages p
              ON p.id = f.package_id ORDER BY f.path)")
[ "$status" = 1 ] && [ "$r" = "/lib/libz-ok.so built:  / failed; /lib/libz-secret.so failed: cannot be read (Permission denied) / failed" ] &&
	grep -q "libz-secret.so" "$T/tree.e" &&
	ok "an unreadable file in a directory tree: recorded failed with the reason, the tree not done, status 1" ||
	bad "unreadable file in a tree: status $status, '$r', $(cat "$T/tree.e")"
status=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$batch" --store "$T/stree" "$T/tree/lib/libz-secret.so" \
	>/dev/null 2>"$T/tree1.e" || status=$?
[ "$status" = 1 ] && grep -q "libz-secret.so: cannot be read: Permission denied" "$T/tree1.e" &&
	ok "an unreadable file named on the command line: $(cat "$T/tree1.e")" ||
	bad "unreadable file argument: status $status, $(cat "$T/tree1.e")"

echo "== a build-ID shared by files with different unwind tables"
rm -rf "$T/evil" && mkdir -p "$T/evil" "$T/conf" && dpkg-deb -R "$z" "$T/evil"
el=$(find "$T/evil" -name 'libz.so.1.*' -type f | head -n 1)
python3 - "$el" <<'PY'
# the first FDE's DW_CFA_def_cfa_offset 16 becomes 24 (build-ID kept)
import struct, subprocess, sys
path = sys.argv[1]
out = subprocess.run(['readelf', '-SW', path], capture_output=True, text=True).stdout
line = [l for l in out.splitlines() if ' .eh_frame ' in l][0].split(']')[1].split()
off, size = int(line[3], 16), int(line[4], 16)
data = bytearray(open(path, 'rb').read())
p = off
while p < off + size:
    length, cie = struct.unpack_from('<II', data, p)
    if length == 0:
        break
    if cie != 0:
        body = data[p + 8 + 9:p + 4 + length]
        i = body.find(b'\x0e\x10')
        if i >= 0:
            data[p + 17 + i + 1] = 0x18
            open(path, 'wb').write(data)
            sys.exit(0)
    p += 4 + length
sys.exit('no DW_CFA_def_cfa_offset 16 found')
PY
[ "$(readelf -n "$el" | grep 'Build ID')" = "$(readelf -n "$libz" | grep 'Build ID')" ] ||
	bad "the changed copy lost its build-ID"
sed -i 's/^Package: .*/Package: a-evil/' "$T/evil/DEBIAN/control"
dpkg-deb --root-owner-group -b "$T/evil" "$T/conf/a-evil_1_amd64.deb" >/dev/null
cp "$z" "$T/conf/"
bid=$(readelf -n "$libz" | sed -n 's/.*Build ID: //p')
so="$T/sc/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).so"
run conf --store "$T/sc" "$T/conf"
r=$(q "$T/sc" "SELECT group_concat(x, ' ') FROM (SELECT p.name || ':' || c.path AS x
              FROM conflicts c JOIN packages p ON p.id = c.package_id
              WHERE c.build_id = '$bid' ORDER BY 1)")
[ "$status" = 1 ] && [ "$r" = "a-evil:${libz#$T/x} zlib1g:${libz#$T/x}" ] &&
	ok "the changed copy read first: a conflict of both files, both packages ($r)" ||
	bad "conflict: status $status, '$r', $(cat "$T/conf.e")"
[ "$(q "$T/sc" "SELECT count(*) FROM eh_elfs WHERE build_id = '$bid'")" = 0 ] && [ ! -e "$so" ] &&
	[ "$(q "$T/sc" "SELECT group_concat(DISTINCT status) FROM files WHERE build_id = '$bid'")" = conflict ] &&
	ok "no eh_elf of that build-ID in the store or the database (not shipped, not served); its files: conflict" ||
	bad "the conflicted build-ID still has an eh_elf"
st=0
"$batch" --store "$T/sc" "$T/conf" 2>"$T/conf.txt" || st=$?
grep -q "^ehelf-batch: $bid: .*: build-ID conflict: " "$T/conf.e" && [ "$(json "$T/conf.j" conflict_build_ids)" = 1 ] &&
	[ "$st" = 1 ] && grep -q "1 build-IDs in conflict (2 files" "$T/conf.txt" &&
	ok "reported when found, and in the summary: $(grep 'in conflict' "$T/conf.txt" | head -c 100)..." ||
	bad "summary: $(cat "$T/conf.e" "$T/conf.txt")"
"$check" --complete "$T/sc" >/dev/null || bad "store-check after a conflict"
"$build/bin/ehelf-stats" --db "$T/sc/ehelf.sqlite" --json >"$T/stats.json"
r=$(python3 -c 'import json, sys
t = [t for t in json.load(open(sys.argv[1]))["tables"] if t["id"] == "conflicts"][0]
print(" ".join(sorted(r[0] + ":" + r[1] for r in t["rows"])))' "$T/stats.json")
[ "$r" = "$bid:a-evil $bid:zlib1g" ] && ok "ehelf-stats: table conflicts, both files" ||
	bad "ehelf-stats conflicts table: '$r'"
run conf2 --store "$T/sc" "$T/conf"
[ "$status" = 1 ] && [ ! -e "$so" ] && [ "$(json "$T/conf2.j" built)" = 0 ] &&
	ok "run again: still in conflict, nothing built, status 1" || bad "rerun of a conflict: $status $(cat "$T/conf2.j")"
# ehelf-pkg over that store: no -ehelf package carries the build-ID
carried() { # carried REPO: how many of ehelf-pkg's packages in REPO hold $bid's eh_elf
	for d in $(find "$1/pool" -name '*.deb' 2>/dev/null); do
		dpkg-deb -c "$d" | grep "usr/lib/ehelf/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).so"
	done | wc -l
}
st=0
"$build/bin/ehelf-pkg" --store "$T/sc" --out "$T/screpo" >/dev/null 2>"$T/screpo.e" || st=$?
[ "$(carried "$T/screpo")" = 0 ] && ok "ehelf-pkg (status $st): no package carries it" ||
	bad "ehelf-pkg shipped the build-ID in conflict: $(cat "$T/screpo.e")"
# ehelf-server over that store, with an upstream (elfutils' debuginfod)
# holding the genuine file: the build-ID in conflict is not built on demand
mkdir -p "$T/up"
cp "$libz" "$T/up/"
dport=$(free_port)
debuginfod -p "$dport" -d "$T/up.sqlite" -F "$T/up" -t 0 -g 0 -c 1 >"$T/debuginfod.log" 2>&1 &
dpid=$!
i=0
until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$dport/buildid/$bid/executable")" = 200 ] ||
      [ $i -gt 300 ] || ! kill -0 "$dpid" 2>/dev/null; do
	sleep 0.2
	i=$((i + 1))
done
"$build/bin/ehelf-server" --store "$T/sc" --upstream "http://127.0.0.1:$dport" --listen 127.0.0.1 \
	--port 0 --port-file "$T/sport" 2>"$T/server.log" &
spid=$!
i=0
while [ ! -s "$T/sport" ] && [ $i -lt 100 ] && kill -0 "$spid" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
code=$(curl -s -o "$T/od.body" -w '%{http_code}' "http://127.0.0.1:$(cat "$T/sport" 2>/dev/null)/buildid/$bid/eh_elf" || true)
kill "$spid" "$dpid" 2>/dev/null || true
wait "$spid" "$dpid" 2>/dev/null || true
[ "$code" = 404 ] && grep -q "in conflict" "$T/od.body" && [ ! -e "$so" ] &&
	[ "$(q "$T/sc" "SELECT count(*) FROM eh_elfs WHERE build_id = '$bid'")" = 0 ] &&
	ok "ehelf-server with the genuine file upstream: not built on demand, 404 ($(cat "$T/od.body"))" ||
	bad "ehelf-server on demand: $code $(cat "$T/od.body" "$T/server.log" 2>/dev/null | head -c 300)"
# the genuine package first, the changed copy in a later run
run g1 --store "$T/sg" "$z"
[ -e "$T/sg/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).so" ] || bad "the genuine eh_elf"
run g2 --store "$T/sg" "$T/conf/a-evil_1_amd64.deb"
[ "$status" = 1 ] && [ "$(q "$T/sg" "SELECT count(*) FROM conflicts WHERE build_id = '$bid'")" = 2 ] &&
	[ ! -e "$T/sg/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).so" ] &&
	ok "the changed copy read by a later run: the same conflict, the eh_elf removed from the store" ||
	bad "a later conflicting copy: $status $(cat "$T/g2.e")"
# the two in shards of their own, merged
run mA --store "$T/mA" "$z"
run mB --store "$T/mB" "$T/conf/a-evil_1_amd64.deb"
st=0
"$batch" merge --store "$T/mM" --json "$T/mA" "$T/mB" >"$T/mM.j" 2>"$T/mM.e" || st=$?
[ "$st" = 1 ] && [ "$(json "$T/mM.j" conflict_build_ids)" = 1 ] &&
	[ "$(q "$T/mM" "SELECT count(*) FROM conflicts WHERE build_id = '$bid'")" = 2 ] &&
	[ "$(q "$T/mM" "SELECT count(*) FROM eh_elfs WHERE build_id = '$bid'")" = 0 ] &&
	[ ! -e "$T/mM/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).so" ] &&
	[ "$(q "$T/mM" "SELECT group_concat(DISTINCT status) FROM files WHERE build_id = '$bid'")" = conflict ] &&
	"$check" --complete "$T/mM" >/dev/null &&
	ok "each in a shard, merged: the same conflict, no eh_elf, status 1" ||
	bad "merged shards: status $st, $(cat "$T/mM.j" "$T/mM.e")"
"$batch" merge --store "$T/mM" "$T/mA" >/dev/null 2>&1 || true
[ "$(q "$T/mM" "SELECT count(*) FROM eh_elfs WHERE build_id = '$bid'")" = 0 ] &&
	ok "the genuine shard merged again: still in conflict" || bad "merging again undid the conflict"
rm "$T/conf/a-evil_1_amd64.deb"
"$batch" resolve --store "$T/sc" "$bid" 2>"$T/res.e" || bad "resolve: $(cat "$T/res.e")"
run conf3 --store "$T/sc" "$T/conf"
[ "$status" = 0 ] && [ -e "$so" ] && [ "$(json "$T/conf3.j" built)" = 1 ] &&
	[ "$(q "$T/sc" "SELECT f.status FROM files f JOIN packages p ON p.id = f.package_id
	                WHERE p.name = 'zlib1g' AND f.build_id = '$bid'")" = built ] &&
	ok "the copy removed from the sources, resolved: the next run builds it ($(cat "$T/res.e"))" ||
	bad "after resolve: $status $(cat "$T/conf3.j" "$T/conf3.e")"
"$build/bin/ehelf-pkg" --store "$T/sc" --out "$T/screpo2" >/dev/null 2>"$T/screpo2.e" &&
	[ "$(carried "$T/screpo2")" = 1 ] && ok "... and ehelf-pkg ships it" ||
	bad "ehelf-pkg after resolve: $(carried "$T/screpo2") packages, $(cat "$T/screpo2.e")"

echo "== each eh_elf: checked as the loader checks it, renamed, its directory flushed"
# (each thread's calls in a file of their own: no line cut by another's)
ASAN_OPTIONS=detect_leaks=0 strace -ff -e trace=rename,openat,fsync -o "$T/strace" \
	"$batch" --store "$T/st" "$libz" >/dev/null 2>&1 || bad "ehelf-batch under strace failed"
awk 'FNR == 1 { r = 0 }
     /rename\(.*\.build-id\/[0-9a-f][0-9a-f]\/[0-9a-f]*\.so"\) = 0/ { r = 1; next }
     r == 1 && /openat\(.*\.build-id\/[0-9a-f][0-9a-f]", .*O_DIRECTORY/ {
	     fd = $NF; r = 2; next }
     r == 2 && index($0, "fsync(" fd ")") && / = 0$/ { found = 1 }
     END { exit !found }' "$T"/strace.* &&
	ok "the eh_elf renamed into .build-id/XX, then that directory fsynced" ||
	{ bad "no fsync of the directory after the rename"; grep -h -A3 'rename(' "$T"/strace.* | head; }
# each eh_elf is checked in memory, as the loader checks it, before it is
# staged: what the store holds the loader opens (store-check opens every
# one with ehelf_object_open)
"$check" --complete "$T/st" >"$T/st.check" 2>&1 &&
	ok "every eh_elf stored under strace opens with the loader (store-check)" ||
	bad "store-check of the strace run: $(cat "$T/st.check")"

[ "$fails" = 0 ] && echo "hostile batch tests: PASS" || { echo "hostile batch tests: $fails FAILED"; exit 1; }
