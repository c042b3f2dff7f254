#!/bin/sh
# Integration tests of ehelf-server, on loopback, with real components: a
# store that ehelf-batch builds from real Debian packages (signed), curl as
# the client, openssl verifying every signature independently, strace
# watching the file system, and elfutils' own debuginfod (Debian's
# package) as the upstream for on-demand builds, over a directory of real
# .debs and a truncated ELF.
#
# Usage: tests/server/run-server-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-server-tests.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
server=$build/bin/ehelf-server
batch=$build/bin/ehelf-batch
compile=$build/bin/ehelf-compile
slowloris=$build/tests/server/slowloris
T=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
unset DEBUGINFOD_URLS DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE
. "$here/../common/checks.sh"

# a compiler built with AddressSanitizer reserves terabytes of address
# space: no RLIMIT_AS for it
case $build in */san) asan="--build-memory 0" ;; *) asan="" ;; esac

# ---- helpers -------------------------------------------------------------
# start_server ARGS...: ehelf-server on a free port; sets PORT and SPID
start_server() {
	rm -f "$T/port"
	# shellcheck disable=SC2086
	"$server" --listen 127.0.0.1 --port 0 --port-file "$T/port" $asan "$@" \
		2>>"$T/server.log" &
	SPID=$!
	pids="$pids $SPID"
	i=0
	while [ ! -s "$T/port" ]; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$SPID" 2>/dev/null; then
			echo "ehelf-server did not start:" >&2
			tail -n 5 "$T/server.log" >&2
			exit 1
		fi
		sleep 0.1
	done
	PORT=$(cat "$T/port")
}
stop_server() {
	kill "$SPID"
	wait "$SPID" || bad "ehelf-server exited $? on SIGTERM"
}
url() { echo "http://127.0.0.1:$PORT$1"; }
code() { # code PATH [CURL-ARGS...]: the status of GET PATH
	p=$1
	shift
	curl -s --path-as-is -o /dev/null -w '%{http_code}' "$@" "$(url "$p")" || true
}
header() { # header FILE NAME: a header's value from curl -D output
	grep -i "^$2:" "$1" | head -n 1 | sed 's/^[^:]*: *//' | tr -d '\r'
}
metric() { # metric NAME-WITH-LABELS: its value now
	curl -s "$(url /metrics)" | grep -F "$1 " | grep -v '^#' | awk '{print $2}' | head -n 1
}
store_file() { # store_file STORE HEX
	h=$2
	echo "$1/.build-id/$(echo "$h" | cut -c1-2)/$(echo "$h" | cut -c3-).so"
}
# verify_sig HEX LINE FILE: LINE is a valid signature of FILE for HEX by
# the test key, checked with the openssl command (not ehelf's code)
verify_sig() {
	set -- "$1" "$2" "$3" $2
	[ $# = 7 ] && [ "$4" = ehelf-sig-1 ] || return 1
	[ "$6" = "$(sha256sum "$3" | cut -d' ' -f1)" ] || return 1
	printf 'ehelf-sig-1\n%s\n%s\n%s\n' "$1" "$6" "$5" >"$T/msg"
	echo "$7" | xxd -r -p >"$T/sig.bin"
	openssl pkeyutl -verify -pubin -inkey "$T/key.pub.pem" -rawin \
		-in "$T/msg" -sigfile "$T/sig.bin" >/dev/null 2>&1
}
. "$here/../common/free-port.sh"

echo "== ehelf-server: a signed store from real packages"
openssl genpkey -algorithm ed25519 -out "$T/key.pem" 2>/dev/null
openssl pkey -in "$T/key.pem" -pubout -out "$T/key.pub.pem"
debs=$("$here/../diff/fetch-packages.sh" --debs "$here/../diff/packages.txt")
deb() { echo "$debs" | grep "/$1_" | head -n 1; }
mkdir -p "$T/repo"
for p in zlib1g libgcc-s1 coreutils libsqlite3-0 xz-utils; do
	cp "$(deb "$p")" "$T/repo/"
done
"$batch" --store "$T/store" -j 2 --sign-key "$T/key.pem" "$T/repo" 2>/dev/null
ids=$(sqlite3 "$T/store/ehelf.sqlite" "SELECT build_id FROM eh_elfs ORDER BY 1")
nids=$(echo "$ids" | wc -l)
[ "$nids" -gt 50 ] || { echo "only $nids eh_elfs in the store" >&2; exit 1; }
echo "  $nids eh_elfs"

echo "== usage"
check "--help exits 0" sh -c "'$server' --help >/dev/null"
"$server" --bogus >/dev/null 2>&1 && bad "a bad option accepted" || \
	check "a bad option exits 2" [ $? = 2 ]
"$server" --store "$T/nonexistent" --port 0 2>"$T/err" && bad "a missing store served" ||
	check "a missing store exits 1 with a message" \
		grep -q "cannot open the store" "$T/err"
"$server" --store "$T/store" --port 0 --sign-key "$T/key.pub.pem" 2>"$T/err" &&
	bad "a public key accepted as --sign-key" ||
	check "a public key as --sign-key exits 2" [ $? = 2 ]

echo "== serving the store"
start_server --store "$T/store" --upstream "" --threads 2
n=0
for id in $ids; do
	f=$(store_file "$T/store" "$id")
	curl -s -D "$T/h" -o "$T/body" "$(url "/buildid/$id/eh_elf")"
	size=$(stat -c %s "$f")
	sig=$(tr -d '\n' <"$f.sig")
	if ! cmp -s "$T/body" "$f"; then
		bad "$id: body differs from the store file"
	elif [ "$(header "$T/h" Content-Length)" != "$size" ] ||
	     [ "$(header "$T/h" X-DEBUGINFOD-SIZE)" != "$size" ]; then
		bad "$id: sizes: $(header "$T/h" Content-Length) $(header "$T/h" X-DEBUGINFOD-SIZE) for $size"
	elif [ "$(header "$T/h" ETag)" != "\"$(sha256sum "$f" | cut -d' ' -f1)\"" ]; then
		bad "$id: ETag $(header "$T/h" ETag)"
	elif [ "$(header "$T/h" Cache-Control)" != "public, immutable" ]; then
		bad "$id: Cache-Control $(header "$T/h" Cache-Control)"
	elif [ "$(header "$T/h" Last-Modified)" != \
	       "$(LC_ALL=C date -u -r "$f" '+%a, %d %b %Y %H:%M:%S GMT')" ]; then
		bad "$id: Last-Modified $(header "$T/h" Last-Modified)"
	elif [ "$(header "$T/h" X-DEBUGINFOD-FILE)" != \
	       "/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).so" ]; then
		bad "$id: X-DEBUGINFOD-FILE $(header "$T/h" X-DEBUGINFOD-FILE)"
	elif [ "$(header "$T/h" X-EHELF-SIGNATURE)" != "$sig" ]; then
		bad "$id: X-EHELF-SIGNATURE differs from the .sig file"
	elif ! verify_sig "$id" "$(header "$T/h" X-EHELF-SIGNATURE)" "$T/body"; then
		bad "$id: the served signature does not verify with openssl"
	elif ! curl -s -o "$T/sigbody" "$(url "/buildid/$id/eh_elf.sig")" ||
	     ! cmp -s "$T/sigbody" "$f.sig"; then
		bad "$id: eh_elf.sig differs from the store's"
	else
		n=$((n + 1))
	fi
done
check "all $nids eh_elfs and signatures served byte-identical, headers right, signatures verified by openssl" \
	[ "$n" = "$nids" ]

id=$(echo "$ids" | head -n 1)
f=$(store_file "$T/store" "$id")
etag="\"$(sha256sum "$f" | cut -d' ' -f1)\""
lm=$(LC_ALL=C date -u -r "$f" '+%a, %d %b %Y %H:%M:%S GMT')
curl -s -I -o "$T/h" "$(url "/buildid/$id/eh_elf")"
check "HEAD: 200 with the GET's headers" \
	[ "$(head -n 1 "$T/h" | cut -d' ' -f2)" = 200 -a \
	  "$(header "$T/h" Content-Length)" = "$(stat -c %s "$f")" -a \
	  "$(header "$T/h" ETag)" = "$etag" ]
check "HEAD: no body" [ "$(curl -s -I -w '%{size_download}' -o /dev/null \
	"$(url "/buildid/$id/eh_elf")")" = 0 ]
check "If-None-Match with the ETag: 304" \
	[ "$(code "/buildid/$id/eh_elf" -H "If-None-Match: $etag")" = 304 ]
check "If-None-Match in a list, weak: 304" \
	[ "$(code "/buildid/$id/eh_elf" -H "If-None-Match: \"x\", W/$etag")" = 304 ]
check "If-None-Match: * : 304" [ "$(code "/buildid/$id/eh_elf" -H "If-None-Match: *")" = 304 ]
check "If-None-Match with another ETag: 200" \
	[ "$(code "/buildid/$id/eh_elf" -H 'If-None-Match: "0000"')" = 200 ]
check "If-Modified-Since its Last-Modified: 304" \
	[ "$(code "/buildid/$id/eh_elf" -H "If-Modified-Since: $lm")" = 304 ]
check "If-Modified-Since in 2000: 200" \
	[ "$(code "/buildid/$id/eh_elf" -H "If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT")" = 200 ]
check "a mismatched If-None-Match wins over a matching If-Modified-Since: 200" \
	[ "$(code "/buildid/$id/eh_elf" -H 'If-None-Match: "0000"' -H "If-Modified-Since: $lm")" = 200 ]
curl -s -D "$T/h" -o /dev/null -H "If-None-Match: $etag" "$(url "/buildid/$id/eh_elf")"
check "304 carries ETag and Cache-Control" \
	[ "$(header "$T/h" ETag)" = "$etag" -a "$(header "$T/h" Cache-Control)" = "public, immutable" ]

echo "== bad input"
unknown=0123456789abcdef0123456789abcdef01234567
check "an unknown build-ID: 404" [ "$(code "/buildid/$unknown/eh_elf")" = 404 ]
check "an unknown build-ID's signature: 404" [ "$(code "/buildid/$unknown/eh_elf.sig")" = 404 ]
check "another artifact (executable): 404" [ "$(code "/buildid/$id/executable")" = 404 ]
check "an unknown path: 404" [ "$(code /nothing/here)" = 404 ]
long=$(printf '%0130d' 0)
f0=$fails
for p in "/buildid/abc/eh_elf" "/buildid/a/eh_elf" "/buildid/$long/eh_elf" \
	 "/buildid/$(echo "$id" | tr a-f A-F)/eh_elf" "/buildid/../eh_elf" \
	 "/buildid/../../../../etc/passwd" "/buildid/%2e%2e/eh_elf" \
	 "/buildid/%2e%2e%2f%2e%2e%2fetc%2fpasswd/eh_elf" "/buildid/ab%00cd/eh_elf" \
	 "/buildid/abzz/eh_elf" "/buildid//eh_elf" "/buildid/ab%2fcd/eh_elf" \
	 "/buildid/ab%20cd/eh_elf"; do
	c=$(code "$p")
	[ "$c" = 400 ] || bad "$p: $c, not 400"
done
[ "$fails" = "$f0" ] &&
	ok "13 malformed build-IDs (odd, 1 and 130 digits, uppercase, .., percent-encoded /, .. and NUL, not hex, empty, encoded space): 400"
f0=$fails
for m in POST PUT DELETE OPTIONS PATCH; do
	curl -s -X "$m" -D "$T/h" -o /dev/null -d x "$(url "/buildid/$id/eh_elf")"
	[ "$(head -n 1 "$T/h" | cut -d' ' -f2)" = 405 ] &&
		[ "$(header "$T/h" Allow)" = "GET, HEAD" ] || bad "$m: not 405 with Allow"
done
[ "$fails" = "$f0" ] && ok "POST, PUT, DELETE, OPTIONS, PATCH: 405 with Allow: GET, HEAD"
big=$(head -c 40000 /dev/zero | tr '\0' a)
check "a 40 KB header: 431" [ "$(code / -H "X-Big: $big")" = 431 ]

echo "== hostile requests"
raw() { python3 "$here/raw-http.py" "$PORT" "$@"; }
f0=$fails
for p in "/buildi%64/$id/eh_elf" "/%62uildid/$id/eh_elf" "/buildid/$id/eh_el%66" \
	 "/debian/%70ool/x" "/metric%73" "/%2f"; do
	c=$(code "$p")
	[ "$c" = 400 ] || bad "$p: $c, not 400"
done
[ "$fails" = "$f0" ] && ok "a % anywhere in the path (/buildi%64/, /%62uildid/, eh_el%66, /debian/, /metric%73): 400"
G="GET /buildid/$id/eh_elf HTTP/1.1\r\nHost: x\r\n"
check "two Content-Length headers: 400" [ "$(raw "${G}Content-Length: 5\r\nContent-Length: 7\r\n\r\nabcdefg")" = 400 ]
check "Content-Length with Transfer-Encoding: chunked: 400" \
	[ "$(raw "${G}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")" = 400 ]
check "a NUL byte in a header value: 400" [ "$(raw "${G}X-A: a\x00b\r\n\r\n")" = 400 ]
check "a NUL byte in a header name: 400" [ "$(raw "${G}X-\x00A: b\r\n\r\n")" = 400 ]
check "Content-Length: -1: one 400, its header block sent once" \
	[ "$(raw "${G}Content-Length: -1\r\n\r\n")" = 400 ]
check "Content-Length of 21 digits: one 400" \
	[ "$(raw "${G}Content-Length: 123456789012345678901\r\n\r\n")" = 400 ]
check "an obsolete line folding: 400" [ "$(raw "${G}X-A: a\r\n b\r\n\r\n")" = 400 ]
check "a GET with a body (Content-Length: 5): 400" \
	[ "$(raw "${G}Content-Length: 5\r\n\r\nabcde")" = 400 ]
check "a GET with a chunked body: 400, without waiting for the body" \
	[ "$(raw "${G}Transfer-Encoding: chunked\r\n\r\n5\r\nab" 2)" = 400 ]
check "a POST announcing 1 GB: 405 at once, the body never read" \
	[ "$(raw "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\nab" 2)" = 405 ]
check "Content-Length: 0 on a GET: served" [ "$(raw "${G}Content-Length: 0\r\nConnection: close\r\n\r\n")" = 200 ]
check "pipelined: a good request, then one with a NUL: 200 then 400" \
	[ "$(raw "${G}\r\n${G}X-A: \x00\r\n\r\n")" = "200 400" ]
check "pipelined: two good requests: 200 200" \
	[ "$(raw "${G}\r\n${G}Connection: close\r\n\r\n")" = "200 200" ]
curl -s -D "$T/h" -o "$T/body" -r 0-9 "$(url "/buildid/$id/eh_elf")"
check "Range: ignored (200, the whole file), with Accept-Ranges: none" sh -c \
	"head -n 1 '$T/h' | grep -q ' 200' && cmp -s '$T/body' '$f' &&
	 grep -qi '^Accept-Ranges: none' '$T/h'"
check "If-Modified-Since in RFC 850 form, later than the file: 304" \
	[ "$(code "/buildid/$id/eh_elf" -H "If-Modified-Since: Sunday, 06-Nov-44 08:49:37 GMT")" = 304 ]
check "If-Modified-Since in asctime form, later than the file: 304" \
	[ "$(code "/buildid/$id/eh_elf" -H "If-Modified-Since: Sun Nov  6 08:49:37 2044")" = 304 ]
check "If-Modified-Since in both obsolete forms in 2000: 200" [ \
	"$(code "/buildid/$id/eh_elf" -H "If-Modified-Since: Saturday, 01-Jan-00 00:00:00 GMT")" = 200 -a \
	"$(code "/buildid/$id/eh_elf" -H "If-Modified-Since: Sat Jan  1 00:00:00 2000")" = 200 ]
# FIFOs planted in the store: opened without blocking, refused; then
# released (a server blocked in open() would be unblocked by the writer)
mkdir -p "$T/store/.build-id/ff"
mkfifo "$T/store/.build-id/ff/00.so" "$T/store/.build-id/ff/02.so.sig"
cp "$f" "$T/store/.build-id/ff/02.so"
check "a FIFO as an eh_elf: 404 at once" [ "$(code /buildid/ff00/eh_elf --max-time 5)" = 404 ]
check "a FIFO as a signature: the eh_elf served without it" sh -c \
	"[ \"\$(curl -s --max-time 5 -D - -o /dev/null '$(url /buildid/ff02/eh_elf)' |
	   grep -ci -e '^HTTP/1.1 200' -e '^X-EHELF-SIGNATURE')\" = 1 ]"
check "... and the server still answers (2 threads, 4 requests)" [ \
	"$(code "/buildid/$id/eh_elf" --max-time 5)$(code / --max-time 5)$(code "/buildid/$id/eh_elf" --max-time 5)$(code / --max-time 5)" = 200200200200 ]
for fifo in "$T/store/.build-id/ff/00.so" "$T/store/.build-id/ff/02.so.sig"; do
	timeout 1 sh -c ": >'$fifo'" 2>/dev/null || true
done
rm -f "$T/store/.build-id/ff/00.so" "$T/store/.build-id/ff/02.so" "$T/store/.build-id/ff/02.so.sig"
# symlinks planted in the store, to a file and to a directory outside it
mkdir -p "$T/outside/zz" "$T/store/.build-id/ee"
cp "$f" "$T/outside/secret.so"
cp "$f" "$T/outside/zz/$(echo "$unknown" | cut -c3-).so"
ln -s "$T/outside/secret.so" "$T/store/.build-id/ee/ee00.so"
ln -s "$T/outside/secret.so" "$T/store/.build-id/ee/ee01.so.sig"
cp "$f" "$T/store/.build-id/ee/ee01.so"
ln -s "$T/outside/zz" "$T/store/.build-id/01"
check "a symlinked eh_elf: 404" [ "$(code /buildid/ee00/eh_elf)" = 404 ]
check "a symlinked directory: 404" [ "$(code "/buildid/$unknown/eh_elf")" = 404 ]
check "a symlinked .sig: 404, and not sent as X-EHELF-SIGNATURE" \
	[ "$(code /buildid/ee01/eh_elf.sig)" = 404 -a \
	  -z "$(curl -s -D - -o /dev/null "$(url /buildid/ee01/eh_elf)" | grep -i x-ehelf-signature)" ]
stop_server
# the same requests under strace: no file outside the store is touched
rm -f "$T/port"
strace -f -qq -o "$T/strace" -e trace=open,openat,openat2,stat,newfstatat,statx,access,readlink \
	"$server" --store "$T/store" --upstream "" --listen 127.0.0.1 --port 0 \
	--port-file "$T/port" 2>>"$T/server.log" &
SPID=$!
pids="$pids $SPID"
while [ ! -s "$T/port" ]; do sleep 0.1; done
PORT=$(cat "$T/port")
for p in "/buildid/../../../../etc/passwd" "/buildid/%2e%2e%2f%2e%2e%2fetc%2fpasswd/eh_elf" \
	 "/buildid/ee00/eh_elf" "/buildid/$unknown/eh_elf" "/etc/passwd" \
	 "/buildid/..%2f..%2fetc%2fpasswd/eh_elf.sig" "/buildi%64/$id/eh_elf" \
	 "/%62uildid/$id/eh_elf"; do
	code "$p" >/dev/null
done
kill "$(pgrep -P "$SPID")" # the server, strace's child: strace then exits
wait "$SPID" || true
check "strace: no path outside the store opened or looked up for bad requests" \
	sh -c "! grep -E 'passwd|outside|\\.\\./' '$T/strace'"
check "strace: a percent-encoded path to a stored eh_elf never opens it" \
	sh -c "! grep -q '$(echo "$id" | cut -c3-)' '$T/strace'"
check "strace: eh_elfs opened beneath .build-id without following symlinks (openat2)" \
	sh -c "grep 'openat2(' '$T/strace' | grep RESOLVE_BENEATH | grep -q RESOLVE_NO_SYMLINKS"

echo "== an apt repository under /debian/ (--repo)"
mkdir -p "$T/apt/dists/test/main/binary-amd64" "$T/apt/pool/main/z"
printf 'Suite: test\n' >"$T/apt/dists/test/Release"
cp "$(deb zlib1g)" "$T/apt/pool/main/z/zlib1g-ehelf_1.0_amd64.deb"
ln -s "$T/outside/secret.so" "$T/apt/dists/test/Leak"
start_server --store "$T/store" --upstream ""
check "without --repo: /debian/ is 404" [ "$(code /debian/dists/test/Release)" = 404 ]
stop_server
start_server --store "$T/store" --upstream "" --repo "$T/apt"
curl -s -D "$T/h" -o "$T/body" "$(url /debian/pool/main/z/zlib1g-ehelf_1.0_amd64.deb)"
check "a package served byte-identical, typed, cacheable" sh -c \
	"cmp -s '$T/body' '$T/apt/pool/main/z/zlib1g-ehelf_1.0_amd64.deb' &&
	 grep -qi '^Content-Type: application/vnd.debian.binary-package' '$T/h' &&
	 grep -qi '^Cache-Control: public, max-age=86400' '$T/h'"
curl -s -D "$T/h" -o "$T/body" "$(url /debian/dists/test/Release)"
check "Release served, not cached without revalidation" sh -c \
	"cmp -s '$T/body' '$T/apt/dists/test/Release' && grep -qi '^Cache-Control: no-cache' '$T/h'"
check "Release: 304 for its ETag" [ "$(code /debian/dists/test/Release \
	-H "If-None-Match: $(header "$T/h" ETag)")" = 304 ]
check "a directory: 404, not listed" [ "$(code /debian/dists/test)" = 404 ]
check "a symlink in the repository: 404" [ "$(code /debian/dists/test/Leak)" = 404 ]
mkfifo "$T/apt/dists/test/Fifo"
check "a FIFO in the repository: 404 at once, and the server still answers" [ \
	"$(code /debian/dists/test/Fifo --max-time 5)$(code /debian/dists/test/Release --max-time 5)" = 404200 ]
timeout 1 sh -c ": >'$T/apt/dists/test/Fifo'" 2>/dev/null || true
rm -f "$T/apt/dists/test/Fifo"
check "../ and // in a repository path: 400" [ "$(code /debian/../etc/passwd)" = 400 -a \
	"$(code /debian/dists//test/Release)" = 400 -a "$(code /debian/%2e%2e/x)" = 400 ]
check "eh_elfs still served beside it" [ "$(code "/buildid/$id/eh_elf")" = 200 ]
stop_server

echo "== a read-only store, as a sandboxed service sees it"
if [ "$(id -u)" = 0 ]; then
	# the store as root wrote it; the server as nobody, who can write
	# nothing there (sqlite cannot make the WAL's -shm file)
	chmod a+x "$T"
	mkdir -m 777 "$T/nobody"
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$server" \
		--store "$T/store" --upstream "" --listen 127.0.0.1 --port 0 \
		--port-file "$T/nobody/port" 2>>"$T/server.log" &
	SPID=$!
	pids="$pids $SPID"
	while [ ! -s "$T/nobody/port" ]; do sleep 0.1; done
	PORT=$(cat "$T/nobody/port")
	check "served by a user who cannot write the store, with its index" sh -c \
		"[ \"\$(curl -s -o /dev/null -w '%{http_code}' '$(url "/buildid/$id/eh_elf")')\" = 200 ] &&
		 curl -s '$(url /)' | grep -q '<th>eh_elfs</th><td>$nids</td>'"
	stop_server
else
	bad "the read-only check runs the server as another user: run the tests as root"
fi

echo "== idle clients, slowloris, connection limit"
start_server --store "$T/store" --upstream "" --timeout 2 --threads 2
out=$("$slowloris" "$PORT" 5 6 0)
check "5 idle connections closed by the timeout (2 s): $out" \
	[ "$out" = "opened 5, closed by the server 5" ]
"$slowloris" "$PORT" 300 8 500 >"$T/slow.out" &
slow=$!
sleep 1
served=0
for i in $(seq 1 20); do
	[ "$(code "/buildid/$id/eh_elf" --max-time 2)" = 200 ] && served=$((served + 1))
	sleep 0.1
done
wait "$slow" || bad "slowloris could not open its connections: $(cat "$T/slow.out")"
check "during a slowloris of 300 connections, 20 of 20 normal requests served" [ "$served" = 20 ]
check "the 300 slowloris connections cut (no complete header within 2 s): $(cat "$T/slow.out")" \
	[ "$(cat "$T/slow.out")" = "opened 300, closed by the server 300" ]
check "metrics count the cut connections" [ "$(metric ehelf_server_connections_cut_total)" -ge 300 ]
stop_server
start_server --store "$T/store" --upstream "" --max-connections 20 --timeout 30
"$slowloris" "$PORT" 40 4 500 >"$T/slow.out" &
slow=$!
sleep 1
curl -s -D "$T/h" -o /dev/null "$(url "/buildid/$id/eh_elf")"
check "over --max-connections: 503 with Retry-After" \
	[ "$(head -n 1 "$T/h" | cut -d' ' -f2)" = 503 -a -n "$(header "$T/h" Retry-After)" ]
wait "$slow" || true
check "below the limit again: 200" [ "$(code "/buildid/$id/eh_elf")" = 200 ]
check "metrics count the refusals" [ "$(metric ehelf_server_connections_refused_total)" -ge 1 ]
stop_server

echo "== slow bodies, slow headers, slow readers at once"
# 100 slow bodies (50 Content-Length, 50 chunked), 100 slow headers and
# 100 slow readers of the largest eh_elf, below --max-connections 250
# only while the bodies are refused at their headers
big_id=$(sqlite3 "$T/store/ehelf.sqlite" "SELECT build_id FROM eh_elfs ORDER BY ehelf_bytes DESC LIMIT 1")
start_server --store "$T/store" --upstream "" --timeout 2 --threads 2 --max-connections 250
"$slowloris" "$PORT" 50 7 500 body >"$T/slow.body" &
s1=$!
"$slowloris" "$PORT" 50 7 500 chunked >"$T/slow.chunked" &
s2=$!
"$slowloris" "$PORT" 100 7 500 header >"$T/slow.header" &
s3=$!
"$slowloris" "$PORT" 100 7 500 reader "/buildid/$big_id/eh_elf" >"$T/slow.reader" &
s4=$!
sleep 0.5
codes=""
for i in $(seq 1 30); do
	codes="$codes $(code "/buildid/$id/eh_elf" --max-time 2) $(code /metrics --max-time 2)"
	sleep 0.1
done
sleep 1 # at least --timeout + 2 s since they connected; they still run
held=$(metric ehelf_server_connections)
wait "$s1" "$s2" "$s3" "$s4" || bad "the slow clients could not open their connections"
check "past --timeout, the server holds none of the 300 while they go on ($held connections open)" \
	[ "$held" -le 10 ]
check "under 300 slow connections, 60 of 60 good requests (eh_elf, /metrics) answered 200" \
	[ "$(echo $codes | tr ' ' '\n' | grep -c '^200$')" = 60 ]
check "the 100 slow bodies closed by the server: $(cat "$T/slow.body"); $(cat "$T/slow.chunked")" \
	[ "$(cat "$T/slow.body")" = "opened 50, closed by the server 50" -a \
	  "$(cat "$T/slow.chunked")" = "opened 50, closed by the server 50" ]
check "the 100 slow headers cut: $(cat "$T/slow.header")" \
	[ "$(cat "$T/slow.header")" = "opened 100, closed by the server 100" ]
stop_server

echo "== on demand from elfutils' debuginfod"
mkdir -p "$T/up/debs" "$T/up/elfs" "$T/x"
for p in libxml2 libcurl4 rt-tests; do
	cp "$(deb "$p")" "$T/up/debs/"
	dpkg-deb -x "$(deb "$p")" "$T/x"
done
# the build-IDs upstream knows, with their ELF files: "ID PATH" lines
find "$T/x" -type f | while read -r e; do
	b=$(readelf -n "$e" 2>/dev/null | awk '/Build ID/ {print $3}')
	[ -n "$b" ] && echo "$b $e"
done | sort -u -k1,1 >"$T/upids"
nup=$(wc -l <"$T/upids")
python3 "$here/trunc-elf.py" "$(find "$T/x" -name 'libxml2.so.*' -type f | head -n 1)" \
	"$T/up/elfs/trunc.so"
truncid=$(readelf -n "$T/up/elfs/trunc.so" 2>/dev/null | awk '/Build ID/ {print $3}')
# an executable without unwind tables whose debuginfo has .debug_frame,
# and one without either
printf 'int f(int x) { return x * VARIANT; }\nvoid _start(void) { for (;;) f(1); }\n' \
	>"$T/nocfi.c"
nocfi_cc() { gcc -O1 -fno-asynchronous-unwind-tables -fno-unwind-tables -nostdlib \
	-static -Wl,--build-id "$@" "$T/nocfi.c"; }
nocfi_cc -g -DVARIANT=3 -o "$T/up/elfs/dbgframe"
objcopy --only-keep-debug "$T/up/elfs/dbgframe" "$T/up/elfs/dbgframe.debug"
strip --strip-debug "$T/up/elfs/dbgframe"
"$compile" --debug-file "$T/up/elfs/dbgframe.debug" "$T/up/elfs/dbgframe" -o "$T/dbgframe.so"
nocfi_cc -DVARIANT=5 -o "$T/up/elfs/nocfi"
dfid=$(readelf -n "$T/up/elfs/dbgframe" | awk '/Build ID/ {print $3}')
ncid=$(readelf -n "$T/up/elfs/nocfi" | awk '/Build ID/ {print $3}')
"$compile" "$T/up/elfs/nocfi" -o "$T/nocfi.so" 2>/dev/null && bad "nocfi has unwind tables" ||
	check "ehelf-compile: no unwind tables is exit status 3" [ $? = 3 ]
# start_debuginfod: on a free port; another program may take the port
# between free_port and debuginfod's bind, then it is started on another
start_debuginfod() {
	dport=$(free_port)
	debuginfod -p "$dport" -d "$T/debuginfod.sqlite" -U "$T/up/debs" -F "$T/up/elfs" \
		-t 0 -g 0 -c 2 >"$T/debuginfod.log" 2>&1 &
	dpid=$!
	pids="$pids $dpid"
	up="http://127.0.0.1:$dport"
}
start_debuginfod
first=$(head -n 1 "$T/upids" | cut -d' ' -f1)
i=0
tries=1
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$up/buildid/$first/executable")" = 200 ] &&
      [ "$(curl -s -o /dev/null -w '%{http_code}' "$up/buildid/$truncid/executable")" = 200 ] &&
      [ "$(curl -s -o /dev/null -w '%{http_code}' "$up/buildid/$dfid/debuginfo")" = 200 ] &&
      [ "$(curl -s -o /dev/null -w '%{http_code}' "$up/buildid/$ncid/executable")" = 200 ]; do
	i=$((i + 1))
	if ! kill -0 "$dpid" 2>/dev/null && [ $tries -lt 3 ] &&
	   grep -q 'Address already in use' "$T/debuginfod.log"; then
		tries=$((tries + 1))
		start_debuginfod
		continue
	fi
	if [ $i -gt 300 ] || ! kill -0 "$dpid" 2>/dev/null; then
		echo "debuginfod did not index the packages:" >&2
		tail -n 5 "$T/debuginfod.log" >&2
		exit 1
	fi
	sleep 0.2
done
echo "  debuginfod on port $dport knows $nup build-IDs and the truncated ELF"

start_server --store "$T/od" --upstream "$up" --sign-key "$T/key.pem" -j 2 \
	--negative-ttl 600
xid=$(grep '/libxml2\.so' "$T/upids" | head -n 1 | cut -d' ' -f1)
xelf=$(grep '/libxml2\.so' "$T/upids" | head -n 1 | cut -d' ' -f2)
"$compile" "$xelf" -o "$T/ref.so"
curl -s -D "$T/h" -o "$T/body" "$(url "/buildid/$xid/eh_elf")"
check "an ID only upstream knows: 200" [ "$(head -n 1 "$T/h" | cut -d' ' -f2)" = 200 ]
check "built on demand: the same bytes as ehelf-compile on the package's file" \
	cmp -s "$T/body" "$T/ref.so"
check "signed: X-EHELF-SIGNATURE verifies with openssl" \
	verify_sig "$xid" "$(header "$T/h" X-EHELF-SIGNATURE)" "$T/body"
xf=$(store_file "$T/od" "$xid")
check "stored with its .sig" sh -c "cmp -s '$xf' '$T/ref.so' && [ -s '$xf.sig' ]"
check "recorded in the index with its SHA-256" [ \
	"$(sqlite3 "$T/od/ehelf.sqlite" "SELECT sha256 FROM eh_elfs WHERE build_id = '$xid'")" = \
	"$(sha256sum "$T/ref.so" | cut -d' ' -f1)" ]
fetches=$(metric 'ehelf_server_upstream_fetches_total{artifact="executable",outcome="ok"}')
check "served from the store the second time: 200, no new build or fetch" [ \
	"$(code "/buildid/$xid/eh_elf")" = 200 -a \
	"$(metric 'ehelf_server_ondemand_builds_total{outcome="built"}')" = 1 -a \
	"$(metric 'ehelf_server_upstream_fetches_total{artifact="executable",outcome="ok"}')" = "$fetches" ]
# five clients at once for one ID: one build
cid=$(grep '/libcurl\.so' "$T/upids" | head -n 1 | cut -d' ' -f1)
for i in 1 2 3 4 5; do
	curl -s -o "$T/c$i" -w '%{http_code}\n' "$(url "/buildid/$cid/eh_elf")" >"$T/cc$i" &
done
wait_ok=0
for i in 1 2 3 4 5; do
	while [ ! -s "$T/cc$i" ]; do sleep 0.05; done
done
sleep 0.2
for i in 1 2 3 4 5; do
	[ "$(cat "$T/cc$i")" = 200 ] && cmp -s "$T/c$i" "$(store_file "$T/od" "$cid")" &&
		wait_ok=$((wait_ok + 1))
done
check "5 concurrent requests for one new ID: 5 x 200, identical, one build" \
	[ "$wait_ok" = 5 -a "$(metric 'ehelf_server_ondemand_builds_total{outcome="built"}')" = 2 ]
check "an ID nobody knows: 404" [ "$(code "/buildid/$unknown/eh_elf")" = 404 ]
nf=$(metric 'ehelf_server_upstream_fetches_total{artifact="executable",outcome="not_found"}')
check "asked again: 404 from the negative cache, no new upstream request" [ \
	"$(code "/buildid/$unknown/eh_elf")" = 404 -a \
	"$(metric 'ehelf_server_upstream_fetches_total{artifact="executable",outcome="not_found"}')" = "$nf" -a \
	"$(metric 'ehelf_server_cache_hits_total{cache="negative"}')" -ge 1 ]
check "an executable without unwind tables: built from its debuginfo's .debug_frame" sh -c \
	"curl -s -o '$T/body' '$(url "/buildid/$dfid/eh_elf")' && cmp -s '$T/body' '$T/dbgframe.so'"
check "... the debuginfo fetched from upstream" \
	[ "$(metric 'ehelf_server_upstream_fetches_total{artifact="debuginfo",outcome="ok"}')" = 1 ]
curl -s -D "$T/h" -o "$T/body" "$(url "/buildid/$ncid/eh_elf")"
check "an executable without unwind tables or debuginfo: 404, saying so" sh -c \
	"[ \"\$(head -n 1 '$T/h' | cut -d' ' -f2)\" = 404 ] && grep -q 'no unwind tables' '$T/body'"
tc=$(code "/buildid/$truncid/eh_elf")
curl -s -o "$T/body" "$(url "/buildid/$truncid/eh_elf")"
check "a truncated ELF upstream: an error response ($tc), with the reason" sh -c \
	"[ '$tc' = 502 ] && grep -q 'could not be compiled' '$T/body'"
check "... without the server's paths or the compiler's standard error: $(cat "$T/body")" \
	sh -c "! grep -q -e '$T' -e 'ehelf-compile' -e 'truncated' -e '/' '$T/body'"
check "... and the server is still up" [ "$(code /)" = 200 -a "$(code "/buildid/$xid/eh_elf")" = 200 ]
check "... and nothing of it in the store" [ ! -e "$(store_file "$T/od" "$truncid")" ]
check "the status page names the upstream and counts the eh_elfs" \
	sh -c "curl -s '$(url /)' | grep -q '127.0.0.1:$dport' && curl -s '$(url /)' | grep -q '<th>eh_elfs</th><td>3</td>'"
# the page as a browser reads it: Debian's chromium, headless, its DOM
check "a browser (headless chromium) renders the status page: its table, the upstream" sh -c \
	"timeout 120 chromium --headless=new --no-sandbox --disable-gpu --dump-dom \
	 '$(url /)' 2>/dev/null >'$T/dom' && grep -q '<tbody><tr><th>store</th>' '$T/dom' &&
	 grep -q '<th>eh_elfs</th><td>3</td>' '$T/dom' && grep -q '127.0.0.1:$dport' '$T/dom'"
stop_server

echo "== build limits: wall clock, queue"
# a compiler that hangs: killed at --build-timeout; with one builder and no
# queue, a second ID meanwhile is refused 503
# that leaves a grandchild in a session of its own, which must not survive
printf '#!/bin/sh\nsetsid sleep 300 </dev/null >/dev/null 2>&1 &\necho $! >%s/stray.pid\nexec sleep 30\n' \
	"$T" >"$T/hang-compile"
chmod +x "$T/hang-compile"
start_server --store "$T/slow" --upstream "$up" --compiler "$T/hang-compile" -j 1 \
	--max-queue 0 --build-timeout 2
sids=$(grep -v -e "^$xid " -e "^$cid " "$T/upids" | cut -d' ' -f1 | head -n 2)
s1=$(echo "$sids" | sed -n 1p)
s2=$(echo "$sids" | sed -n 2p)
curl -s -o "$T/slow1" -w '%{http_code}' --max-time 20 "$(url "/buildid/$s1/eh_elf")" >"$T/slow1.code" &
sc=$!
sleep 1
curl -s -D "$T/h" -o "$T/body" "$(url "/buildid/$s2/eh_elf")"
check "one builder busy, no queue: another ID refused 503 with Retry-After" sh -c \
	"head -n 1 '$T/h' | grep -q ' 503' && grep -qi '^Retry-After' '$T/h'"
wait "$sc" || true
check "a compile that hangs: killed at --build-timeout, 502 saying so" sh -c \
	"[ \"\$(cat '$T/slow1.code')\" = 502 ] && grep -q \"killed at the build's wall-clock limit\" '$T/slow1'"
stray=$(cat "$T/stray.pid" 2>/dev/null || echo 0)
check "... and its grandchild in its own session killed with it" \
	sh -c "[ '$stray' -gt 0 ] && ! kill -0 '$stray' 2>/dev/null"
kill -9 "$stray" 2>/dev/null || true
tmo=$(metric 'ehelf_server_ondemand_builds_total{outcome="timeout"}')
rej=$(metric 'ehelf_server_ondemand_builds_total{outcome="rejected"}')
check "... counted ($tmo timeout, $rej rejected), and nothing in the store" \
	[ "$tmo" = 1 -a "$rej" = 1 -a -z "$(find "$T/slow/.build-id" -name '*.so')" ]
stop_server

echo "== hostile upstreams: stalls, large files, many unknown IDs"
# a debuginfod look-alike: two IDs that stall, a good one, files above
# --max-download with and without Content-Length, one ELF too large for
# the compiler's memory limit; every other ID 404
gid=$(grep -v -e "^$xid " -e "^$cid " "$T/upids" | sed -n 3p | cut -d' ' -f1)
gelf=$(grep "^$gid " "$T/upids" | cut -d' ' -f2)
cp "$xelf" "$T/padded.so"
truncate -s 40M "$T/padded.so"
stall1=aa00000000000000000000000000000000000001
stall2=aa00000000000000000000000000000000000002
big1=bb00000000000000000000000000000000000001
big2=bb00000000000000000000000000000000000002
memid=cc00000000000000000000000000000000000001
printf '%s stall\n%s stall\n%s file %s\n%s zeros 64\n%s chunked 64\n%s file %s\n' \
	"$stall1" "$stall2" "$gid" "$gelf" "$big1" "$big2" "$memid" "$T/padded.so" >"$T/routes"
python3 "$here/hostile-upstream.py" "$T/hport" "$T/routes" "$T/hlog" &
hpid=$!
pids="$pids $hpid"
i=0
while [ ! -s "$T/hport" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
hup="http://127.0.0.1:$(cat "$T/hport")"
start_server --store "$T/hs" --upstream "$hup" -j 2 --build-timeout 5 --max-download 8
for k in 1 2; do
	eval "sid=\$stall$k"
	curl -s -o "$T/stall$k" -w '%{http_code}' --max-time 30 "$(url "/buildid/$sid/eh_elf")" \
		>"$T/stall$k.code" &
	eval "sc$k=\$!"
done
sleep 1
"$compile" "$gelf" -o "$T/g.so"
gcode=$(curl -s -o "$T/gbody" -w '%{http_code}' --max-time 20 "$(url "/buildid/$gid/eh_elf")")
pending=$(cat "$T/stall1.code" "$T/stall2.code")
check "-j 2, two stalled IDs: an unrelated good build served (200) while both still wait" \
	sh -c "[ '$gcode' = 200 ] && cmp -s '$T/gbody' '$T/g.so' && [ -z '$pending' ]"
wait "$sc1" "$sc2" || true
check "the stalled IDs: 504 at --build-timeout (5 s, below libdebuginfod's 30 s), saying so" \
	sh -c "[ \"\$(cat '$T/stall1.code' '$T/stall2.code')\" = 504504 ] &&
	       grep -q 'timed out' '$T/stall1'"
check "... each asked upstream once: cut by the deadline, not retried" \
	[ "$(grep -c "/$stall1/" "$T/hlog")" = 1 -a "$(grep -c "/$stall2/" "$T/hlog")" = 1 ]
check "metrics count 504" [ "$(metric 'ehelf_server_http_requests_total{artifact="eh_elf",code="504"}')" = 2 ]
curl -s -o "$T/body" -w '%{http_code}' "$(url "/buildid/$big1/eh_elf")" >"$T/code"
check "64 MiB upstream with Content-Length over --max-download 8: 502, saying so" \
	sh -c "[ \"\$(cat '$T/code')\" = 502 ] && grep -q 'larger than' '$T/body'"
curl -s -o "$T/body" -w '%{http_code}' "$(url "/buildid/$big2/eh_elf")" >"$T/code"
check "64 MiB upstream, chunked, no Content-Length: cut, 502, saying so" \
	sh -c "[ \"\$(cat '$T/code')\" = 502 ] && grep -q 'larger than' '$T/body'"
n404=0
for i in $(seq 1 200); do
	r=$(od -An -N20 -tx1 /dev/urandom | tr -d ' \n')
	[ "$(code "/buildid/$r/eh_elf")" = 404 ] && n404=$((n404 + 1))
done
check "200 random unknown IDs: 404" [ "$n404" = 200 ]
cache=$T/hs/.cache/debuginfod
check "nothing of any of these builds left in libdebuginfod's cache ($(find "$cache" -mindepth 1 | wc -l) entries)" \
	[ -z "$(find "$cache" -mindepth 1 -type d)" -a -z "$(find "$cache" -type f -size +0 ! -name '*_s')" ]
stop_server
start_server --store "$T/hs" --upstream "$hup" --build-memory 64
curl -s -o "$T/body" -w '%{http_code}' "$(url "/buildid/$memid/eh_elf")" >"$T/code"
check "a 40 MiB ELF with --build-memory 64: 502 naming the memory limit" \
	sh -c "[ \"\$(cat '$T/code')\" = 502 ] && grep -q 'memory limit' '$T/body'"
stop_server
# a compiler whose output is not an eh_elf (it copies its input): not
# signed, not stored, not served
printf '#!/bin/sh\nwhile [ $# -gt 1 ]; do [ "$1" = -o ] && out=$2; shift; done\ncp "$1" "$out"\n' \
	>"$T/copy-compile"
chmod +x "$T/copy-compile"
start_server --store "$T/hc" --upstream "$up" --sign-key "$T/key.pem" --compiler "$T/copy-compile"
curl -s -o "$T/body" -w '%{http_code}' "$(url "/buildid/$xid/eh_elf")" >"$T/code"
check "a compiler output that is not an eh_elf: 502 (eh_elf_check), nothing signed or stored" \
	sh -c "[ \"\$(cat '$T/code')\" = 502 ] && grep -q 'not a valid eh_elf' '$T/body' &&
	       [ -z \"\$(find '$T/hc/.build-id' -name '*.so*')\" ]"
stop_server
kill "$hpid" 2>/dev/null || true

echo "== two replicas over one store"
start_server --store "$T/rep" --upstream "$up" --sign-key "$T/key.pem"
pa=$PORT
spa=$SPID
start_server --store "$T/rep" --upstream "$up" --sign-key "$T/key.pem"
pb=$PORT
rid=$(grep '/libxml2\.so' "$T/upids" | head -n 1 | cut -d' ' -f1)
curl -s -o "$T/ra" "http://127.0.0.1:$pa/buildid/$rid/eh_elf" &
ca=$!
curl -s -o "$T/rb" "http://127.0.0.1:$pb/buildid/$rid/eh_elf" &
cb=$!
wait "$ca" "$cb"
fa=$(PORT=$pa metric 'ehelf_server_upstream_fetches_total{artifact="executable",outcome="ok"}')
fb=$(PORT=$pb metric 'ehelf_server_upstream_fetches_total{artifact="executable",outcome="ok"}')
check "both answer the same eh_elf at once, built once between them ($fa + $fb fetches)" \
	sh -c "cmp -s '$T/ra' '$T/ref.so' && cmp -s '$T/rb' '$T/ref.so' && [ $((fa + fb)) = 1 ]"
stop_server
kill "$spa"
wait "$spa" || bad "replica A exited $? on SIGTERM"

echo "== the index of a rebuilt ID, an old index"
# an ID ehelf-batch had recorded with its statistics, whose eh_elf is gone
# from the store: rebuilt on demand, and the statistics of the old file go
sqlite3 "$T/rep/ehelf.sqlite" "INSERT INTO rulesets VALUES ('$rid', 1, 1, 5, 1, 1,
	'rsp', 7, 8, 0); INSERT INTO fde_sizes VALUES ('$rid', 5, 1, 40);
	INSERT INTO rule_kinds VALUES ('$rid', -1, 0, 0, 0, 5, 0, 0, 0, 0)"
rm -f "$(store_file "$T/rep" "$rid")" "$(store_file "$T/rep" "$rid").sig"
start_server --store "$T/rep" --upstream "$up" --sign-key "$T/key.pem"
check "an eh_elf gone from the store: rebuilt on demand" sh -c \
	"curl -s -o '$T/body' '$(url "/buildid/$rid/eh_elf")' && cmp -s '$T/body' '$T/ref.so'"
check "... and the detail rows of the old one deleted with its row replaced" [ \
	"$(sqlite3 "$T/rep/ehelf.sqlite" "SELECT (SELECT count(*) FROM rulesets WHERE
	 build_id = '$rid') + (SELECT count(*) FROM fde_sizes WHERE build_id = '$rid')
	 + (SELECT count(*) FROM rule_kinds WHERE build_id = '$rid')")" = 0 -a \
	"$(sqlite3 "$T/rep/ehelf.sqlite" "SELECT count(*) FROM eh_elfs WHERE
	 build_id = '$rid' AND stats_version IS NULL")" = 1 ]
stop_server
# ehelf-batch over that store: the on-demand builds' upstream stays done
mkdir -p "$T/empty"
"$batch" --store "$T/rep" "$T/empty" >/dev/null 2>&1
check "ehelf-batch on a store with on-demand builds: their upstream package stays done" [ \
	"$(sqlite3 "$T/rep/ehelf.sqlite" "SELECT group_concat(status) FROM packages
	 WHERE format = 'debuginfod'")" = done ]
# a version-0 index (tables, no user_version) in a store served with
# on-demand builds: refused, not stamped current without its columns
mkdir -p "$T/v0"
sqlite3 "$T/v0/ehelf.sqlite" <"$here/../batch/schema-v0.sql" >/dev/null
if timeout 20 "$server" --store "$T/v0" --upstream "$up" --listen 127.0.0.1 --port 0 \
	$asan 2>"$T/v0.err" >/dev/null; then
	bad "ehelf-server started on a version-0 index"
else
	check "a version-0 index in a writable store: refused, saying to run ehelf-batch" \
		grep -q "run ehelf-batch on the store once to migrate it" "$T/v0.err"
fi
check "... and left at version 0" [ "$(sqlite3 "$T/v0/ehelf.sqlite" "PRAGMA user_version")" = 0 ]

echo "== kill -9 during on-demand builds"
# IDs not built yet, several rounds: each round asks for 8 at once and
# kills the server at a different moment
grep -v -e "^$xid " -e "^$cid " "$T/upids" | cut -d' ' -f1 >"$T/todo"
round=0
for delay in 0.05 0.15 0.3 0.6; do
	round=$((round + 1))
	start_server --store "$T/od" --upstream "$up" --sign-key "$T/key.pem" -j 2
	curls=""
	for k in $(sed -n "$(( (round - 1) * 8 + 1 )),$(( round * 8 ))p" "$T/todo"); do
		curl -s -o /dev/null --max-time 20 "$(url "/buildid/$k/eh_elf")" &
		curls="$curls $!"
	done
	sleep "$delay"
	kill -9 "$SPID"
	wait "$SPID" 2>/dev/null || true
	for c in $curls; do wait "$c" 2>/dev/null || true; done
done
complete=0
partial=0
for so in $(find "$T/od/.build-id" -name '*.so' -type f); do
	h=$(basename "$(dirname "$so")")$(basename "$so" .so)
	e=$(grep "^$h " "$T/upids" | cut -d' ' -f2)
	if [ "$h" = "$dfid" ]; then
		e=$T/up/elfs/dbgframe
		cp "$T/dbgframe.so" "$T/ref.so"
	else
		"$compile" "$e" -o "$T/ref.so"
	fi
	if cmp -s "$so" "$T/ref.so" && verify_sig "$h" "$(cat "$so.sig")" "$so"; then
		complete=$((complete + 1))
	else
		partial=$((partial + 1))
		bad "$so: not the complete eh_elf of $e, or its signature does not verify"
	fi
done
check "after 4 kills: every eh_elf in the store complete and signed ($complete), none partial" \
	[ "$partial" = 0 -a "$complete" -ge 2 ]
start_server --store "$T/od" --upstream "$up" --sign-key "$T/key.pem"
check "restarted: the killed servers' temporaries removed" \
	[ -z "$(find "$T/od/.tmp" -name 'build-*' 2>/dev/null)" ]
k=$(sed -n 1p "$T/todo")
check "restarted: builds again (an ID of the first round: 200)" \
	[ "$(code "/buildid/$k/eh_elf")" = 200 ]
stop_server
kill "$dpid" 2>/dev/null || true

if [ "$fails" -ne 0 ]; then
	echo "server tests: $fails failed" >&2
	exit 1
fi
echo "server tests: all passed"
