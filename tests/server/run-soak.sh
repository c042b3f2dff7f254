#!/bin/sh
# The soak of ehelf-server (make check-full): 60 s of good requests under
# slow headers, slow bodies, slow readers and a flood (tests/server/
# soak.c), the server's memory and descriptors flat, the good requests'
# p99 under 10 ms in every 5 s window.  A store of one real eh_elf (of
# this machine's ls), served read-only.
#
# Usage: tests/server/run-soak.sh BUILD [SECONDS]
set -eu
build=$(cd "${1:?usage: run-soak.sh BUILD [SECONDS]}" && pwd)
seconds=${2:-60}
T=$(mktemp -d)
spid=""
cleanup() {
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
elf=$(readlink -f /bin/ls)
id=$(readelf -n "$elf" | awk '/Build ID/ {print $3}')
mkdir -p "$T/store/.build-id/$(echo "$id" | cut -c1-2)"
"$build/bin/ehelf-compile" "$elf" \
	-o "$T/store/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).so"
timeout=2
"$build/bin/ehelf-server" --store "$T/store" --upstream "" --listen 127.0.0.1 \
	--port 0 --port-file "$T/port" --timeout "$timeout" --threads 2 \
	2>"$T/server.log" &
spid=$!
i=0
while [ ! -s "$T/port" ]; do
	i=$((i + 1))
	[ $i -le 100 ] && kill -0 "$spid" 2>/dev/null || {
		echo "ehelf-server did not start:" >&2
		cat "$T/server.log" >&2
		exit 1
	}
	sleep 0.1
done
rc=0
"$build/tests/server/soak" "$(cat "$T/port")" "$spid" "$seconds" \
	"/buildid/$id/eh_elf" "$timeout" || rc=1
kill "$spid"
wait "$spid" || { echo "ehelf-server exited $? on SIGTERM" >&2; rc=1; }
spid=""
if [ $rc -ne 0 ]; then
	echo "server soak: FAILED" >&2
	exit 1
fi
echo "server soak: passed"
