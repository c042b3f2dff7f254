#!/bin/sh
# prepare.sh DIR - libunwind 1.6.2's source from Debian's source package,
# configured as Debian builds it and built with its test programs (not run),
# in DIR/libunwind-<version>.  Quick when DIR/.built names the version
# installed (libunwind8).  Adds a deb-src entry for the archive of
# /etc/apt/sources.list.d/debian.sources when apt-get source needs one, and
# the build dependencies (apt-get build-dep).  Needs root for those two.
set -eu
dir=$1
ver=$(dpkg-query -W -f='${Version}' libunwind8)
[ -f "$dir/.built" ] && [ "$(cat "$dir/.built")" = "$ver" ] && exit 0
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

src_list=/etc/apt/sources.list.d/ehelf-deb-src.sources
have_src() { apt-get source --print-uris "libunwind=$ver" >/dev/null 2>&1; }
if ! have_src; then
	echo "prepare: adding $src_list (deb-src of debian.sources)" >&2
	sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$src_list"
	apt-get update -q >&2
fi
cd "$dir"
rm -rf libunwind-*/
apt-get source -q "libunwind=$ver" >&2
tree=$(ls -d libunwind-*/ | head -n1)
cd "$tree"
if ! dpkg-checkbuilddeps >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q "libunwind=$ver" >&2
fi
# configured as debian/rules does (its options, its hardening flags)
[ -x configure ] || autoreconf -fi >&2
./configure --enable-cxx-exceptions --disable-zlibdebuginfo \
	CFLAGS="-g -O2 -Wformat" CXXFLAGS="-g -O2 -Wformat" >&2
make -j2 >&2
# the tests' programs, built and not run (TESTS empty)
make -j2 -C tests check TESTS= >&2
echo "$ver" >"$dir/.built"
