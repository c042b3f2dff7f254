#!/bin/sh
# Build the project's own Debian packages, ehelf-compile and dh-ehelf
# (dh_ehelf and the debhelper sequence `ehelf`), with dpkg-buildpackage
# from packaging/debian/, into OUTDIR (`make deb`: build/debs).
#
# The source tree is copied (without build/ and .git) into a temporary
# ehelf-VERSION directory (outside build/, whose dependency files the
# Makefile reads) with packaging/debian/ as its debian/: the packaging
# lives in packaging/ so that the repository's root stays the project's.
# Binary packages only (-b), unsigned (-us -uc); the log is OUTDIR/build.log.
#
# Usage: packaging/build-debs.sh OUTDIR
set -eu
case ${1:-} in -h | --help)
	sed -n '2,/^set -eu$/{/^#/s/^# \{0,1\}//p}' "$0"
	exit 0 ;;
esac
out=${1:?usage: build-debs.sh OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(dpkg-parsechangelog -l "$root/packaging/debian/changelog" -S Version)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
src=$tmp/ehelf-$version
mkdir -p "$src"
(cd "$root" && tar --exclude=./build --exclude=./.git -cf - .) | (cd "$src" && tar -xf -)
rm -rf "$src/debian"
cp -r "$root/packaging/debian" "$src/debian"
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
echo "build-debs: dpkg-buildpackage -b in $src" >&2
if ! (cd "$src" && dpkg-buildpackage -b -us -uc >"$out/build.log" 2>&1); then
	tail -n 30 "$out/build.log" >&2
	echo "build-debs: dpkg-buildpackage failed; the whole log is $out/build.log" >&2
	exit 1
fi
mv "$tmp"/*.deb "$tmp"/*.changes "$tmp"/*.buildinfo "$out/"
ls "$out"/*.deb
