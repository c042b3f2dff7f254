#!/bin/sh
# HTTP benchmark: ehelf-server against elfutils' debuginfod (Debian's), in
# the same run, with wrk on loopback (2 threads, 64 connections, DUR seconds
# a case).  Cases, each server in turn:
#   (a) eh_elfs (ehelf-server) vs the ELFs they were built from
#       (debuginfod, /buildid/HEX/executable), rotating over the same
#       build-IDs;
#   (b) equal response sizes: eh_elfs and source ELFs whose sizes all lie
#       in one band [L, 1.1 L] (the band holding the most of both);
#   (c) 404s: build-IDs neither server knows.
# Then ehelf-server alone under wrk for 60 s, its RSS sampled every 5 s.
# Prints; fails only when something does not work (a server not starting,
# an unexpected status, wrk errors), never on a missed target.
# Usage: bench/server-bench.sh BUILD
set -eu
build=$(cd "${1:?usage: server-bench.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
DUR=8       # seconds of each wrk run in (a)-(c)
RSS_DUR=60  # seconds of the RSS run
NROT=32     # build-IDs rotated over in (a) and (c); (b) takes up to 16
WRK="wrk -t2 -c64 --latency"
umask 022

"$top/scripts/install-deps.sh" wrk debuginfod curl openssl
[ -x "$build/bin/ehelf-server" ] || { echo "server-bench: no $build/bin/ehelf-server" >&2; exit 1; }

T=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do kill -TERM "$p" 2>/dev/null || true; done
	for p in $pids; do wait "$p" 2>/dev/null || true; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
die() {
	echo "server-bench: $*" >&2
	for f in "$T"/*.log; do
		[ -s "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
	done
	exit 1
}

echo "== HTTP: ehelf-server against debuginfod $(debuginfod --version 2>&1 | sed -n '1s/.* //p')" \
	"(wrk, 2 threads, 64 connections, ${DUR} s a case, loopback, $(nproc) cores)"

# ---- inputs: real packages, their store (signed) and their ELF files --------
debs=$("$top/tests/diff/fetch-packages.sh" --debs "$top/tests/diff/packages.txt")
mkdir -p "$T/debs" "$T/src"
for p in coreutils libc6 libstdc++6 zlib1g libgcc-s1 xz-utils libsqlite3-0 sqlite3 \
	libxml2 bash rt-tests libcurl4 curl; do
	deb=$(echo "$debs" | grep "/${p}_" | head -n 1)
	[ -n "$deb" ] || die "no .deb for $p"
	cp "$deb" "$T/debs/"
	dpkg-deb -x "$deb" "$T/src"
done
S=$T/store
sign=""
if "$build/bin/ehelf-batch" --help 2>&1 | grep -q -- --sign-key; then
	openssl genpkey -algorithm ed25519 -out "$T/key.pem" 2>/dev/null
	sign="--sign-key $T/key.pem"
fi
# shellcheck disable=SC2086
"$build/bin/ehelf-batch" --store "$S" $sign "$T/debs" >/dev/null 2>"$T/batch.log" ||
	die "ehelf-batch failed"
# ID SIZE of every eh_elf
find "$S/.build-id" -type f -name '*.so' -printf '%P %s\n' |
	sed 's|^\(..\)/\([0-9a-f]*\)\.so |\1\2 |' | sort >"$T/ehelfs"
[ -s "$T/ehelfs" ] || die "empty store"

# ---- servers ----------------------------------------------------------------
. "$top/tests/common/free-port.sh"
# wait_http URL PID: until URL answers, while PID lives (up to 30 s)
wait_http() {
	i=0
	while [ $i -lt 300 ]; do
		kill -0 "$2" 2>/dev/null || return 1
		curl -s -o /dev/null "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# no federation, no on-demand builds: both only serve what they have
env -u DEBUGINFOD_URLS "$build/bin/ehelf-server" --store "$S" --listen 127.0.0.1 \
	--port 0 --port-file "$T/ehelf.port" --upstream "" >"$T/ehelf.log" 2>&1 &
epid=$!
pids="$pids $epid"
i=0
while [ ! -s "$T/ehelf.port" ] && [ $i -lt 100 ]; do
	kill -0 "$epid" 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
[ -s "$T/ehelf.port" ] || die "ehelf-server did not start"
EU=http://127.0.0.1:$(cat "$T/ehelf.port")
wait_http "$EU/" "$epid" || die "ehelf-server does not answer on $EU"

# debuginfod 0.188 has no listen-address option: it binds every address of
# the port; it is only asked on 127.0.0.1.  Its defaults otherwise (a
# thread per connection), its database in the temporary directory.
tries=0
while :; do
	dport=$(free_port)
	env -u DEBUGINFOD_URLS debuginfod -F -d "$T/debuginfod.sqlite" -p "$dport" \
		-t 0 -g 0 -c 2 --disable-source-scan "$T/src" >"$T/debuginfod.log" 2>&1 &
	dpid=$!
	DU=http://127.0.0.1:$dport
	wait_http "$DU/metrics" "$dpid" && break
	wait "$dpid" 2>/dev/null || true
	tries=$((tries + 1))
	[ $tries -lt 5 ] || die "debuginfod did not start"
done
pids="$pids $dpid"
# its scan is over when the traversal ran and no scan work is pending
i=0
while :; do
	curl -s "$DU/metrics" >"$T/dmetrics" || true
	awk '/^thread_work_total\{role="traverse"\}/ { t = $2 }
		/^thread_busy\{role="(traverse|scan)"\}/ { b += $2 }
		/^thread_work_pending\{role="scan"\}/ { p = $2 }
		END { exit !(t >= 1 && b == 0 && p == 0) }' "$T/dmetrics" && break
	i=$((i + 1))
	[ $i -lt 600 ] || die "debuginfod's scan did not finish in 60 s"
	kill -0 "$dpid" 2>/dev/null || die "debuginfod exited"
	sleep 0.1
done
nscanned=$(sed -n 's/^scanned_files_total{source="file"} //p' "$T/dmetrics")

# which build-IDs debuginfod serves, and the sizes: ID EHELF_SIZE ELF_SIZE
: >"$T/common"
while read -r id esize; do
	r=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' "$DU/buildid/$id/executable")
	[ "${r%% *}" = 200 ] && echo "$id $esize ${r#* }" >>"$T/common"
done <"$T/ehelfs"
ncommon=$(wc -l <"$T/common")
[ "$ncommon" -ge 8 ] || die "debuginfod serves only $ncommon of the store's build-IDs"
echo "   $(wc -l <"$T/ehelfs") eh_elfs from $(ls "$T/debs" | wc -l) packages; debuginfod" \
	"scanned $nscanned files, serves $ncommon of these build-IDs"

# every K-th line of a file, N at most
spread() { awk -v n="$2" '{ l[NR] = $0 } END { k = NR / n; if (k < 1) k = 1
	for (x = 1; x <= NR && c < n; x += k) { print l[int(x)]; c++ } }' "$1"; }

# (a) the same build-IDs
spread "$T/common" $NROT >"$T/a.sel"
awk '{ print "/buildid/" $1 "/eh_elf" }' "$T/a.sel" >"$T/a.ehelf"
awk '{ print "/buildid/" $1 "/executable" }' "$T/a.sel" >"$T/a.debuginfod"
# (b) the band [L, 1.1 L] holding the most eh_elfs and source ELFs (each
# counted once: the smaller of the two counts is maximized)
awk '{ print "e", $2, $1 }' "$T/ehelfs" >"$T/sizes"
awk '{ print "d", $3, $1 }' "$T/common" >>"$T/sizes"
sort -k2,2n "$T/sizes" >"$T/sizes.sorted"
band=$(awk '{ k[NR] = $1; s[NR] = $2 } END {
	best = 0; bl = 0
	for (i = 1; i <= NR; i++) {
		ne = 0; nd = 0
		for (j = i; j <= NR && s[j] <= s[i] * 1.1; j++)
			if (k[j] == "e") ne++; else nd++
		m = ne < nd ? ne : nd
		if (m > best) { best = m; bl = s[i] }
	}
	print bl, best }' "$T/sizes.sorted")
lo=${band% *}
[ "${band#* }" -ge 1 ] || die "no eh_elf and source ELF within 10% of each other's size"
awk -v lo="$lo" '$1 == "e" && $2 >= lo && $2 <= lo * 1.1 { print $3, $2 }' "$T/sizes.sorted" |
	sort >"$T/b.e"
awk -v lo="$lo" '$1 == "d" && $2 >= lo && $2 <= lo * 1.1 { print $3, $2 }' "$T/sizes.sorted" |
	sort >"$T/b.d"
spread "$T/b.e" 16 | awk '{ print "/buildid/" $1 "/eh_elf" }' >"$T/b.ehelf"
spread "$T/b.d" 16 | awk '{ print "/buildid/" $1 "/executable" }' >"$T/b.debuginfod"
# (c) build-IDs nobody has (20 random bytes)
: >"$T/c.ids"
while [ "$(wc -l <"$T/c.ids")" -lt $NROT ]; do
	id=$(od -An -N20 -tx1 /dev/urandom | tr -d ' \n')
	grep -q "^$id " "$T/ehelfs" || echo "$id" >>"$T/c.ids"
done
awk '{ print "/buildid/" $1 "/eh_elf" }' "$T/c.ids" >"$T/c.ehelf"
awk '{ print "/buildid/" $1 "/executable" }' "$T/c.ids" >"$T/c.debuginfod"

# mean size of what PATHS (a file) answer at URL; fails on another status
check_paths() { # URL PATHSFILE STATUS
	sum=0
	cnt=0
	while read -r p; do
		r=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' "$1$p")
		[ "${r%% *}" = "$3" ] || die "$1$p: ${r%% *}, want $3"
		sum=$((sum + ${r#* }))
		cnt=$((cnt + 1))
	done <"$2"
	echo $((sum / cnt))
}

# wrk rotating over a file of paths; done() prints one line of numbers
cat >"$T/rotate.lua" <<'EOF'
-- rotate over the paths in args[1], each thread from its own offset
local paths, n, i = {}, 0, 0
id = 0 -- a global: setup() sets it in each thread's state
function setup(thread)
	id = id + 1
	thread:set("id", id)
end
function init(args)
	for line in io.lines(args[1]) do
		n = n + 1
		paths[n] = line
	end
	i = (id * 7) % n
end
function request()
	i = i % n + 1
	return wrk.format("GET", paths[i])
end
function done(summary, latency, requests)
	local e = summary.errors
	io.write(string.format("RESULT %d %d %.1f %.1f %d %d %d %d %d %d\n",
		summary.requests, summary.duration, latency:percentile(50),
		latency:percentile(99), summary.bytes, e.connect, e.read, e.write,
		e.status, e.timeout))
end
EOF

# run NAME URL PATHSFILE STATUS SECONDS: sets rps p50 p99 (ms) and errs
run() {
	$WRK -d "$5s" -s "$T/rotate.lua" "$2" -- "$3" >"$T/wrk.$1.out" 2>&1 ||
		{ cat "$T/wrk.$1.out" >&2; die "wrk failed ($1)"; }
	set -- "$@" $(sed -n 's/^RESULT //p' "$T/wrk.$1.out")
	[ $# -eq 15 ] || { cat "$T/wrk.$1.out" >&2; die "no wrk result ($1)"; }
	# $6 requests, $7 us, $8 p50 us, $9 p99 us, $10 bytes, $11-$15 errors
	[ "$6" -gt 0 ] || die "$1: no request answered"
	[ "${11}" = 0 ] || die "$1: ${11} connect errors"
	if [ "$4" = 200 ]; then
		[ "${14}" = 0 ] || die "$1: ${14} responses not 2xx/3xx"
	else
		[ "${14}" = "$6" ] || die "$1: $(( $6 - ${14} )) responses 2xx/3xx, want $4"
	fi
	rps=$(awk -v r="$6" -v d="$7" 'BEGIN { printf "%.0f", r / (d / 1e6) }')
	p50=$(awk -v v="$8" 'BEGIN { printf "%.2f", v / 1000 }')
	p99=$(awk -v v="$9" 'BEGIN { printf "%.2f", v / 1000 }')
	errs=$(( ${12} + ${13} + ${15} ))
}

printf '   %-34s %-13s %10s %8s %8s %10s %6s\n' case server "req/s" "p50 ms" "p99 ms" \
	"mean size" errors
ehelf_p99_max=0
for c in a b c; do
	case $c in
	a) label="(a) eh_elf vs executable"; want=200 ;;
	b) label="(b) equal size, $(awk -v l="$lo" 'BEGIN { printf "%.1f-%.1f KiB", l / 1024, l * 1.1 / 1024 }')"; want=200 ;;
	c) label="(c) 404, unknown build-IDs"; want=404 ;;
	esac
	for srv in ehelf debuginfod; do
		if [ $srv = ehelf ]; then url=$EU; name=ehelf-server; else url=$DU; name=debuginfod; fi
		mean=$(check_paths "$url" "$T/$c.$srv" $want)
		run "$c.$srv" "$url" "$T/$c.$srv" $want $DUR
		printf '   %-34s %-13s %10s %8s %8s %10s %6s\n' "$label" $name "$rps" "$p50" \
			"$p99" "$(awk -v m="$mean" 'BEGIN { printf "%.1f KiB", m / 1024 }')" "$errs"
		eval "rps_${c}_$srv=$rps; p99_${c}_$srv=$p99"
		label=""
	done
	eval "r=\$rps_${c}_ehelf; d=\$rps_${c}_debuginfod; ep=\$p99_${c}_ehelf"
	ratio=$(awk -v r="$r" -v d="$d" 'BEGIN { printf "%.1f", r / d }')
	printf '   %-34s %-13s %10s\n' "" "ehelf/dbgd" "${ratio}x"
	eval "ratio_$c=$ratio"
	ehelf_p99_max=$(awk -v a="$ehelf_p99_max" -v b="$ep" 'BEGIN { print (b > a ? b : a) }')
done
echo "   ($(wc -l <"$T/b.ehelf") eh_elfs and $(wc -l <"$T/b.debuginfod") source ELFs in the" \
	"(b) band; errors: read+write+timeout socket errors)"
met() { awk -v c="$1" 'BEGIN { exit !(c) }' && echo met || echo MISSED; }
echo "   target: >= 3x debuginfod's req/s at equal size: ${ratio_b}x," \
	"$(met "$ratio_b >= 3")"
echo "   target: p99 < 10 ms at 64 connections: ehelf-server's worst ${ehelf_p99_max} ms," \
	"$(met "$ehelf_p99_max < 10")"

# ---- ehelf-server's memory under a long run ---------------------------------
awk '{ print "/buildid/" $1 "/eh_elf" }' "$T/ehelfs" >"$T/all.ehelf"
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$epid/status"; }
$WRK -d "${RSS_DUR}s" -s "$T/rotate.lua" "$EU" -- "$T/all.ehelf" >"$T/wrk.rss.out" 2>&1 &
wpid=$!
series=""
t=0
while [ $t -lt $RSS_DUR ]; do
	sleep 5
	t=$((t + 5))
	kill -0 "$epid" 2>/dev/null || die "ehelf-server died under load"
	v=$(rss)
	series="$series $v"
	[ $t = 10 ] && at10=$v
done
wait "$wpid" || { cat "$T/wrk.rss.out" >&2; die "wrk failed (RSS run)"; }
set -- $(sed -n 's/^RESULT //p' "$T/wrk.rss.out")
[ $# -eq 10 ] && [ "$1" -gt 0 ] && [ "$6" = 0 ] && [ "$9" = 0 ] ||
	{ cat "$T/wrk.rss.out" >&2; die "RSS run: errors or no requests"; }
last=${series##* }
echo "   ehelf-server RSS (MiB) every 5 s over ${RSS_DUR} s of wrk on all" \
	"$(wc -l <"$T/ehelfs") eh_elfs ($(awk -v r="$1" -v d="$2" 'BEGIN { printf "%.0f", r / (d / 1e6) }') req/s):"
echo "  $(for v in $series; do awk -v v="$v" 'BEGIN { printf " %.1f", v / 1024 }'; done)"
awk -v a="$at10" -v b="$last" 'BEGIN { d = b - a; if (d < 0) d = -d
	lim = a * 0.10; if (lim < 2048) lim = 2048
	printf "   flat (last within 10%% or 2 MiB of the 10 s sample): %s (%+.1f MiB)\n",
		d <= lim ? "yes" : "NO", (b - a) / 1024 }'
