#!/bin/sh
# Install the Debian 12 packages ehelf needs to build and test.
# Quick when everything is present; otherwise runs apt-get as root (or via
# sudo).  Usage: scripts/install-deps.sh [extra-package...]
set -eu

PACKAGES="
  gcc g++ make pkg-config binutils libc6-dev gdb
  libelf-dev libdw-dev elfutils
  libarchive-dev libsqlite3-dev libssl-dev openssl xxd sqlite3 libunwind-dev zlib1g-dev
  util-linux
  clang libclang-rt-14-dev lld clangd
  dpkg-dev apt ca-certificates bc
  alien rpm zstd libzstd-dev xz-utils
  linux-perf rt-tests heaptrack google-perftools libgoogle-perftools4 hotspot
  nginx wrk debuginfod curl
  libmicrohttpd-dev libdebuginfod-dev libarchive-tools strace python3
  libcurl4-openssl-dev chromium python3-pil poppler-utils
  libnginx-mod-http-perl
  debhelper lintian apt-utils gnupg help2man mmdebstrap
  libc6-dbg procps systemd
  slurm-wlm munge iproute2
"

missing=""
for p in $PACKAGES "$@"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "install-deps: need root to run: apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! $SUDO apt-get install -y --no-install-recommends $missing; then
	$SUDO apt-get update
	$SUDO apt-get install -y --no-install-recommends $missing
fi
