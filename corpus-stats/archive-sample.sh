#!/bin/bash
# archive-sample.sh - eh_elfs and statistics of a real Debian 12 archive
# sample: the amd64 packages frozen in corpus-stats/sample-packages.txt
# (the dependency closure of sample-seeds.txt, about 2,300 packages and
# 1.9 GB of .debs).
#
#   1. download: their .debs with `apt-get download` from this machine's
#      apt lists (bookworm, bookworm-updates, bookworm-security main) into
#      CACHE/debs, resumable (a .deb present with its size from the index,
#      that `dpkg-deb -I` reads, is kept), and CACHE/manifest.txt: the exact
#      name_version_arch, size and SHA-256 of each .deb (point releases
#      move: the list names packages, the manifest says what was read);
#   2. build: `ehelf-batch --store OUT/store -j N` over the manifest's .debs
#      (incremental: a second run reads only what is new);
#   3. report: `ehelf-stats` on OUT/store/ehelf.sqlite into OUT/report.txt,
#      OUT/report.html, OUT/report.json and OUT/csv/.
#
# Usage: corpus-stats/archive-sample.sh [OPTIONS]
#   --cache DIR      downloads (default ${XDG_CACHE_HOME:-$HOME/.cache}/ehelf/archive-sample;
#                    outside build/, so make clean keeps it)
#   --out DIR        store and reports (default build/archive-sample)
#   --build DIR      where ehelf-batch and ehelf-stats are (default build)
#   -j N             ehelf-batch's workers (default: the number of cores)
#   --download-only  step 1 only
#   --no-download    steps 2 and 3 from the cache as its manifest says
#   --no-report      steps 1 and 2 only (no ehelf-stats)
#   --refresh        regenerate sample-packages.txt from sample-seeds.txt
#                    and this machine's apt lists (apt-cache depends), then
#                    stop; review and commit the list
#   --list FILE      the package list (default corpus-stats/sample-packages.txt)
#   -h, --help       this text
# Exit status: 0 done; 1 a step failed (ehelf-batch's 1, some package
# unreadable, is reported after the report is written); 2 bad usage.
set -euo pipefail

me=archive-sample.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
seeds=$here/sample-seeds.txt
list=$here/sample-packages.txt
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ehelf/archive-sample
out=$top/build/archive-sample
build=$top/build
jobs=$(nproc)
do_download=1 do_batch=1 do_report=1 refresh=0
# names per apt-get call
BATCH=50

usage() { sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "$me: $*" >&2; exit 1; }
usage_error() { echo "$me: $*" >&2; echo "  (see $0 --help)" >&2; exit 2; }
need_arg() { [ $# -ge 2 ] && [ -n "$2" ] || usage_error "$1 needs an argument"; }

while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	--cache) need_arg "$@"; cache=$2; shift 2 ;;
	--out) need_arg "$@"; out=$2; shift 2 ;;
	--build) need_arg "$@"; build=$2; shift 2 ;;
	--list) need_arg "$@"; list=$2; shift 2 ;;
	-j) need_arg "$@"; jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	--download-only) do_batch=0; do_report=0; shift ;;
	--no-download) do_download=0; shift ;;
	--no-report) do_report=0; shift ;;
	--refresh) refresh=1; shift ;;
	*) usage_error "unknown argument '$1'" ;;
	esac
done
case "$jobs" in '' | *[!0-9]* | 0) usage_error "-j wants a positive number, not '$jobs'" ;; esac
[ "$do_download" = 1 ] || [ "$do_batch" = 1 ] ||
	usage_error "--download-only and --no-download: nothing left to do"
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
# the package names of a list: first word of each line, comments and blank
# lines left out
names_of() { sed 's/#.*//' "$1" | awk 'NF { print $1 }'; }
# apt_lists: "codename (Version ..., Date ...)" of the Debian suites in this
# machine's apt lists
apt_lists() {
	local f
	for f in /var/lib/apt/lists/*_dists_bookworm*_InRelease; do
		[ -e "$f" ] || continue
		sed -n '/^-----BEGIN PGP SIGNATURE/q; s/^\(Codename\|Version\|Date\): //p' "$f" |
			paste -sd'|' | awk -F'|' '{ printf "%s (Version %s, %s)\n", $2, $1, $3 }'
	done
}
# uris_of NAME...: print_uris, with one apt-get update if the lists lack
# a name; a name still unknown is named in the error
uris_of() {
	local tmp names_file
	tmp=$(mktemp -d)
	names_file=$tmp/names
	printf '%s\n' "$@" >"$names_file"
	if ! xargs -a "$names_file" -n 500 sh -c 'cd "$1" && shift && apt-get download --print-uris "$@"' _ "$tmp" \
		>"$tmp/raw" 2>"$tmp/err"; then
		echo "$me: apt does not know some of the packages; apt-get update, then again" >&2
		if [ "$(id -u)" = 0 ]; then apt-get update >/dev/null; else sudo apt-get update >/dev/null; fi
		if ! xargs -a "$names_file" -n 500 sh -c 'cd "$1" && shift && apt-get download --print-uris "$@"' _ "$tmp" \
			>"$tmp/raw" 2>"$tmp/err"; then
			local bad="" n
			while read -r n; do
				(cd "$tmp" && apt-get download --print-uris "$n" >/dev/null 2>&1) || bad="$bad $n"
			done <"$names_file"
			rm -rf "$tmp"
			die "not in this machine's apt lists (an older point release's list?):$bad
  regenerate the list with --refresh, or remove them from $list"
		fi
	fi
	sed "s/^'\([^']*\)' \([^ ]*\) \([0-9]*\) SHA256:\([0-9a-f]*\)$/\1 \2 \3 \4/" "$tmp/raw"
	rm -rf "$tmp"
}

# ---- --refresh: the list from the seeds ------------------------------------
if [ "$refresh" = 1 ]; then
	[ -f "$seeds" ] || die "$seeds: missing"
	mapfile -t seed_names < <(names_of "$seeds")
	[ "${#seed_names[@]}" -gt 0 ] || die "$seeds: no package names"
	[ -n "$(apt_lists)" ] || die "no Debian bookworm apt lists in /var/lib/apt/lists: apt-get update first"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	echo "$me: the closure of ${#seed_names[@]} seeds (apt-cache depends --recurse)" >&2
	# every seed a package of the lists (a virtual name or a typo is refused)
	apt-cache show --no-all-versions "${seed_names[@]}" 2>/dev/null |
		sed -n 's/^Package: //p' | LC_ALL=C sort -u >"$tmp/seeds.found" || true
	unknown=$(printf '%s\n' "${seed_names[@]}" | LC_ALL=C sort -u | LC_ALL=C comm -23 - "$tmp/seeds.found")
	[ -z "$unknown" ] || die "seeds of $seeds that are no package of this machine's apt lists:" $unknown
	apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances "${seed_names[@]}" >"$tmp/depends"
	# package lines are unindented; <name> is a virtual package (its
	# providers are listed, and recursed into, as dependencies)
	grep -v '^[[:space:]]' "$tmp/depends" | grep -v '^<' | LC_ALL=C sort -u >"$tmp/closure"
	# the candidate's Architecture of each (amd64 or all)
	xargs -a "$tmp/closure" -n 500 apt-cache show --no-all-versions 2>/dev/null |
		awk '/^Package:/ { p = $2 } /^Architecture:/ { a = $2 }
		     /^$/ { if (p != "") print p, a; p = "" }' >"$tmp/arch"
	awk '$2 == "amd64" { print $1 }' "$tmp/arch" | LC_ALL=C sort -u >"$tmp/amd64"
	nall=$(awk '$2 == "all"' "$tmp/arch" | wc -l)
	nother=$(awk '$2 != "all" && $2 != "amd64"' "$tmp/arch" | wc -l)
	n=$(wc -l <"$tmp/amd64")
	[ "$n" -ge 2000 ] || die "the closure has $n amd64 packages, fewer than 2,000: add seeds to $seeds"
	mapfile -t amd64 <"$tmp/amd64"
	uris_of "${amd64[@]}" >"$tmp/uris"
	[ "$(wc -l <"$tmp/uris")" = "$n" ] || die "apt-get download --print-uris gave $(wc -l <"$tmp/uris") files for $n packages"
	# every one from Debian's archive (the lists of other origins, if any,
	# are not the sample's)
	nondebian=$(awk '$1 !~ /\/debian(-security)?\/pool\/(updates\/)?main\//' "$tmp/uris" | head -n 3)
	[ -z "$nondebian" ] || die "candidates outside Debian's main pool:
$nondebian"
	bytes=$(awk '{ s += $3 } END { printf "%d", s }' "$tmp/uris")
	{
		echo "# The Debian 12 archive sample of corpus-stats/archive-sample.sh: $n binary"
		echo "# packages of Architecture amd64, one name a line; $(mb "$bytes") of .debs"
		echo "# ($bytes bytes) when it was made."
		echo "#"
		echo "# Made $(date -u +%Y-%m-%d) by corpus-stats/archive-sample.sh --refresh on Debian $(cat /etc/debian_version),"
		echo "# from the apt lists (main) of:"
		apt_lists | sed 's/^/#   /'
		echo "# It is the dependency closure of the ${#seed_names[@]} seeds of sample-seeds.txt:"
		echo "#   apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts"
		echo "#     --no-breaks --no-replaces --no-enhances SEEDS"
		echo "# (Depends and Pre-Depends; apt-cache follows every alternative of an 'a | b'"
		echo "# and every provider of a virtual package, so the closure is wider than what"
		echo "# apt would install), keeping the real packages whose candidate version is"
		echo "# Architecture: amd64 ($nall of Architecture: all and $nother of other"
		echo "# architectures left out; virtual names are not packages)."
		echo "# Versions are not frozen: point releases move.  archive-sample.sh records the"
		echo "# name_version_arch, size and SHA-256 of each .deb it downloads in the"
		echo "# manifest beside them (CACHE/manifest.txt, copied to OUT/manifest.txt)."
		cat "$tmp/amd64"
	} >"$tmp/list"
	if [ -f "$list" ]; then
		added=$(LC_ALL=C comm -13 <(names_of "$list" | LC_ALL=C sort) "$tmp/amd64" | wc -l)
		removed=$(LC_ALL=C comm -23 <(names_of "$list" | LC_ALL=C sort) "$tmp/amd64" | wc -l)
		echo "$me: against the previous list: $added added, $removed removed" >&2
	fi
	mv "$tmp/list" "$list"
	echo "$me: wrote $list: $n amd64 packages, $(mb "$bytes") of .debs"
	exit 0
fi

# ---- the steps ---------------------------------------------------------------
[ -f "$list" ] || die "$list: missing (--refresh makes it)"
mapfile -t pkgs < <(names_of "$list")
[ "${#pkgs[@]}" -gt 0 ] || die "$list: no package names"
mkdir -p "$cache/debs" || die "cannot create $cache/debs"
cache=$(cd "$cache" && pwd)
manifest=$cache/manifest.txt
exec 9>"$cache/.lock"
flock -n 9 || die "$cache is in use by another archive-sample.sh (it holds $cache/.lock)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
tty=0
[ -t 2 ] && tty=1
hms() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

if [ "$do_batch" = 1 ]; then
	batch=$build/bin/ehelf-batch
	stats=$build/bin/ehelf-stats
	[ -x "$batch" ] || die "$batch missing: run make (in $top) first, or give --build DIR"
	if [ "$do_report" = 1 ] && [ ! -x "$stats" ]; then
		die "$stats missing: ehelf-stats (corpus-stats/ehelf_stats.c) is built by make all once it is in;
  --no-report stops after the store, or give --build DIR where it is"
	fi
fi

# ---- 1. download -------------------------------------------------------------
if [ "$do_download" = 1 ]; then
	command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
		die "apt-get and dpkg-deb are needed (a Debian machine)"
	echo "== download: ${#pkgs[@]} packages of $(basename "$list") into $cache/debs"
	uris_of "${pkgs[@]}" >"$tmp/uris"
	[ "$(wc -l <"$tmp/uris")" = "${#pkgs[@]}" ] ||
		die "apt-get download --print-uris gave $(wc -l <"$tmp/uris") files for ${#pkgs[@]} packages"
	total=$(awk '{ s += $3 } END { printf "%d", s }' "$tmp/uris")
	# checked before: "FILE SIZE MTIME" of .debs dpkg-deb -I read
	verified=$cache/verified.txt
	touch "$verified"
	declare -A ver=() st=()
	while read -r f rest; do ver[$f]=$rest; done <"$verified"
	# stat_all: "SIZE MTIME" of every .deb of the cache, in st[FILE]
	stat_all() {
		st=()
		local f rest
		while read -r f rest; do st[$f]=$rest; done < <(cd "$cache/debs" &&
			find . -maxdepth 1 -name '*.deb' -type f -printf '%f %s %T@\n' |
			sed 's/\.[0-9]*$//')
	}
	# deb_ok FILE SIZE: present, complete, readable (as of stat_all)
	deb_ok() {
		local s=${st[$1]:-}
		[ -n "$s" ] && [ "${s% *}" = "$2" ] || return 1
		[ "${ver[$1]:-}" = "$s" ] && return 0
		dpkg-deb -I "$cache/debs/$1" >/dev/null 2>&1 || return 1
		ver[$1]=$s
		echo "$1 $s" >>"$verified"
	}
	stat_all
	: >"$tmp/need"
	have=0 have_bytes=0
	while read -r url file size sha; do
		if deb_ok "$file" "$size"; then
			have=$((have + 1)) have_bytes=$((have_bytes + size))
		else
			rm -f "$cache/debs/$file"
			echo "$url $file $size $sha" >>"$tmp/need"
		fi
	done <"$tmp/uris"
	nneed=$(wc -l <"$tmp/need")
	echo "  $have already in the cache ($(mb "$have_bytes")), $nneed to download ($(mb $((total - have_bytes))))"
	t0=$(date +%s)
	if [ "$nneed" -gt 0 ]; then
		# name=version (the epoch as apt writes it in file names, %3a)
		awk '{ f = $2; sub(/\.deb$/, "", f); split(f, p, "_"); v = p[2]; gsub(/%3a/, ":", v)
		       print p[1] "=" v }' "$tmp/need" >"$tmp/need.names"
		done_n=0 done_bytes=0 failed_batches=0
		progress() {
			local now el rate eta
			now=$(date +%s) el=$((now - t0))
			rate=$((el > 0 ? done_bytes / el : 0))
			eta=$((rate > 0 ? (need_bytes - done_bytes) / rate : 0))
			printf '  %d/%d .debs, %s of %s, %s/s, %s elapsed, ETA %s' "$done_n" "$nneed" \
				"$(mb "$done_bytes")" "$(mb "$need_bytes")" "$(mb "$rate")" "$(hms "$el")" "$(hms "$eta")"
		}
		need_bytes=$(awk '{ s += $3 } END { printf "%d", s }' "$tmp/need")
		split -l "$BATCH" "$tmp/need.names" "$tmp/batch."
		split -l "$BATCH" "$tmp/need" "$tmp/bsize."
		last_line=0
		for b in "$tmp"/batch.*; do
			mapfile -t names <"$b"
			# as root apt warns that it downloads unsandboxed (the cache is
			# not _apt's): harmless; its messages go to the log
			(cd "$cache/debs" && apt-get download -q "${names[@]}") >>"$cache/download.log" 2>&1 ||
				failed_batches=$((failed_batches + 1))
			done_n=$((done_n + ${#names[@]}))
			done_bytes=$((done_bytes + $(awk '{ s += $3 } END { printf "%d", s }' "$tmp/bsize.${b##*.}")))
			if [ "$tty" = 1 ]; then
				printf '\r%s ' "$(progress)" >&2
			elif [ $((done_n * 10 / nneed)) -gt "$last_line" ]; then
				last_line=$((done_n * 10 / nneed))
				progress >&2
				echo >&2
			fi
		done
		[ "$tty" = 1 ] && echo >&2
		echo "  downloaded in $(hms $(($(date +%s) - t0)))$([ "$failed_batches" = 0 ] ||
			echo ", $failed_batches apt-get calls failed: those packages again, one by one")"
	fi
	# everything there, complete; a package missing is tried once more alone
	missing=""
	stat_all
	while read -r url file size sha; do
		deb_ok "$file" "$size" && continue
		rm -f "$cache/debs/$file"
		name=${file%%_*} v=${file#*_} v=${v%_*} v=${v//%3a/:}
		(cd "$cache/debs" && apt-get download -q "$name=$v") >>"$cache/download.log" 2>&1 || true
		stat_all
		deb_ok "$file" "$size" || missing="$missing $file"
	done <"$tmp/uris"
	if [ -n "$missing" ]; then
		echo "$me: the last lines of $cache/download.log:" >&2
		grep -v 'unsandboxed' "$cache/download.log" | tail -n 5 >&2
		die "could not download:$missing"
	fi
	# the manifest: what exactly was downloaded
	{
		echo "# archive-sample.sh manifest: the .debs of $(basename "$list") downloaded into"
		echo "# $cache/debs, $(date -u '+%Y-%m-%d %H:%M UTC'), from the apt lists of:"
		apt_lists | sed 's/^/#   /'
		echo "# list: $list (sha256 $(sha256sum <"$list" | cut -c1-16)...)"
		echo "# $(wc -l <"$tmp/uris") packages, $total bytes ($(mb "$total"))"
		echo "# name_version_arch size sha256 file"
		while read -r url file size sha; do
			f=${file%.deb}
			echo "${f//%3a/:} $size $sha $file"
		done <"$tmp/uris" | LC_ALL=C sort
	} >"$tmp/manifest"
	mv "$tmp/manifest" "$manifest"
	echo "  manifest: $manifest"
	# .debs of the cache the manifest does not name (older versions, from an
	# earlier run against older lists) are left there, and not read
	stale=$(comm -23 <(cd "$cache/debs" && ls -- *.deb 2>/dev/null | LC_ALL=C sort) \
		<(awk '!/^#/ { print $4 }' "$manifest" | LC_ALL=C sort) | wc -l)
	[ "$stale" = 0 ] || echo "  ($stale other .debs in the cache, not in the manifest: not read)"
fi
[ "$do_batch" = 1 ] || { echo "download only: done"; exit 0; }

# ---- 2. build ----------------------------------------------------------------
[ -f "$manifest" ] || die "$manifest: missing (a run without --no-download makes it)"
mapfile -t debs < <(awk -v d="$cache/debs" '!/^#/ { print d "/" $4 }' "$manifest")
[ "${#debs[@]}" -gt 0 ] || die "$manifest: no .debs"
for d in "${debs[@]}"; do
	[ -f "$d" ] || die "$d: in the manifest, not in the cache (run without --no-download)"
done
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
cp "$manifest" "$out/manifest.txt"
echo "== ehelf-batch: ${#debs[@]} packages into $out/store (-j $jobs)"
t0=$(date +%s)
batch_status=0
"$batch" --store "$out/store" -j "$jobs" "${debs[@]}" || batch_status=$?
case "$batch_status" in
0) ;;
1) echo "$me: ehelf-batch: some packages could not be read (packages.status = 'failed' in the database); going on" >&2 ;;
3) echo "$me: ehelf-batch: some ELF files could not be compiled (files.status = 'failed' in the database); going on" >&2 ;;
*) die "ehelf-batch failed with status $batch_status" ;;
esac
echo "  ehelf-batch took $(hms $(($(date +%s) - t0)))"

# ---- 3. report ---------------------------------------------------------------
db=$out/store/ehelf.sqlite
if [ "$do_report" = 1 ]; then
	echo "== ehelf-stats"
	rm -rf "$out/csv"
	mkdir -p "$out/csv"
	"$stats" --db "$db" --html "$out/report.html" --json --csv "$out/csv" >"$out/report.json" ||
		die "ehelf-stats (--html --json --csv) failed"
	"$stats" --db "$db" >"$out/report.txt" || die "ehelf-stats (text report) failed"
fi

echo "== archive sample: done"
echo "  packages:  $out/manifest.txt (${#debs[@]} .debs, from $cache/debs)"
echo "  store:     $out/store"
echo "  database:  $db"
if [ "$do_report" = 1 ]; then
	echo "  report:    $out/report.txt"
	echo "  html:      $out/report.html"
	echo "  json:      $out/report.json"
	echo "  csv:       $out/csv/"
fi
exit "$batch_status"
