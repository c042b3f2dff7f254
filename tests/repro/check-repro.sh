#!/bin/sh
# Reproducible output (Debian's reproducible-builds rule): the same input
# ELF gives the same eh_elf bytes whatever the path, time zone, umask,
# malloc'd memory contents (MALLOC_PERTURB_ fills fresh and freed memory,
# so an uninitialised byte reaching the output shows) and build flavour.
# Usage: tests/repro/check-repro.sh BUILD [FILE...]
set -eu
build=${1:?usage: check-repro.sh BUILD [FILE...]}
shift
[ $# -gt 0 ] || set -- /lib/x86_64-linux-gnu/libc.so.6 /usr/bin/true \
	"$build/fixtures/zoo.so" "$build/fixtures/zoo-debugframe.debug"
# the sanitizer build's ehelf-compile, the other build flavour compared
san=build/san/bin/ehelf-compile
make --no-print-directory -s SANITIZE=1 "$san" >/dev/null ||
	{ echo "check-repro: cannot build $san" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/a" "$tmp/b/deeper"
n=0
for f in "$@"; do
	f=$(readlink -f "$f")
	n=$((n + 1))
	cp "$f" "$tmp/b/deeper/renamed-input"
	(cd "$tmp/a" && MALLOC_PERTURB_=0 TZ=UTC \
		"$OLDPWD/$build/bin/ehelf-compile" "$f" -o one.so)
	(umask 077 && cd "$tmp/b" && MALLOC_PERTURB_=170 TZ=Pacific/Chatham \
		"$OLDPWD/$build/bin/ehelf-compile" deeper/renamed-input -o two.so)
	cmp "$tmp/a/one.so" "$tmp/b/two.so" || {
		echo "check-repro: $f: output depends on the environment" >&2
		exit 1
	}
	"$san" "$f" -o "$tmp/three.so"
	cmp "$tmp/a/one.so" "$tmp/three.so" || {
		echo "check-repro: $f: the sanitizer build's output differs" >&2
		exit 1
	}
done
echo "check-repro: $n inputs, identical eh_elfs across paths, TZ, umask, malloc contents and builds"
