#!/bin/sh
# Tests of ehelf-pkg and dh_ehelf (docs/packaging.md), on real Debian
# packages with Debian's own tools as the judges:
#  - ehelf-pkg on a store that ehelf-batch builds (signed) from the test
#    corpus: every -ehelf .deb read back with dpkg-deb -I/-c and checked
#    against the database and the package it describes (fields, every
#    build-ID and no other file, bytes equal to the store's, md5sums,
#    root:root, time stamps), build-IDs shared by two packages carried by
#    one, lintian;
#  - reproducibility (another run, other -j, gives the same bytes),
#    incrementality (nothing rebuilt; one changed package rebuilt alone),
#    packages removed from the database pruned, named runs;
#  - errors: a store missing an eh_elf, an eh_elf of other bytes, a
#    database row without its eh_elf, versions dpkg refuses, an unknown
#    package, a gpg key gpg lacks: a clear message, status 1 (2), no
#    package for it, the rest of the repository intact;
#  - the repository read by apt-get update (signed-by= a key made for the
#    test, over HTTP from a static server and from ehelf-server --repo),
#    refused under another key; apt-get download checks a package;
#  - `make deb` (ehelf-compile, dh-ehelf) through lintian, and dh_ehelf
#    from the dh-ehelf package building tests/fixtures/ehelf-demo with
#    dpkg-buildpackage: -ehelf debs beside the -dbgsym ones, in the
#    .changes, whose build-IDs and eh_elfs match the built ELFs.
# The install into a Debian root is run-apt-install-test.sh.
#
# Usage: tests/packaging/run-packaging-tests.sh BUILD
set -eu
case ${1:-} in -h | --help)
	sed -n '2,/^set -eu$/{/^#/s/^# \{0,1\}//p}' "$0"
	exit 0 ;;
esac
build=$(cd "${1:?usage: run-packaging-tests.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
export TZ=UTC
# the builds below (make deb, dpkg-buildpackage) are builds of their own:
# under `make -jN` they would inherit make's jobserver descriptors, which
# make closes for recipes not marked '+', and warn that it is unavailable
# (which the "no warnings in the build log" check counts)
unset MAKEFLAGS MFLAGS MAKELEVEL

q() { sqlite3 "$1/ehelf.sqlite" "$2"; }
field() { dpkg-deb -f "$1" "$2"; }
# the build-IDs of the files with eh_elfs of package NAME in STORE's
# database
db_ids() {
	q "$1" "SELECT DISTINCT f.build_id FROM files f JOIN packages p ON p.id = f.package_id
	        WHERE p.name = '$2' AND f.status IN ('built', 'present')
	        AND f.build_id IS NOT NULL ORDER BY 1"
}
words() { tr ' ' '\n' | sed '/^$/d' | sort; }
json() { sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p" "$1"; }
pool_debs() { (cd "$1" && find pool -name '*.deb' | sort); }

echo "== ehelf-pkg: a store of real Debian packages"
debs=$(corpus_debs)
mkdir -p "$T/debs"
for d in $debs; do cp "$d" "$T/debs/"; done
openssl genpkey -algorithm ed25519 -out "$T/sign.pem" 2>/dev/null
"$batch" --store "$T/s" -j 2 --sign-key "$T/sign.pem" --json "$T/debs" >"$T/batch.json"
new_key "$T/gnupg"
export GNUPGHOME="$T/gnupg"
"$pkg" --store "$T/s" --out "$T/repo" --gpg-key "$KEY" --json >"$T/p1.json"
want=$(q "$T/s" "SELECT count(DISTINCT p.name) FROM packages p JOIN files f ON f.package_id = p.id
                 WHERE f.status IN ('built', 'present') AND p.format = 'deb'")
[ "$(json "$T/p1.json" built)" = "$want" ] && [ "$(json "$T/p1.json" failed)" = 0 ] &&
	ok "$want packages with eh_elfs, $want -ehelf packages built" ||
	bad "built: $(cat "$T/p1.json"), want $want"
[ "$(pool_debs "$T/repo" | wc -l)" = "$want" ] && ok "as many .debs in the pool" ||
	bad "pool: $(pool_debs "$T/repo")"

echo "== each package, read back with dpkg-deb -I and -c"
all_ids=""
nchecked=0
for rel in $(pool_debs "$T/repo"); do
	deb=$T/repo/$rel
	name=$(field "$deb" Package)
	orig=${name%-ehelf}
	src=$(ls "$T/debs/${orig}_"*.deb)
	v=$(field "$src" Version)
	a=$(field "$src" Architecture)
	what="$name"
	[ "$(field "$deb" Version)" = "$v" ] || bad "$what: Version $(field "$deb" Version), want $v"
	[ "$(field "$deb" Architecture)" = "$a" ] || bad "$what: Architecture"
	[ "$(field "$deb" Depends)" = "$orig (= $v)" ] || bad "$what: Depends $(field "$deb" Depends)"
	[ "$(field "$deb" Section)" = debug ] && [ "$(field "$deb" Priority)" = optional ] ||
		bad "$what: Section/Priority"
	[ "$(field "$deb" Auto-Built-Package)" = ehelf ] || bad "$what: Auto-Built-Package"
	[ "$(field "$deb" Maintainer)" = "$(field "$src" Maintainer)" ] || bad "$what: Maintainer"
	s=$(field "$src" Source)
	[ "$(field "$deb" Source)" = "${s:-$orig}" ] || bad "$what: Source '$(field "$deb" Source)', want '${s:-$orig}'"
	ma=$(field "$src" Multi-Arch)
	if [ "$ma" = same ]; then
		[ "$(field "$deb" Multi-Arch)" = same ] || bad "$what: Multi-Arch: same missing"
	else
		# (dpkg-deb -f prints "no" for a package without the field)
		[ "$(field "$deb" Multi-Arch)" = no ] || bad "$what: Multi-Arch where $orig has '$ma'"
	fi
	[ "$(field "$deb" Description | wc -l)" -ge 3 ] || bad "$what: no long description"
	ids=$(field "$deb" Build-Ids | words)
	[ -n "$ids" ] || bad "$what: no Build-Ids"
	extra=$(echo "$ids" | comm -23 - "$(db_ids "$T/s" "$orig" >"$T/want"; echo "$T/want")")
	[ -z "$extra" ] || bad "$what carries build-IDs $orig does not ship: $extra"
	all_ids="$all_ids $ids"
	# the payload: each build-ID's eh_elf and signature, the doc symlink,
	# the lintian override, directories; nothing else
	dpkg-deb -c "$deb" >"$T/c"
	{
		echo "$ids" | sed 's|^\(..\)\(.*\)$|./usr/lib/ehelf/.build-id/\1/\2.so|'
		echo "$ids" | sed 's|^\(..\)\(.*\)$|./usr/lib/ehelf/.build-id/\1/\2.so.sig|'
		echo "./usr/share/lintian/overrides/$name"
	} | sort >"$T/want-files"
	grep '^-' "$T/c" | awk '{ print $6 }' | sort >"$T/got-files"
	cmp -s "$T/want-files" "$T/got-files" ||
		bad "$what: files $(diff "$T/want-files" "$T/got-files" | head -5)"
	grep -q "^lrwxrwxrwx root/root .* ./usr/share/doc/$name -> $orig\$" "$T/c" ||
		bad "$what: no /usr/share/doc/$name -> $orig symlink"
	[ "$(grep -v '^l' "$T/c" | grep -vc '^[-d]')" = 0 ] || bad "$what: other kinds of file"
	[ "$(grep -vc ' root/root ' "$T/c")" = 0 ] || bad "$what: not owned by root:root"
	[ "$(grep -vc ' 2023-06-10 00:00 ' "$T/c")" = 0 ] || bad "$what: time stamps not SOURCE_DATE_EPOCH"
	# the bytes are the store's and the md5sums hold
	rm -rf "$T/x" && mkdir "$T/x" && dpkg-deb -R "$deb" "$T/x"
	(cd "$T/x" && md5sum --quiet -c DEBIAN/md5sums) || bad "$what: md5sums"
	for id in $(echo "$ids" | head -n 20); do
		p=${id%"${id#??}"}/${id#??}.so
		cmp -s "$T/x/usr/lib/ehelf/.build-id/$p" "$T/s/.build-id/$p" &&
			cmp -s "$T/x/usr/lib/ehelf/.build-id/$p.sig" "$T/s/.build-id/$p.sig" ||
			bad "$what: $p differs from the store"
	done
	nchecked=$((nchecked + 1))
done
ok "$nchecked packages: fields, Build-Ids, payload, md5sums, owners, times"
echo "$all_ids" | words >"$T/carried"
[ "$(uniq -d "$T/carried" | wc -l)" = 0 ] &&
	ok "no build-ID in two -ehelf packages (no file of one in another)" ||
	bad "build-IDs in two packages: $(uniq -d "$T/carried" | head -3)"
q "$T/s" "SELECT DISTINCT build_id FROM files WHERE status IN ('built', 'present')
          AND build_id IS NOT NULL ORDER BY 1" >"$T/all"
cmp -s "$T/all" "$T/carried" && ok "every build-ID with an eh_elf is carried by one package" ||
	bad "carried: $(comm -3 "$T/all" "$T/carried" | head -3)"
shared=$(comm -12 "$(db_ids "$T/s" perl-base >"$T/a"; echo "$T/a")" \
                  "$(db_ids "$T/s" libperl5.36 >"$T/b"; echo "$T/b")" | wc -l)
pb=$(field "$T/repo/$(pool_debs "$T/repo" | grep /perl-base-ehelf_)" Build-Ids | words)
lp=$(field "$T/repo/$(pool_debs "$T/repo" | grep /libperl5.36-ehelf_)" Build-Ids | words)
[ "$shared" -gt 0 ] && [ "$(comm -12 "$T/a" "$T/b" | comm -12 - "$(echo "$pb" >"$T/pb"; echo "$T/pb")" | wc -l)" = "$shared" ] &&
	[ -z "$(echo "$lp" | comm -12 - "$T/a")" ] &&
	ok "the $shared eh_elfs perl-base and libperl5.36 share: in perl-base-ehelf (Priority: required)" ||
	bad "shared perl build-IDs: $shared"

echo "== lintian"
lintian --pedantic -I -E $(for p in libc6 zlib1g coreutils perl-base libperl5.36; do
	echo "$T/repo/$(pool_debs "$T/repo" | grep "/$p-ehelf_")"; done) >"$T/lintian" 2>&1 || true
grep -q '^E: ' "$T/lintian" && bad "lintian errors: $(grep '^E: ' "$T/lintian" | head -3)" ||
	ok "no lintian errors"
grep -q '^W: ' "$T/lintian" && bad "lintian warnings: $(grep '^W: ' "$T/lintian" | head -3)" ||
	ok "no lintian warnings ($(grep -c '^I: ' "$T/lintian") informational tags, docs/packaging.md)"

echo "== reproducible, incremental"
SOURCE_DATE_EPOCH=1700000000 "$pkg" --store "$T/s" --out "$T/repoA" -j 1 --json >/dev/null
SOURCE_DATE_EPOCH=1700000000 "$pkg" --store "$T/s" --out "$T/repoB" -j 3 --json >/dev/null
same=1
for rel in $(pool_debs "$T/repoA") dists/ehelf/Release dists/ehelf/main/binary-amd64/Packages.xz; do
	cmp -s "$T/repoA/$rel" "$T/repoB/$rel" || { same=0; bad "$rel differs between two runs"; }
done
[ "$same" = 1 ] && ok "two runs (-j 1, -j 3) give the same bytes, Release and Packages.xz too"
[ "$(pool_debs "$T/repoA" | wc -l)" = "$want" ] || bad "repoA: $(pool_debs "$T/repoA" | wc -l) debs"
# with the default epoch, the same as the signed repository's packages
"$pkg" --store "$T/s" --out "$T/repoC" --json >/dev/null
for rel in $(pool_debs "$T/repo"); do
	cmp -s "$T/repo/$rel" "$T/repoC/$rel" || bad "$rel: not reproduced"
done
ok "the default SOURCE_DATE_EPOCH reproduces the first run's packages"
find "$T/repo/pool" -name '*.deb' -printf '%p %T@\n' | sort >"$T/mtimes"
"$pkg" --store "$T/s" --out "$T/repo" --gpg-key "$KEY" --json >"$T/p2.json"
find "$T/repo/pool" -name '*.deb' -printf '%p %T@\n' | sort | cmp -s - "$T/mtimes" &&
	[ "$(json "$T/p2.json" built)" = 0 ] && [ "$(json "$T/p2.json" unchanged)" = "$want" ] &&
	ok "second run: nothing rebuilt, no package file touched" || bad "rerun: $(cat "$T/p2.json")"
# zlib1g's eh_elf signed by another key: only zlib1g-ehelf changes
openssl genpkey -algorithm ed25519 -out "$T/sign2.pem" 2>/dev/null
zid=$(db_ids "$T/s" zlib1g)
zp=${zid%"${zid#??}"}/${zid#??}.so
rm -rf "$T/x" && mkdir "$T/x" && dpkg-deb -x "$T"/debs/zlib1g_*.deb "$T/x"
cp -a "$T/s" "$T/s3"
"$build/bin/ehelf-compile" "$(find "$T/x" -type f -name 'libz.so.1.*')" -o "$T/s3/.build-id/$zp" \
	--sign-key "$T/sign2.pem" --json >"$T/z.json"
kid=$(sed -n 's/.*"signed_by": "\([0-9a-f]*\)".*/\1/p' "$T/z.json")
zsha=$(sed -n 's/.*"sha256": "\([0-9a-f]*\)".*/\1/p' "$T/z.json")
q "$T/s3" "UPDATE eh_elfs SET signed_by = '$kid', sha256 = '$zsha',
           ehelf_bytes = $(json "$T/z.json" output_bytes) WHERE build_id = '$zid'"
"$pkg" --store "$T/s3" --out "$T/repo" --gpg-key "$KEY" --json >"$T/p3.json"
zdeb=$(pool_debs "$T/repo" | grep /zlib1g-ehelf_)
find "$T/repo/pool" -name '*.deb' -printf '%p %T@\n' | sort | grep -v /zlib1g-ehelf_ >"$T/mtimes3"
rm -rf "$T/x" && mkdir "$T/x" && dpkg-deb -x "$T/repo/$zdeb" "$T/x"
[ -n "$kid" ] && [ "$(json "$T/p3.json" built)" = 1 ] &&
	grep -v /zlib1g-ehelf_ "$T/mtimes" | cmp -s - "$T/mtimes3" &&
	cmp -s "$T/x/usr/lib/ehelf/.build-id/$zp.sig" "$T/s3/.build-id/$zp.sig" &&
	! cmp -s "$T/s3/.build-id/$zp.sig" "$T/s/.build-id/$zp.sig" &&
	ok "a re-signed eh_elf: zlib1g-ehelf alone rebuilt, with the new signature" ||
	bad "re-signed: $(cat "$T/p3.json")"
# a package gone from the database leaves the repository
cp -a "$T/s3" "$T/s4"
q "$T/s4" "DELETE FROM files WHERE package_id IN (SELECT id FROM packages WHERE name = 'rt-tests');
           DELETE FROM packages WHERE name = 'rt-tests'"
"$pkg" --store "$T/s4" --out "$T/repo" --gpg-key "$KEY" --json >"$T/p4.json"
! pool_debs "$T/repo" | grep -q /rt-tests-ehelf_ &&
	! grep -q '^Package: rt-tests-ehelf' "$T/repo/dists/ehelf/main/binary-amd64/Packages" &&
	[ "$(json "$T/p4.json" built)" = 0 ] &&
	ok "a package gone from the database: pruned from the pool and Packages" ||
	bad "prune: $(cat "$T/p4.json")"
# a run naming packages leaves the others alone
"$pkg" --store "$T/s4" --out "$T/repoN" --json zlib1g bash >"$T/pn.json"
[ "$(pool_debs "$T/repoN" | wc -l)" = 2 ] && [ "$(json "$T/pn.json" packages)" = 2 ] &&
	"$pkg" --store "$T/s4" --out "$T/repoN" --json coreutils >/dev/null &&
	[ "$(pool_debs "$T/repoN" | wc -l)" = 3 ] &&
	[ "$(grep -c '^Package: ' "$T/repoN/dists/ehelf/main/binary-amd64/Packages")" = 3 ] &&
	ok "named runs build those packages and keep the others" ||
	bad "named runs: $(pool_debs "$T/repoN")"

echo "== errors: a clear message, no broken package"
# expect_fail NAME STORE PATTERN [ARGS]: ehelf-pkg on STORE into a fresh
# repository fails (status 1) naming PATTERN, makes no NAME-ehelf, and
# builds and indexes the others
expect_fail() {
	n=$1 s=$2 pat=$3
	shift 3
	rm -rf "$T/bad"
	st=0
	"$pkg" --store "$s" --out "$T/bad" --json "$@" >"$T/bad.json" 2>"$T/bad.err" || st=$?
	others=$(pool_debs "$T/bad" | wc -l)
	if [ "$st" = 1 ] && grep -q "$pat" "$T/bad.err" &&
	   ! pool_debs "$T/bad" | grep -q "/$n-ehelf_" && [ "$others" -ge 1 ] &&
	   [ "$(grep -c '^Package: ' "$T/bad/dists/ehelf/main/binary-amd64/Packages")" = "$others" ]; then
		ok "$n: $(grep "$n" "$T/bad.err" | head -n 1 | cut -c1-150)"
	else
		bad "$n: status $st, $(cat "$T/bad.err"), $others others"
	fi
}
cid=$(db_ids "$T/s" curl | head -n 1)
cp -a "$T/s" "$T/e1" && rm "$T/e1/.build-id/${cid%"${cid#??}"}/${cid#??}.so"
expect_fail curl "$T/e1" "missing from the store"
cp -a "$T/s" "$T/e2" && head -c 100 /dev/zero >>"$T/e2/.build-id/${cid%"${cid#??}"}/${cid#??}.so"
expect_fail curl "$T/e2" "is not the eh_elf the database records"
cp -a "$T/s" "$T/e3" && q "$T/e3" "DELETE FROM eh_elfs WHERE build_id = '$cid'"
expect_fail curl "$T/e3" "has no eh_elfs row"
cp -a "$T/s" "$T/e4" && q "$T/e4" "UPDATE packages SET version = '3.40.1-' WHERE name = 'sqlite3'"
expect_fail sqlite3 "$T/e4" "revision number is empty"
cp -a "$T/s" "$T/e5" && q "$T/e5" "UPDATE packages SET version = '3.40 beta' WHERE name = 'sqlite3'"
expect_fail sqlite3 "$T/e5" "is not a Debian version"
cp -a "$T/s" "$T/e6" && q "$T/e6" "UPDATE packages SET name = 'Sqlite_3' WHERE name = 'sqlite3'"
expect_fail Sqlite_3 "$T/e6" "is not a Debian package name"
st=0
"$pkg" --store "$T/s" --out "$T/bad" no-such-package >/dev/null 2>"$T/bad.err" || st=$?
[ "$st" = 1 ] && grep -q "no-such-package: no such package" "$T/bad.err" &&
	ok "an unknown package named: status 1" || bad "unknown package: $st $(cat "$T/bad.err")"
st=0
"$pkg" --store "$T/s" --out "$T/bad" --gpg-key 0000DEADBEEF >/dev/null 2>"$T/bad.err" || st=$?
[ "$st" = 2 ] && grep -q "gpg has no secret key" "$T/bad.err" &&
	ok "a --gpg-key gpg lacks: status 2" || bad "bad key: $st $(cat "$T/bad.err")"
st=0
"$pkg" --store "$T/nonexistent" --out "$T/bad" >/dev/null 2>"$T/bad.err" || st=$?
[ "$st" = 1 ] && grep -q "nonexistent" "$T/bad.err" && ok "no database: status 1 ($(head -c 100 "$T/bad.err"))" ||
	bad "no database: $st"
# a changed eh_elf the store lost: the rebuild fails, the good package
# of the same version stays in the pool and the index
cp -a "$T/s" "$T/e7" && rm "$T/e7/.build-id/${cid%"${cid#??}"}/${cid#??}.so"
q "$T/e7" "UPDATE eh_elfs SET sha256 = '$(printf '%064d' 0)' WHERE build_id = '$cid'"
cdeb=$(pool_debs "$T/repoC" | grep /curl-ehelf_)
st=0
"$pkg" --store "$T/e7" --out "$T/repoC" --json >/dev/null 2>"$T/bad.err" || st=$?
[ "$st" = 1 ] && [ -f "$T/repoC/$cdeb" ] &&
	grep -q '^Package: curl-ehelf' "$T/repoC/dists/ehelf/main/binary-amd64/Packages" &&
	ok "a rebuild that fails keeps the good curl-ehelf of the same version" ||
	bad "curl-ehelf lost: $st $(cat "$T/bad.err")"

echo "== apt reads the repository (signed-by=, HTTP)"
gpg --batch --export "$KEY" >"$T/key.gpg"
cmp -s "$T/key.gpg" "$T/repo/ehelf-archive-keyring.gpg" && ok "REPO/ehelf-archive-keyring.gpg is the key" ||
	bad "exported key"
serve "$T/repo"
mkdir -p "$T/apt"
echo "deb [signed-by=$T/key.gpg] http://127.0.0.1:$PORT/ ehelf main" >"$T/apt/sources.list"
if apt_in "$T/apt" apt-get update >"$T/apt.log" 2>&1; then
	n=$(apt_in "$T/apt" apt-cache dumpavail | grep -c '^Package: .*-ehelf$')
	[ "$n" = "$(pool_debs "$T/repo" | wc -l)" ] && ok "apt-get update over HTTP, signed: $n -ehelf packages" ||
		bad "apt knows $n packages"
	apt_in "$T/apt" apt-cache show libc6-ehelf | grep -q '^Depends: libc6 (= ' &&
		ok "apt-cache show libc6-ehelf" || bad "apt-cache show libc6-ehelf"
	(mkdir "$T/dl" && cd "$T/dl" && apt_in "$T/apt" apt-get download zlib1g-ehelf >/dev/null 2>&1) &&
		cmp -s "$T"/dl/zlib1g-ehelf_*.deb "$T/repo/$zdeb" &&
		ok "apt-get download zlib1g-ehelf: hash checked, the pool's bytes" || bad "apt-get download"
else
	bad "apt-get update: $(tail -n 5 "$T/apt.log")"
fi
new_key "$T/gnupg-other"
GNUPGHOME="$T/gnupg-other" gpg --batch --export "$KEY" >"$T/other.gpg"
mkdir -p "$T/apt2"
echo "deb [signed-by=$T/other.gpg] http://127.0.0.1:$PORT/ ehelf main" >"$T/apt2/sources.list"
if apt_in "$T/apt2" apt-get update >"$T/apt2.log" 2>&1 &&
   ! grep -q "NO_PUBKEY\|not signed\|signatures couldn't be verified" "$T/apt2.log"; then
	bad "apt accepted the repository under another key"
else
	ok "apt refuses it under another key ($(grep -o 'NO_PUBKEY [0-9A-F]*\|not signed' "$T/apt2.log" | head -n 1))"
fi
if "$build/bin/ehelf-server" --help 2>&1 | grep -q -- --repo; then
	"$build/bin/ehelf-server" --store "$T/s" --repo "$T/repo" --listen 127.0.0.1 \
		--port 0 --port-file "$T/sport" --upstream "" 2>"$T/server.log" &
	pids="$pids $!"
	i=0
	while [ ! -s "$T/sport" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	mkdir -p "$T/apt3"
	echo "deb [signed-by=$T/key.gpg] http://127.0.0.1:$(cat "$T/sport")/debian ehelf main" \
		>"$T/apt3/sources.list"
	apt_in "$T/apt3" apt-get update >"$T/apt3.log" 2>&1 &&
		apt_in "$T/apt3" apt-cache show libc6-ehelf >/dev/null 2>&1 &&
		ok "apt-get update from ehelf-server --repo (/debian/)" ||
		bad "ehelf-server --repo: $(tail -n 3 "$T/apt3.log")"
else
	echo "  (ehelf-server has no --repo yet: not tried)"
fi

echo "== make deb, lintian; dh_ehelf builds tests/fixtures/ehelf-demo"
"$root/packaging/build-debs.sh" "$T/own" >/dev/null
lintian --pedantic -I -E "$T"/own/*.changes >"$T/lintian-own" 2>&1 || true
grep -q '^[EW]: ' "$T/lintian-own" && bad "lintian on ehelf's packages: $(grep '^[EW]: ' "$T/lintian-own" | head -3)" ||
	ok "ehelf-compile, dh-ehelf: no lintian errors or warnings"
mkdir -p "$T/dh"
for d in "$T"/own/dh-ehelf_*.deb "$T"/own/ehelf-compile_*_amd64.deb; do dpkg-deb -x "$d" "$T/dh"; done
for f in usr/bin/dh_ehelf usr/bin/ehelf-compile usr/share/perl5/Debian/Debhelper/Sequence/ehelf.pm \
         usr/share/man/man1/dh_ehelf.1.gz usr/share/man/man1/ehelf-compile.1.gz; do
	[ -e "$T/dh/$f" ] || bad "the packages lack /$f"
done
field "$T"/own/dh-ehelf_*.deb Provides | grep -q dh-sequence-ehelf && ok "dh-ehelf provides dh-sequence-ehelf" ||
	bad "dh-ehelf: no Provides: dh-sequence-ehelf"
# installable with apt (simulated: this machine is left as it is)
apt-get -o Debug::NoLocking=1 install -s "$T"/own/dh-ehelf_*.deb "$T"/own/ehelf-compile_*_amd64.deb >"$T/sim" 2>&1 &&
	grep -q '^Inst dh-ehelf ' "$T/sim" && grep -q '^Inst ehelf-compile ' "$T/sim" &&
	ok "apt-get install -s ./dh-ehelf_*.deb ./ehelf-compile_*.deb: installable" ||
	bad "apt-get install -s: $(tail -n 3 "$T/sim")"
cp -r "$root/tests/fixtures/ehelf-demo" "$T/demo"
# dh-sequence-ehelf is satisfied by the unpacked dh-ehelf, not an
# installed one: -d skips dpkg's build-dependency check
if (cd "$T/demo" && env PATH="$T/dh/usr/bin:$PATH" PERL5LIB="$T/dh/usr/share/perl5" \
	dpkg-buildpackage -b -us -uc -d >"$T/demo.log" 2>&1); then
	ok "dpkg-buildpackage with dh_ehelf (Build-Depends: dh-sequence-ehelf)"
else
	bad "dpkg-buildpackage: $(tail -n 10 "$T/demo.log")"
fi
[ "$(grep -E '^   (dh_ehelf|dh_strip)( |$)' "$T/demo.log" | awk '{ print $1 }' | paste -sd' ')" = "dh_ehelf dh_strip" ] &&
	ok "dh ran dh_ehelf before dh_strip" || bad "dh_ehelf not in the sequence before dh_strip"
! grep -q 'warning' "$T/demo.log" && ok "no warnings in the build log" ||
	bad "warnings: $(grep warning "$T/demo.log" | head -3)"
changes=$T/ehelf-demo_1.0_amd64.changes
for p in libehelfdemo1 ehelf-demo; do
	deb=$T/${p}_1.0_amd64.deb
	edeb=$T/${p}-ehelf_1.0_amd64.deb
	[ -f "$edeb" ] && [ -f "$T/${p}-dbgsym_1.0_amd64.deb" ] || { bad "$p: no -ehelf or -dbgsym deb"; continue; }
	grep -q " ${p}-ehelf_1.0_amd64.deb\$" "$changes" || bad "$p-ehelf not in the .changes"
	rm -rf "$T/x" "$T/y" && mkdir "$T/x" "$T/y"
	dpkg-deb -x "$deb" "$T/x"
	dpkg-deb -x "$edeb" "$T/y"
	ids=$(find "$T/x" -type f -exec sh -c 'readelf -n "$1" 2>/dev/null' _ {} \; |
		sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p' | sort)
	[ -n "$ids" ] && [ "$ids" = "$(field "$edeb" Build-Ids | words)" ] &&
		[ "$(field "$edeb" Build-Ids)" = "$(field "$T/${p}-dbgsym_1.0_amd64.deb" Build-Ids)" ] ||
		bad "$p-ehelf: Build-Ids $(field "$edeb" Build-Ids), ELFs $ids"
	[ "$(field "$edeb" Depends)" = "$p (= 1.0)" ] && [ "$(field "$edeb" Section)" = debug ] ||
		bad "$p-ehelf: fields"
	# each eh_elf is what ehelf-compile makes of the stripped ELF (the
	# same build-ID, the same .eh_frame)
	for f in $(find "$T/x" -type f); do
		id=$(readelf -n "$f" 2>/dev/null | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
		[ -n "$id" ] || continue
		"$T/dh/usr/bin/ehelf-compile" "$f" -o "$T/z.so"
		cmp -s "$T/z.so" "$T/y/usr/lib/ehelf/.build-id/${id%"${id#??}"}/${id#??}.so" ||
			bad "$p-ehelf: the eh_elf of ${f#"$T"/x} differs from ehelf-compile's"
	done
	ok "$p-ehelf: its build-IDs are the built ELFs' (and the -dbgsym's), its eh_elfs ehelf-compile's"
done
grep -q "ehelf-demo-ehelf_1.0_amd64.deb debug optional automatic=yes" "$T/demo/debian/files" &&
	ok "debian/files records them as automatic" || bad "debian/files"
lintian --pedantic -I -E "$changes" >"$T/lintian-demo" 2>&1 || true
grep -q '^[EW]: ' "$T/lintian-demo" && bad "lintian on the demo: $(grep '^[EW]: ' "$T/lintian-demo" | head -3)" ||
	ok "the demo's packages, -ehelf ones included: no lintian errors or warnings"
# two packages shipping one file: one -ehelf package carries it
cp -r "$root/tests/fixtures/ehelf-demo" "$T/demo2"
echo "usr/lib/*/libehelfdemo.so.1 usr/lib/ehelf-demo/private" >>"$T/demo2/debian/ehelf-demo.install"
rm -f "$T"/*.deb "$T"/*.changes
if (cd "$T/demo2" && env PATH="$T/dh/usr/bin:$PATH" PERL5LIB="$T/dh/usr/share/perl5" \
	dpkg-buildpackage -b -us -uc -d >"$T/demo2.log" 2>&1); then
	lib=$(field "$T/libehelfdemo1-dbgsym_1.0_amd64.deb" Build-Ids)
	[ ! -e "$T/libehelfdemo1-ehelf_1.0_amd64.deb" ] &&
		field "$T/ehelf-demo-ehelf_1.0_amd64.deb" Build-Ids | words | grep -qx "$lib" &&
		ok "a library in two packages of equal Priority: its eh_elf in the first by name (ehelf-demo-ehelf), no libehelfdemo1-ehelf left" ||
		bad "shared eh_elf: $(ls "$T"/*-ehelf_*.deb)"
else
	bad "dpkg-buildpackage (shared file): $(tail -n 5 "$T/demo2.log")"
fi

finish "packaging tests"
