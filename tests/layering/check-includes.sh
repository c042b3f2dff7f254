#!/bin/sh
# The include graph's layering (quoted includes only; `make check`):
#  - no cycle between the files of one folder: foo.c and foo.h are one node
#    ("foo"), and an include of bar.h from foo.c or foo.h an edge foo -> bar;
#    a header without a .c of its own whose functions another file defines
#    (gen.h declaring what body.c defines) is an edge gen -> body too; a
#    cycle means two pieces of a folder each need the other (then a small
#    shared piece both depend on is missing);
#  - each component includes its own tree and the rooms below it (abi/,
#    common/, store/; see 2. below): builder/ nothing of client-lib/;
#  - no main() in client-lib/ (libehelf's folder: its programs are in tools/);
#  - tests/ and bench/ share testkit/ and neither includes nor links the
#    other's files.
# Usage: tests/layering/check-includes.sh [ROOT]   (default: the source tree)
set -eu
root=${1:-$(dirname "$0")/../..}
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# every quoted include: FILE INCLUDED-PATH (resolved, relative to the root)
find common abi store builder client-lib tools server packaging corpus-stats testkit tests bench \
	\( -name '*.c' -o -name '*.h' -o -name '*.cc' \) -type f 2>/dev/null |
	sort | xargs awk '
	/^[ \t]*#[ \t]*include[ \t]*"/ {
		inc = $0
		sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
		dir = FILENAME; sub(/\/[^\/]*$/, "", dir)
		n = split(dir "/" inc, part, "/"); m = 0
		for (i = 1; i <= n; i++) {
			if (part[i] == "." || part[i] == "") continue
			if (part[i] == "..") { if (m > 0) m--; else out[++m] = ".."; continue }
			out[++m] = part[i]
		}
		path = out[1]; for (i = 2; i <= m; i++) path = path "/" out[i]
		print FILENAME, path
	}' > "$tmp/includes"
# functions declared by headers (a line at column 0 naming one and ending
# the declaration or its first parameters) and defined by .c files
find common abi store builder client-lib tools server packaging corpus-stats testkit tests bench \
	\( -name '*.c' -o -name '*.h' \) -type f 2>/dev/null | sort | xargs awk '
	/^[A-Za-z_][^#]*[ *][a-z_][a-z0-9_]*\(/ && !/^(static|typedef|extern "C")/ {
		match($0, /[a-z_][a-z0-9_]*\(/)
		name = substr($0, RSTART, RLENGTH - 1)
		if (FILENAME ~ /\.h$/) {
			if ($0 ~ /[;,][ \t]*$/) print "decl", FILENAME, name
		} else if ($0 !~ /;[ \t]*$/) print "def", FILENAME, name
	}' > "$tmp/functions"
fail=0
# 1. cycles inside each folder (tsort names the files of a loop).  Folders
# listed in EHELF_KNOWN_CYCLES (space-separated; none by default) have
# cycles known and still to be broken: theirs are only reported.
known_cycles=${EHELF_KNOWN_CYCLES-}
awk '
	function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
	function node(p) { sub(/\.(c|h|cc)$/, "", p); return p }
	dir($1) == dir($2) && node($1) != node($2) { print dir($1), node($1), node($2) }
	{ print dir($1), node($1), node($1) }' "$tmp/includes" > "$tmp/edges"
awk '
	function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
	function node(p) { sub(/\.(c|h|cc)$/, "", p); return p }
	$1 == "def" { def[dir($2) SUBSEP $3] = node($2); has_c[node($2)] = 1 }
	$1 == "decl" { decl[++n] = $2 SUBSEP $3 }
	END {
		for (i = 1; i <= n; i++) {
			split(decl[i], d, SUBSEP)
			k = dir(d[1]) SUBSEP d[2]
			if ((k in def) && def[k] != node(d[1]) && !(node(d[1]) in has_c))
				print dir(d[1]), node(d[1]), def[k]
		}
	}' "$tmp/functions" | sort -u >> "$tmp/edges"
for d in $(cut -d' ' -f1 "$tmp/edges" | sort -u); do
	awk -v d="$d" '$1 == d { print $2, $3 }' "$tmp/edges" |
		tsort > /dev/null 2> "$tmp/loops" && continue
	loop=$(sed -n 's/^tsort: //p' "$tmp/loops" | grep -v 'input contains a loop' |
		sort -u | tr '\n' ' ')
	case " $known_cycles " in
	*" $d "*) echo "check-includes: known cycle, still to break, in $d/: $loop" >&2 ;;
	*) echo "check-includes: include cycle between files of $d/: $loop" >&2
	   fail=1 ;;
	esac
done
# 2. the components include their own tree and the rooms below them:
#    abi/ (the eh_elf ABI: producer and consumers alike) includes nothing;
#    common/ abi/; store/ (layout, schema, index, writer) common/;
#    builder/ store/ (and nothing of client-lib/: the ABI is abi/'s);
#    client-lib/ store/; tools/ (programs on libehelf) client-lib/ too;
#    server/, packaging/, corpus-stats/ store/ and client-lib/include/.
#    testkit/ (what tests and benchmarks share) includes neither tests/ nor
#    bench/, and tests/ and bench/ include nothing of each other.
awk '
	function top(p) { sub(/\/.*$/, "", p); return p }
	BEGIN {
		ok["abi"] = "abi"
		ok["common"] = "common abi"
		ok["store"] = "store common abi"
		ok["builder"] = "builder store common abi"
		ok["client-lib"] = "client-lib store common abi"
		ok["tools"] = "tools client-lib store common abi"
		ok["server"] = "server store common abi"
		ok["packaging"] = "packaging store common abi"
		ok["corpus-stats"] = "corpus-stats store common abi"
	}
	{
		from = top($1); to = top($2)
		if (from in ok) {
			if (index(" " ok[from] " ", " " to " ") == 0 &&
			    !(from ~ /^(server|packaging|corpus-stats)$/ &&
			      $2 ~ /^client-lib\/include\//))
				print $1 ": includes " $2 " (" from "/ may include " ok[from] ")"
		} else if ((from == "testkit" && (to == "tests" || to == "bench")) ||
			   (from == "tests" && to == "bench") ||
			   (from == "bench" && to == "tests"))
			print $1 ": includes " $2 " (tests/ and bench/ share testkit/ only)"
	}' "$tmp/includes" > "$tmp/layers"
# 3. no program in libehelf's folder: no main() in client-lib/ (programs
#    on libehelf are in tools/)
grep -rnE "^([a-z].*[^a-z_])?main[ \t]*\(" client-lib --include='*.c' --include='*.h' \
	--include='*.cc' --include='*.S' 2>/dev/null |
	sed 's/$/ (a main() in client-lib\/: programs go to tools\/)/' >> "$tmp/layers" || :
# 4. no link loop: no program of tests/ is built from a file of bench/
#    (its source, object or header), and no program of bench/ from one of
#    tests/: every prerequisite, followed through make's own database
#    (make -qp: the Makefile, mk/*.mk and build/'s dependency files;
#    nothing is built), of each target in build/tests/ and build/bench/
MAKEFLAGS= MAKELEVEL= make -qp -f Makefile SANITIZE=0 help 2>/dev/null > "$tmp/makedb" || :
grep -q '^build/bench/' "$tmp/makedb" ||
	echo "make -qp printed no rule of build/bench/ (the Makefile did not parse)" >> "$tmp/layers"
awk '
	/^# Not a target/ { skip = 1; next }
	/^[^#\t ][^=]*:/ && !/^[^:]*:[:+?]?=/ {
		if (skip) { skip = 0; next }
		t = $0; sub(/:.*/, "", t)
		p = $0; sub(/^[^:]*:[ \t]*/, "", p); sub(/\|.*/, "", p)
		if (t !~ / /) deps[t] = deps[t] " " p
		next
	}
	{ skip = 0 }
	function walk(x, root,   n, a, i) {
		if (x in seen) return
		seen[x] = 1
		if (root ~ /^build\/bench\// && x ~ /^(build\/obj\/)?tests\//)
			print root ": a bench program is built from tests/: " x
		if (root ~ /^build\/tests\// && x ~ /^(build\/obj\/)?bench\//)
			print root ": a test program is built from bench/: " x
		n = split(deps[x], a, " ")
		for (i = 1; i <= n; i++) walk(a[i], root)
	}
	END { for (t in deps) if (t ~ /^build\/(bench|tests)\//) { delete seen; walk(t, t) } }
	' "$tmp/makedb" | sort >> "$tmp/layers"
if [ -s "$tmp/layers" ]; then
	echo "check-includes: layering broken:" >&2
	sed 's/^/  /' "$tmp/layers" >&2
	fail=1
fi
[ $fail = 0 ] || exit 1
echo "check-includes: $(wc -l < "$tmp/includes") includes of $(cut -d' ' -f1 "$tmp/includes" | sort -u | wc -l) files: no cycle in a folder, components layered, no main() in client-lib/, no link between tests/ and bench/"
