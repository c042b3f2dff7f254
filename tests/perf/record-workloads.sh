#!/bin/sh
# Record the workloads of ehelf-perf's tests and benchmark with
# `perf record --call-graph dwarf`, into DIR/NAME.data:
#   hackbench  hackbench (rt-tests): processes exchanging messages over
#              sockets, the internship's workload
#   python     a python3 script: dictionaries, regular expressions, json
#   cc1plus    the C++ compiler proper (cc1plus -O2) on a preprocessed file
#              full of template instantiations
#   sqlite     sqlite3 queries on an in-memory database
#   gxx        the same compilation through the g++ driver (cc1plus, then
#              as, each started by vfork and exec), not in the default set
#   exec       a shell starting /bin/true over and over (vfork, execve,
#              the dynamic loader at work), not in the default set
#   throw      C++ exceptions thrown and caught in a loop (libstdc++, and
#              libgcc's unwinder installing catch blocks), not in the
#              default set
#   threads    hackbench's senders and receivers as threads of one process
#              (-T), not in the default set
#   clang      clang-14 -O2 -S on the template-heavy C++ file, SCALE times
#              (libLLVM-14 and libclang-cpp: about 95,000 dynamic symbols),
#              not in the default set
# SCALE multiplies the amount of work (default 1: about a second each).
# FREQ (default 2000) is perf record's -F, CALL_GRAPH (default dwarf) its
# --call-graph (dwarf,65528: 64 KiB stack copies).
# Usage: tests/perf/record-workloads.sh DIR [SCALE] [NAME...]
set -eu
dir=${1:?usage: record-workloads.sh DIR [SCALE] [NAME...]}
scale=${2:-1}
shift $(( $# >= 2 ? 2 : 1 ))
names=${*:-hackbench python cc1plus sqlite}
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir"
# software clock: hardware events are not always there in a VM
rec() { # NAME COMMAND...
	name=$1
	shift
	perf record -q -e cpu-clock -F "${FREQ:-2000}" -m 16M --call-graph "${CALL_GRAPH:-dwarf}" \
		-o "$dir/$name.data" \
		-- "$@" >/dev/null 2>"$dir/$name.record.log" ||
		{ echo "record-workloads: perf record $name failed:" >&2; cat "$dir/$name.record.log" >&2; exit 1; }
}
for name in $names; do
	case $name in
	hackbench)
		rec hackbench hackbench -s 512 -l $((200 * scale)) -g 4 -f 10 ;;
	python)
		cat >"$dir/work.py" <<PY
import json, re
for rep in range($scale):
    words = [("w%d" % ((i + rep) * 7919 % 5000)) for i in range(200000)]
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    text = json.dumps(counts)
    back = json.loads(text)
    found = re.findall(r"w(\d+)7", text)
    print(len(back), len(found), sum(sorted(int(x) for x in found)[:100]))
PY
		rec python /usr/bin/python3 "$dir/work.py" ;;
	cc1plus)
		g++ -std=c++17 -E -DSCALE=$((40 * scale)) "$here/tests/perf/data/templates.cc" \
			-o "$dir/templates.ii"
		rec cc1plus "$(g++ -print-prog-name=cc1plus)" -fpreprocessed -quiet -O2 \
			"$dir/templates.ii" -o "$dir/templates.s" ;;
	gxx)
		rec gxx g++ -std=c++17 -O2 -DSCALE=$((40 * scale)) -c \
			"$here/tests/perf/data/templates.cc" -o "$dir/templates.o" ;;
	throw)
		g++ -O2 -o "$dir/throw" "$here/tests/perf/data/throw.cc"
		rec throw "$dir/throw" $((600000 * scale)) ;;
	threads)
		rec threads hackbench -T -s 512 -l $((4000 * scale)) -g 2 -f 5 ;;
	clang)
		# SCALE compilations (a template's depth is bounded: 1,024)
		rec clang sh -c 'i=0; while [ $i -lt "$1" ]; do clang++-14 -std=c++17 -O2 -S \
			-DSCALE=80 "$2" -o "$3" || exit 1; i=$((i + 1)); done' sh "$scale" \
			"$here/tests/perf/data/templates.cc" "$dir/clang.s" ;;
	exec)
		rec exec sh -c "i=0; while [ \$i -lt $((300 * scale)) ]; do /bin/true; i=\$((i + 1)); done" ;;
	sqlite)
		rec sqlite sqlite3 :memory: \
			"CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
			 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
			   WHERE i < $((60000 * scale)))
			 INSERT INTO t SELECT i, printf('row%d', i * 7919 % 100000), i / 7.0 FROM n;
			 CREATE INDEX tb ON t(b);
			 SELECT count(*), sum(c) FROM t WHERE b LIKE '%99%';
			 SELECT b, count(*) FROM t GROUP BY substr(b, 1, 5) ORDER BY 2 DESC LIMIT 3;" ;;
	*)
		echo "record-workloads: unknown workload '$name'" >&2
		exit 2 ;;
	esac
done
