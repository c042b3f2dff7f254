#!/bin/bash
# Download the .deb files named in a package list with `apt-get download`
# into a cache, unpack each once, and print the paths of their regular
# files (ELF or not: cfi-diff skips what is not an x86_64 ELF).
#
# Usage: fetch-packages.sh [--debs] LIST
#   --debs: print the paths of the .deb files instead of their contents
# Cache: $EHELF_TEST_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/ehelf-tests)
# bash for pipefail (dash has none): a package missing or not unpacked in
# the loop piped into sort fails the script, not only the loop
set -euo pipefail
debs_only=0
if [ "${1:-}" = --debs ]; then
	debs_only=1
	shift
fi
list=${1:?usage: fetch-packages.sh [--debs] LIST}
cache=${EHELF_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ehelf-tests}
debs=$cache/debs
mkdir -p "$debs" "$cache/unpacked"

pkgs=$(grep -v '^[[:space:]]*#' "$list" | grep -v '^[[:space:]]*$')
need=""
for p in $pkgs; do
	set -- "$debs/${p}"_*.deb
	[ -e "$1" ] || need="$need $p"
done
if [ -n "$need" ]; then
	echo "fetch-packages: downloading:$need" >&2
	# shellcheck disable=SC2086
	if ! (cd "$debs" && apt-get download $need >/dev/null 2>&1); then
		# a fresh machine may not have package lists yet
		if [ "$(id -u)" -eq 0 ]; then
			apt-get update >/dev/null
		else
			sudo apt-get update >/dev/null
		fi
		# shellcheck disable=SC2086
		(cd "$debs" && apt-get download $need) >&2 || {
			echo "fetch-packages: apt-get download failed for:$need" >&2
			exit 1
		}
	fi
fi
for p in $pkgs; do
	for deb in "$debs/${p}"_*.deb; do
		[ -e "$deb" ] || { echo "fetch-packages: $p missing" >&2; exit 1; }
		if [ "$debs_only" = 1 ]; then
			echo "$deb"
			continue
		fi
		dir=$cache/unpacked/$(basename "$deb" .deb)
		if [ ! -e "$dir/.done" ]; then
			rm -rf "$dir"
			mkdir -p "$dir"
			dpkg-deb -x "$deb" "$dir"
			touch "$dir/.done"
		fi
		find "$dir" -type f ! -name .done
	done
done | sort
