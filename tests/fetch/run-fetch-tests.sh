#!/bin/sh
# End-to-end tests of fetching eh_elfs (docs/trust.md, "Fetching"), on
# loopback with real components: ehelf-batch --sign-key builds a signed
# store of a libunwind program (tests/unwind/unw_api.c, with
# tests/fetch/wait_fetch.c) and of every library it loads, ehelf-server
# serves it, and fresh processes with an empty cache and EHELF_URLS set
# fetch what they need:
#  - the libunwind program with libehelf-unwind.so preloaded (its
#    background thread), printing the same frames as with the store on
#    disk, every eh_elf of its modules in the cache, byte-identical and
#    mode 0400, and the process-wide space using them;
#  - ehelf_space_fetch on a space four threads unwind with meanwhile
#    (tests/fetch/space_fetch.c): eh_elfs attached, every stack the same;
#  - ehelf-find, by build-ID and by ELF file: the cache path printed;
#    absent, malformed and unknown IDs; -v;
#  - a server whose eh_elfs are tampered with, unsigned, signed by an
#    unknown key, or served for another build-ID: each refused with its
#    reason, the frames still right (DWARF fallback), no eh_elf of theirs
#    in the cache (negative entries only); a cached file altered
#    afterwards: refused, removed, fetched again;
#  - a server that accepts and never answers: EHELF_TIMEOUT honoured, the
#    program goes on, and with a good server beside it the good answer
#    wins at once;
#  - a static server (no X-EHELF-SIGNATURE: the .sig fetched) answering
#    503 first: retried within EHELF_RETRY_LIMIT;
#  - second runs: no request for what is cached or negatively cached (the
#    server's /metrics counters).
# Usage: tests/fetch/run-fetch-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-fetch-tests.sh BUILD}" && pwd)
server=$build/bin/ehelf-server
find_=$build/bin/ehelf-find
pre=$build/lib/libehelf-unwind.so
fetch_lib=$(cd "$(dirname "$0")" && pwd)/fetch-lib.sh
. "$fetch_lib"

# ---- helpers -------------------------------------------------------------
now() { date +%s.%N; }
elapsed() { # elapsed START: seconds since START
	echo "$(now) $1" | awk '{ printf "%.2f", $1 - $2 }'
}
# run NAME VAR=VALUE...: the libunwind program with libehelf-unwind
# preloaded, without address randomization, in an environment of the
# given variables padded to the same count and size in every run (stack
# pointers are printed relative to frame 0's, and across a signal frame
# or a realigned frame the distance depends on the stack's alignment);
# libehelf-unwind preloaded into the program alone (setarch preloaded
# would start a fetch of its own eh_elf, cut by its exec at any point);
# stdout to $T/NAME.out, stderr to $T/NAME.err, its time in $T/NAME.time
run() {
	name=$1
	shift
	while [ $# -lt 12 ]; do set -- "$@" "FETCH_TEST_UNUSED_$#=x"; done
	size=0
	for a; do size=$((size + ${#a} + 1)); done
	pad=$(printf "%$((3000 - size))s" "" | tr ' ' x)
	t0=$(now)
	(cd "$T/prog" && env -i PATH=/usr/bin:/bin "$@" FETCH_TEST_PAD="$pad" \
		setarch -R env LD_PRELOAD="$pre" ./fetch-unw-api \
		>"$T/$name.out" 2>"$T/$name.err") || bad "$name: the program failed ($?)"
	elapsed "$t0" >"$T/$name.time"
}
keys="EHELF_TRUSTED_KEYS=$T/keys"
# same_frames NAME: NAME.out is the reference's
same_frames() {
	lines=$(wc -l <"$T/ref.out")
	if [ "$lines" -gt 40 ] && cmp -s "$T/ref.out" "$T/$1.out"; then
		ok "$1: the same $lines lines of frames as with the store on disk"
	else
		bad "$1: frames differ from the store on disk"
		diff "$T/ref.out" "$T/$1.out" | head -10
	fi
}
# picked_up NAME: the process-wide space has the eh_elfs of the stack
picked_up() {
	grep -q "^wait_fetch: ehelf-fetch finished" "$T/$1.err" &&
		grep '^wait_fetch: ehelf_backtrace' "$T/$1.err" |
		awk '{ exit !($3 == $6 && $3 >= 3) }'
}

echo "== a signed store of a libunwind program and its libraries"
mkdir -p "$T/prog" "$T/files" "$T/keys" "$T/otherkeys"
openssl genpkey -algorithm ed25519 -out "$T/key.pem" 2>/dev/null
openssl pkey -in "$T/key.pem" -pubout -out "$T/keys/key.pub.pem"
openssl genpkey -algorithm ed25519 -out "$T/other.pem" 2>/dev/null
cp "$build/tests/fetch/fetch-unw-api" "$build/tests/fetch/space-fetch" \
   "$build/tests/unwind/libunwtest-dso.so" "$T/prog/"
for f in "$T/prog/fetch-unw-api" "$T/prog/space-fetch" "$pre"; do
	cp -n "$f" "$T/files/"
	ldd "$f" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' |
	while read -r lib; do cp -n "$(readlink -f "$lib")" "$T/files/"; done
done
cp "$T/prog/libunwtest-dso.so" "$T/files/"
"$build/bin/ehelf-compile" --extract-vdso "$T/files/vdso.so"
"$build/bin/ehelf-batch" --store "$T/store" --sign-key "$T/key.pem" "$T/files" \
	>/dev/null 2>"$T/batch.err" || { cat "$T/batch.err"; exit 1; }
# the same eh_elfs signed by a key nobody trusts
"$build/bin/ehelf-batch" --store "$T/otherstore" --sign-key "$T/other.pem" \
	"$T/files" >/dev/null 2>&1
ids=""
for f in "$T"/files/*; do
	id=$(build_id "$f")
	[ -n "$id" ] && [ -f "$(store_file "$T/store" "$id")" ] &&
		[ "$(basename "$f")" != libunwtest-dso.so ] &&
		[ "$(basename "$f")" != space-fetch ] && ids="$ids $id"
done
nids=$(echo $ids | wc -w)
[ "$nids" -ge 15 ] || { echo "only $nids eh_elfs in the store" >&2; exit 1; }
echo "  $nids eh_elfs for the modules loaded at start"
libc=$(build_id "$(ls "$T"/files/libc.so.6)")
libstdcxx=$(build_id "$(ls "$T"/files/libstdc++.so.6*)")
libgcc=$(build_id "$(ls "$T"/files/libgcc_s.so.1)")
libm=$(build_id "$(ls "$T"/files/libm.so.6)")
ldso=$(build_id "$(ls "$T"/files/ld-linux-x86-64.so.2)")
prog=$(build_id "$T/prog/fetch-unw-api")
unknown=0123456789abcdef0123456789abcdef01234567
start_server good "$T/store"
good=http://127.0.0.1:$PORT_good

echo "== the reference: the store on disk (EHELF_PATH)"
run ref EHELF_PATH="$T/store" FETCH_TEST_WAIT=20
check "the reference run unwinds with the eh_elfs of its stack" picked_up ref

echo "== a fresh process, an empty cache, EHELF_URLS: libehelf-unwind fetches in the background"
run fetch1 EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache1" "$keys" \
	EHELF_VERBOSE=1 FETCH_TEST_WAIT=20
same_frames fetch1
check "the process-wide space picked up the fetched eh_elfs ($(grep '^wait_fetch: ehelf_b' "$T/fetch1.err" | cut -d' ' -f2-))" \
	picked_up fetch1
grep -q "^libehelf-unwind: [1-9][0-9]* eh_elfs fetched in the background" "$T/fetch1.err" ||
	bad "libehelf-unwind did not say what it fetched: $(grep libehelf-unwind "$T/fetch1.err")"
missing=0
for id in $ids; do
	f=$(store_file "$T/cache1" "$id")
	if ! cmp -s "$f" "$(store_file "$T/store" "$id")" ||
	   ! cmp -s "$f.sig" "$(store_file "$T/store" "$id").sig" ||
	   [ "$(stat -c %a "$f")" != 400 ] || [ "$(stat -c %a "$f.sig")" != 400 ]; then
		missing=$((missing + 1))
		echo "    $id: $(ls -l "$f" 2>&1)" >&2
	fi
done
check "all $nids eh_elfs and signatures in the cache, identical to the store's, mode 0400" \
	[ "$missing" = 0 ]
check "the cache is a store: CACHE/.build-id/XX/REST.so, libdebuginfod's parameter files" \
	sh -c "[ -f '$T/cache1/cache_miss_s' ] && [ -f '$T/cache1/cache_clean_interval_s' ] &&
	       [ -f '$T/cache1/max_unused_age_s' ] && [ \"\$(stat -c %a '$T/cache1')\" = 700 ]"
check "no temporary file left in the cache" \
	sh -c "! find '$T/cache1' -name '.tmp-*' | grep -q ."
run nowait EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache-nowait" "$keys"
same_frames nowait
# a program that exits while the thread still fetches and verifies (as
# nowait does): 12 more, an empty cache each; OpenSSL's exit handler once
# freed its locks under the thread, a crash at exit in about 1 run in 4
f0=$fails
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	rm -rf "$T/cache-nowait"
	run nowait EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache-nowait" "$keys"
done
check "12 programs exiting while the background fetch verifies: none crashed" [ "$fails" = "$f0" ]

echo "== ehelf_space_fetch while other threads unwind with the same space"
EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache7" EHELF_TRUSTED_KEYS="$T/keys" \
	"$T/prog/space-fetch" >"$T/sf" 2>&1 && ok "$(cat "$T/sf")" ||
	bad "space-fetch: $(cat "$T/sf")"

echo "== ehelf-find"
f=$(store_file "$T/cache2" "$libc")
out=$(EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache2" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" "$libc") && rc=0 || rc=$?
check "a build-ID: fetched, its cache path printed, exit 0" \
	sh -c "[ $rc = 0 ] && [ '$out' = '$f' ] && cmp -s '$f' '$(store_file "$T/store" "$libc")'"
out=$(EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache2" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" "$T/prog/fetch-unw-api") && rc=0 || rc=$?
check "an ELF file: its build-ID's eh_elf" \
	[ "$rc" = 0 -a "$out" = "$(store_file "$T/cache2" "$prog")" ]
out=$(EHELF_PATH="$T/store" EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache2" \
	EHELF_TRUSTED_KEYS="$T/keys" "$find_" "$libc")
check "\$EHELF_PATH comes first" [ "$out" = "$(store_file "$T/store" "$libc")" ]
EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache2" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" -v "$ldso" >"$T/v.out" 2>"$T/v.err" || true
check "-v shows where it looked and what it asked" \
	sh -c "grep -q 'EHELF_PATH' '$T/v.err' && grep -q '/usr/lib/ehelf' '$T/v.err' &&
	       grep -q 'cache: .*: absent' '$T/v.err' && grep -q 'GET $good/buildid/$ldso/eh_elf' '$T/v.err'"
EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache2" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" "$unknown" >/dev/null 2>"$T/e" && rc=0 || rc=$?
check "an unknown build-ID: exit 1, \"$(cat "$T/e")\"" \
	sh -c "[ $rc = 1 ] && grep -q 'not found' '$T/e'"
check "an unknown build-ID is negatively cached" \
	grep -q "^not found" "$(store_file "$T/cache2" "$unknown").miss"
"$find_" ABCD >/dev/null 2>"$T/e" && rc=0 || rc=$?
check "a malformed build-ID: exit 2 with a message" \
	sh -c "[ $rc = 2 ] && grep -q 'neither a build-ID' '$T/e'"
"$find_" "$libc" >/dev/null 2>"$T/e" && rc=0 || rc=$?
check "no EHELF_URLS: exit 1, says so" sh -c "[ $rc = 1 ] && grep -q 'EHELF_URLS' '$T/e'"
check "--help" sh -c "'$find_' --help | grep -q 'Usage: ehelf-find'"
"$find_" >/dev/null 2>&1 && rc=0 || rc=$?
check "no argument: exit 2" [ "$rc" = 2 ]

echo "== refused eh_elfs: tampered, unsigned, an unknown key, another build-ID"
cp -a "$T/store" "$T/bad"
chmod -R u+w "$T/bad"
# libc's: a byte of its code changed, its signature kept
f=$(store_file "$T/bad" "$libc")
printf '\314' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") / 2)) conv=notrunc 2>/dev/null
# libstdc++'s: no signature
rm "$(store_file "$T/bad" "$libstdcxx").sig"
# libgcc_s's: signed by a key the client does not trust
cp "$(store_file "$T/otherstore" "$libgcc").sig" "$(store_file "$T/bad" "$libgcc").sig"
# libm's place: ld.so's eh_elf and signature, genuine but for another build-ID
cp "$(store_file "$T/store" "$ldso")" "$(store_file "$T/bad" "$libm")"
cp "$(store_file "$T/store" "$ldso").sig" "$(store_file "$T/bad" "$libm").sig"
start_server bad "$T/bad"
badurl=http://127.0.0.1:$PORT_bad
for case in "$libc:tampered:do not match the signed SHA-256" \
	    "$libstdcxx:unsigned:unsigned" \
	    "$libgcc:signed by an unknown key:unknown key" \
	    "$libm:served for another build-ID:records build-ID $ldso, not $libm"; do
	id=${case%%:*}
	rest=${case#*:}
	what=${rest%%:*}
	reason=${rest#*:}
	EHELF_URLS="$badurl" EHELF_CACHE_PATH="$T/cache3" EHELF_TRUSTED_KEYS="$T/keys" \
		"$find_" "$id" >/dev/null 2>"$T/e" && rc=0 || rc=$?
	if [ "$rc" = 3 ] && grep -q "refused: .*$reason" "$T/e" &&
	   [ ! -e "$(store_file "$T/cache3" "$id")" ] &&
	   [ ! -e "$(store_file "$T/cache3" "$id").sig" ] &&
	   grep -q "^refused: .*$reason" "$(store_file "$T/cache3" "$id").miss"; then
		ok "$what: ehelf-find exits 3: $(cut -c1-150 "$T/e")"
	else
		bad "$what: exit $rc: $(cat "$T/e")"
	fi
done
out=$(EHELF_ALLOW_UNSIGNED=1 EHELF_URLS="$badurl" EHELF_CACHE_PATH="$T/cache8" \
	EHELF_TRUSTED_KEYS="$T/keys" "$find_" "$libstdcxx" 2>"$T/e") && rc=0 || rc=$?
check "EHELF_ALLOW_UNSIGNED=1 accepts the unsigned one, with a warning" \
	sh -c "[ $rc = 0 ] && [ -f '$out' ] && grep -q 'warning: EHELF_ALLOW_UNSIGNED=1' '$T/e'"
EHELF_URLS="$badurl" EHELF_CACHE_PATH="$T/cache8" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" "$libstdcxx" >/dev/null 2>"$T/e" && rc=0 || rc=$?
check "without it, that cached eh_elf is refused and removed, the server's refused" \
	sh -c "[ $rc = 3 ] && grep -q 'unsigned' '$T/e' && [ ! -e '$out' ]"
run bad1 EHELF_URLS="$badurl" EHELF_CACHE_PATH="$T/cache4" "$keys" \
	EHELF_PROGRESS=1 FETCH_TEST_WAIT=20
same_frames bad1
n=$(grep -c ': refused from ' "$T/bad1.err" || true)
check "libehelf-unwind refused the 4 bad ones, with their reasons (EHELF_PROGRESS)" [ "$n" = 4 ]
left=0
for id in $libc $libstdcxx $libgcc $libm; do
	[ -e "$(store_file "$T/cache4" "$id")" ] && left=$((left + 1))
	grep -q '^refused' "$(store_file "$T/cache4" "$id").miss" 2>/dev/null ||
		left=$((left + 1))
done
check "none of them in the cache, a negative entry for each" [ "$left" = 0 ]
check "the others fetched" [ -f "$(store_file "$T/cache4" "$prog")" ]

echo "== a cached eh_elf altered afterwards"
f=$(store_file "$T/cache1" "$libc")
chmod u+w "$f"
printf '\314' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") / 2)) conv=notrunc 2>/dev/null
chmod 400 "$f"
EHELF_CACHE_PATH="$T/cache1" EHELF_TRUSTED_KEYS="$T/keys" "$find_" "$libc" \
	>/dev/null 2>"$T/e" && rc=0 || rc=$?
check "refused (exit 3), and removed from the cache" \
	sh -c "[ $rc = 3 ] && grep -q 'SHA-256' '$T/e' && [ ! -e '$f' ]"
out=$(EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache1" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" "$libc") && rc=0 || rc=$?
check "then fetched again" sh -c "[ $rc = 0 ] && cmp -s '$f' '$(store_file "$T/store" "$libc")'"
out=$(EHELF_CACHE_PATH="$T/cache1" "$find_" "$libc" 2>"$T/e") && rc=0 || rc=$?
check "without a trusted key, the cached eh_elf is refused" \
	sh -c "[ $rc = 3 ] && grep -q 'trusted keys' '$T/e'"
EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache1" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" "$libc" >/dev/null

echo "== a server that accepts and never answers"
rm -f "$T/hport"
python3 -c '
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    held.append(s.accept()[0])
' "$T/hport" &
pids="$pids $!"
hang=http://127.0.0.1:$(port_of "$T/hport" "the hanging server")
t0=$(now)
EHELF_URLS="$hang" EHELF_TIMEOUT=2 EHELF_CACHE_PATH="$T/cache5" \
	EHELF_TRUSTED_KEYS="$T/keys" "$find_" "$libc" >/dev/null 2>"$T/e" && rc=0 || rc=$?
t=$(elapsed "$t0")
check "ehelf-find gives up after EHELF_TIMEOUT=2 ($t s), exit 4: $(cat "$T/e")" \
	sh -c "[ $rc = 4 ] && grep -q 'no answer within 2 s' '$T/e' &&
	       echo $t | awk '{ exit !(\$1 >= 1.9 && \$1 < 5) }'"
check "a timeout is not negatively cached" \
	[ ! -e "$(store_file "$T/cache5" "$libc").miss" ]
t0=$(now)
out=$(EHELF_URLS="$hang $good" EHELF_TIMEOUT=5 EHELF_CACHE_PATH="$T/cache5" \
	EHELF_TRUSTED_KEYS="$T/keys" "$find_" "$libc") && rc=0 || rc=$?
t=$(elapsed "$t0")
check "with a good server beside it, the first good answer wins ($t s)" \
	sh -c "[ $rc = 0 ] && echo $t | awk '{ exit !(\$1 < 1.5) }'"
run hang1 EHELF_URLS="$hang" EHELF_TIMEOUT=2 EHELF_CACHE_PATH="$T/cache6" "$keys"
same_frames hang1
check "the program does not wait for the hanging server ($(cat "$T/hang1.time") s)" \
	awk '{ exit !($1 < 1.5) }' "$T/hang1.time"
run hang2 EHELF_URLS="$hang" EHELF_TIMEOUT=2 EHELF_CACHE_PATH="$T/cache6" "$keys" \
	FETCH_TEST_WAIT=20
same_frames hang2
check "the background fetch ends at EHELF_TIMEOUT=2 ($(grep -o 'finished after [0-9.]* s' "$T/hang2.err"))" \
	sh -c "grep 'finished after' '$T/hang2.err' | awk '{ exit !(\$5 >= 1.9 && \$5 < 5) }'"

echo "== a static server without X-EHELF-SIGNATURE that answers 503 first"
rm -f "$T/sport"
python3 -c '
import http.server, os, sys
store, portfile = sys.argv[1], sys.argv[2]
seen = set()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        p = self.path.split("/")
        if self.path not in seen:  # each path fails once: a retry is needed
            seen.add(self.path)
            self.send_error(503)
            return
        if len(p) != 4 or p[1] != "buildid" or p[3] not in ("eh_elf", "eh_elf.sig"):
            self.send_error(404)
            return
        f = os.path.join(store, ".build-id", p[2][:2], p[2][2:] + ".so")
        if p[3] == "eh_elf.sig":
            f += ".sig"
        try:
            data = open(f, "rb").read()
        except OSError:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def log_message(self, *args):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(portfile + ".tmp", "w").write(str(s.server_port))
os.rename(portfile + ".tmp", portfile)
s.serve_forever()
' "$T/store" "$T/sport" &
pids="$pids $!"
static=http://127.0.0.1:$(port_of "$T/sport" "the static server")
out=$(EHELF_URLS="$static" EHELF_CACHE_PATH="$T/cache9" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" -v "$libc" 2>"$T/e") && rc=0 || rc=$?
check "retried after 503 (EHELF_RETRY_LIMIT), the signature from eh_elf.sig" \
	sh -c "[ $rc = 0 ] && cmp -s '$out' '$(store_file "$T/store" "$libc")' &&
	       cmp -s '$out.sig' '$(store_file "$T/store" "$libc").sig' &&
	       grep -q 'retrying (HTTP 503)' '$T/e' && grep -q 'GET .*/eh_elf.sig' '$T/e'"
EHELF_RETRY_LIMIT=1 EHELF_URLS="$static" EHELF_CACHE_PATH="$T/cache9" \
	EHELF_TRUSTED_KEYS="$T/keys" "$find_" "$ldso" >/dev/null 2>"$T/e" && rc=0 || rc=$?
check "EHELF_RETRY_LIMIT=1: no retry, failed (exit 4), not negatively cached" \
	sh -c "[ $rc = 4 ] && grep -q 'HTTP 503' '$T/e' &&
	       [ ! -e '$(store_file "$T/cache9" "$ldso").miss' ]"

echo "== second runs: no request for what is cached or negatively cached"
g0=$(requests "$PORT_good")
b0=$(requests "$PORT_bad")
run fetch2 EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache1" "$keys" FETCH_TEST_WAIT=20
same_frames fetch2
check "the program with a warm cache: eh_elfs from the cache" picked_up fetch2
run bad2 EHELF_URLS="$badurl" EHELF_CACHE_PATH="$T/cache4" "$keys" FETCH_TEST_WAIT=20
same_frames bad2
EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache2" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" "$unknown" >/dev/null 2>&1 || true
EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache2" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" "$libc" >/dev/null
EHELF_URLS="$badurl" EHELF_CACHE_PATH="$T/cache3" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" "$libgcc" >/dev/null 2>&1 || true
g1=$(requests "$PORT_good")
b1=$(requests "$PORT_bad")
check "no request to either server (good: $g0 then $g1, bad: $b0 then $b1)" \
	[ "$g0" = "$g1" -a "$b0" = "$b1" -a "$g0" -gt 0 ]

echo "== negative entries expire (cache_miss_s), the cache is cleaned (cache_clean_interval_s)"
echo 0 >"$T/cache2/cache_miss_s"
EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache2" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" "$unknown" >/dev/null 2>&1 || true
check "an expired negative entry: asked again" [ "$(requests "$PORT_good")" = $((g1 + 1)) ]
echo 0 >"$T/cache2/cache_clean_interval_s"
echo 0 >"$T/cache2/max_unused_age_s"
touch -d '2 days ago' "$(store_file "$T/cache2" "$libc")"
EHELF_URLS="$good" EHELF_CACHE_PATH="$T/cache2" EHELF_TRUSTED_KEYS="$T/keys" \
	"$find_" "$unknown" >/dev/null 2>&1 || true
check "cleaning removes eh_elfs unused for max_unused_age_s, with their signatures" \
	sh -c "[ ! -e '$(store_file "$T/cache2" "$libc")' ] &&
	       [ ! -e '$(store_file "$T/cache2" "$libc").sig' ]"

[ "$fails" = 0 ] && echo "fetch tests: PASS" || { echo "fetch tests: $fails FAILED"; exit 1; }
