#!/bin/sh
# ehelf-pkg when the package chosen to carry a shared build-ID cannot be
# built, and whether its advice works.  Packages made by the test from a
# real one (zlib1g), sharing its libz build-ID: one with a name Debian
# refuses (sorted first; all of Priority optional: a tie broken by name),
# one whose version has an epoch of 0 (dpkg-deb
# reads 0:1.0 as 1.0), one plain; the build-ID must be carried by a
# package that builds.  Then an eh_elf removed from the store, and one
# replaced by other bytes: ehelf-pkg's advice followed to the letter must
# give the package; so must a .deb replaced by another version.
# Usage: tests/packaging/run-owner-test.sh BUILD
set -eu
build=$(cd "${1:?usage: run-owner-test.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
debs=$("$root/tests/diff/fetch-packages.sh" --debs "$root/tests/diff/packages.txt")
z=$(echo "$debs" | grep /zlib1g_ | head -n 1)
# mk NAME VERSION [DEB]: a copy of DEB (zlib1g) named NAME, of VERSION, in $T/debs
mk() {
	rm -rf "$T/r"
	dpkg-deb -R "${3:-$z}" "$T/r"
	sed -i "s/^Package: .*/Package: $1/; s/^Version: .*/Version: $2/;
		s/^Priority: .*/Priority: optional/" "$T/r/DEBIAN/control"
	dpkg-deb --nocheck --root-owner-group -b "$T/r" "$T/debs/${1}_${2#*:}_amd64.deb" >/dev/null 2>&1
}
carried_by() { # carried_by REPO: the -ehelf packages in REPO's pool holding libz's eh_elf
	for d in $(find "$1/pool" -name '*.deb' | sort); do
		dpkg-deb -c "$d" 2>/dev/null | grep -q "usr/lib/ehelf/.build-id/$bid_dir" &&
			dpkg-deb -f "$d" Package
	done | paste -sd' '
}
mkdir -p "$T/x"
dpkg-deb -x "$z" "$T/x"
bid=$(readelf -n "$(find "$T/x" -name 'libz.so.1.*' -type f | head -n 1)" | sed -n 's/.*Build ID: //p')
bid_dir=$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).so

echo "== the chosen package cannot be built"
mkdir -p "$T/debs"
mk AAshare 1.0
mk zz-share 1.0
"$batch" --store "$T/s" "$T/debs" >/dev/null 2>&1
st=0
"$pkg" --store "$T/s" --out "$T/repo" >"$T/p1" 2>"$T/e1" || st=$?
[ "$(carried_by "$T/repo")" = zz-share-ehelf ] &&
	ok "a name Debian refuses (AAshare) sorts first: zz-share carries the build-ID" ||
	bad "carried by '$(carried_by "$T/repo")': $(cat "$T/e1")"
[ "$st" = 0 ] && ! grep -q AAshare "$T/e1" && [ -z "$(find "$T/repo/pool" -name 'AAshare*')" ] &&
	ok "AAshare, left with no eh_elf of its own: no package, no error (status 0)" ||
	bad "AAshare: status $st, $(cat "$T/e1")"
rm "$T/debs"/AAshare_*
mk ab-epoch 0:1.0
rm -rf "$T/s" "$T/repo"
"$batch" --store "$T/s" "$T/debs" >/dev/null 2>&1
[ "$(sqlite3 "$T/s/ehelf.sqlite" "SELECT version FROM packages WHERE name = 'ab-epoch'")" = 0:1.0 ] ||
	bad "the database does not record version 0:1.0"
st=0
"$pkg" --store "$T/s" --out "$T/repo" >"$T/p2" 2>"$T/e2" || st=$?
[ "$st" = 0 ] && [ "$(carried_by "$T/repo")" = ab-epoch-ehelf ] &&
	ok "version 0:1.0 (dpkg-deb says 1.0): ab-epoch builds and carries the build-ID" ||
	bad "epoch 0: status $st, carried by '$(carried_by "$T/repo")', $(cat "$T/e2")"

echo "== the advice works"
so="$T/s/.build-id/$bid_dir"
rm "$so"
st=0
"$pkg" --store "$T/s" --out "$T/repo2" >/dev/null 2>"$T/e3" || st=$?
[ "$st" = 1 ] && grep -q "is missing from the store (run ehelf-batch again" "$T/e3" ||
	bad "a missing eh_elf: status $st, $(cat "$T/e3")"
"$batch" --store "$T/s" "$T/debs" >"$T/b3" 2>&1 || bad "ehelf-batch again: $(cat "$T/b3")"
st=0
"$pkg" --store "$T/s" --out "$T/repo2" >/dev/null 2>"$T/e4" || st=$?
[ "$st" = 0 ] && [ "$(carried_by "$T/repo2")" = ab-epoch-ehelf ] &&
	ok "an eh_elf removed from the store: 'run ehelf-batch again', done, gives the package" ||
	bad "after the advice: status $st, $(cat "$T/e4")"
cp "$T/s/ehelf.sqlite" "$T/other.sqlite"
head -c 4096 /dev/urandom >"$so"
st=0
"$pkg" --store "$T/s" --out "$T/repo3" >/dev/null 2>"$T/e5" || st=$?
[ "$st" = 1 ] && grep -q "is not the eh_elf the database records .*: remove it and run ehelf-batch again" "$T/e5" ||
	bad "other bytes: status $st, $(cat "$T/e5")"
rm "$so"
"$batch" --store "$T/s" "$T/debs" >/dev/null 2>&1
st=0
"$pkg" --store "$T/s" --out "$T/repo3" >/dev/null 2>"$T/e6" || st=$?
[ "$st" = 0 ] && [ "$(carried_by "$T/repo3")" = ab-epoch-ehelf ] &&
	ok "an eh_elf of other bytes: 'remove it and run ehelf-batch again', done, gives the package" ||
	bad "after the second advice: status $st, $(cat "$T/e6")"
# a .deb (of a package sharing nothing) replaced by another version under
# the same file name
mk solo 1.0 "$(echo "$debs" | grep /libgcc-s1_ | head -n 1)"
"$batch" --store "$T/s" "$T/debs" >/dev/null 2>&1
mk solo 1.1 "$(echo "$debs" | grep /libgcc-s1_ | head -n 1)"
mv "$T/debs/solo_1.1_amd64.deb" "$T/debs/solo_1.0_amd64.deb"
st=0
"$pkg" --store "$T/s" --out "$T/repo4" >/dev/null 2>"$T/e7" || st=$?
[ "$st" = 1 ] && grep -q "now holds solo 1.1 amd64, not solo 1.0 amd64: run ehelf-batch again" "$T/e7" ||
	bad "a replaced .deb: status $st, $(cat "$T/e7")"
"$batch" --store "$T/s" "$T/debs" >/dev/null 2>&1
st=0
"$pkg" --store "$T/s" --out "$T/repo4" >/dev/null 2>"$T/e8" || st=$?
v=$(for d in $(find "$T/repo4/pool" -name 'solo-ehelf_*.deb'); do dpkg-deb -f "$d" Version; done)
[ "$st" = 0 ] && [ "$v" = 1.1 ] &&
	ok "a .deb replaced by another version: 'run ehelf-batch again', done, gives the new one alone" ||
	bad "after the advice for a replaced .deb: status $st, versions '$v', $(cat "$T/e8")"
finish "ehelf-pkg owner tests"
