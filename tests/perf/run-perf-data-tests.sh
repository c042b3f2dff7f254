#!/bin/sh
# run-perf-data-tests.sh BUILD - the perf.data reader against perf itself.
#
# Records real workloads with `perf record --call-graph dwarf` (sqlite3 with
# a recursive query, python3 loops; one and two events; 8 and 64 KiB stack
# copies; per-process and system-wide; file mode and pipe mode `-o -`;
# MMAP2 records with build-IDs)
# and checks, for every recording (also compressed ones, perf record -z, in
# both modes), that BUILD/tests/perf/perf_data_dump
# (the reader) and perf agree on:
#   - the sequence of samples (tid, time, ip) and of MMAP/MMAP2 (with their
#     build-IDs), COMM, FORK and EXIT records, in delivery order, against
#     `perf script --ns -G -F tid,time,ip --show-mmap-events
#     --show-task-events` (perf's text normalised by sed, compared as text
#     in the same number formats);
#   - the count of every record type and the total, against
#     `perf report --stats`, and the samples of each event;
#   - the event names, against `perf evlist`;
#   - the build-ID of every file `perf buildid-list` names;
# and that the reader gives the same samples (their stack copies' bytes
# too) when it cuts the copies (perf_reader_partial_stacks), and when the
# part changes midway, then gives way to the mapping (perf_reader_set_partial).
# Prints one line per recording with its counts and timings; exits 1 on any
# mismatch (the differences are kept under $TMPDIR), 0 when all agree.
# Offline, a few seconds in all; needs root or perf_event_paranoid <= 0 for
# the system-wide recording (a failure otherwise: make check runs as root).
set -u
build=${1:?usage: run-perf-data-tests.sh BUILD}
dump=$build/tests/perf/perf_data_dump
if [ ! -x "$dump" ]; then
	san=0
	[ "${build##*/}" = san ] && san=1
	make --no-print-directory SANITIZE=$san "$dump" >/dev/null || exit 1
fi
if ! command -v perf >/dev/null 2>&1; then
	echo "run-perf-data-tests: perf is not installed (linux-perf)" >&2
	exit 1
fi
for tool in sqlite3 python3; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "run-perf-data-tests: $tool is not installed" >&2
		exit 1
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/perf-data-tests.XXXXXX") || exit 1
keep=0
cleanup() { [ $keep -eq 1 ] || rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

# perf script's lines -> the dump's (see perf_data_dump.c)
cat > "$tmp/norm.sed" <<'EOF'
s/^ *(-?[0-9]+) +([0-9]+\.[0-9]+): +([0-9a-f]+) *$/S \1 \2 \3/p
s/^ *-?[0-9]+ +([0-9]+\.[0-9]+): PERF_RECORD_MMAP (-?[0-9]+)\/(-?[0-9]+): \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ (0x[0-9a-f]+|0)\]: ([rx]) (.*)$/M \1 \2 \3 \4 \5 \6 - \7 \8/p
s/^ *-?[0-9]+ +([0-9]+\.[0-9]+): PERF_RECORD_MMAP2 (-?[0-9]+)\/(-?[0-9]+): \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ (0x[0-9a-f]+|0) <([0-9a-f]+)>\]: ([r-][w-][x-][ps]) (.*)$/M \1 \2 \3 \4 \5 \6 \7 \8 \9/p
s/^ *-?[0-9]+ +([0-9]+\.[0-9]+): PERF_RECORD_MMAP2 (-?[0-9]+)\/(-?[0-9]+): \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ (0x[0-9a-f]+|0) [0-9a-f]+:[0-9a-f]+ [0-9]+ [0-9]+\]: ([r-][w-][x-][ps]) (.*)$/M \1 \2 \3 \4 \5 \6 - \7 \8/p
s/^ *-?[0-9]+ +([0-9]+\.[0-9]+): PERF_RECORD_COMM exec: (.*):(-?[0-9]+)\/(-?[0-9]+)$/C \1 \3 \4 1 \2/p
s/^ *-?[0-9]+ +([0-9]+\.[0-9]+): PERF_RECORD_COMM: (.*):(-?[0-9]+)\/(-?[0-9]+)$/C \1 \3 \4 0 \2/p
s/^ *-?[0-9]+ +([0-9]+\.[0-9]+): PERF_RECORD_FORK\((-?[0-9]+):(-?[0-9]+)\):\((-?[0-9]+):(-?[0-9]+)\)$/F \1 \2 \3 \4 \5/p
s/^ *-?[0-9]+ +([0-9]+\.[0-9]+): PERF_RECORD_EXIT\((-?[0-9]+):(-?[0-9]+)\):\((-?[0-9]+):(-?[0-9]+)\)$/X \1 \2 \3 \4 \5/p
EOF

# seconds since the epoch with nanoseconds, for timings
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

pass=0
fail=0
mismatch() {
	echo "FAIL $1: $2 (see $tmp)" >&2
	keep=1
	ok=0
}

# check NAME FILE: compare the reader with perf on one recording
check() {
	name=$1
	f=$2
	ok=1
	t0=$(now)
	if ! "$dump" -e "$f" > "$f.dump" 2> "$f.err"; then
		mismatch "$name" "reader failed: $(cat "$f.err")"
		fail=$((fail + 1))
		return
	fi
	# partial stacks (what ehelf-perf reads), cut to 256 bytes: the same
	# events, the same whole copies
	if ! "$dump" -e -p 256 "$f" > "$f.dump-p" 2> "$f.err-p" ||
	   ! cmp -s "$f.dump" "$f.dump-p"; then
		mismatch "$name" "partial stacks (-p 256): $(cat "$f.err-p") $(diff "$f.dump" "$f.dump-p" | head -3 | tr '\n' ' ')"
	fi
	# the part changed midway, then none (the mapping) for the rest
	if ! "$dump" -e -p 256 -s 100 "$f" > "$f.dump-s" 2> "$f.err-s" ||
	   ! cmp -s "$f.dump" "$f.dump-s"; then
		mismatch "$name" "partial stacks changed midway (-p 256 -s 100): $(cat "$f.err-s") $(diff "$f.dump" "$f.dump-s" | head -3 | tr '\n' ' ')"
	fi
	t1=$(now)
	perf script --ns -G -F tid,time,ip --show-mmap-events \
		--show-task-events -i "$f" > "$f.script" 2> "$f.script.err"
	t2=$(now)
	sed -nE -f "$tmp/norm.sed" "$f.script" > "$f.perf.seq"
	# every line of perf script must be understood by the normaliser
	nscript=$(wc -l < "$f.script")
	nnorm=$(wc -l < "$f.perf.seq")
	[ "$nscript" -eq "$nnorm" ] ||
		mismatch "$name" "$((nscript - nnorm)) perf script lines not understood"
	awk '$1 == "S" { print $1, $2, $3, $4; next }
	     $1 == "count" || $1 == "attr" { next } { print }' \
		"$f.dump" > "$f.dump.seq"
	cmp -s "$f.perf.seq" "$f.dump.seq" ||
		mismatch "$name" "event sequence differs from perf script: $(diff "$f.perf.seq" "$f.dump.seq" | head -3 | tr '\n' ' ')"

	# record counts: "NAME events: N" of the aggregated stats, then
	# "EVENT stats:" blocks with their SAMPLE events.  perf 6.1's report
	# cannot decompress a compressed stream ("failed to decompress ...
	# dst_size 0", and no stats; perf script can): no counts to compare
	# there.
	perf report --stats -i "$f" > "$f.stats" 2>/dev/null
	if grep -q '^Aggregated stats:' "$f.stats"; then
		awk '
		/^Aggregated stats:/ { agg = 1; next }
		/ stats:$/ { agg = 0; ev = $1; next }
		agg && $2 == "events:" { print "count", $1, $3 }
		!agg && ev != "" && $1 == "SAMPLE" { print "samples", ev, $3 }
		' "$f.stats" | sort > "$f.perf.counts"
		awk '$1 == "count" { print }
		     $1 == "attr" && $5 > 0 { print "samples", $3, $5 }' \
			"$f.dump" | sort > "$f.dump.counts"
		cmp -s "$f.perf.counts" "$f.dump.counts" ||
			mismatch "$name" "record counts differ from perf report --stats: $(diff "$f.perf.counts" "$f.dump.counts" | tr '\n' ' ')"
	else
		case $name in
		*-z-pipe) ;;
		*) mismatch "$name" "perf report --stats failed" ;;
		esac
	fi

	perf evlist -i "$f" 2>/dev/null > "$f.perf.names"
	awk '$1 == "attr" { print $3 }' "$f.dump" > "$f.dump.names"
	cmp -s "$f.perf.names" "$f.dump.names" ||
		mismatch "$name" "event names differ from perf evlist: $(paste -d' ' "$f.perf.names" "$f.dump.names" | tr '\n' ' ')"

	# perf prints blanks for a file without a build-ID
	perf buildid-list -i "$f" 2>/dev/null |
		sed -E 's/^ +/- /' > "$f.perf.bids"
	nb=$(wc -l < "$f.perf.bids")
	# every recording maps files with build-IDs; perf 6.1 cannot read
	# them from a compressed stream (as its report cannot, above)
	if [ "$nb" -eq 0 ]; then
		case $name in
		*-z-pipe) ;;
		*) mismatch "$name" "perf buildid-list lists no build-ID: nothing to compare" ;;
		esac
	else
		# the recorded build-IDs, else (perf record --buildid-mmap)
		# those of the file's MMAP2 records
		cut -d' ' -f2- "$f.perf.bids" | tr '\n' '\0' |
			xargs -0 "$dump" -b "$f" | awk '
			NR == FNR {
				if ($1 != "M" || $8 == "-")
					next
				n = $0   # the file name: after 9 fields
				for (i = 0; i < 9; i++)
					sub(/^[^ ]+ /, "", n)
				sub(/^\[kernel\.kallsyms\].*/, "[kernel.kallsyms]", n)
				if (!(n in mm))
					mm[n] = $8
				next
			}
			{
				n = $0
				sub(/^[^ ]+ /, "", n)
				if ($1 == "-" && (n in mm))
					$0 = mm[n] " " n
				print
			}' "$f.dump" - > "$f.dump.bids"
		cmp -s "$f.perf.bids" "$f.dump.bids" ||
			mismatch "$name" "build-IDs differ from perf buildid-list: $(diff "$f.perf.bids" "$f.dump.bids" | tr '\n' ' ')"
	fi

	# perf without zstd would ignore -z: make sure it is compressed
	case $name in
	*-z-*) grep -q '^count COMPRESSED ' "$f.dump" ||
		mismatch "$name" "no COMPRESSED records: perf record -z did not compress" ;;
	esac

	samples=$(grep -c '^S ' "$f.dump")
	others=$((nnorm - samples))
	total=$(awk '$2 == "TOTAL" { print $3 }' "$f.dump")
	if [ "$samples" -eq 0 ]; then
		mismatch "$name" "no samples recorded"
	fi
	printf '%-22s %s: %6d samples, %5d mmap/comm/task, %6d records, %d build-IDs; reader %ss, perf script %ss\n' \
		"$name" "$([ $ok -eq 1 ] && echo ok || echo FAIL)" "$samples" \
		"$others" "$total" "$nb" "$(elapsed "$t0" "$t1")" \
		"$(elapsed "$t1" "$t2")"
	if [ $ok -eq 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
}

# record NAME MODE PERF-OPTIONS... -- COMMAND...: MODE is file or pipe; the
# command's output is discarded (in pipe mode it would mix with perf's)
record() {
	name=$1
	mode=$2
	shift 2
	f=$tmp/$name.data
	out=$f
	[ "$mode" = pipe ] && out=-
	timeout 60 perf record -q -o "$out" "$@" > "$f.out" 2> "$f.rec.err" \
		< /dev/null
	rc=$?
	if [ "$mode" = pipe ]; then
		mv "$f.out" "$f"
	else
		rm -f "$f.out"
	fi
	if [ $rc -ne 0 ] || [ ! -s "$f" ]; then
		echo "FAIL $name: perf record failed ($rc): $(head -3 "$f.rec.err")" >&2
		fail=$((fail + 1))
		keep=1
		return
	fi
	check "$name" "$f"
}

sql="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c
     WHERE x < 400000) SELECT count(*), sum(x) FROM c;"
py='import json, threading
def work(n):
    s = 0
    for i in range(n):
        s += len(json.dumps({"k": i, "v": [i] * 4}))
    return s
ts = [threading.Thread(target=work, args=(40000,)) for _ in range(3)]
[t.start() for t in ts]
[t.join() for t in ts]
print(work(20000))'

dw="--call-graph dwarf,8192"
quiet='exec "$0" "$@" > /dev/null'  # sh -c "$quiet" COMMAND ARGS...
record sqlite-file file -e cpu-clock $dw -- sh -c "$quiet" sqlite3 :memory: "$sql"
record sqlite-pipe pipe -e cpu-clock $dw -- sh -c "$quiet" sqlite3 :memory: "$sql"
record sqlite-z-file file -z -e cpu-clock $dw -- sh -c "$quiet" sqlite3 :memory: "$sql"
record sqlite-z-pipe pipe -z -e cpu-clock $dw -- sh -c "$quiet" sqlite3 :memory: "$sql"
record python-2ev-file file -e cpu-clock,task-clock -c 200000 $dw -- \
	sh -c "$quiet" python3 -c "$py"
record python-2ev-pipe pipe -e cpu-clock,task-clock -c 200000 $dw -- \
	sh -c "$quiet" python3 -c "$py"
record python-buildid-mmap file --buildid-mmap -e cpu-clock $dw -- \
	sh -c "$quiet" python3 -c "$py"
# perf's largest stack copies (ehelf-perf reads them in part)
record sqlite-64k-file file -e cpu-clock --call-graph dwarf,65528 -- \
	sh -c "$quiet" sqlite3 :memory: "$sql"
record sqlite-64k-z-file file -z -e cpu-clock --call-graph dwarf,65528 -- \
	sh -c "$quiet" sqlite3 :memory: "$sql"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" -eq 0 ] || [ "$paranoid" -le 0 ]; then
	record system-wide-file file -a -e cpu-clock $dw -- \
		sh -c "$quiet" sqlite3 :memory: "$sql"
	record system-wide-pipe pipe -a -e cpu-clock $dw -- \
		sh -c "$quiet" python3 -c "$py"
else
	echo "FAIL system-wide recordings: need root or perf_event_paranoid <= 0 (it is $paranoid)" >&2
	fail=$((fail + 1))
fi

echo "perf.data reader against perf: $pass recordings agree, $fail differ"
[ $fail -eq 0 ]
