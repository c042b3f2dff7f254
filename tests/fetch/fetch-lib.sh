# fetch-lib.sh - sourced first by the tests of tests/fetch, once $server
# is set: a temporary directory $T removed at exit with the servers of
# $pids killed, an environment of no ehelf variable, the checks of
# tests/common/checks.sh; starting servers on free ports, paths in a store.
T=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null || true; done
	chmod -R u+w "$T" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
unset EHELF_PATH EHELF_URLS EHELF_CACHE_PATH EHELF_TRUSTED_KEYS EHELF_TIMEOUT \
      EHELF_VERBOSE EHELF_PROGRESS EHELF_ALLOW_UNSIGNED EHELF_MAXSIZE \
      EHELF_RETRY_LIMIT DEBUGINFOD_URLS
export XDG_CACHE_HOME="$T/xdg" # nothing of the user's is touched
. "$(dirname "$fetch_lib")/../common/checks.sh"
# port_of FILE WHAT: the port a server just started (the last of $pids)
# writes into FILE, once it has; fails when it does not come (set -e then
# ends the script at the assignment of its output)
port_of() {
	i=0
	while [ ! -s "$1" ]; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "${pids##* }" 2>/dev/null; then
			echo "$2 did not start" >&2
			exit 1
		fi
		sleep 0.1
	done
	cat "$1"
}
# start_server NAME STORE: ehelf-server on a free port; sets PORT_<NAME>
start_server() {
	rm -f "$T/port"
	"$server" --store "$2" --listen 127.0.0.1 --port 0 --port-file "$T/port" \
		--upstream "" --threads 2 2>>"$T/server-$1.log" &
	pids="$pids $!"
	port=$(port_of "$T/port" "ehelf-server (log: $T/server-$1.log)")
	eval "PORT_$1=$port"
}
# requests PORT: the eh_elf and .sig requests the server has answered
requests() {
	curl -s "http://127.0.0.1:$1/metrics" |
		awk '/^ehelf_server_http_requests_total\{artifact="(eh_elf|sig)"/ { n += $2 }
		     END { print n + 0 }'
}
store_file() { # store_file ROOT HEX
	echo "$1/.build-id/$(echo "$2" | cut -c1-2)/$(echo "$2" | cut -c3-).so"
}
build_id() { # build_id ELF
	readelf -n "$1" 2>/dev/null | awk '/Build ID/ { print $3; exit }'
}
