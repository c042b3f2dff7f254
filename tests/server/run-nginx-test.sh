#!/bin/sh
# Serve a store with Debian's nginx and server/nginx/ehelf-store.conf, and
# check it the way clients use ehelf-server: a store of a few real .debs
# (signed), nginx on 127.0.0.1 on a free port with a private configuration,
# then with curl: every eh_elf byte-identical with its headers, its .sig,
# HEAD, conditional and range requests, 400 for malformed build-IDs, 404,
# 405, planted symlinks not followed.  Twice: the configuration as shipped,
# and with its optional X-EHELF-SIGNATURE lines (libnginx-mod-http-perl)
# enabled.  Also checks that server/ehelf-server.service passes
# `systemd-analyze verify`.  Never skips: missing packages are installed.
# Usage: tests/server/run-nginx-test.sh BUILD
set -eu
build=$(cd "${1:?usage: run-nginx-test.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
conf_src=$top/server/nginx/ehelf-store.conf
unit_src=$top/server/ehelf-server.service
batch=$build/bin/ehelf-batch
umask 022

"$top/scripts/install-deps.sh" nginx curl openssl libnginx-mod-http-perl systemd
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
PERL_MOD=/usr/lib/nginx/modules/ngx_http_perl_module.so
[ -x "$NGINX" ] || { echo "nginx not found after install-deps" >&2; exit 1; }
[ -f "$PERL_MOD" ] || { echo "$PERL_MOD not found after install-deps" >&2; exit 1; }

T=$(mktemp -d)
chmod 755 "$T" # nginx's workers (nobody when run as root) read the store
ngx_pid=""
stop_nginx() {
	[ -n "$ngx_pid" ] || return 0
	kill -TERM "$ngx_pid" 2>/dev/null || true
	i=0
	while kill -0 "$ngx_pid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 "$ngx_pid" 2>/dev/null && kill -KILL "$ngx_pid" 2>/dev/null
	wait "$ngx_pid" 2>/dev/null || true
	ngx_pid=""
}
trap 'stop_nginx; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
. "$here/../common/checks.sh"

# ---- the unit file ---------------------------------------------------------
echo "== server/ehelf-server.service"
if command -v systemd-analyze >/dev/null 2>&1; then
	# verify wants ExecStart's program to exist: the built one, or true
	exe=$build/bin/ehelf-server
	[ -x "$exe" ] || exe=$(command -v true)
	mkdir -p "$T/unit" "$T/unit/ehelf-server.service.d"
	sed "s|^ExecStart=/usr/bin/ehelf-server|ExecStart=$exe|" "$unit_src" \
		>"$T/unit/ehelf-server.service"
	if systemd-analyze verify "$T/unit/ehelf-server.service" >"$T/unit/out" 2>&1 &&
		! grep -q 'ehelf-server' "$T/unit/out"; then
		ok "systemd-analyze verify accepts it"
	else
		bad "systemd-analyze verify: $(cat "$T/unit/out")"
	fi
	# the commented on-demand drop-in, as a drop-in of the unit
	sed -n "s/^#dropin# \{0,1\}//; T; s|^ExecStart=/usr/bin/ehelf-server|ExecStart=$exe|; p" "$unit_src" \
		>"$T/unit/ehelf-server.service.d/on-demand.conf"
	if [ -s "$T/unit/ehelf-server.service.d/on-demand.conf" ] &&
		systemd-analyze verify "$T/unit/ehelf-server.service" >"$T/unit/out" 2>&1 &&
		! grep -q 'ehelf-server' "$T/unit/out"; then
		ok "... and with the on-demand drop-in"
	else
		bad "on-demand drop-in: $(cat "$T/unit/out")"
	fi
else
	bad "systemd-analyze not found after install-deps (package systemd)"
fi

# ---- the store -------------------------------------------------------------
echo "== a signed store from real packages"
debs=$("$top/tests/diff/fetch-packages.sh" --debs "$top/tests/diff/packages.txt")
deb() { echo "$debs" | grep "/$1_" | head -n 1; }
mkdir -p "$T/debs"
for p in zlib1g libgcc-s1 xz-utils rt-tests libsqlite3-0 coreutils; do
	cp "$(deb "$p")" "$T/debs/"
done
S=$T/store
openssl genpkey -algorithm ed25519 -out "$T/key.pem" 2>/dev/null
openssl pkey -in "$T/key.pem" -pubout -out "$T/pub.pem"
keyid=$(openssl pkey -in "$T/key.pem" -pubout -outform DER | tail -c 32 | sha256sum | cut -c1-16)
if "$batch" --help 2>&1 | grep -q -- '--sign-key'; then
	"$batch" --store "$S" -j 2 --sign-key "$T/key.pem" "$T/debs" >/dev/null
	signed_by="ehelf-batch --sign-key"
else
	"$batch" --store "$S" -j 2 "$T/debs" >/dev/null
	signed_by="openssl (ehelf-batch has no --sign-key)"
fi
find "$S/.build-id" -type f -name '*.so' | sort >"$T/ehelfs"
n=$(wc -l <"$T/ehelfs")
[ "$n" -ge 20 ] && ok "$n eh_elfs" || bad "only $n eh_elfs in the store"
# hex of a store path
hex_of() { r=${1#"$S"/.build-id/}; r=${r%.so}; echo "${r%%/*}${r#*/}"; }
msg() { printf 'ehelf-sig-1\n%s\n%s\n%s\n' "$1" "$2" "$3"; }
# the signature line of common/sign.h, made with openssl
sign_line() { # FILE HEX
	sha=$(sha256sum "$1" | cut -c1-64)
	msg "$2" "$sha" "$keyid" >"$T/msg"
	openssl pkeyutl -sign -inkey "$T/key.pem" -rawin -in "$T/msg" -out "$T/sig.bin"
	printf 'ehelf-sig-1 %s %s %s\n' "$keyid" "$sha" \
		"$(od -An -v -tx1 "$T/sig.bin" | tr -d ' \n')"
}
while read -r f; do
	[ -e "$f.sig" ] || sign_line "$f" "$(hex_of "$f")" >"$f.sig"
done <"$T/ehelfs"
# every signature line verifies (openssl) over its eh_elf's build-ID and bytes
badsig=0
while read -r f; do
	set -- $(cat "$f.sig")
	if [ $# -ne 4 ] || [ "$1" != ehelf-sig-1 ] || [ "$2" != "$keyid" ] ||
		[ "$3" != "$(sha256sum "$f" | cut -c1-64)" ]; then
		badsig=$((badsig + 1))
		continue
	fi
	msg "$(hex_of "$f")" "$3" "$2" >"$T/msg"
	perl -e 'print pack("H*", $ARGV[0])' "$4" >"$T/sig.bin"
	openssl pkeyutl -verify -pubin -inkey "$T/pub.pem" -rawin -in "$T/msg" \
		-sigfile "$T/sig.bin" >/dev/null 2>&1 || badsig=$((badsig + 1))
done <"$T/ehelfs"
[ "$badsig" = 0 ] && ok "every eh_elf signed, by $signed_by, and openssl verifies it" ||
	bad "$badsig signatures do not verify"

# planted symlinks, pointing outside the store (world-readable targets)
mkdir -p "$T/outside"
echo "not an eh_elf: outside the store" >"$T/outside/secret.so"
cp "$T/outside/secret.so" "$T/outside/77.so"
first=$(head -n 1 "$T/ehelfs")
fhex=$(hex_of "$first")
link_file=$(dirname "$first")/11223344.so              # a symlinked eh_elf
ln -s "$T/outside/secret.so" "$link_file"
link_hex=$(hex_of "$link_file")
i=0
while :; do # a two-digit directory that does not exist yet: symlink it
	xx=$(printf '%02x' $i)
	[ -e "$S/.build-id/$xx" ] || break
	i=$((i + 1))
done
ln -s "$T/outside" "$S/.build-id/$xx"                  # a symlinked directory
dir_hex=${xx}77
cp "$first" "$(dirname "$first")/5566778899.so"       # a real eh_elf whose
sig_hex=$(hex_of "$(dirname "$first")/5566778899.so") # .sig is a symlink
cp "$first.sig" "$T/outside/sig"
ln -s "$T/outside/sig" "$(dirname "$first")/5566778899.so.sig"
unknown=0123456789abcdef0123456789abcdef01234567
[ ! -e "$S/.build-id/01/23456789abcdef0123456789abcdef01234567.so" ] ||
	{ echo "unknown build-ID is in the store" >&2; exit 1; }

# ---- nginx -----------------------------------------------------------------
# a port nobody listens on (retried if nginx still finds it taken)
. "$top/tests/common/free-port.sh"

start_nginx() { # VARIANT: plain | sig
	N=$T/nginx-$1
	rm -rf "$N"
	mkdir -p "$N/tmp" "$N/logs"
	tries=0
	while :; do
		port=$(free_port)
		{
			[ "$1" = sig ] && echo "load_module $PERL_MOD;"
			cat <<EOF
daemon off;
master_process on;
worker_processes 2;
pid $N/nginx.pid;
error_log $N/logs/error.log info;
events { worker_connections 512; }
http {
    access_log $N/logs/access.log;
    client_body_temp_path $N/tmp/body;
    proxy_temp_path $N/tmp/proxy;
    fastcgi_temp_path $N/tmp/fastcgi;
    uwsgi_temp_path $N/tmp/uwsgi;
    scgi_temp_path $N/tmp/scgi;
    include $N/ehelf-store.conf;
}
EOF
		} >"$N/nginx.conf"
		sed -e 's|^\( *listen\) [^;]*;\( *# EHELF_LISTEN\)$|\1 127.0.0.1:'"$port"';\2|' \
			-e '/# EHELF_LISTEN6/d' \
			-e 's|^\( *root\) [^;]*;\( *# EHELF_STORE\)$|\1 '"$S"';\2|' \
			"$conf_src" >"$N/ehelf-store.conf"
		[ "$1" = sig ] && sed -i 's/#sig# //' "$N/ehelf-store.conf"
		grep -q "listen 127.0.0.1:$port;" "$N/ehelf-store.conf" &&
			grep -q "root $S;" "$N/ehelf-store.conf" ||
			{ echo "placeholders not found in $conf_src" >&2; exit 1; }
		"$NGINX" -t -q -p "$N" -c "$N/nginx.conf" -e "$N/logs/error.log" ||
			{ echo "nginx -t rejects the configuration ($1)" >&2; exit 1; }
		"$NGINX" -p "$N" -c "$N/nginx.conf" -e "$N/logs/error.log" \
			>"$N/logs/stdout" 2>&1 &
		ngx_pid=$!
		U=http://127.0.0.1:$port
		i=0
		while [ $i -lt 100 ]; do
			kill -0 "$ngx_pid" 2>/dev/null || break
			curl -s -o /dev/null "$U/" && return 0
			sleep 0.1
			i=$((i + 1))
		done
		stop_nginx
		tries=$((tries + 1))
		if grep -q 'Address already in use' "$N/logs/error.log" && [ $tries -lt 5 ]; then
			continue
		fi
		echo "nginx did not start ($1):" >&2
		cat "$N/logs/error.log" "$N/logs/stdout" >&2
		exit 1
	done
}

# get NAME PATH [curl args]: status into $code, headers into $T/h.NAME,
# body into $T/b.NAME
get() {
	name=$1
	path=$2
	shift 2
	code=$(curl -s --path-as-is -o "$T/b.$name" -D "$T/h.$name" -w '%{http_code}' \
		"$@" "$U$path") || code=000
}
hdr() { # NAME HEADER: its value (first), without CR
	awk -v k="$(echo "$2" | tr 'A-Z' 'a-z')" 'BEGIN { FS = ": " }
		{ sub(/\r$/, "") } tolower($1) == k { sub(/^[^:]*: /, ""); print; exit }' "$T/h.$1"
}
has_hdr() { grep -qi "^$2:" "$T/h.$1"; }

run_checks() { # VARIANT
	variant=$1
	nbad=0
	nsig=0
	note() { [ $nbad -lt 5 ] && echo "    $*" >&2; nbad=$((nbad + 1)); }
	while read -r f; do
		hex=$(hex_of "$f")
		size=$(stat -c %s "$f")
		rel=/.build-id/${hex%"${hex#??}"}/${hex#??}.so
		get e "/buildid/$hex/eh_elf"
		if [ "$code" != 200 ] || ! cmp -s "$f" "$T/b.e"; then
			note "$hex: GET $code or body differs"
			continue
		fi
		[ "$(hdr e Content-Length)" = "$size" ] || note "$hex: Content-Length"
		[ "$(hdr e X-DEBUGINFOD-SIZE)" = "$size" ] ||
			note "$hex: X-DEBUGINFOD-SIZE '$(hdr e X-DEBUGINFOD-SIZE)' != $size"
		[ "$(hdr e X-DEBUGINFOD-FILE)" = "$rel" ] ||
			note "$hex: X-DEBUGINFOD-FILE '$(hdr e X-DEBUGINFOD-FILE)'"
		[ "$(hdr e Cache-Control)" = "public, immutable" ] || note "$hex: Cache-Control"
		[ "$(hdr e Content-Type)" = "application/octet-stream" ] || note "$hex: Content-Type"
		hdr e ETag | grep -q '^"[^"]*"$' || note "$hex: no strong ETag"
		has_hdr e Last-Modified || note "$hex: no Last-Modified"
		sigline=$(tr -d '\n' <"$f.sig")
		if [ "$variant" = sig ]; then
			[ "$(hdr e X-EHELF-SIGNATURE)" = "$sigline" ] ||
				note "$hex: X-EHELF-SIGNATURE '$(hdr e X-EHELF-SIGNATURE)'"
		else
			has_hdr e X-EHELF-SIGNATURE && note "$hex: unexpected X-EHELF-SIGNATURE"
		fi
		etag=$(hdr e ETag)
		get h "/buildid/$hex/eh_elf" -I
		{ [ "$code" = 200 ] &&
			[ "$(hdr h Content-Length)" = "$size" ] &&
			[ "$(hdr h X-DEBUGINFOD-SIZE)" = "$size" ] &&
			[ "$(hdr h ETag)" = "$etag" ]; } || note "$hex: HEAD $code"
		get s "/buildid/$hex/eh_elf.sig"
		{ [ "$code" = 200 ] && cmp -s "$f.sig" "$T/b.s" &&
			[ "$(hdr s X-DEBUGINFOD-SIZE)" = "$(stat -c %s "$f.sig")" ] &&
			[ "$(hdr s Cache-Control)" = "public, immutable" ] &&
			[ "$(hdr s X-DEBUGINFOD-FILE)" = "$rel.sig" ] &&
			[ "$(hdr s Content-Type)" = "text/plain; charset=us-ascii" ]; } ||
			note "$hex: GET .sig $code"
		nsig=$((nsig + 1))
	done <"$T/ehelfs"
	[ $nbad = 0 ] && ok "$n eh_elfs: byte-identical, Content-Length, X-DEBUGINFOD-SIZE/FILE, Cache-Control, ETag, Last-Modified, HEAD, .sig" ||
		bad "$nbad problems serving the eh_elfs"
	if [ "$variant" = sig ]; then
		[ $nbad = 0 ] && ok "X-EHELF-SIGNATURE is each .sig's line"
	else
		[ $nbad = 0 ] && ok "no X-EHELF-SIGNATURE (clients fetch eh_elf.sig)"
	fi

	# conditional and range requests
	size=$(stat -c %s "$first")
	get e "/buildid/$fhex/eh_elf"
	etag=$(hdr e ETag)
	get c "/buildid/$fhex/eh_elf" -H "If-None-Match: $etag"
	[ "$code" = 304 ] && [ ! -s "$T/b.c" ] && ok "If-None-Match: 304" ||
		bad "If-None-Match: $code"
	get r "/buildid/$fhex/eh_elf" -H 'Range: bytes=0-99'
	head -c 100 "$first" >"$T/first100"
	[ "$code" = 206 ] && cmp -s "$T/b.r" "$T/first100" &&
		[ "$(hdr r X-DEBUGINFOD-SIZE)" = "$size" ] &&
		ok "Range: 206, X-DEBUGINFOD-SIZE the whole size" || bad "Range: $code"
	get q "/buildid/$fhex/eh_elf?x=1"
	[ "$code" = 200 ] && cmp -s "$first" "$T/b.q" && ok "a query string is ignored" ||
		bad "query: $code"
	# a hex digit percent-encoded is decoded (as libmicrohttpd does)
	get p "/buildid/%$(printf '%s' "${fhex%"${fhex#?}"}" | od -An -tx1 | tr -d ' \n')${fhex#?}/eh_elf"
	[ "$code" = 200 ] && cmp -s "$first" "$T/b.p" && ok "percent-encoded hex digit decoded" ||
		bad "percent-encoded hex digit: $code"

	# 400: malformed build-IDs
	a130=$(printf '%0130d' 0)
	a128=$(printf '%0128d' 0)
	nb=0
	for p in "/buildid/abc/eh_elf" "/buildid/a/eh_elf" "/buildid/$a130/eh_elf" \
		"/buildid/${a128}00/eh_elf.sig" "/buildid/ABCDEF/eh_elf" \
		"/buildid/$(echo "$fhex" | tr a-f A-F)/eh_elf" "/buildid/../eh_elf" \
		"/buildid/%2e%2e/eh_elf" "/buildid/%2E%2E/eh_elf.sig" "/buildid//eh_elf" \
		"/buildid/ab/../eh_elf" "/buildid/$fhex/../$fhex/eh_elf" \
		"/buildid/./$fhex/eh_elf" "/buildid/zz/eh_elf" "/buildid/0x12/eh_elf" \
		"/buildid/ab%2fcd/eh_elf" "/buildid/a%00/eh_elf" "/buildid/" \
		"/buildid/../../../etc/passwd" "/buildid/%2e%2e/%2e%2e/etc/passwd"; do
		for m in GET HEAD; do
			if [ $m = HEAD ]; then get x "$p" -I; else get x "$p"; fi
			# "/buildid/ab%2fcd" names ID "ab", artifact "cd/eh_elf": 404
			case "$p" in */ab%2fcd/*) want=404 ;; *) want=400 ;; esac
			[ "$code" = $want ] || { echo "    $m $p: $code, want $want" >&2; nb=$((nb + 1)); }
		done
	done
	[ $nb = 0 ] && ok "400 for odd length, 1 and 130 chars, uppercase, .., %2e%2e, /, non-hex (GET and HEAD)" ||
		bad "$nb malformed build-IDs not refused"

	# 404: well-formed but absent, other artifacts, the store's internals
	nb=0
	for p in "/buildid/$unknown/eh_elf" "/buildid/$unknown/eh_elf.sig" \
		"/buildid/$a128/eh_elf" "/buildid/ff/eh_elf" "/buildid/$fhex/executable" \
		"/buildid/$fhex/debuginfo" "/buildid/$fhex" "/buildid/$fhex/" \
		"/buildid/$fhex/eh_elf/" "/ehelf.sqlite" "/.build-id/" "/.tmp/" \
		"/$(echo "$first" | sed "s|^$S/||")" "/metrics" "/nothing" "/buildid"; do
		get x "$p"
		[ "$code" = 404 ] || { echo "    $p: $code, want 404" >&2; nb=$((nb + 1)); }
	done
	[ $nb = 0 ] && ok "404 for unknown IDs (2 and 128 chars too), other artifacts, the store's files" ||
		bad "$nb paths not 404"
	get x "/"
	[ "$code" = 200 ] && ok "/ answers 200" || bad "/: $code"

	# 405 with Allow
	nb=0
	for m in POST PUT DELETE OPTIONS PATCH PROPFIND; do
		for p in "/buildid/$fhex/eh_elf" "/buildid/zz/eh_elf" "/"; do
			get x "$p" -X $m
			{ [ "$code" = 405 ] && [ "$(hdr x Allow)" = "GET, HEAD" ]; } ||
				{ echo "    $m $p: $code, Allow '$(hdr x Allow)'" >&2; nb=$((nb + 1)); }
		done
	done
	[ $nb = 0 ] && ok "405 with Allow: GET, HEAD for POST, PUT, DELETE, OPTIONS, PATCH, PROPFIND" ||
		bad "$nb requests with other methods not 405"

	# planted symlinks
	nb=0
	for p in "/buildid/$link_hex/eh_elf" "/buildid/$dir_hex/eh_elf" \
		"/buildid/$sig_hex/eh_elf.sig"; do
		get x "$p"
		case "$code" in 403 | 404) ;; *) echo "    $p: $code" >&2; nb=$((nb + 1)) ;; esac
		grep -q 'outside the store' "$T/b.x" && nb=$((nb + 1))
		cmp -s "$T/b.x" "$T/outside/sig" && nb=$((nb + 1))
	done
	get x "/buildid/$sig_hex/eh_elf"
	[ "$code" = 200 ] || nb=$((nb + 1))
	has_hdr x X-EHELF-SIGNATURE && { echo "    signature read through a symlink" >&2; nb=$((nb + 1)); }
	[ $nb = 0 ] && ok "symlinked eh_elf, directory and .sig in the store not followed (403/404)" ||
		bad "symlinks followed ($nb)"
}

for variant in plain sig; do
	case $variant in
	plain) echo "== nginx, the configuration as shipped" ;;
	sig) echo "== nginx, with the #sig# lines (X-EHELF-SIGNATURE, libnginx-mod-http-perl)" ;;
	esac
	start_nginx $variant
	echo "  (nginx $("$NGINX" -v 2>&1 | sed 's|.*/||') on $U, pid $ngx_pid)"
	run_checks $variant
	pid=$ngx_pid
	stop_nginx
	if kill -0 "$pid" 2>/dev/null; then
		bad "nginx $pid still running after SIGTERM"
	elif grep -q '\[\(emerg\|alert\)\]' "$N/logs/error.log"; then
		bad "nginx logged: $(grep '\[\(emerg\|alert\)\]' "$N/logs/error.log" | head -n 3)"
	else
		ok "nginx stopped on SIGTERM, no emerg/alert in its log"
	fi
done

if [ $fails -ne 0 ]; then
	echo "run-nginx-test: $fails FAILED" >&2
	exit 1
fi
echo "run-nginx-test: all passed"
