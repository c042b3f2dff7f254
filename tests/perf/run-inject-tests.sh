#!/bin/sh
# ehelf-perf inject against the tools that read its output, on real
# recordings (perf record --call-graph dwarf: a file, a pipe, -z file and
# pipe, two events in a file and a pipe, a multi-threaded program, a shell
# starting programs by fork and exec), eh_elfs built for the files they map:
#   - Debian's perf 6.1: `perf script -F comm,tid,time,event,ip,sym,symoff,
#     dso --no-inline` on the converted file prints what `ehelf-perf
#     script` prints for the original, sample for sample (the one
#     difference: a stack cut off by the end of its copy ends in a frame
#     at 0 where perf shows ffffffffffffffff, inject.h); `perf report
#     --stdio -g --no-inline` of the converted file equals the original's
#     once the samples where perf's own unwinding differs from ehelf's are
#     left out of both (perf_filter), each of them explained by
#     unwind_crosscheck (script_compare --explained); `perf annotate
#     --stdio` gives the same;
#   - hotspot's perfparser: its output stream, decoded (perfparser_frames.py),
#     gives each sample of the converted file the frames ehelf-perf script
#     gives it (as many, kernel and user), and the same frames as for the
#     original but where perfparser's own unwinding differs;
#   - a FlameGraph pipeline: perf script's default output of the converted
#     file, folded as stackcollapse-perf.pl folds it (awk below), equals
#     ehelf-perf script --folded on the original;
#   - the layouts: file and pipe in and out (a real pipe), compressed input
#     written plain; attributes without REGS_USER and STACK_USER; the
#     build-ID table completed with the files only callchains reach; the
#     summary (--json) counting every sample;
#   - perf's frame limit: a 300-deep recursion's every frame written, perf
#     showing them as any frame-pointer callchain (--max-stack, default
#     kernel.perf_event_max_stack);
#   - memory: peak RSS on a recording four times as long stays put;
#   - bad input: truncated and malformed files fail (exit 1, the offset
#     named, no OUT and no temporary left), a pipe recording cut short is
#     written up to its last whole record (ehelf-perf script prints the
#     samples before the cut, as perf script does) with where it stopped.
# Usage: tests/perf/run-inject-tests.sh BUILD
set -eu
build=$(cd "${1:?usage: run-inject-tests.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap '[ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT INT TERM
fails=0
ok() { echo "  ok: $*"; }
bad() { echo "  FAIL: $*" >&2; fails=$((fails + 1)); }
fields=comm,tid,time,event,ip,sym,symoff,dso
ep="$build/bin/ehelf-perf"
pp=$(ls /usr/lib/*/libexec/hotspot-perfparser /usr/libexec/hotspot-perfparser 2>/dev/null | head -n 1)
[ -x "$pp" ] || { echo "run-inject-tests: hotspot-perfparser not found (package hotspot)" >&2; exit 1; }
export XDG_CACHE_HOME="$T/cache"
R=$T/rec
mkdir -p "$R"

echo "== recordings, and eh_elfs for the files they map"
rec() { # NAME PERF-RECORD-OPTIONS... -- COMMAND...
	name=$1
	shift
	perf record -q -F 2000 --call-graph dwarf "$@" >/dev/null 2>"$R/$name.log" ||
		{ bad "$name: perf record failed: $(head -c 300 "$R/$name.log")"; }
}
sq() { # ROWS: an sqlite3 query
	echo "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
	      WHERE i < $1) SELECT count(*), sum(i * i % 7) FROM n;"
}
rec sqlite -e cpu-clock -o "$R/sqlite.data" -- sqlite3 :memory: "$(sq 300000)"
# for the memory check: 20 and 80 MB (more than a thousand samples: the
# copies then read in place, through the mapping)
rec mid -e cpu-clock -o "$R/mid.data" -- sqlite3 :memory: "$(sq 5000000)"
rec long -e cpu-clock -o "$R/long.data" -- sqlite3 :memory: "$(sq 20000000)"
perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o - -- \
	sqlite3 :memory: "$(sq 300000)" 2>/dev/null >"$R/pipe.data"
rec zfile -z -e cpu-clock -o "$R/zfile.data" -- sqlite3 :memory: "$(sq 300000)"
perf record -q -z -e cpu-clock -F 2000 --call-graph dwarf -o - -- \
	sqlite3 :memory: "$(sq 300000)" 2>/dev/null >"$R/zpipe.data"
rec twoev -e cpu-clock,task-clock -o "$R/twoev.data" -- sqlite3 :memory: "$(sq 300000)"
perf record -q -e cpu-clock,task-clock -F 1000 --call-graph dwarf -o - -- \
	sqlite3 :memory: "$(sq 300000)" 2>/dev/null >"$R/twopipe.data"
# threads: hackbench's senders and receivers as threads of one process
rec threads -e cpu-clock -o "$R/threads.data" -- hackbench -T -s 512 -l 4000 -g 2 -f 5
# fork and exec: a shell starting programs
rec exec -e cpu-clock -o "$R/exec.data" -- \
	sh -c 'i=0; while [ $i -lt 80 ]; do /bin/true; i=$((i + 1)); done'
# a recursion 300 calls deep (64 KiB copies): more frames than perf's 127
cc -O1 -o "$T/deep" "$here/data/deep.c"
rec deep -e cpu-clock --call-graph dwarf,65528 -o "$R/deep.data" -- "$T/deep"
# without a build-ID table (-B): every file is one only callchains reach
rec nobid -B -e cpu-clock -o "$R/nobid.data" -- sqlite3 :memory: "$(sq 100000)"
"$here/store-for-recordings.sh" "$build" "$T/store" "$R"/*.data
export EHELF_PATH="$T/store"

# inject NAME IN OUT [MODE]: MODE ff (file to file), pp (a real pipe in and
# out), fp (a file to a pipe), pf (a pipe to a file)
inject() {
	case $4 in
	ff) "$ep" inject -i "$2" -o "$3" --no-progress --json 2>"$T/$1.json" ;;
	fp) "$ep" inject -i "$2" -o - --no-progress --json >"$3" 2>"$T/$1.json" ;;
	pf) cat "$2" | "$ep" inject -i - -o "$3" --no-progress --json 2>"$T/$1.json" ;;
	pp) cat "$2" | "$ep" inject -i - -o - --no-progress --json 2>"$T/$1.json" | cat >"$3" ;;
	esac
}
# the sample headers whose user stacks differ between two perf script
# outputs of the same samples, as "TID SECS.USECS EVENT"
differing() {
	awk 'BEGIN { RS = "" }
	     FNR == 1 { f++ }
	     { k = FNR; h = $0; sub(/\n.*/, "", h); s[f, k] = $0; hd[k] = h; n = k > n ? k : n }
	     END { for (k = 1; k <= n; k++) if (s[1, k] != s[2, k]) {
		     split(hd[k], w, " "); t = ""
		     # comm may hold spaces: tid is the field before the time
		     for (i = 1; i <= length(w); i++) if (w[i] ~ /^[0-9]+\.[0-9]+:$/) {
			     t = w[i - 1] " " substr(w[i], 1, length(w[i]) - 1) " " w[i + 1]; break }
		     sub(/:$/, "", t); print t } }' "$1" "$2"
}
# perf report without its random tip line and the cut-off marker's
# spelling (0xffffffffffffffff in the original, 0 in the converted file;
# left out of a folded chain of the original, first in the converted
# file's), its lines sorted, without the graph's drawing: perf orders the
# callers of equal weight under one node by the address of its dso
# objects on its heap (match_chain_dso_addresses), which differs from a
# run that unwinds to one that does not, and the drawing with the order;
# then the same with each callchain folded on one line (-g folded), whole
report() {
	for g in graph folded; do
		echo "== -g $g"
		perf report -i "$1" --stdio -g $g --no-inline 2>/dev/null |
			sed -e '/^# (Tip:/d' -e 's/^[ |-]*//; s/0xffffffffffffffff/CUT/g; s/--0$/--CUT/; s/^0$/CUT/' \
			    -e 's/\[\.\] 0000000000000000$/[.] CUT/; s/^\([0-9.]*%\) 0;/\1 /' |
			LC_ALL=C sort
	done
}
# stackcollapse-perf.pl's folding, its default options, over perf script's
# default output: per sample comm;outermost;...;innermost, a frame's name
# its symbol without +0xOFF and arguments, [file] for an unknown one;
# counted, sorted
fold() {
	awk 'function base(p) { sub(/.*\//, "", p); return p }
	     /^[^ \t#]/ || /^ +[^ ]/ { if (!/^\t/) { n = 0; c = $1; sub(/^ +/, "", c)
		split($0, w, " "); c = w[1]; for (i = 2; i <= length(w); i++) {
			if (w[i] ~ /^[0-9]+(\/[0-9]+)?$/) break; c = c "_" w[i] } } ; next }
	     /^\t/ { line = $0; sub(/^\t+ */, "", line); ip = line; sub(/ .*/, "", ip)
		rest = substr(line, length(ip) + 2); mod = rest; sub(/.* \(/, "", mod); sub(/\)$/, "", mod)
		sym = rest; sub(/ \([^(]*\)$/, "", sym); sub(/\+0x[0-9a-f]+$/, "", sym)
		if (sym == "[unknown]") sym = (mod == "[unknown]") ? "[unknown]" : "[" base(mod) "]"
		else { p = index(sym, "("); if (p > 1 && substr(sym, p, 21) != "(anonymous namespace)") sym = substr(sym, 1, p - 1) }
		gsub(/;/, ":", sym); gsub(/["\047]/, "", sym); f[++n] = sym; next }
	     /^$/ { if (n) { s = c; for (i = n; i >= 1; i--) s = s ";" f[i]; cnt[s]++ } n = 0 }
	     END { if (n) { s = c; for (i = n; i >= 1; i--) s = s ";" f[i]; cnt[s]++ }
		   for (s in cnt) print s, cnt[s] }' | LC_ALL=C sort
}
# perfparser's frames of a recording, and those of its converted file
# without the frame perfparser adds after the kernel's part of a
# frame-pointer callchain (the sample's own, kernel pc again: its guess
# that the kernel left the first user frame out)
perfparser_frames() { # IN OUT
	timeout 120 "$pp" --input "$1" --output "$2.stream" >/dev/null 2>&1 ||
		{ bad "perfparser failed on $1"; : >"$2"; return; }
	python3 "$here/perfparser_frames.py" "$2.stream" >"$2"
}
drop_added_pc() {
	awk 'BEGIN { RS = ""; ORS = "\n\n" }
	     { n = split($0, l, "\n"); first = l[2]; sub(/ .*/, "", first)
	       last = 1
	       for (i = 2; i <= n; i++) { a = l[i]; sub(/ .*/, "", a); if (a !~ /^ffff/) break; last = i }
	       drop = 0
	       if (last > 2) { a = l[last]; sub(/ .*/, "", a); if (a == first) drop = last }
	       out = l[1]
	       for (i = 2; i <= n; i++) if (i != drop) out = out "\n" l[i]
	       print out }' "$1"
}

echo "== converted files against perf 6.1, perfparser and a FlameGraph pipeline"
for w in sqlite pipe zfile zpipe twoev twopipe threads exec; do
	f=$R/$w.data
	case $w in pipe|zpipe|twopipe) modes="ff pp pf" ;; sqlite) modes="ff fp" ;; *) modes=ff ;; esac
	"$ep" script -i "$f" --no-progress >"$T/$w.ehelf" 2>"$T/$w.ehelf.err" ||
		{ bad "$w: ehelf-perf script failed: $(head -c 300 "$T/$w.ehelf.err")"; continue; }
	sed 's/^\tffffffffffffffff \[unknown\] (\[unknown\])$/\t               0 [unknown] ([unknown])/' \
		"$T/$w.ehelf" >"$T/$w.expect"
	for m in $modes; do
		c=$T/$w.$m.data
		inject "$w.$m" "$f" "$c" "$m" || { bad "$w ($m): inject failed: $(head -c 300 "$T/$w.$m.json")"; continue; }
		perf script -i "$c" -F $fields --no-inline >"$T/$w.$m.script" 2>"$T/$w.$m.script.err"
		n=$(grep -c '^[^	].*[0-9]\.[0-9]*: *[a-z-]*: *$' "$T/$w.expect" || true)
		if [ "$n" -gt 20 ] && cmp -s "$T/$w.expect" "$T/$w.$m.script"; then
			ok "$w ($m): perf script on the converted file = ehelf-perf script on the original ($n samples)"
		else
			bad "$w ($m): perf script differs ($n samples; $(diff "$T/$w.expect" "$T/$w.$m.script" | grep -c '^[<>]') lines): $(head -c 200 "$T/$w.$m.script.err")"
			diff "$T/$w.expect" "$T/$w.$m.script" | head -n 10
		fi
		# the summary counts every sample
		js=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["samples"], d["unwound"], d["steps"]["eh_elf"])' "$T/$w.$m.json" 2>/dev/null || echo "- - -")
		set -- $js
		[ "$1" = "$n" ] && [ "$3" != 0 ] ||
			bad "$w ($m): --json says samples $1, eh_elf steps $3 (expected $n samples, eh_elf steps)"
		# and says what script's says of the same samples
		[ "$m" = ff ] && { "$ep" script -i "$f" --no-progress --json >/dev/null 2>"$T/$w.sjson"
			python3 -c 'import json,sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
del a["command"], b["command"]
sys.exit(a != b)' "$T/$w.$m.json" "$T/$w.sjson" ||
			bad "$w: inject's summary differs from script's: $(cat "$T/$w.$m.json" "$T/$w.sjson" | head -c 600)"; }
	done
	# the converted file compared: a pipe's, for a pipe recording (perf
	# report lays out a pipe otherwise than a file)
	c=$T/$w.ff.data
	case $w in pipe|zpipe|twopipe) c=$T/$w.pp.data ;; esac
	# no register or stack copies left, in every attribute
	if perf evlist -v -i "$c" 2>/dev/null | grep -q 'REGS_USER\|STACK_USER\|sample_regs_user\|sample_stack_user'; then
		bad "$w: the converted file's attributes keep REGS_USER or STACK_USER: $(perf evlist -v -i "$c" 2>/dev/null | head -c 300)"
	else
		ok "$w: attributes without REGS_USER and STACK_USER ($(perf evlist -i "$c" 2>/dev/null | tr '\n' ' '))"
	fi
	# perf report: the same once the samples perf unwinds otherwise are
	# left out of both, each explained
	perf script -i "$f" -F $fields --no-inline 2>/dev/null |
		sed 's/^\tffffffffffffffff \[unknown\] (\[unknown\])$/\t               0 [unknown] ([unknown])/' >"$T/$w.perf"
	differing "$T/$w.perf" "$T/$w.expect" >"$T/$w.drop"
	nd=$(wc -l <"$T/$w.drop")
	if [ "$nd" -gt 0 ]; then
		"$build/tests/perf/unwind_crosscheck" "$f" >"$T/$w.oracle" 2>/dev/null
		"$build/tests/perf/script_compare" --min-samples 20 --oracle "$T/$w.oracle" --explained \
			"$T/$w.perf" "$T/$w.ehelf" >"$T/$w.cmp" ||
			bad "$w: samples perf unwinds otherwise, not all explained: $(tail -n 1 "$T/$w.cmp")"
	fi
	"$build/tests/perf/perf_filter" "$f" "$T/$w.orig-f.data" "$T/$w.drop" 2>"$T/$w.filter.err" &&
		"$build/tests/perf/perf_filter" "$c" "$T/$w.conv-f.data" "$T/$w.drop" 2>>"$T/$w.filter.err" ||
		bad "$w: perf_filter failed: $(cat "$T/$w.filter.err")"
	report "$T/$w.orig-f.data" >"$T/$w.orig.report"
	report "$T/$w.conv-f.data" >"$T/$w.conv.report"
	if [ -s "$T/$w.orig.report" ] && cmp -s "$T/$w.orig.report" "$T/$w.conv.report"; then
		ok "$w: perf report -g of the converted file = the original's ($nd samples perf unwinds otherwise left out of both, explained)"
	else
		bad "$w: perf report differs ($(diff "$T/$w.orig.report" "$T/$w.conv.report" | grep -c '^[<>]') lines)"
		diff "$T/$w.orig.report" "$T/$w.conv.report" | head -n 10
	fi
	# perf annotate: the samples' pcs, unchanged (perf 6.1's annotate
	# crashes on a compressed pipe recording: then the converted file,
	# plain, must annotate)
	arc=0
	perf annotate --stdio -i "$f" 2>/dev/null >"$T/$w.orig.annotate" || arc=$?
	perf annotate --stdio -i "$c" 2>/dev/null >"$T/$w.conv.annotate" ||
		bad "$w: perf annotate fails on the converted file"
	if [ "$arc" -ge 128 ] && [ "$w" = zpipe ]; then
		[ -s "$T/$w.conv.annotate" ] &&
			ok "$w: perf annotate crashes on the original (signal $((arc - 128))), annotates the converted file ($(wc -l <"$T/$w.conv.annotate") lines)" ||
			bad "$w: perf annotate prints nothing for the converted file"
	else
		[ -s "$T/$w.orig.annotate" ] && cmp -s "$T/$w.orig.annotate" "$T/$w.conv.annotate" &&
			ok "$w: perf annotate the same ($(wc -l <"$T/$w.orig.annotate") lines)" ||
			bad "$w: perf annotate differs (exit $arc, $(diff "$T/$w.orig.annotate" "$T/$w.conv.annotate" | grep -c '^[<>]') lines)"
	fi
	# a FlameGraph pipeline over perf script
	perf script -i "$c" --no-inline 2>/dev/null | fold >"$T/$w.folded"
	"$ep" script -i "$f" --no-progress --folded | LC_ALL=C sort >"$T/$w.efolded"
	[ -s "$T/$w.folded" ] && cmp -s "$T/$w.folded" "$T/$w.efolded" &&
		ok "$w: perf script | stackcollapse = ehelf-perf script --folded ($(wc -l <"$T/$w.folded") stacks)" ||
		{ bad "$w: folded stacks differ ($(diff "$T/$w.folded" "$T/$w.efolded" | grep -c '^[<>]') lines)"
		  diff "$T/$w.folded" "$T/$w.efolded" | head -n 6; }
	# hotspot's perfparser: the frames written, for every sample
	perfparser_frames "$f" "$T/$w.pp-orig"
	perfparser_frames "$c" "$T/$w.pp-conv0"
	drop_added_pc "$T/$w.pp-conv0" >"$T/$w.pp-conv"
	# as many frames per sample as ehelf-perf script prints (perfparser
	# skips no sample, adds none)
	awk 'BEGIN { RS = "" } { print split($0, l, "\n") - 1 }' "$T/$w.expect" >"$T/$w.nexp"
	awk 'BEGIN { RS = "" } { print split($0, l, "\n") - 1 }' "$T/$w.pp-conv" >"$T/$w.nconv"
	if [ -s "$T/$w.nexp" ] && cmp -s "$T/$w.nexp" "$T/$w.nconv"; then
		ok "$w: perfparser gives each of the converted file's $(wc -l <"$T/$w.nexp") samples the frames written"
	else
		bad "$w: perfparser's frame counts differ from those written ($(wc -l <"$T/$w.nexp") / $(wc -l <"$T/$w.nconv") samples, $(diff "$T/$w.nexp" "$T/$w.nconv" | grep -c '^[<>]') lines)"
	fi
	# and the frames it unwinds itself for the original, where its
	# unwinding agrees: samples it unwinds otherwise are those where it
	# guessed frames, or stopped elsewhere
	same=$(awk 'BEGIN { RS = "" } FNR == 1 { f++ } { s[f, FNR] = $0; n = FNR > n ? FNR : n }
		    END { for (k = 1; k <= n; k++) { a = s[1, k]; b = s[2, k]; sub(/ guessed [0-9]+/, "", a); sub(/ guessed [0-9]+/, "", b); d += a != b }
			  printf "%d %d\n", n - d, n }' "$T/$w.pp-orig" "$T/$w.pp-conv")
	set -- $same
	case $w in
	z*) # perfparser 1.3.0 reads no compressed recording (perf record -z):
	    # the converted file, plain, is the only way it has to them
		[ "$(grep -c guessed "$T/$w.pp-orig" || true)" = 0 ] &&
			ok "$w: perfparser reads no sample of the compressed original, all of the converted file" ||
			bad "$w: perfparser read samples of the compressed original: compare them" ;;
	*)	[ "$2" -gt 20 ] && [ $(($1 * 100)) -ge $(($2 * 90)) ] &&
			ok "$w: perfparser: $1 of $2 samples with the frames it unwinds itself from the original" ||
			bad "$w: perfparser: only $1 of $2 samples as for the original" ;;
	esac
	# smaller files (a compressed original against its data decompressed:
	# the output is plain)
	so=$(stat -c %s "$f")
	sc=$(stat -c %s "$c")
	case $w in
	z*) ok "$w: compressed $so bytes -> plain $sc bytes" ;;
	# (many processes: their records weigh more than their samples)
	exec|threads) [ $((sc * 2)) -lt "$so" ] && ok "$w: $so -> $sc bytes" || bad "$w: $so -> $sc bytes, not 2x smaller" ;;
	*) [ $((sc * 10)) -lt "$so" ] && ok "$w: $so -> $sc bytes" || bad "$w: $so -> $sc bytes, not 10x smaller" ;;
	esac
done

echo "== perf's frame limit (kernel.perf_event_max_stack)"
# every frame written; perf shows them as a frame-pointer callchain's: the
# first --max-stack (default: the sysctl), kernel and user counted together
inject deep "$R/deep.data" "$T/deep.conv" ff
"$ep" script -i "$R/deep.data" --no-progress |
	sed 's/^\tffffffffffffffff \[unknown\] (\[unknown\])$/\t               0 [unknown] ([unknown])/' >"$T/deep.expect"
perf script -i "$T/deep.conv" -F $fields --no-inline --max-stack 1024 >"$T/deep.all" 2>/dev/null
perf script -i "$T/deep.conv" -F $fields --no-inline >"$T/deep.default" 2>/dev/null
deepest() { awk 'BEGIN { RS = "" } { n = split($0, l, "\n") - 1; if (n > m) m = n } END { print m + 0 }' "$1"; }
limit=$(cat /proc/sys/kernel/perf_event_max_stack)
de=$(deepest "$T/deep.expect") dd=$(deepest "$T/deep.default")
[ "$de" -gt "$limit" ] && cmp -s "$T/deep.expect" "$T/deep.all" && [ "$dd" = "$limit" ] &&
	ok "deep: every frame written ($de in the deepest sample: perf script --max-stack 1024 prints them all), perf's default shows $dd, its limit" ||
	bad "deep: deepest $de frames, perf script --max-stack 1024 $(cmp -s "$T/deep.expect" "$T/deep.all" && echo equal || echo differs), default $dd (limit $limit)"

echo "== the build-ID table, completed"
# perf fills the table for the files where samples land; the converted
# file's lists every file its callchains reach as well
ids() { perf buildid-list -i "$1" 2>/dev/null | awk 'NF == 2 { print $2 }' | sort -u; }
reached() { awk -F'[()]' '/^\t/ && $(NF-1) ~ /^\// { print $(NF-1) }' "$1" | sort -u; }
ids "$R/sqlite.data" >"$T/ids.orig"
ids "$T/sqlite.ff.data" >"$T/ids.conv"
reached "$T/sqlite.ff.script" >"$T/reached"
missing=$(comm -23 "$T/reached" "$T/ids.conv" | tr '\n' ' ')
[ -z "$missing" ] && ok "sqlite: every file the callchains reach is in the table" ||
	bad "sqlite: build-ID table: missing $missing"
# which files perf's table lacks depends on where samples land; a
# recording without one (-B) lacks them all, and gets them all
inject nobid "$R/nobid.data" "$T/nobid.conv" ff
perf script -i "$T/nobid.conv" -F $fields --no-inline 2>/dev/null >"$T/nobid.script"
ids "$R/nobid.data" >"$T/ids.orig"
ids "$T/nobid.conv" >"$T/ids.conv"
reached "$T/nobid.script" >"$T/reached"
missing=$(comm -23 "$T/reached" "$T/ids.conv" | tr '\n' ' ')
added=$(comm -13 "$T/ids.orig" "$T/ids.conv" | grep -c /)
[ ! -s "$T/ids.orig" ] && [ -z "$missing" ] && [ "$added" -ge 3 ] &&
	ok "no table (-B): the $added files the callchains reach are added" ||
	bad "no table (-B): original's table $(wc -l <"$T/ids.orig") lines, missing: $missing, added $added"

echo "== memory: a recording four times as long"
/usr/bin/time -f %M -o "$T/rss1" "$ep" inject -i "$R/mid.data" -o "$T/s1.data" --no-summary
/usr/bin/time -f %M -o "$T/rss4" "$ep" inject -i "$R/long.data" -o "$T/s4.data" --no-summary
r1=$(tail -n 1 "$T/rss1") r4=$(tail -n 1 "$T/rss4")
s1=$(stat -c %s "$R/mid.data") s4=$(stat -c %s "$R/long.data")
[ $((s4 * 2)) -gt $((s1 * 5)) ] && [ "$r4" -le $((r1 + r1 / 10 + 2048)) ] &&
	ok "peak RSS $r1 KiB on $s1 bytes, $r4 KiB on $s4 bytes" ||
	bad "peak RSS $r1 KiB on $s1 bytes, $r4 KiB on $s4 bytes"

echo "== bad input"
out=$T/bad.out
size=$(stat -c %s "$R/sqlite.data")
head -c $((size / 2)) "$R/sqlite.data" >"$T/trunc.data"
# a record in the middle of the data section given size 4
python3 - "$R/sqlite.data" "$T/malformed.data" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off, size = struct.unpack_from("<QQ", d, 40)
at, k = off, 0
while at < off + size and k < 50:
    at += struct.unpack_from("<H", d, at + 6)[0]
    k += 1
struct.pack_into("<H", d, at + 6, 4)
open(sys.argv[2], "wb").write(d)
PY
for b in trunc malformed; do
	rc=0
	"$ep" inject -i "$T/$b.data" -o "$out" --no-progress 2>"$T/$b.err" || rc=$?
	left=$(ls -A "$T" | grep -c '^\.bad\.out\.tmp' || true)
	[ "$rc" = 1 ] && grep -q 'offset [0-9]' "$T/$b.err" && [ ! -e "$out" ] && [ "$left" = 0 ] &&
		ok "$b: exit 1, $(head -n 1 "$T/$b.err" | cut -c 1-110), no output" ||
		bad "$b: exit $rc, output there: $([ -e "$out" ] && echo yes || echo no), temporaries $left, stderr: $(head -c 200 "$T/$b.err")"
done
# a pipe cut inside a record
psize=$(stat -c %s "$R/pipe.data")
head -c $((psize * 2 / 3)) "$R/pipe.data" >"$T/cut.data"
nperf=$(perf script -i "$T/cut.data" -G -F tid,time 2>/dev/null | wc -l)
rc=0
"$ep" script -i "$T/cut.data" --no-progress >"$T/cut.ehelf" 2>"$T/cut.err" || rc=$?
nep=$(grep -c ': *cpu-clock: *$' "$T/cut.ehelf" || true)
[ "$rc" = 0 ] && [ "$nep" -gt 0 ] && [ "$nep" = "$nperf" ] && grep -q 'stream stops there' "$T/cut.err" &&
	ok "cut pipe: ehelf-perf script prints the $nep samples before the cut, as perf script ($(cut -c 1-100 "$T/cut.err"))" ||
	bad "cut pipe: script exit $rc, $nep samples (perf script: $nperf): $(head -c 200 "$T/cut.err")"
rc=0
cat "$T/cut.data" | "$ep" inject -i - -o "$T/cut.conv" --no-progress --no-summary 2>"$T/cutinj.err" || rc=$?
sed 's/^\tffffffffffffffff \[unknown\] (\[unknown\])$/\t               0 [unknown] ([unknown])/' \
	"$T/cut.ehelf" >"$T/cut.expect"
perf script -i "$T/cut.conv" -F $fields --no-inline >"$T/cut.script" 2>/dev/null || true
[ "$rc" = 0 ] && grep -q 'stream stops there' "$T/cutinj.err" && cmp -s "$T/cut.expect" "$T/cut.script" &&
	ok "cut pipe: inject writes the $nep samples before the cut, says where it stopped" ||
	bad "cut pipe: inject exit $rc, $(grep -c '^[^	]' "$T/cut.script" || true) samples written: $(head -c 200 "$T/cutinj.err")"
rc=0
"$ep" inject -i "$R/sqlite.data" -o "$R/sqlite.data" 2>/dev/null || rc=$?
[ "$rc" = 2 ] && ok "the input as output: refused (exit 2)" || bad "the input as output: exit $rc"

if [ "$fails" -gt 0 ]; then
	echo "run-inject-tests: $fails failure(s)" >&2
	exit 1
fi
echo "run-inject-tests: all passed"
