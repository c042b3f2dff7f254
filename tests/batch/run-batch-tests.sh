#!/bin/sh
# Integration tests of ehelf-batch on real packages: .deb (and .ddeb), .rpm
# (made from a Debian package by alien), .pkg.tar.xz/.zst (the files of
# Debian packages with a .PKGINFO), a plain directory tree, corrupt inputs;
# then incremental reruns, signatures (each checked with the openssl CLI
# alone), the database as an index (sha256, versions, lookup), eh_elfs of
# older versions (or without statistics) rebuilt, databases of the first
# schema and of version 2 migrated (and refused read-only and as shards),
# the statistics of version 3 (store-check's consistency checks and a few
# exact values), sharding with merge (signatures kept), and kill -9 mid-run.
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
. "$here/common.sh"
root=$(cd "$here/../.." && pwd)
abi=$(sed -n 's/^#define EHELF_ABI_VERSION \([0-9]*\)$/\1/p' "$root/abi/ehelf_abi.h")
gen=$(sed -n 's/^#define EHELF_GENERATOR_VERSION \([0-9]*\)$/\1/p' "$root/builder/codegen/compile.h")
# the key ID of a PEM public key: SHA-256 of its raw 32 bytes (the end of
# its DER form), first 8 bytes
keyid() { openssl pkey -pubin -in "$1" -outform DER | tail -c 32 | sha256sum | cut -c1-16; }
# sig_ok SIG HEX PUB [KEYID]: the signature file SIG of build-ID HEX's
# eh_elf (the file beside it) checked with the openssl CLI alone, as
# docs/signatures.md tells: magic, key ID, SHA-256, the message rebuilt
# from HEX, the signature
sig_ok() {
	read -r magic kid sha sighex <"$1" || return 1
	[ "$magic" = ehelf-sig-1 ] && [ "$kid" = "${4:-$(keyid "$3")}" ] || return 1
	[ "$(sha256sum <"${1%.sig}" | cut -c1-64)" = "$sha" ] || return 1
	printf 'ehelf-sig-1\n%s\n%s\n%s\n' "$2" "$sha" "$kid" >"$T/msg"
	printf %s "$sighex" | xxd -r -p >"$T/sig.bin"
	openssl pkeyutl -verify -pubin -inkey "$3" -rawin -in "$T/msg" \
		-sigfile "$T/sig.bin" >/dev/null 2>&1
}
# verify_store STORE PUB: "GOOD BAD" counts of the store's signatures
verify_store() {
	good=0 nbad=0 kid=$(keyid "$2")
	for sig in $(find "$1/.build-id" -name '*.so.sig' | sort); do
		d=${sig%/*} f=${sig##*/}
		if sig_ok "$sig" "${d##*/}${f%.so.sig}" "$2" "$kid"; then
			good=$((good + 1))
		else
			nbad=$((nbad + 1))
		fi
	done
	echo "$good $nbad"
}
# the names and contents of a store's signatures, as one digest (Ed25519
# is deterministic: the same eh_elfs signed by one key give the same)
sigs_digest() {
	(cd "$1/.build-id" && grep -r . --include='*.so.sig' . | sort | sha256sum)
}
cols="SELECT build_id, sha256, abi_version, generator_version, signed_by FROM eh_elfs ORDER BY 1"

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
f0=$fails
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
[ "$fails" = "$f0" ] && ok "ELF counts and metadata of every .deb match dpkg-deb"
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

echo "== the database as an index"
[ "$(q "$T/s1" "PRAGMA user_version")" = 3 ] && ok "user_version 3" ||
	bad "user_version $(q "$T/s1" "PRAGMA user_version")"
store_sums "$T/s1" >"$T/sums"
db_sums "$T/s1" >"$T/dbsums"
[ -s "$T/sums" ] && cmp -s "$T/sums" "$T/dbsums" &&
	ok "sha256 of every eh_elfs row = sha256sum of its file ($(wc -l <"$T/sums") files)" ||
	{ bad "sha256 column and sha256sum differ"; diff "$T/sums" "$T/dbsums" | head -4; }
n=$(q "$T/s1" "SELECT count(*) FROM eh_elfs WHERE abi_version IS NOT $abi
               OR generator_version IS NOT $gen OR signed_by IS NOT NULL")
[ -n "$abi" ] && [ -n "$gen" ] && [ "$n" = 0 ] &&
	ok "every row: abi_version $abi, generator_version $gen, unsigned" ||
	bad "$n rows with other versions (abi '$abi', generator '$gen') or signed"
libc=$(q "$T/s1" "SELECT f.build_id FROM files f JOIN packages p ON p.id = f.package_id
                  WHERE p.name = 'libc6' AND f.path LIKE '%/libc.so.6'")
"$batch" lookup --store "$T/s1" "$libc" >"$T/lk"
size=$(stat -c %s "$T/s1/.build-id/$(echo "$libc" | cut -c1-2)/$(echo "$libc" | cut -c3-).so")
[ "$(json "$T/lk" size)" = "$size" ] && grep -q "\"sha256\": \"$(grep "^$libc " "$T/sums" | cut -d' ' -f2)\"" "$T/lk" &&
	grep -q '"current": true, "signed_by": null, "packages": 1, "package": "libc6", "path": "/.*/libc.so.6"' "$T/lk" &&
	ok "lookup (read-only): libc.so.6's size, sha256, versions, its package" ||
	bad "lookup: $(cat "$T/lk")"
if [ "$(id -u)" = 0 ]; then
	# a reader that cannot create the WAL database's -shm file
	mkdir "$T/ro" && cp "$T/s1/ehelf.sqlite" "$T/ro/" && chmod 711 "$T"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$batch" lookup --store "$T/ro" "$libc" >"$T/lkro" 2>&1 || true
	cmp -s "$T/lk" "$T/lkro" && [ "$(ls "$T/ro")" = ehelf.sqlite ] &&
		ok "lookup by a user who cannot write the store: the same, nothing created" ||
		bad "lookup as nobody: $(cat "$T/lkro")"
else
	bad "lookup by a user who cannot write the store: runs it as nobody, so needs root (make check runs as root)"
fi
status=0
"$batch" lookup --store "$T/s1" 0123 2>"$T/el" || status=$?
[ "$status" = 1 ] && grep -q "no eh_elf for build-ID 0123" "$T/el" &&
	ok "lookup of an unknown build-ID: status 1, $(cat "$T/el")" || bad "lookup 0123: $status $(cat "$T/el")"

echo "== signatures"
openssl genpkey -algorithm ed25519 -out "$T/key.pem"
openssl pkey -in "$T/key.pem" -pubout -out "$T/key.pub.pem"
openssl genpkey -algorithm ed25519 -out "$T/key2.pem"
openssl pkey -in "$T/key2.pem" -pubout -out "$T/key2.pub.pem"
id1=$(keyid "$T/key.pub.pem")
rows=$(q "$T/s1" "SELECT count(*) FROM eh_elfs")
"$batch" --store "$T/s1" --sign-key "$T/key.pem" --json "$T/repo" "$T/tree" >"$T/jsig"
[ "$(json "$T/jsig" built)" = 0 ] && [ "$(json "$T/jsig" signatures)" = "$rows" ] &&
	ok "--sign-key on a built store: its $rows eh_elfs signed, nothing rebuilt" ||
	bad "signing a store: $(cat "$T/jsig") ($rows rows)"
[ "$(q "$T/s1" "SELECT count(*) FROM eh_elfs WHERE signed_by = '$id1'")" = "$rows" ] &&
	ok "signed_by: the key's ID ($id1) in every row" || bad "signed_by not set"
v=$(verify_store "$T/s1" "$T/key.pub.pem")
[ "$v" = "$rows 0" ] && ok "every .sig verified by the openssl CLI alone ($rows)" ||
	bad "openssl CLI: $v of $rows (good, bad)"
sigs=$(sigs_digest "$T/s1")
sig=$(find "$T/s1/.build-id" -name '*.so.sig' | head -n 1)
! sig_ok "$sig" 0123456789abcdef "$T/key.pub.pem" &&
	! sig_ok "$sig" "$(basename "$(dirname "$sig")")$(basename "$sig" .so.sig)" "$T/key2.pub.pem" &&
	ok "the same CLI check refuses it for another build-ID, or another key" ||
	bad "the CLI check accepts what it should not"
"$batch" --store "$T/s1" --sign-key "$T/key.pem" --json "$T/repo" "$T/tree" >"$T/jsig2"
[ "$(json "$T/jsig2" signatures)" = 0 ] && [ "$(json "$T/jsig2" packages)" = 1 ] &&
	ok "signed again with the same key: nothing to do" || bad "re-signing: $(cat "$T/jsig2")"
"$check" --complete "$T/s1" >/dev/null && ok "store-check: every signed row has its .sig" ||
	bad "store-check after signing"

echo "== eh_elfs of older versions are rebuilt"
q "$T/s1" "SELECT build_id FROM eh_elfs ORDER BY build_id LIMIT 3" >"$T/old3"
q "$T/s1" "UPDATE eh_elfs SET generator_version = 0 WHERE build_id IN
           (SELECT build_id FROM eh_elfs ORDER BY build_id LIMIT 2);
           UPDATE eh_elfs SET abi_version = NULL WHERE build_id =
           (SELECT build_id FROM eh_elfs ORDER BY build_id LIMIT 1 OFFSET 2)"
ino() { stat -c %i "$T/s1/.build-id/$(echo "$1" | cut -c1-2)/$(echo "$1" | cut -c3-).so"; }
before=$(for h in $(cat "$T/old3"); do ino "$h"; done)
other=$(q "$T/s1" "SELECT build_id FROM eh_elfs ORDER BY build_id DESC LIMIT 1")
other_ino=$(ino "$other")
"$batch" --store "$T/s1" --sign-key "$T/key.pem" --json "$T/repo" "$T/tree" >"$T/jold"
after=$(for h in $(cat "$T/old3"); do ino "$h"; done)
n=$(q "$T/s1" "SELECT count(*) FROM eh_elfs WHERE abi_version = $abi AND generator_version = $gen")
[ "$(json "$T/jold" built)" = 3 ] && [ "$(json "$T/jold" signatures)" = 3 ] &&
	[ "$n" = "$rows" ] && [ "$(echo "$before" | sort)" != "$(echo "$after" | sort)" ] &&
	[ "$(ino "$other")" = "$other_ino" ] &&
	ok "3 rows of older versions: those 3 rebuilt, replaced and signed, no other" ||
	bad "outdated rows: $(cat "$T/jold"); $n current rows of $rows"
store_sums "$T/s1" | cmp -s - "$T/sums" && db_sums "$T/s1" | cmp -s - "$T/sums" &&
	ok "the same bytes again (and sha256 column)" || bad "rebuilt eh_elfs differ"
[ "$(sigs_digest "$T/s1")" = "$sigs" ] || bad "signatures after the rebuild"
dump "$T/s1" | cmp -s - "$T/d1" || bad "files rows changed by the rebuild"
"$check" --complete "$T/s1" >/dev/null || bad "store-check after the rebuild"
# a row without statistics, as ehelf-server's on-demand builds write them
nostats=$(q "$T/s1" "SELECT build_id FROM eh_elfs ORDER BY build_id LIMIT 1 OFFSET 5")
stats_of() { q "$T/s1" "SELECT (SELECT count(*) FROM rulesets WHERE build_id = '$1')
	|| ' ' || (SELECT count(*) FROM fde_sizes WHERE build_id = '$1')
	|| ' ' || (SELECT rows || ' ' || shapes || ' ' || sframe_bytes FROM eh_elfs
	           WHERE build_id = '$1')"; }
want=$(stats_of "$nostats")
q "$T/s1" "DELETE FROM rulesets WHERE build_id = '$nostats';
           DELETE FROM fde_sizes WHERE build_id = '$nostats';
           UPDATE eh_elfs SET stats_version = NULL, shapes = NULL, sframe_bytes = NULL
           WHERE build_id = '$nostats'"
"$batch" lookup --store "$T/s1" "$nostats" | grep -q '"stats_version": 0, "current": false' ||
	bad "lookup of a row without statistics: not current"
"$batch" --store "$T/s1" --sign-key "$T/key.pem" --json "$T/repo" "$T/tree" >"$T/jstats"
[ "$(json "$T/jstats" built)" = 1 ] && [ "$(stats_of "$nostats")" = "$want" ] &&
	[ "$(q "$T/s1" "SELECT stats_version FROM eh_elfs WHERE build_id = '$nostats'")" = 1 ] &&
	store_sums "$T/s1" | cmp -s - "$T/sums" && dump "$T/s1" | cmp -s - "$T/d1" &&
	"$check" --complete "$T/s1" >/dev/null &&
	ok "a row without statistics (stats_version NULL): rebuilt, the same statistics recorded again ($want)" ||
	bad "row without statistics: $(cat "$T/jstats"), '$(stats_of "$nostats")' vs '$want'"

echo "== the statistics (schema version 3)"
n=$(q "$T/s1" "SELECT count(*) FROM eh_elfs WHERE stats_version IS NOT 1")
[ "$n" = 0 ] && ok "every eh_elfs row: stats_version 1" || bad "$n rows without statistics"
"$check" --complete "$T/s1" | grep -q "($rows with statistics)" &&
	ok "store-check's consistency checks of the statistics pass on $rows eh_elfs" ||
	bad "store-check: statistics"
# libc.so.6: rows, FDEs and the section split against the CFI reader's
# own dump, the text of its commonest rule set
rm -rf "$T/x" && mkdir "$T/x" && dpkg-deb -x "$(deb libc6)" "$T/x"
libc_so=$(find "$T/x" -name 'libc.so.6' | head -n 1)
r=$(q "$T/s1" "SELECT eh_frame_fdes || ' ' || debug_frame_fdes || ' ' || debug_frame_rows
               || ' ' || (eh_frame_rows = rows) || ' ' || (summarised_rows <= rows)
               FROM eh_elfs WHERE build_id = '$libc'")
nfde=$(readelf --debug-dump=frames "$libc_so" 2>/dev/null | grep -c ' FDE cie=')
case "$r" in "$nfde 0 0 1 1") ok "libc.so.6: $nfde FDEs, all of .eh_frame, as readelf counts them" ;;
	*) bad "libc.so.6: '$r', readelf counts $nfde FDEs" ;; esac
t=$(q "$T/s1" "SELECT t.text FROM rulesets r JOIN ruleset_texts t USING (fingerprint)
               WHERE r.build_id = '$libc' ORDER BY r.rows DESC LIMIT 1")
[ "$t" = "cfa=rsp+8 ra=c-8" ] && ok "libc.so.6's commonest rule set: $t" ||
	bad "libc.so.6's commonest rule set: '$t'"
n=$(q "$T/s1" "SELECT count(DISTINCT r.shape) FROM rulesets r JOIN ruleset_texts t
               USING (fingerprint) WHERE t.text GLOB 'cfa=rsp+[0-9]* ra=c-8'
               AND t.text NOT GLOB '* * *'")
[ "$n" = 1 ] && ok "the rule sets 'cfa=rsp+N ra=c-8' of every ELF: one shape" ||
	bad "'cfa=rsp+N ra=c-8': $n shapes"

echo "== a database of the first schema (user_version 0)"
mkdir -p "$T/old"
sqlite3 "$T/old/ehelf.sqlite" <"$here/schema-v0.sql" >/dev/null
sqlite3 "$T/old/ehelf.sqlite" "ATTACH '$T/s1/ehelf.sqlite' AS n;
	INSERT INTO packages SELECT id, name, version, architecture, source, format,
	       status, error, seconds FROM n.packages;
	INSERT INTO files SELECT id, package_id, path, build_id, build_id_kind, size,
	       text_bytes, eh_frame_bytes, eh_frame_hdr_bytes, debug_frame_bytes,
	       ehelf_bytes, status, error FROM n.files;
	INSERT INTO eh_elfs SELECT build_id, ehelf_bytes, code_bytes, table_bytes, fdes,
	       rows, unique_rows, entries, unsupported_rows, compile_ms FROM n.eh_elfs"
cp -al "$T/s1/.build-id" "$T/old/"
find "$T/old/.build-id" -name '*.sig' -delete
[ "$(q "$T/old" "PRAGMA user_version")" = 0 ] || bad "the old database has a version"
status=0
"$batch" lookup --store "$T/old" "$libc" >/dev/null 2>"$T/el" || status=$?
[ "$status" = 1 ] && grep -q "written by an older ehelf-batch" "$T/el" &&
	ok "read-only, it is refused: $(cat "$T/el")" || bad "lookup in a version-0 database: $status $(cat "$T/el")"
status=0
"$batch" merge --store "$T/mv0" --json "$T/old" >"$T/jmv0" 2>"$T/emv0" || status=$?
[ "$status" = 1 ] && grep -q "database version 0.*run ehelf-batch on the shard once to migrate it" "$T/emv0" &&
	[ "$(q "$T/mv0" "SELECT count(*) FROM eh_elfs")" = 0 ] &&
	ok "as a shard, it is refused: $(cat "$T/emv0")" || bad "merging a version-0 shard: $status $(cat "$T/emv0")"
"$batch" --store "$T/old" --json "$T/repo" "$T/tree" >"$T/jv0" 2>"$T/ev0"
[ "$(q "$T/old" "PRAGMA user_version")" = 3 ] && [ ! -s "$T/ev0" ] &&
	ok "opened by ehelf-batch: migrated to version 3, silently" ||
	bad "migration: version $(q "$T/old" "PRAGMA user_version"), '$(cat "$T/ev0")'"
[ "$(json "$T/jv0" built)" = "$rows" ] && db_sums "$T/old" | cmp -s - "$T/sums" &&
	[ "$(q "$T/old" "SELECT count(*) FROM eh_elfs WHERE abi_version = $abi AND generator_version = $gen
	                 AND stats_version = 1")" = "$rows" ] &&
	dump "$T/old" | cmp -s - "$T/d1" &&
	ok "its eh_elfs (no versions recorded) rebuilt: the rows now have sha256, versions and statistics" ||
	bad "after the migration: $(cat "$T/jv0")"
"$check" --complete "$T/old" >/dev/null || bad "store-check after the migration"
"$batch" merge --store "$T/mcur" "$T/s1" "$T/old" 2>/dev/null
[ "$(q "$T/mcur" "$cols")" = "$(q "$T/s1" "$cols")" ] && [ "$(sigs_digest "$T/mcur")" = "$sigs" ] &&
	dump "$T/mcur" | cmp -s - "$T/d1" && "$check" --complete "$T/mcur" >/dev/null &&
	ok "migrated, merged after a current signed store: the current eh_elfs, rows and signatures kept" ||
	bad "a migrated shard over current rows"
q "$T/old" "PRAGMA user_version = 4"
status=0
"$batch" --store "$T/old" "$T/tree" >/dev/null 2>"$T/e3" || status=$?
[ "$status" = 1 ] && grep -q "written by a newer ehelf-batch" "$T/e3" &&
	ok "version 4: refused, $(cat "$T/e3")" || bad "a newer database: $status $(cat "$T/e3")"

echo "== a database of version 2 (before the statistics)"
mkdir -p "$T/v2"
"$here/make-v2-db.sh" "$T/s1" "$T/v2/ehelf.sqlite"
cp -al "$T/s1/.build-id" "$T/v2/"
find "$T/v2/.build-id" -name '*.sig' -delete
[ "$(q "$T/v2" "PRAGMA user_version")" = 2 ] &&
	[ "$(q "$T/v2" "SELECT count(*) FROM eh_elfs WHERE abi_version = $abi")" = "$rows" ] ||
	bad "the version-2 database"
status=0
"$batch" lookup --store "$T/v2" "$libc" >/dev/null 2>"$T/el" || status=$?
[ "$status" = 1 ] && grep -q "written by an older ehelf-batch (database version 2)" "$T/el" &&
	ok "read-only, it is refused: $(cat "$T/el")" || bad "lookup in a version-2 database: $status $(cat "$T/el")"
status=0
"$batch" merge --store "$T/mv2" "$T/v2" 2>"$T/emv2" || status=$?
[ "$status" = 1 ] && grep -q "database version 2.*run ehelf-batch on the shard once to migrate it" "$T/emv2" &&
	[ "$(q "$T/mv2" "SELECT count(*) FROM eh_elfs")" = 0 ] && [ -z "$(ls "$T/mv2/.build-id")" ] &&
	ok "as a shard, it is refused: $(cat "$T/emv2")" || bad "merging a version-2 shard: $status $(cat "$T/emv2")"
"$batch" --store "$T/v2" --json "$T/repo" "$T/tree" >"$T/jv2" 2>"$T/ev2"
[ "$(q "$T/v2" "PRAGMA user_version")" = 3 ] && [ ! -s "$T/ev2" ] &&
	[ "$(q "$T/v2" "SELECT count(*) FROM pragma_table_info('eh_elfs') WHERE name IN
	     ('stats_version', 'eh_frame_rows', 'store_ms', 'sframe_skipped_rows')")" = 4 ] &&
	ok "opened by ehelf-batch: migrated to version 3, silently (the new columns added)" ||
	bad "migration: version $(q "$T/v2" "PRAGMA user_version"), '$(cat "$T/ev2")'"
[ "$(json "$T/jv2" built)" = "$rows" ] && db_sums "$T/v2" | cmp -s - "$T/sums" &&
	[ "$(q "$T/v2" "SELECT count(*) FROM eh_elfs WHERE stats_version = 1")" = "$rows" ] &&
	[ "$(q "$T/v2" "SELECT count(DISTINCT build_id) FROM rulesets")" = "$rows" ] &&
	[ "$(q "$T/v2" "SELECT count(DISTINCT build_id) FROM fde_sizes")" = "$rows" ] &&
	[ "$(q "$T/v2" "SELECT sum(rows) FROM rulesets")" = "$(q "$T/s1" "SELECT sum(rows) FROM eh_elfs")" ] &&
	dump "$T/v2" | cmp -s - "$T/d1" &&
	ok "its $rows eh_elfs (no statistics) rebuilt, the same bytes, with their statistics recorded" ||
	bad "after the migration of version 2: $(cat "$T/jv2")"
"$check" --complete "$T/v2" >/dev/null || bad "store-check after the migration of version 2"
"$batch" --store "$T/v2" --json "$T/repo" "$T/tree" >"$T/jv2b"
[ "$(json "$T/jv2b" built)" = 0 ] && ok "run again: nothing rebuilt" || bad "rerun after migration: $(cat "$T/jv2b")"

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
for k in 1 2 3; do
	"$batch" --store "$T/shard$k" --shard "$k/3" --sign-key "$T/key.pem" "$T/repo" "$T/tree" 2>/dev/null
done
for m in msig merged; do # a new store, and the unsigned merge of the same shards
	"$batch" merge --store "$T/$m" --json "$T/shard1" "$T/shard2" "$T/shard3" >"$T/jm2"
	[ "$(sigs_digest "$T/$m")" = "$sigs" ] &&
		[ "$(q "$T/$m" "$cols")" = "$(q "$T/s1" "$cols")" ] && dump "$T/$m" | cmp -s - "$T/d1" &&
		"$check" --complete "$T/$m" >/dev/null &&
		ok "signed shards merged ($m): $(json "$T/jm2" signatures) .sig files copied, the same as the verified ones; sha256, versions, signed_by kept" ||
		bad "merging signed shards into $m: $(cat "$T/jm2")"
done
# a shard whose row of an eh_elf has no statistics (built on demand by
# ehelf-server) does not take them from the merged store's row of it
sid=$(q "$T/shard1" "SELECT build_id FROM eh_elfs ORDER BY build_id LIMIT 1")
cp -a "$T/shard1" "$T/nostats"
q "$T/nostats" "DELETE FROM rulesets WHERE build_id = '$sid'; DELETE FROM fde_sizes
	WHERE build_id = '$sid'; UPDATE eh_elfs SET stats_version = NULL WHERE build_id = '$sid'" >/dev/null
before=$(q "$T/merged" "SELECT stats_version, (SELECT count(*) FROM rulesets WHERE
	build_id = '$sid') FROM eh_elfs WHERE build_id = '$sid'")
"$batch" merge --store "$T/merged" "$T/nostats" 2>/dev/null
after=$(q "$T/merged" "SELECT stats_version, (SELECT count(*) FROM rulesets WHERE
	build_id = '$sid') FROM eh_elfs WHERE build_id = '$sid'")
[ "$before" = "$after" ] && [ "${after%%|*}" = 1 ] && "$check" --complete "$T/merged" >/dev/null &&
	ok "a shard's row without statistics leaves the merged row and its statistics ($after)" ||
	bad "merging a row without statistics: $before -> $after"

echo "== kill -9 mid-run"
f0=$fails
for delay in 0.2 0.5 1.0 1.6; do
	rm -rf "$T/k"
	"$batch" --store "$T/k" -j 1 --sign-key "$T/key.pem" "$T/repo" "$T/tree" 2>/dev/null &
	pid=$!
	sleep "$delay"
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	"$check" "$T/k" >/dev/null || bad "after kill -9 at ${delay}s: inconsistent"
	"$batch" --store "$T/k" --sign-key "$T/key.pem" "$T/repo" "$T/tree" >/dev/null 2>&1
	"$check" --complete "$T/k" >/dev/null || bad "after the rerun: inconsistent"
	[ "$(sigs_digest "$T/k")" = "$sigs" ] || bad "killed at ${delay}s and rerun: other signatures"
	dump "$T/k" >"$T/dk"
	cmp -s "$T/dk" "$T/d1" || { bad "killed at ${delay}s and rerun: rows differ"
		diff "$T/d1" "$T/dk" | head -4; }
done
[ "$fails" = "$f0" ] &&
	ok "signed runs killed at 0.2, 0.5, 1.0 and 1.6 s, then rerun: same rows and signatures as one run, nothing dangling"

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

echo "== signing keys"
"$batch" --store "$T/f" --sign-key "$T/key2.pem" --json "$lib" >"$T/jk2"
"$batch" --store "$T/f" --sign-key "$T/key.pem" --json "$lib" >"$T/jk1"
fhex=$(q "$T/f" "SELECT build_id FROM eh_elfs")
fsig="$T/f/.build-id/$(echo "$fhex" | cut -c1-2)/$(echo "$fhex" | cut -c3-).so.sig"
[ "$(json "$T/jk2" signatures)" = 1 ] && [ "$(json "$T/jk1" signatures)" = 1 ] &&
	sig_ok "$fsig" "$fhex" "$T/key.pub.pem" &&
	[ "$(q "$T/f" "SELECT signed_by FROM eh_elfs")" = "$id1" ] &&
	ok "a missing signature, then one by another key: signed again" ||
	bad "re-signing: $(cat "$T/jk2") $(cat "$T/jk1")"
openssl genpkey -algorithm rsa -pkeyopt rsa_keygen_bits:2048 -out "$T/rsa.pem" 2>/dev/null
echo "not a key" >"$T/garbage.pem"
f0=$fails
for k in "missing.pem:cannot read the key" "garbage.pem:not a PEM private key" \
         "key.pub.pem:a public key; signing needs the private key" \
         "rsa.pem:RSA key, not Ed25519"; do
	status=0
	"$batch" --store "$T/nokey" --sign-key "$T/${k%%:*}" "$lib" 2>"$T/ek" || status=$?
	[ "$status" = 2 ] && grep -q "${k#*:}" "$T/ek" && [ ! -e "$T/nokey" ] ||
		bad "--sign-key ${k%%:*}: status $status, '$(cat "$T/ek")'"
done
[ "$fails" = "$f0" ] &&
	ok "--sign-key: a missing file, not a key, a public key, an RSA key: status 2 before any work"

[ "$fails" = 0 ] && echo "batch tests: PASS" || { echo "batch tests: $fails FAILED"; exit 1; }
