#!/bin/sh
# ehelf-perf fetching what a recording needs, with real servers on
# loopback:
#  (a) eh_elfs: a real recording, a store built for it and signed
#      (ehelf-batch --sign-key), served by ehelf-server; with EHELF_URLS,
#      an empty cache and no EHELF_PATH, `ehelf-perf script` prints what
#      it prints with the store on disk, and the cache then holds every
#      eh_elf of the store (file and stream, the stream read twice), which
#      the unwinding then opens (strace); a second run asks nothing; with
#      --no-fetch no request reaches the server (its /metrics); the files
#      that only callchains reach (not in the build-ID table) fetched too; eh_elfs
#      signed by a key not trusted are refused, said so on one line, and
#      not kept; the progress line shows on a terminal only;
#  (b) files missing here (a recording from another machine): programs
#      recorded, then moved away; perf's build-ID cache gives them back,
#      and without it elfutils' debuginfod (debuginfod -F) through
#      libdebuginfod ($DEBUGINFOD_URLS) does: the executable, and the
#      debuginfo of a stripped one for its symbols; the output is then
#      the one with the files in place; --no-fetch asks nothing.
# perf record keeps its build-ID cache in the test's own HOME.
# Usage: tests/perf/run-perf-fetch-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-perf-fetch-tests.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	[ -n "${KEEP_T:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fails=0
ok() { echo "  ok: $*"; }
bad() { echo "  FAIL: $*" >&2; fails=$((fails + 1)); }
ep="$build/bin/ehelf-perf"
unset EHELF_PATH EHELF_URLS EHELF_CACHE_PATH EHELF_TRUSTED_KEYS EHELF_ALLOW_UNSIGNED \
	EHELF_PROGRESS EHELF_VERBOSE DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH \
	DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE PERF_BUILDID_DIR
export XDG_CACHE_HOME="$T/xdg"
mkdir -p "$T/home" "$T/nohome"
export HOME="$T/home"
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
http_code() { curl -s -o /dev/null -w '%{http_code}' "$1" || true; }
wait_for() { # PID WHAT LOG COMMAND...: until COMMAND succeeds, while PID lives
	wpid=$1 what=$2 log=$3
	shift 3
	i=0
	until "$@"; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 "$wpid" 2>/dev/null; then
			echo "$what: $(tail -n 3 "$log")" >&2
			exit 1
		fi
		sleep 0.1
	done
}
ids_of() { # the build-IDs of the eh_elfs of store or cache $1, sorted
	find "$1/.build-id" -name '*.so' 2>/dev/null |
		sed 's|.*/\([0-9a-f][0-9a-f]\)/\([0-9a-f]*\)\.so$|\1\2|' | sort
}

echo "== (a) eh_elfs from ehelf-server"
"$here/record-workloads.sh" "$T/rec" 1 sqlite
sq="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
	 WHERE i < 300000) SELECT count(*), sum(i * i % 7) FROM n;"
perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o - -- \
	sqlite3 :memory: "$sq" 2>/dev/null >"$T/rec/pipe.data"
openssl genpkey -algorithm ed25519 -out "$T/key.pem" 2>/dev/null
mkdir -p "$T/keys" "$T/otherkeys"
openssl pkey -in "$T/key.pem" -pubout -out "$T/keys/key.pem"
openssl genpkey -algorithm ed25519 -out "$T/other.pem" 2>/dev/null
openssl pkey -in "$T/other.pem" -pubout -out "$T/otherkeys/other.pem"
SIGN_KEY="$T/key.pem" "$here/store-for-recordings.sh" "$build" "$T/store" \
	"$T/rec/sqlite.data" "$T/rec/pipe.data"
ids_of "$T/store" >"$T/store.ids"
nstore=$(wc -l <"$T/store.ids")
[ "$nstore" -gt 0 ] && [ -n "$(find "$T/store/.build-id" -name '*.so.sig' | head -n 1)" ] ||
	{ echo "no signed eh_elfs in the store" >&2; exit 1; }
echo "  a signed store of $nstore eh_elfs"

rm -f "$T/port"
"$build/bin/ehelf-server" --store "$T/store" --listen 127.0.0.1 --port 0 \
	--port-file "$T/port" --upstream "" 2>"$T/server.log" &
spid=$!
pids="$pids $spid"
wait_for "$spid" "ehelf-server did not start" "$T/server.log" test -s "$T/port"
url="http://127.0.0.1:$(cat "$T/port")"
requests() { # every request but the scrapes of /metrics themselves
	curl -s "$url/metrics" >"$T/metrics" || true
	grep -q '^# TYPE ehelf_server_http_requests_total counter' "$T/metrics" ||
		{ echo "no ehelf_server_http_requests_total in $url/metrics" >&2; exit 1; }
	awk '/^ehelf_server_http_requests_total\{/ && !/artifact="metrics"/ { n += $NF }
	     END { print n + 0 }' "$T/metrics"
}
requests >/dev/null

for w in sqlite pipe; do
	EHELF_PATH=$T/store "$ep" script -i "$T/rec/$w.data" --no-progress >"$T/$w.ref"
done
export EHELF_TRUSTED_KEYS="$T/keys"
EHELF_URLS=$url EHELF_CACHE_PATH=$T/cache-a "$ep" script -i "$T/rec/sqlite.data" \
	--no-progress >"$T/sqlite.fetched" 2>"$T/sqlite.err" ||
	bad "sqlite: ehelf-perf failed: $(head -c 300 "$T/sqlite.err")"
cmp -s "$T/sqlite.ref" "$T/sqlite.fetched" &&
	ok "sqlite: fetching from $url prints what the store on disk gives" ||
	bad "sqlite: the output differs from the one with EHELF_PATH ($(diff "$T/sqlite.ref" "$T/sqlite.fetched" | grep -c '^[<>]') lines)"
if ids_of "$T/cache-a" | cmp -s - "$T/store.ids"; then
	ok "sqlite: the cache holds the $nstore eh_elfs of the store, fetched"
else
	bad "sqlite: the cache holds $(ids_of "$T/cache-a" | wc -l) eh_elfs, the store $nstore: $(ids_of "$T/cache-a" | diff - "$T/store.ids" | head -n 4 | tr '\n' ' ')"
fi
# the files only callchains reach (perf record lists in its build-ID
# table only those its samples' pcs hit; --no-buildid lists none, so that
# every file the stacks reach is such a file, whatever the samples hit):
# their eh_elfs fetched too
perf record -q --no-buildid -e cpu-clock -F 2000 --call-graph dwarf \
	-o "$T/rec/nobid.data" -- sqlite3 :memory: "$sq" >/dev/null 2>&1
perf buildid-list -i "$T/rec/nobid.data" 2>/dev/null | awk '{ print $1 }' | sort -u >"$T/listed.ids"
EHELF_URLS=$url EHELF_CACHE_PATH=$T/cache-c "$ep" script -i "$T/rec/nobid.data" \
	--no-progress >"$T/nobid.fetched" 2>/dev/null ||
	bad "no build-ID table: ehelf-perf failed"
awk -F'[()]' '/^\t/ && $(NF-1) ~ /^\// { print $(NF-1) }' "$T/nobid.fetched" | sort -u |
	while read -r p; do
		id=$(readelf -n "$p" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
		if [ -n "$id" ] && ! grep -qx "$id" "$T/listed.ids" &&
		   grep -qx "$id" "$T/store.ids"; then echo "$id $p"; fi
	done >"$T/chain-only"
missing_chain=$(cut -d' ' -f1 "$T/chain-only" | while read -r id; do
	ids_of "$T/cache-c" | grep -qx "$id" || echo "$id"; done)
[ "$(wc -l <"$T/chain-only")" -ge 2 ] && [ -z "$missing_chain" ] &&
	ok "no build-ID table: fetched, the eh_elfs of the files only callchains reach: $(cut -d' ' -f2 "$T/chain-only" | tr '\n' ' ')" ||
	bad "no build-ID table: files only callchains reach: $(tr '\n' ' ' <"$T/chain-only"); not fetched: $missing_chain"
[ -s "$T/sqlite.err" ] && bad "sqlite: something on standard error: $(head -c 300 "$T/sqlite.err")" ||
	ok "sqlite: nothing on standard error when not on a terminal"
# the unwinding uses them: from the cache, with nothing fetched (LeakSanitizer
# cannot run under ptrace)
strace -f -e trace=open,openat -o "$T/strace" env EHELF_CACHE_PATH="$T/cache-a" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	"$ep" script -i "$T/rec/sqlite.data" --no-progress --no-fetch >/dev/null
# (the cache's files are opened beneath its directories: openat(XX, "REST.so"))
n=$(grep -v ENOENT "$T/strace" | grep -Eo 'openat\([0-9]+, "[0-9a-f]{8,}\.so"' | sort -u | wc -l)
[ "$n" -gt 0 ] && ok "sqlite: the unwinding opens $n eh_elfs from the cache" ||
	bad "sqlite: no eh_elf of the cache opened"
before=$(requests)
EHELF_URLS=$url EHELF_CACHE_PATH=$T/cache-a "$ep" script -i "$T/rec/sqlite.data" \
	--no-progress >"$T/sqlite.again"
[ "$(requests)" = "$before" ] && cmp -s "$T/sqlite.ref" "$T/sqlite.again" &&
	ok "sqlite: a second run asks nothing (all cached)" ||
	bad "sqlite: a second run sent $(($(requests) - before)) requests"

# a stream, read twice (the build-IDs at its end, then the samples): a
# real pipe, not a file
# shellcheck disable=SC2002
cat "$T/rec/pipe.data" | EHELF_URLS=$url EHELF_CACHE_PATH=$T/cache-p \
	"$ep" script -i - --no-progress >"$T/pipe.fetched" 2>"$T/pipe.err" ||
	bad "pipe: ehelf-perf failed: $(head -c 300 "$T/pipe.err")"
cmp -s "$T/pipe.ref" "$T/pipe.fetched" && [ "$(ids_of "$T/cache-p" | wc -l)" -gt 0 ] &&
	ok "pipe: from a stream, the same output and $(ids_of "$T/cache-p" | wc -l) eh_elfs fetched" ||
	bad "pipe: output differs ($(diff "$T/pipe.ref" "$T/pipe.fetched" | grep -c '^[<>]') lines) or nothing fetched ($(ids_of "$T/cache-p" | wc -l))"

before=$(requests)
EHELF_URLS=$url EHELF_CACHE_PATH=$T/cache-n "$ep" script -i "$T/rec/sqlite.data" \
	--no-progress --no-fetch >"$T/sqlite.nofetch"
after=$(requests)
[ "$after" = "$before" ] && [ -z "$(ids_of "$T/cache-n")" ] &&
	cmp -s "$T/sqlite.ref" "$T/sqlite.nofetch" &&
	ok "--no-fetch: no request reached the server ($after requests in all), same output (DWARF CFI)" ||
	bad "--no-fetch: requests $before -> $after, $(ids_of "$T/cache-n" | wc -l) cached"

# eh_elfs signed by a key that is not trusted: refused, not kept
EHELF_TRUSTED_KEYS=$T/otherkeys EHELF_URLS=$url EHELF_CACHE_PATH=$T/cache-r \
	"$ep" script -i "$T/rec/sqlite.data" --no-progress >"$T/sqlite.refused" 2>"$T/refused.err"
if [ "$(wc -l <"$T/refused.err")" = 1 ] && grep -q "refused (" "$T/refused.err" &&
   [ -z "$(ids_of "$T/cache-r")" ] && cmp -s "$T/sqlite.ref" "$T/sqlite.refused"; then
	ok "untrusted key: refused, one line: $(cut -c 1-120 "$T/refused.err")"
else
	bad "untrusted key: $(ids_of "$T/cache-r" | wc -l) cached; stderr: $(head -c 300 "$T/refused.err")"
fi

# on a terminal: the progress line
script -qec "EHELF_URLS=$url EHELF_CACHE_PATH=$T/cache-t '$ep' script -i '$T/rec/sqlite.data' >/dev/null" \
	/dev/null >"$T/tty.out" 2>&1 </dev/null || true
tr '\r' '\n' <"$T/tty.out" | grep -q '^ehelf-perf: fetching eh_elfs: \([1-9][0-9]*\)/\1 *$' &&
	ok "on a terminal: \"$(tr '\r' '\n' <"$T/tty.out" | grep 'fetching eh_elfs' | tail -n 1 | sed 's/ *$//')\"" ||
	bad "on a terminal: no progress line: $(tr '\r' '\n' <"$T/tty.out" | head -c 300)"

echo "== (b) files missing here: perf's build-ID cache, then debuginfod"
mkdir -p "$T/prog" "$T/srv"
# one program with its symbols, one stripped with a separate debug file
cc -O1 -g -o "$T/prog/prog" "$here/data/shared_pages.c"
cc -O2 -g -o "$T/prog/sprog" "$here/data/shared_pages.c"
objcopy --only-keep-debug "$T/prog/sprog" "$T/prog/sprog.debug"
strip --strip-all "$T/prog/sprog"
(cd "$T/prog" && objcopy --add-gnu-debuglink=sprog.debug sprog)
for p in prog sprog; do
	perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$T/rec/$p.data" -- \
		"$T/prog/$p" 40000 >/dev/null 2>&1
	"$ep" script -i "$T/rec/$p.data" --no-progress >"$T/$p.ref"
	n=$(grep -c "	 *[0-9a-f]* leaf+0x[0-9a-f]* ($T/prog/$p)\$" "$T/$p.ref" || true)
	[ "$n" -gt 0 ] && ok "$p: in place, $n samples in leaf named" ||
		bad "$p: no frame of leaf named with the file in place"
done
mv "$T/prog/prog" "$T/prog/sprog" "$T/prog/sprog.debug" "$T/srv/"
"$ep" script -i "$T/rec/prog.data" --no-progress >"$T/prog.bidcache"
cmp -s "$T/prog.ref" "$T/prog.bidcache" &&
	ok "prog: moved away, read from perf's build-ID cache: the same output" ||
	bad "prog: from perf's build-ID cache, the output differs ($(diff "$T/prog.ref" "$T/prog.bidcache" | grep -c '^[<>]') lines)"
export HOME="$T/nohome"
for p in prog sprog; do
	"$ep" script -i "$T/rec/$p.data" --no-progress >"$T/$p.missing"
	grep -q ' leaf+' "$T/$p.missing" && bad "$p: symbols found with the file moved away" ||
		ok "$p: moved away, no build-ID cache: its symbols are lost"
done

dport=$(free_port)
debuginfod -p "$dport" -d "$T/debuginfod.sqlite" -F "$T/srv" -t 0 -g 0 -c 1 \
	>"$T/debuginfod.log" 2>&1 &
dpid=$!
pids="$pids $dpid"
durl="http://127.0.0.1:$dport"
pid_=$(readelf -n "$T/srv/prog" | awk '/Build ID/ { print $3 }')
sid=$(readelf -n "$T/srv/sprog" | awk '/Build ID/ { print $3 }')
indexed() {
	[ "$(http_code "$durl/buildid/$pid_/executable")" = 200 ] &&
	[ "$(http_code "$durl/buildid/$sid/executable")" = 200 ] &&
	[ "$(http_code "$durl/buildid/$sid/debuginfo")" = 200 ]
}
wait_for "$dpid" "debuginfod did not index $T/srv" "$T/debuginfod.log" indexed
for p in prog sprog; do
	DEBUGINFOD_URLS=$durl DEBUGINFOD_CACHE_PATH=$T/dcache "$ep" script \
		-i "$T/rec/$p.data" --no-progress >"$T/$p.debuginfod" 2>"$T/$p.derr"
	cmp -s "$T/$p.ref" "$T/$p.debuginfod" &&
		ok "$p: from debuginfod, the output with the file in place" ||
		bad "$p: from debuginfod, the output differs ($(diff "$T/$p.ref" "$T/$p.debuginfod" | grep -c '^[<>]') lines; $(head -c 200 "$T/$p.derr"))"
done
[ -f "$T/dcache/$sid/debuginfo" ] && [ -f "$T/dcache/$pid_/executable" ] &&
	[ ! -e "$T/dcache/$pid_/debuginfo" ] &&
	ok "debuginfod: executables fetched, and the stripped one's debuginfo (only)" ||
	bad "debuginfod: not the files expected in its cache: $(ls "$T"/dcache/* 2>&1 | tr '\n' ' ')"
DEBUGINFOD_URLS=$durl DEBUGINFOD_CACHE_PATH=$T/dcache-n "$ep" script \
	-i "$T/rec/prog.data" --no-progress --no-fetch >"$T/prog.nofetch"
! grep -q ' leaf+' "$T/prog.nofetch" && [ ! -e "$T/dcache-n" ] &&
	ok "--no-fetch: debuginfod not asked" ||
	bad "--no-fetch: debuginfod asked, or symbols found"
# a libdebuginfod that cannot be loaded (an empty file found first): the
# output as without the files, and the reason said once on stderr
mkdir "$T/badlib" && : >"$T/badlib/libdebuginfod.so.1"
rc=0
LD_LIBRARY_PATH=$T/badlib DEBUGINFOD_URLS=$durl DEBUGINFOD_CACHE_PATH=$T/dcache-b \
	"$ep" script -i "$T/rec/prog.data" --no-progress >"$T/prog.badlib" 2>"$T/prog.badlib.err" || rc=$?
[ "$rc" = 0 ] && ! grep -q ' leaf+' "$T/prog.badlib" && [ ! -e "$T/dcache-b" ] &&
	[ "$(grep -c 'not asked of \$DEBUGINFOD_URLS: .*libdebuginfod.so.1' "$T/prog.badlib.err")" = 1 ] &&
	ok "libdebuginfod not loadable: said once ($(head -c 120 "$T/prog.badlib.err"))" ||
	bad "libdebuginfod not loadable: exit $rc, stderr: $(head -c 300 "$T/prog.badlib.err")"

[ "$fails" = 0 ] && echo "ehelf-perf fetch tests: PASS" || { echo "ehelf-perf fetch tests: $fails FAILED"; exit 1; }
