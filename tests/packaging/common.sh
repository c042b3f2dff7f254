# common.sh - sourced by the tests of packaging/ (run-packaging-tests.sh,
# run-apt-install-test.sh): results, temporary files and processes, a
# static HTTP server, apt confined to a directory, and the corpus store.
#
# The sourcing script sets `build` (the build directory) and `here` (its
# own directory) first.

T=$(mktemp -d)
pids=""
gnupg_homes=""
fails=0
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	for h in $gnupg_homes; do gpgconf --homedir "$h" --kill all 2>/dev/null || true; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "$here/../common/checks.sh"
finish() { # the summary line and the exit status
	if [ "$fails" -eq 0 ]; then
		echo "$1: all passed"
	else
		echo "$1: $fails FAILED" >&2
		exit 1
	fi
}
root=$(cd "$here/../.." && pwd)
batch=$build/bin/ehelf-batch
pkg=$build/bin/ehelf-pkg
. "$root/tests/common/free-port.sh"

# new_key DIR: a gpg home with a signing key for a test repository; sets
# KEY (its fingerprint)
new_key() {
	KEY=$("$root/packaging/repo-key.sh" "$1" "ehelf test repository <test@localhost>")
	gnupg_homes="$gnupg_homes $1"
}

# serve DIR: a static HTTP server (python3's) over DIR on loopback; sets
# PORT
serve() {
	i=0
	while :; do
		PORT=$(free_port)
		python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$1" \
			>"$T/http-$PORT.log" 2>&1 &
		spid=$!
		pids="$pids $spid"
		j=0
		while [ $j -lt 50 ] && kill -0 "$spid" 2>/dev/null &&
		      ! curl -fs -o /dev/null "http://127.0.0.1:$PORT/"; do
			sleep 0.1
			j=$((j + 1))
		done
		curl -fs -o /dev/null "http://127.0.0.1:$PORT/" && return 0
		i=$((i + 1))
		[ $i -lt 5 ] || { echo "no HTTP server would start" >&2; exit 1; }
	done
}

# apt_in DIR PROGRAM ARGS...: apt-get or apt-cache with its sources, lists
# and cache in DIR (DIR/sources.list), this machine's dpkg status read only
apt_in() {
	d=$1
	prog=$2
	shift 2
	mkdir -p "$d/empty" "$d/lists/partial" "$d/cache/archives/partial"
	"$prog" -o Dir::Etc::SourceList="$d/sources.list" \
		-o Dir::Etc::SourceParts="$d/empty" -o Dir::Etc::PreferencesParts="$d/empty" \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root \
		-o Acquire::Languages=none "$@"
}

# corpus_debs: the test corpus' .deb files (tests/diff/packages.txt) and
# packaging's own additions (tests/packaging/packages.txt), downloaded
# once into the test cache
corpus_debs() {
	"$root/tests/diff/fetch-packages.sh" --debs "$root/tests/diff/packages.txt"
	"$root/tests/diff/fetch-packages.sh" --debs "$here/packages.txt"
}
