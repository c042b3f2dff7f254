#!/bin/sh
# -ehelf packages installed with apt into a minimal Debian root, where a
# program unwinds with them:
#  1. a Debian root (mmdebstrap --variant=apt of this machine's suite),
#     made once and cached as a tarball with the .debs it installed;
#  2. ehelf-batch and ehelf-pkg on the root's own libc6, libgcc-s1 and
#     zlib1g (the versions installed there, so Depends: (= VERSION) holds),
#     the repository signed by a key made for the test and served by a
#     static HTTP server;
#  3. in the root: apt-get update with signed-by=, apt-get install of the
#     -ehelf packages: their eh_elfs under /usr/lib/ehelf/.build-id, as
#     their Build-Ids say; unwind-report (libehelf's public API) reports
#     the eh_elf path for libc and unwinds libc's frames with it, where
#     before it had none and used DWARF; apt-get remove removes them and
#     the program is back to DWARF.
# Needs root (a chroot); the first run downloads about 40 MB.
#
# Usage: tests/packaging/run-apt-install-test.sh BUILD
# Cache: $EHELF_TEST_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/ehelf-tests)
set -eu
case ${1:-} in -h | --help)
	sed -n '2,/^set -eu$/{/^#/s/^# \{0,1\}//p}' "$0"
	exit 0 ;;
esac
build=$(cd "${1:?usage: run-apt-install-test.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
[ "$(id -u)" = 0 ] || { echo "run-apt-install-test: needs root (chroot)" >&2; exit 1; }

cache=${EHELF_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ehelf-tests}/debian-root
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:?}")
mirror=http://deb.debian.org/debian
tarball=$cache/$suite-apt.tar
R=$T/root

echo "== a minimal Debian root ($suite)"
if [ ! -s "$tarball" ] || [ ! -d "$cache/$suite-debs" ]; then
	echo "  making it with mmdebstrap (cached in $cache)"
	rm -rf "$cache/$suite-debs" "$tarball"
	mkdir -p "$cache/$suite-debs"
	# the packages it installs are kept (essential/unlink skipped, then
	# copied out before the cleanup) for the -ehelf packages of the same
	# versions
	mmdebstrap --variant=apt --skip=essential/unlink \
		--customize-hook="sync-out /var/cache/apt/archives $cache/$suite-debs" \
		"$suite" "$cache/new.tar" "$mirror" >"$T/mmdebstrap.log" 2>&1 || {
		tail -n 20 "$T/mmdebstrap.log" >&2
		echo "mmdebstrap failed" >&2
		rm -rf "$cache/new.tar" "$cache/$suite-debs"
		exit 1
	}
	mv "$cache/new.tar" "$tarball"
fi
mkdir -p "$R"
tar -C "$R" -xf "$tarball"
ok "root unpacked ($(du -sm "$R" | cut -f1) MiB)"
# run COMMAND... in the root, with /proc, in a mount namespace of its own
# (nothing stays mounted when it ends)
in_root() {
	unshare --mount --propagation private -- sh -c \
		'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$R" "$@"
}

echo "== the root's own packages into -ehelf packages"
mkdir -p "$T/debs"
for p in libc6 libgcc-s1 zlib1g; do
	v=$(in_root dpkg-query -W -f '${Version}' "$p")
	f=$(ls "$cache/$suite-debs/${p}_"*.deb | head -n 1)
	[ "$(dpkg-deb -f "$f" Version)" = "$v" ] || { bad "$p: the cached .deb is not $v"; continue; }
	cp "$f" "$T/debs/"
done
"$batch" --store "$T/s" --json "$T/debs" >/dev/null
new_key "$T/gnupg"
GNUPGHOME="$T/gnupg" "$pkg" --store "$T/s" --out "$T/repo" --gpg-key "$KEY" --json >"$T/pkg.json"
n=$(find "$T/repo/pool" -name '*-ehelf_*.deb' | wc -l)
[ "$n" = 3 ] && ok "3 -ehelf packages: $(cd "$T/repo" && find pool -name '*.deb' -printf '%f ')" ||
	bad "ehelf-pkg: $(cat "$T/pkg.json")"
serve "$T/repo"

echo "== unwind-report in the root, before"
mkdir -p "$R/opt/ehelf-test/lib"
cp "$build/tests/packaging/unwind-report" "$R/opt/ehelf-test/"
cp -L "$build/lib/libehelf.so.0" "$R/opt/ehelf-test/lib/"
# libehelf's libraries from this machine, but glibc's: the root's own
ldd "$build/lib/libehelf.so.0" | awk '$3 ~ /^\// { print $3 }' |
	grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64)\.so' |
	while read -r l; do cp -L "$l" "$R/opt/ehelf-test/lib/"; done
report() { # report FILE: unwind-report's output in the root
	in_root env LD_LIBRARY_PATH=/opt/ehelf-test/lib /opt/ehelf-test/unwind-report >"$1" 2>&1
}
libc_line() { grep '^module [^ ]*/libc\.so\.6 ' "$1"; }
if report "$T/before"; then
	libc_line "$T/before" | grep -q ' none$' &&
		grep -q '^step [^ ]*/libc\.so\.6 dwarf$' "$T/before" &&
		! grep -q ' eh_elf' "$T/before" &&
		ok "no eh_elf anywhere; libc's frames unwound with DWARF" ||
		bad "before: $(cat "$T/before")"
else
	bad "unwind-report failed in the root: $(cat "$T/before")"
fi

echo "== apt-get update, install"
gpg --homedir "$T/gnupg" --batch --export "$KEY" >"$R/usr/share/keyrings/ehelf-test.gpg"
: >"$R/etc/apt/sources.list"
rm -f "$R"/etc/apt/sources.list.d/*
echo "deb [signed-by=/usr/share/keyrings/ehelf-test.gpg] http://127.0.0.1:$PORT/ ehelf main" \
	>"$R/etc/apt/sources.list.d/ehelf.list"
export DEBIAN_FRONTEND=noninteractive
in_root apt-get update >"$T/update.log" 2>&1 && ok "apt-get update (signed-by=)" ||
	bad "apt-get update: $(tail -n 5 "$T/update.log")"
if in_root apt-get install -y libc6-ehelf libgcc-s1-ehelf zlib1g-ehelf >"$T/install.log" 2>&1; then
	ok "apt-get install libc6-ehelf libgcc-s1-ehelf zlib1g-ehelf"
else
	bad "apt-get install: $(tail -n 5 "$T/install.log")"
fi
missing=0
for p in libc6 libgcc-s1 zlib1g; do
	for id in $(in_root dpkg-query -W -f '${Build-Ids}' "$p-ehelf"); do
		f=$R/usr/lib/ehelf/.build-id/${id%"${id#??}"}/${id#??}.so
		[ -f "$f" ] && [ "$(stat -c %U:%G:%a "$f")" = root:root:644 ] || missing=$((missing + 1))
	done
done
total=$(find "$R/usr/lib/ehelf/.build-id" -name '*.so' | wc -l)
[ "$missing" = 0 ] && [ "$total" -gt 0 ] &&
	ok "$total eh_elfs under /usr/lib/ehelf/.build-id, root:root 0644, as the Build-Ids say" ||
	bad "$missing eh_elfs missing"

echo "== unwind-report in the root, with the packages"
libc_id=$(libc_line "$T/before" | awk '{ print $3 }')
if report "$T/after"; then
	libc_line "$T/after" | grep -q " eh_elf /usr/lib/ehelf/.build-id/${libc_id%"${libc_id#??}"}/${libc_id#??}.so\$" &&
		ok "libehelf found libc's eh_elf: $(libc_line "$T/after" | awk '{ print $5 }')" ||
		bad "after: $(libc_line "$T/after")"
	grep -q '^step [^ ]*/libc\.so\.6 eh_elf$' "$T/after" &&
		! grep -q '^step [^ ]*/libc\.so\.6 dwarf$' "$T/after" &&
		ok "libc's frames unwound with its eh_elf ($(grep -c '^step [^ ]*/libc\.so\.6 eh_elf$' "$T/after") steps)" ||
		bad "after: $(grep '^step' "$T/after")"
else
	bad "unwind-report failed: $(cat "$T/after")"
fi

echo "== apt-get remove"
in_root apt-get remove -y libc6-ehelf libgcc-s1-ehelf zlib1g-ehelf >"$T/remove.log" 2>&1 &&
	ok "apt-get remove" || bad "apt-get remove: $(tail -n 5 "$T/remove.log")"
[ ! -e "$R/usr/lib/ehelf" ] || [ -z "$(find "$R/usr/lib/ehelf" -type f)" ] &&
	ok "no eh_elf left under /usr/lib/ehelf" || bad "left: $(find "$R/usr/lib/ehelf" -type f | head -3)"
report "$T/removed" || true
libc_line "$T/removed" | grep -q ' none$' && grep -q '^step [^ ]*/libc\.so\.6 dwarf$' "$T/removed" &&
	ok "unwind-report: back to DWARF for libc" || bad "removed: $(cat "$T/removed")"

finish "apt install test"
