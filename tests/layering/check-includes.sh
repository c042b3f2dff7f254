#!/bin/sh
# The include graph's layering (quoted includes only; `make check`):
#  - no cycle between the files of one folder: foo.c and foo.h are one node
#    ("foo"), and an include of bar.h from foo.c or foo.h an edge foo -> bar;
#    a header without a .c of its own whose functions another file defines
#    (gen.h declaring what body.c defines) is an edge gen -> body too; a
#    cycle means two pieces of a folder each need the other (then a small
#    shared piece both depend on is missing);
#  - the components common/, builder/, client-lib/, server/, packaging/ and
#    corpus-stats/ include only headers of their own folder tree, of common/ (the bottom
#    layer: it includes nothing else but the eh_elf ABI header, the contract
#    its eh_elf check and layout share with producer and consumers) and the public headers,
#    client-lib/include/.
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
# 2. the components include their own tree, common/ and client-lib/include/.
awk '
	function top(p) { sub(/\/.*$/, "", p); return p }
	{
		from = top($1); to = top($2)
		if (from !~ /^(common|store|builder|client-lib|tools|server|packaging|corpus-stats)$/) next
		if (to == "abi")
			next
		if (from == "common" && to != "common")
			print $1 ": common/ includes " $2
		else if (to == "store" && from != "common")
			next
		else if (from == "tools" && to == "client-lib")
			next
		else if (to != from && to != "common" && $2 !~ /^client-lib\/include\//)
			print $1 ": includes " $2 " (only its own tree, common/ and client-lib/include/)"
	}' "$tmp/includes" > "$tmp/layers"
if [ -s "$tmp/layers" ]; then
	echo "check-includes: include across components:" >&2
	sed 's/^/  /' "$tmp/layers" >&2
	fail=1
fi
[ $fail = 0 ] || exit 1
echo "check-includes: $(wc -l < "$tmp/includes") includes of $(cut -d' ' -f1 "$tmp/includes" | sort -u | wc -l) files: no cycle in a folder, components layered"
