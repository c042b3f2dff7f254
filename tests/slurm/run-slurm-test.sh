#!/bin/bash
# The scale-out of docs/scale-out.md run for real on a one-node Slurm
# cluster: munged and Debian's slurmctld and slurmd started here with a
# configuration of their own in a temporary directory, a job array of 3
# tasks (scripts/slurm/ehelf-shard.sbatch) each running `ehelf-batch
# --shard K/3` over a few real .debs (those of tests/diff/packages.txt:
# libc6, libstdc++6, coreutils, ...), then the merge job depending on it
# (ehelf-merge.sbatch); the merged store is checked against one run over the
# same input without shards: the same eh_elf files with the same bytes,
# store-check on both, the same rows in packages, files, eh_elfs (all but
# the timing columns) and the statistics tables.
#
# Everything runs in private network, PID and mount namespaces (unshare):
# the daemons are reachable on that namespace's loopback only (slurmctld
# binds to every address it has, and there that is 127.0.0.1 alone), and
# whatever they leave running (slurmstepd) ends with the namespace.  The
# daemons are also stopped by the script's trap, each by its pid.  Every
# wait is bounded.  Needs root (the daemons run as SlurmUser=root); slurm
# and munge are installed by scripts/install-deps.sh, never skipped.
#
# Usage: tests/slurm/run-slurm-test.sh BUILD
set -euo pipefail

usage() {
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
}
case "${1:-}" in
-h | --help) usage; exit 0 ;;
"") echo "run-slurm-test.sh: missing BUILD (the build directory, e.g. build)" >&2
    echo "usage: tests/slurm/run-slurm-test.sh BUILD" >&2; exit 2 ;;
esac
[ $# = 1 ] || { echo "run-slurm-test.sh: one argument, BUILD; got $#" >&2; exit 2; }
[ -d "$1" ] || { echo "run-slurm-test.sh: $1: not a directory" >&2; exit 2; }
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
batch=$build/bin/ehelf-batch
store_check=$build/tests/store-check
NSHARDS=3
# the packages of tests/diff/packages.txt this test reads
CORPUS_PKGS="libc6 libstdc++6 libgcc-s1 zlib1g coreutils sqlite3 libsqlite3-0 curl libcurl4"

for f in "$batch" "$store_check"; do
	[ -x "$f" ] || { echo "run-slurm-test.sh: $f missing (make all $build/tests/store-check)" >&2; exit 1; }
done
if [ "$(id -u)" != 0 ]; then
	echo "run-slurm-test.sh: needs root (slurmctld and slurmd run as SlurmUser=root, in namespaces of their own)" >&2
	exit 1
fi

# ---- outside the namespaces: the tools and the corpus (apt needs the network)
if [ -z "${EHELF_SLURM_INNER:-}" ]; then
	"$top/scripts/install-deps.sh" slurm-wlm munge util-linux iproute2 sqlite3
	for t in slurmctld slurmd sbatch sinfo squeue scancel munged mungekey munge unshare ip sqlite3; do
		command -v "$t" >/dev/null || {
			echo "run-slurm-test.sh: $t not found after scripts/install-deps.sh" >&2; exit 1; }
	done
	debs=$("$top/tests/diff/fetch-packages.sh" --debs "$top/tests/diff/packages.txt")
	corpus=""
	for p in $CORPUS_PKGS; do
		d=$(echo "$debs" | grep "/${p}_" | head -n 1 || true)
		[ -n "$d" ] || { echo "run-slurm-test.sh: no .deb of $p from fetch-packages.sh" >&2; exit 1; }
		corpus="$corpus$d"$'\n'
	done
	export EHELF_SLURM_INNER=1 EHELF_SLURM_CORPUS="$corpus"
	# --fork: unshare's child is PID 1 of the new PID namespace; its end ends
	# every process left in it.  unshare itself ignores INT and TERM: this
	# script, told to stop, kills it, and --kill-child sends its child TERM,
	# whose trap stops the daemons; then waits (bounded) for that child
	unshare --net --pid --mount --fork --mount-proc --kill-child=TERM -- \
		bash "$0" "$build" &
	upid=$!
	on_signal() {
		local inner i
		inner=$(pgrep -P "$upid" || true)
		kill -KILL "$upid" 2>/dev/null || true
		for i in $(seq 1 200); do
			[ -n "$inner" ] && kill -0 "$inner" 2>/dev/null || break
			sleep 0.1
		done
		echo "run-slurm-test.sh: interrupted" >&2
		exit 130
	}
	trap on_signal INT TERM
	status=0
	wait "$upid" || status=$?
	exit "$status"
fi

# ---- inside: PID 1 of the new namespaces ---------------------------------
# shellcheck source=tests/common/checks.sh
source "$top/tests/common/checks.sh"
# shellcheck source=tests/common/free-port.sh
source "$top/tests/common/free-port.sh"
ip link set lo up
start=$(date +%s)

T=$(mktemp -d)
# munged wants every directory above its socket searchable by all, none
# writable by others (the temporary directory is 0700 from mktemp)
chmod 711 "$T"
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log" "$T/corpus" "$T/shards"
chmod 755 "$T/munge"

pids="" # the daemons: "name:pid ..."
ctld_pid=""
stop_daemons() {
	local e name pid i
	# jobs first, while the controller is there to cancel them
	if [ -n "$ctld_pid" ] && kill -0 "$ctld_pid" 2>/dev/null; then
		SLURM_CONF=$T/slurm.conf timeout 10 scancel --quiet --user=root >/dev/null 2>&1 || true
	fi
	for e in $pids; do
		name=${e%%:*} pid=${e#*:}
		kill -TERM "$pid" 2>/dev/null || continue
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		if kill -0 "$pid" 2>/dev/null; then
			echo "  ($name did not stop in 10 s: killed)" >&2
			kill -KILL "$pid" 2>/dev/null || true
		fi
		wait "$pid" 2>/dev/null || true
	done
	pids=""
}
show_logs() {
	local f
	for f in "$T"/log/*; do
		[ -s "$f" ] || continue
		echo "---- $(basename "$f") (last lines)" >&2
		tail -n 15 "$f" >&2
	done
}
cleanup() {
	local status=$?
	trap - EXIT INT TERM
	[ "$status" = 0 ] || show_logs
	stop_daemons
	rm -rf "$T"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# quiet CMD...: CMD's output shown only when it fails
quiet() {
	"$@" >"$T/quiet.out" 2>&1 && return 0
	head -n 20 "$T/quiet.out" >&2
	return 1
}
# wait_for SECONDS WHAT CMD...: run CMD every 0.2 s until it succeeds;
# fail (status 1) with a message after SECONDS, or at once when CMD
# returns 100
wait_for() {
	local secs=$1 what=$2 i=0 status
	shift 2
	while :; do
		status=0
		"$@" >/dev/null 2>"$T/wait.err" || status=$?
		[ "$status" = 0 ] && return 0
		if [ "$status" = 100 ]; then
			cat "$T/wait.err" >&2
			echo "run-slurm-test.sh: $what: given up" >&2
			return 1
		fi
		i=$((i + 1))
		if [ $i -gt $((secs * 5)) ]; then
			echo "run-slurm-test.sh: $what: not after ${secs} s" >&2
			return 1
		fi
		sleep 0.2
	done
}

echo "== corpus"
while IFS= read -r d; do
	[ -n "$d" ] && cp "$d" "$T/corpus/"
done <<<"$EHELF_SLURM_CORPUS"
npkgs=$(find "$T/corpus" -name '*.deb' | wc -l)
echo "  $npkgs packages: $(cd "$T/corpus" && ls | sed 's/_.*//' | paste -sd' ')"

echo "== munged"
mungekey --create --bits 1024 --keyfile "$T/munge/munge.key"
chmod 600 "$T/munge/munge.key"
munge_sock=$T/munge/munge.socket
# -F: in the foreground (as our child, its pid known); as root it runs
# without --force when its files' directories are secure as above
munged -F --socket="$munge_sock" --key-file="$T/munge/munge.key" \
	--pid-file="$T/munge/munged.pid" --log-file="$T/log/munged.log" \
	--seed-file="$T/munge/munged.seed" >"$T/log/munged.out" 2>&1 &
pids="munged:$! $pids"
munge_roundtrip() { munge -S "$munge_sock" -n | unmunge -S "$munge_sock" >/dev/null; }
wait_for 20 "munged answering on $munge_sock" munge_roundtrip
check "munged: a credential encoded and decoded through its socket" munge_roundtrip

echo "== slurmctld and slurmd"
node=$(hostname -s)
# the node as slurmd sees it (CPUs, sockets, cores, threads, memory)
hw=$(slurmd -C | head -n 1)
case "$hw" in
"NodeName=$node "*) ;;
*) echo "run-slurm-test.sh: slurmd -C says '$hw', not NodeName=$node ..." >&2; exit 1 ;;
esac
ncpus=$(echo "$hw" | sed -n 's/.* CPUs=\([0-9]*\).*/\1/p')
ctld_port=$(free_port)
slurmd_port=$(free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done
# the configuration: a one-node cluster, no cgroups (proctrack/linuxproc,
# task/none), no accounting; every file in $T
cat >"$T/slurm.conf" <<EOF
ClusterName=ehelftest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$munge_sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
# without it the daemons resolve their listening address for IPv4 alone,
# with AI_ADDRCONFIG, which finds nothing where loopback is the only
# interface (as in this network namespace): "Unable to resolve "(null)""
CommunicationParameters=EnableIPv6
$hw NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=ehelf Nodes=$node Default=YES MaxTime=30 State=UP
EOF
export SLURM_CONF=$T/slurm.conf
# -D: in the foreground (as our children); their logs go to the files above
slurmctld -D -f "$T/slurm.conf" >"$T/log/slurmctld.out" 2>&1 &
ctld_pid=$!
pids="slurmctld:$! $pids"
slurmd -D -f "$T/slurm.conf" >"$T/log/slurmd.out" 2>&1 &
pids="slurmd:$! $pids"
# running: the daemons are (a daemon that exited ends the wait at once)
running() {
	local e
	for e in $pids; do
		kill -0 "${e#*:}" 2>/dev/null || { echo "run-slurm-test.sh: ${e%%:*} exited" >&2; return 100; }
	done
}
node_idle() {
	running || return 100
	[ "$(timeout 10 sinfo -h -n "$node" -o %t)" = idle ]
}
wait_for 60 "node $node idle (sinfo)" node_idle
ok "node $node idle with $ncpus CPUs, controller on 127.0.0.1:$ctld_port"

echo "== the job array (scripts/slurm/ehelf-shard.sbatch), then the merge job"
# job_state ID: JobState of a job (finished jobs stay known to slurmctld for
# MinJobAge, 300 s)
job_state() {
	[ -n "$1" ] || { echo "(no job id)"; return 0; }
	timeout 10 scontrol show job -o "$1" 2>&1 | sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p'
}
# as docs/scale-out.md runs them: the array, and the merge depending on it
shard_job=$top/scripts/slurm/ehelf-shard.sbatch
merge_job=$top/scripts/slurm/ehelf-merge.sbatch
export EHELF_BATCH=$batch EHELF_NSHARDS=$NSHARDS EHELF_SHARDS=$T/shards EHELF_MIRROR=$T/corpus \
	EHELF_STORE=$T/merged
t0=$(date +%s)
status=0
# (one CPU a task: two tasks at a time on two cores)
jobid=$(timeout 30 sbatch --parsable --chdir="$T" --output="$T/log/shard-%a.out" \
	--array="1-$NSHARDS" --cpus-per-task=1 --time=10 "$shard_job" 2>"$T/sbatch.err") || status=$?
if [ "$status" != 0 ] || [ -z "$jobid" ]; then
	bad "sbatch --array=1-$NSHARDS: status $status, '$jobid' $(cat "$T/sbatch.err")"
	exit 1
fi
status=0
timeout 300 sbatch --wait --chdir="$T" --output="$T/log/merge.out" --time=10 \
	--dependency="afterok:$jobid" --kill-on-invalid-dep=yes "$merge_job" \
	>"$T/sbatch.out" 2>&1 || status=$?
t1=$(date +%s)
mjob=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$T/sbatch.out")
mstate=$(job_state "$mjob")
if [ "$status" = 0 ] && [ "$mstate" = COMPLETED ]; then
	ok "job $jobid (array 1-$NSHARDS), then the merge job (afterok:$jobid, sbatch --wait): exit 0 in $((t1 - t0)) s"
else
	bad "the merge job '$mjob': $mstate, sbatch --wait status $status: $(cat "$T/sbatch.out")"
fi
f0=$fails
sum=0
for k in $(seq 1 "$NSHARDS"); do
	out=$T/log/shard-$k.out
	if [ -f "$out" ] && grep -q "^shard $k/$NSHARDS: job $jobid on $node$" "$out" &&
		[ -f "$T/shards/$k/ehelf.sqlite" ]; then
		n=$(sed -n 's/.*"packages": \([0-9]*\).*/\1/p' "$out")
		sum=$((sum + ${n:-0}))
	else
		bad "task $k of job $jobid: no output or store ($(cat "$out" 2>/dev/null))"
	fi
done
[ "$fails" = "$f0" ] && ok "each task ran under Slurm (SLURM_ARRAY_TASK_ID 1..$NSHARDS on $node) and wrote its shard"
[ "$sum" = "$npkgs" ] && ok "the $NSHARDS shards read $sum packages: each of the $npkgs once" ||
	bad "the shards read $sum packages, the corpus has $npkgs"
grep -q "^merge of $NSHARDS shards into $T/merged: job" "$T/log/merge.out" &&
	grep -q "\"shards\": $NSHARDS" "$T/log/merge.out" && ok "the merge job merged the $NSHARDS shards" ||
	bad "merge job output: $(cat "$T/log/merge.out" 2>/dev/null)"
q_left=$(timeout 10 squeue -h 2>&1 || echo "squeue failed")
[ -z "$q_left" ] && ok "nothing left in the queue" || bad "squeue: $q_left"

# an array whose tasks fail: the merge depending on it is cancelled, and
# sbatch --wait says so (what the check above relies on)
status=0
jobid=$(EHELF_MIRROR=$T/no-such-dir EHELF_SHARDS=$T/bad timeout 30 sbatch --parsable \
	--chdir="$T" --output="$T/log/bad-%a.out" --array="1-$NSHARDS" --cpus-per-task=1 \
	--time=10 "$shard_job" 2>/dev/null) || status=$?
[ "$status" = 0 ] || bad "sbatch of the failing array: status $status"
status=0
EHELF_SHARDS=$T/bad EHELF_STORE=$T/bad-merged timeout 120 sbatch --wait --chdir="$T" \
	--output="$T/log/bad-merge.out" --dependency="afterok:$jobid" --kill-on-invalid-dep=yes \
	"$merge_job" >"$T/sbatch.out" 2>&1 || status=$?
# (sbatch --wait of slurm 22.05 exits 0 for a job cancelled before it
# ran: the job's state says what happened)
mjob=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$T/sbatch.out")
mstate=$(job_state "$mjob")
[ "$mstate" = CANCELLED ] && [ ! -e "$T/bad-merged" ] &&
	ok "an array whose tasks fail: its merge job is cancelled, never run (sbatch --wait: $status)" ||
	bad "a failing array: merge job '$mjob' $mstate, sbatch --wait $status ($(cat "$T/sbatch.out"))"
q_left=$(timeout 10 squeue -h 2>&1 || echo "squeue failed")
[ -z "$q_left" ] || bad "squeue after the failing array: $q_left"

echo "== one run without shards"
"$batch" --store "$T/single" -j "$ncpus" --json "$T/corpus" >"$T/single.json" ||
	bad "ehelf-batch without shards: status $?"
for s in merged single; do
	check "store-check --complete: the $s store" quiet "$store_check" --complete "$T/$s"
done

echo "== merged = single"
# every file under .build-id with the sha256 of its bytes
sums() { (cd "$1/.build-id" && find . -type f -exec sha256sum {} + | sort -k 2); }
sums "$T/single" >"$T/sums.single"
sums "$T/merged" >"$T/sums.merged"
n=$(grep -c '\.so$' "$T/sums.single" || true)
[ "$n" -gt 100 ] && cmp -s "$T/sums.single" "$T/sums.merged" &&
	ok "the same $n eh_elf files, byte for byte (sha256)" ||
	{ bad "eh_elf files differ ($n in the single run)"
	  diff "$T/sums.single" "$T/sums.merged" | head -n 6 >&2 || true; }
q() { sqlite3 -separator '|' "$1/ehelf.sqlite" "$2"; }
has_table() { [ "$(q "$1" "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '$2'")" = 1 ]; }
# compare WHAT SQL: the same rows, sorted, in both databases
compare() {
	{ q "$T/single" "$2" || echo "(sqlite3 failed)"; } | LC_ALL=C sort >"$T/q.single"
	{ q "$T/merged" "$2" || echo "(sqlite3 failed)"; } | LC_ALL=C sort >"$T/q.merged"
	if [ -s "$T/q.single" ] && cmp -s "$T/q.single" "$T/q.merged"; then
		ok "$1: the same $(wc -l <"$T/q.single") rows"
	else
		bad "$1 differ ($(wc -l <"$T/q.single") rows without shards, $(wc -l <"$T/q.merged") merged)"
		diff "$T/q.single" "$T/q.merged" | head -n 6 >&2 || true
	fi
}
compare packages "SELECT name, version, architecture, format, status FROM packages"
compare files "SELECT p.name, f.path, f.build_id, f.build_id_kind, f.status, f.size,
	f.text_bytes, f.eh_frame_bytes, f.eh_frame_hdr_bytes, f.debug_frame_bytes,
	f.ehelf_bytes FROM files f JOIN packages p ON p.id = f.package_id"
# eh_elfs without the timings (compile_ms; read_ms ... store_ms since
# schema version 3): every other column that both databases have
timing="'compile_ms','read_ms','rules_ms','codegen_ms','image_ms','store_ms'"
cols=$(q "$T/single" "SELECT group_concat(name, ', ') FROM pragma_table_info('eh_elfs')
	WHERE name NOT IN ($timing)")
cols_m=$(q "$T/merged" "SELECT group_concat(name, ', ') FROM pragma_table_info('eh_elfs')
	WHERE name NOT IN ($timing)")
[ "$cols" = "$cols_m" ] || bad "eh_elfs columns differ: '$cols' and '$cols_m'"
case "$cols" in
*build_id*ehelf_bytes*code_bytes*table_bytes*fdes*rows*) ;;
*) bad "eh_elfs lacks the columns compared: '$cols'" ;;
esac
compare "eh_elfs ($cols)" "SELECT $cols FROM eh_elfs"
# the statistics tables (those the schema has: rulesets, ruleset_texts and
# fde_sizes since version 3)
for t in rule_kinds dwarf_ops fde_rows unsupported rulesets ruleset_texts fde_sizes; do
	if has_table "$T/single" "$t"; then
		n=$(q "$T/single" "SELECT count(*) FROM $t")
		if [ "$n" = 0 ] && [ "$t" = unsupported ]; then
			[ "$(q "$T/merged" "SELECT count(*) FROM $t")" = 0 ] &&
				ok "unsupported: empty in both" || bad "unsupported: rows in the merged store only"
		else
			compare "$t" "SELECT * FROM $t"
		fi
	fi
done

echo "== the daemons stopped"
daemon_pids=$(for e in $pids; do echo "${e#*:}"; done)
stop_daemons
left=""
for p in $daemon_pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
[ -z "$left" ] && ok "munged, slurmctld and slurmd stopped (TERM, waited)" || bad "still running:$left"

echo "slurm test: $(( $(date +%s) - start )) s"
[ "$fails" = 0 ] && echo "slurm tests: PASS" || { echo "slurm tests: $fails FAILED"; exit 1; }
