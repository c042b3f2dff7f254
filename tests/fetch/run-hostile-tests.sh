#!/bin/sh
# Hostile servers and planted caches against the fetch path (docs/trust.md,
# "Limits"), on loopback with real components: a signed store of a
# libunwind program (tests/unwind/unw_api.c with tests/fetch/wait_fetch.c)
# and its libraries served by ehelf-server, and hostile_server.py:
#  - servers whose answers never end (no Content-Length, chunked, a huge
#    Content-Length, an X-EHELF-SIGNATURE header then no end, endless
#    headers) or end just under EHELF_MAXSIZE: ehelf-find and the
#    libunwind program with libehelf-unwind.so preloaded keep their peak
#    RSS within 16 MiB of the same runs against the good server (the
#    bound of docs/trust.md), say why they refused, leave no temporary
#    file, and with the good server listed too get every eh_elf;
#  - caches with planted entries: CACHE/.build-id/XX and CACHE/.build-id
#    symbolic links to a user's directory (eviction and a due cleaning
#    delete nothing there, nothing is written there), the cache itself a
#    link, another user's, mode 0777 (refused with a message), an XX
#    directory of mode 0777, negative entries of another user, dated in
#    2100, symbolic links to a secret, FIFOs, an eh_elf that is a FIFO, a
#    link or a directory: every fetch a good server can serve succeeds,
#    nothing outside the cache changes; max_unused_age_s=0 does not remove
#    an eh_elf just used.
# Usage: tests/fetch/run-hostile-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-hostile-tests.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
server=$build/bin/ehelf-server
find_=$build/bin/ehelf-find
pre=$build/lib/libehelf-unwind.so
fetch_lib=$here/fetch-lib.sh
. "$fetch_lib"
other_uid=12345

# hostile MODE: hostile_server.py MODE on a free port; its URL into $url
hostile() {
	rm -f "$T/hport-$1"
	python3 "$here/hostile_server.py" "$1" "$T/hport-$1" >/dev/null 2>&1 &
	pids="$pids $!"
	url="http://127.0.0.1:$(port_of "$T/hport-$1" "hostile server $1")"
}
# peak_rss OUT CMD...: CMD's exit status into $rc, its peak RSS (KiB) into
# OUT, its stderr into OUT.err
peak_rss() {
	out=$1
	shift
	/usr/bin/time -f %M -o "$out.time" "$@" >"$out.stdout" 2>"$out.err" &&
		rc=0 || rc=$?
	tail -n 1 "$out.time" >"$out"
}
# find_in CACHE ID [VAR=VALUE...]: ehelf-find ID with the good server and
# trusted keys; exit status in $rc, stdout in $T/out, stderr in $T/e
find_in() {
	cache=$1
	id=$2
	shift 2
	env EHELF_URLS="$good" EHELF_CACHE_PATH="$cache" EHELF_TRUSTED_KEYS="$T/keys" \
		EHELF_TIMEOUT=10 "$@" timeout 20 "$find_" "$id" >"$T/out" 2>"$T/e" &&
		rc=0 || rc=$?
}
# snapshot DIR: every file under DIR with its size, mode and mtime
snapshot() {
	find "$1" -printf '%P %s %m %T@ %y\n' | sort
}

echo "== a signed store of a libunwind program and its libraries"
mkdir -p "$T/prog" "$T/files" "$T/keys"
openssl genpkey -algorithm ed25519 -out "$T/key.pem" 2>/dev/null
openssl pkey -in "$T/key.pem" -pubout -out "$T/keys/key.pub.pem"
cp "$build/tests/fetch/fetch-unw-api" "$build/tests/unwind/libunwtest-dso.so" "$T/prog/"
for f in "$T/prog/fetch-unw-api" "$pre"; do
	cp -n "$f" "$T/files/"
	ldd "$f" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' |
	while read -r lib; do cp -n "$(readlink -f "$lib")" "$T/files/"; done
done
cp "$T/prog/libunwtest-dso.so" "$T/files/"
"$build/bin/ehelf-batch" --store "$T/store" --sign-key "$T/key.pem" "$T/files" \
	>/dev/null 2>"$T/batch.err" || { cat "$T/batch.err"; exit 1; }
libc=$(build_id "$(ls "$T"/files/libc.so.6)")
libm=$(build_id "$(ls "$T"/files/libm.so.6)")
ldso=$(build_id "$(ls "$T"/files/ld-linux-x86-64.so.2)")
unknown=0123456789abcdef0123456789abcdef01234567
[ -f "$(store_file "$T/store" "$libc")" ] || { echo "no eh_elf of libc" >&2; exit 1; }
start_server good "$T/store"
good=http://127.0.0.1:$PORT_good

echo "== hostile servers: memory stays bounded"
# the baselines: the same runs against the good server
peak_rss "$T/find-good" env EHELF_URLS="$good" EHELF_CACHE_PATH="$T/c-base" \
	EHELF_TRUSTED_KEYS="$T/keys" "$find_" "$libc"
[ "$rc" = 0 ] || { echo "ehelf-find against the good server: $(cat "$T/find-good.err")" >&2; exit 1; }
base_find=$(cat "$T/find-good")
# prog CACHE URLS OUT: the libunwind program, libehelf-unwind preloaded,
# waiting for its background fetch
prog() {
	(cd "$T/prog" && peak_rss "$3" env -i PATH=/usr/bin:/bin LD_PRELOAD="$pre" \
		EHELF_URLS="$2" EHELF_CACHE_PATH="$1" EHELF_TRUSTED_KEYS="$T/keys" \
		EHELF_TIMEOUT=4 FETCH_TEST_WAIT=30 ./fetch-unw-api; echo "$rc" >"$3.rc")
	rc=$(cat "$3.rc")
}
prog "$T/c-prog-base" "$good" "$T/prog-good"
[ "$rc" = 0 ] || { echo "the program against the good server failed" >&2; exit 1; }
base_prog=$(cat "$T/prog-good")
echo "  baselines (good server): ehelf-find ${base_find} KiB, the program ${base_prog} KiB"
bound=16384 # KiB above the baseline: docs/trust.md's bound of a fetch
for mode in endless chunked huge-length signed headers; do
	hostile "$mode"
	c=$T/c-$mode
	peak_rss "$T/find-$mode" env EHELF_URLS="$url" EHELF_CACHE_PATH="$c" \
		EHELF_TRUSTED_KEYS="$T/keys" EHELF_TIMEOUT=4 "$find_" "$libc"
	rss=$(cat "$T/find-$mode")
	tmps=$(find "$c" -name '.tmp-*' | wc -l)
	check "$mode: ehelf-find peak RSS $rss KiB (baseline $base_find), exit $rc: $(head -c 160 "$T/find-$mode.err")" \
		sh -c "[ $rss -lt $((base_find + bound)) ] && [ $rc -ne 0 ] && [ $tmps = 0 ]"
	prog "$c-prog" "$url" "$T/prog-$mode"
	rss=$(cat "$T/prog-$mode")
	check "$mode: the preloaded program's peak RSS $rss KiB (baseline $base_prog), exit $rc" \
		sh -c "[ $rss -lt $((base_prog + bound)) ] && [ $rc = 0 ] &&
		       ! find '$c-prog' -name '.tmp-*' | grep -q ."
	prog "$c-both" "$url $good" "$T/prog-both-$mode"
	rss=$(cat "$T/prog-both-$mode")
	n=$(find "$c-both" -name '*.so' | wc -l)
	nbase=$(find "$T/c-prog-base" -name '*.so' | wc -l)
	check "$mode and the good server: RSS $rss KiB, every eh_elf fetched ($n of $nbase)" \
		sh -c "[ $rss -lt $((base_prog + bound)) ] && [ $n = $nbase ] && [ $n -gt 5 ]"
done
# a budget 4 times the largest eh_elf here: the endless transfers, the
# largest holders, are the ones cut, the good server's pass
hostile endless
largest=$(find "$T/store" -name '*.so' -printf '%s\n' | sort -n | tail -1)
(cd "$T/prog" && env -i PATH=/usr/bin:/bin LD_PRELOAD="$pre" EHELF_URLS="$url $url $good" \
	EHELF_CACHE_PATH="$T/c-budget" EHELF_TRUSTED_KEYS="$T/keys" EHELF_TIMEOUT=10 \
	EHELF_MAXSIZE=$((4 * largest)) FETCH_TEST_WAIT=30 ./fetch-unw-api >/dev/null 2>&1)
n=$(find "$T/c-budget" -name '*.so' | wc -l)
check "EHELF_MAXSIZE=$((4 * largest)) with two endless servers before the good one: every eh_elf fetched ($n of $nbase)" \
	[ "$n" = "$nbase" ]
EHELF_URLS="$url" EHELF_CACHE_PATH="$T/c-max" EHELF_TRUSTED_KEYS="$T/keys" \
	EHELF_MAXSIZE=3000000 EHELF_TIMEOUT=10 "$find_" "$libc" >/dev/null 2>"$T/e" && rc=0 || rc=$?
check "endless: refused at EHELF_MAXSIZE=3000000, remembered: $(cat "$T/e")" \
	sh -c "[ $rc = 3 ] && grep -q 'larger than 3000000 bytes (EHELF_MAXSIZE)' '$T/e' &&
	       grep -q '^refused' '$(store_file "$T/c-max" "$libc").miss'"
# junk just under EHELF_MAXSIZE, whole, a signature header: checked from
# its file, refused
export HOSTILE_BYTES=60000000
hostile under
peak_rss "$T/find-under" env EHELF_URLS="$url" EHELF_CACHE_PATH="$T/c-under" \
	EHELF_TRUSTED_KEYS="$T/keys" EHELF_TIMEOUT=20 "$find_" "$libc"
rss=$(cat "$T/find-under")
check "60 MB of junk, whole: refused as not an eh_elf, peak RSS $rss KiB: $(head -c 160 "$T/find-under.err")" \
	sh -c "[ $rc = 3 ] && grep -q 'not an ELF' '$T/find-under.err' &&
	       [ $rss -lt $((base_find + bound)) ]"

echo "== planted caches: nothing outside the cache is touched"
mkdir -p "$T/victim"
echo "the user's own" >"$T/victim/$(basename "$(store_file x "$libc")")"
echo "the user's own" >"$T/victim/$(basename "$(store_file x "$libc")").sig"
echo "old" >"$T/victim/old.so"
echo "old" >"$T/victim/old.so.sig"
echo "not found: old" >"$T/victim/old.so.miss"
touch -d '30 days ago' "$T/victim"/old.*
before=$(snapshot "$T/victim")
# CACHE/.build-id/XX a link to the user's directory: libc's entry there
c=$T/c-xxlink
find_in "$c" "$ldso" # creates the cache
xx=$(echo "$libc" | cut -c1-2)
mkdir -p "$c/.build-id"
ln -s "$T/victim" "$c/.build-id/$xx"
find_in "$c" "$libc" EHELF_VERBOSE=1
check "CACHE/.build-id/$xx a link: not followed, fetched into a directory of the cache" \
	sh -c "[ $rc = 0 ] && [ ! -L '$c/.build-id/$xx' ] && [ -d '$c/.build-id/$xx' ] &&
	       cmp -s '$(store_file "$c" "$libc")' '$(store_file "$T/store" "$libc")' &&
	       grep -q 'a symbolic link: not followed' '$T/e'"
check "  and the user's directory is untouched" [ "$(snapshot "$T/victim")" = "$before" ]
# CACHE/.build-id a link; a cleaning due
c=$T/c-bidlink
find_in "$c" "$ldso"
mv "$c/.build-id" "$c/.build-id-real"
ln -s "$T/victim" "$c/.build-id"
echo 0 >"$c/cache_clean_interval_s"
echo 0 >"$c/cache_miss_s"
find_in "$c" "$libm"
check "CACHE/.build-id a link, a cleaning due: fetched into the cache's own" \
	sh -c "[ $rc = 0 ] && [ ! -L '$c/.build-id' ] &&
	       cmp -s '$(store_file "$c" "$libm")' '$(store_file "$T/store" "$libm")'"
check "  nothing deleted or written in the user's directory" [ "$(snapshot "$T/victim")" = "$before" ]
# the cache itself: a link, another user's, writable by others
ln -s "$T/victim" "$T/c-rootlink"
find_in "$T/c-rootlink" "$libc"
check "the cache a symbolic link: refused with a message: $(cat "$T/e")" \
	sh -c "[ $rc -ne 0 ] && grep -q 'a symbolic link, not followed' '$T/e'"
check "  nothing written in its target" [ "$(snapshot "$T/victim")" = "$before" ]
mkdir -m 0777 "$T/c-0777"
find_in "$T/c-0777" "$libc"
check "the cache of mode 0777: refused with a message: $(cat "$T/e")" \
	sh -c "[ $rc -ne 0 ] && grep -q 'writable by others (mode 0777' '$T/e' &&
	       [ -z \"\$(ls -A '$T/c-0777')\" ]"
mkdir -m 0700 "$T/c-foreign"
chown "$other_uid" "$T/c-foreign"
find_in "$T/c-foreign" "$libc"
check "the cache of another user: refused with a message: $(cat "$T/e")" \
	sh -c "[ $rc -ne 0 ] && grep -q 'owned by uid $other_uid' '$T/e'"

echo "== planted entries deny no fetch"
c=$T/c-plant
find_in "$c" "$ldso"
miss() { echo "$(store_file "$c" "$1").miss"; }
plant_dir() { mkdir -p "$(dirname "$(store_file "$c" "$1")")"; }
# a negative entry of another user
plant_dir "$libc"
echo "not found: planted" >"$(miss "$libc")"
chown "$other_uid" "$(miss "$libc")"
find_in "$c" "$libc"
check "a .miss of another user: ignored, fetched" [ "$rc" = 0 ]
# one dated in 2100
plant_dir "$libm"
echo "not found: planted" >"$(miss "$libm")"
touch -d '2100-01-01' "$(miss "$libm")"
find_in "$c" "$libm"
check "a .miss dated 2100: expired, fetched" [ "$rc" = 0 ]
# a symbolic link to a secret
echo "secret first line" >"$T/secret"
id=$(build_id "$(ls "$T"/files/libgcc_s.so.1)")
plant_dir "$id"
ln -s "$T/secret" "$(miss "$id")"
find_in "$c" "$id"
check "a .miss that is a link: not followed, fetched" \
	sh -c "[ $rc = 0 ] && ! grep -q secret '$T/e' '$T/out' && [ -f '$T/secret' ]"
# a FIFO
id=$(build_id "$(ls "$T"/files/libstdc++.so.6*)")
plant_dir "$id"
mkfifo "$(miss "$id")"
find_in "$c" "$id"
check "a .miss that is a FIFO: no hang, fetched" [ "$rc" = 0 ]
# eh_elfs that are a FIFO, a link, a directory
n=0
for id in $(for f in "$T"/files/*; do build_id "$f"; done | sort -u | head -6); do
	[ -f "$(store_file "$T/store" "$id")" ] || continue
	[ -e "$(store_file "$c" "$id")" ] && continue
	plant_dir "$id"
	f=$(store_file "$c" "$id")
	case $((n % 3)) in
	0) mkfifo "$f" ;;
	1) ln -s "$T/secret" "$f" ;;
	2) mkdir "$f" && echo x >"$f/inside" ;;
	esac
	n=$((n + 1))
	find_in "$c" "$id"
	check "an eh_elf planted as a $(case $(((n - 1) % 3)) in 0) echo FIFO;; 1) echo link;; 2) echo directory;; esac): fetched" \
		sh -c "[ $rc = 0 ] && cmp -s '$f' '$(store_file "$T/store" "$id")'"
done
[ "$n" -ge 3 ] || bad "only $n planted eh_elfs tried"
check "  the link's target untouched" sh -c "[ \"\$(cat '$T/secret')\" = 'secret first line' ]"
# an XX directory of mode 0777 or another user's
rm -rf "$c/.build-id/$(echo "$ldso" | cut -c1-2)"
mkdir -m 0777 "$c/.build-id/$(echo "$ldso" | cut -c1-2)"
find_in "$c" "$ldso"
check "an XX directory of mode 0777: put aside, fetched into a private one" \
	sh -c "[ $rc = 0 ] && [ \"\$(stat -c %a '$c/.build-id/$(echo "$ldso" | cut -c1-2)')\" = 700 ]"
d=$c/.build-id/$(echo "$libc" | cut -c1-2)
rm -rf "$d"
mkdir -m 0700 "$d"
chown "$other_uid" "$d"
find_in "$c" "$libc"
check "an XX directory of another user: put aside, fetched" \
	sh -c "[ $rc = 0 ] && [ \"\$(stat -c %u '$d')\" = 0 ]"

echo "== max_unused_age_s=0 keeps what was just used"
c=$T/c-age
find_in "$c" "$libc"
echo 0 >"$c/max_unused_age_s"
echo 0 >"$c/cache_clean_interval_s"
find_in "$c" "$libc"
find_in "$c" "$unknown"
check "libc's eh_elf, used a moment ago, is still in the cache after a cleaning" \
	[ -f "$(store_file "$c" "$libc")" ]
touch -a -m -d '2 days ago' "$(store_file "$c" "$libc")"
find_in "$c" "$unknown"
check "unused for 2 days: removed (max_unused_age_s is at least a day)" \
	[ ! -e "$(store_file "$c" "$libc")" ]
echo 0 >"$c/cache_miss_s"
plant_dir "$ldso"
echo "not found: 2100" >"$(store_file "$c" "$ldso").miss"
touch -d '2100-01-01' "$(store_file "$c" "$ldso").miss"
find_in "$c" "$unknown"
check "a cleaning removes a .miss dated 2100" [ ! -e "$(store_file "$c" "$ldso").miss" ]

[ "$fails" = 0 ] && echo "hostile fetch tests: PASS" || { echo "hostile fetch tests: $fails FAILED"; exit 1; }
