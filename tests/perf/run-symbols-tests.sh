#!/bin/sh
# run-symbols-tests.sh BUILD - tools/ehelf-perf/perfdata/symbols.h against perf 6.1.
#
# Records real workloads with `perf record --call-graph dwarf`: sqlite3,
# the system python3, g++ compiling C++ (cc1plus), a C++ program of our own,
# unstripped, through libstdc++ and its PLT, and a program whose functions
# overlap labels (perf resolves those by its tree's shape).  Then
# BUILD/tests/perf/symbols_check checks that every frame `perf script`
# prints gets the same symbol and offset from symtab_find(), and that the
# whole symbol table of each DSO seen has the names `perf probe -F` lists.
# Offline; each workload runs about a second.  Exit status 0 when
# everything matches.
set -u
build=${1:?usage: run-symbols-tests.sh BUILD}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
check=$build/tests/perf/symbols_check
export DEBUGINFOD_URLS=

fail() {
	echo "run-symbols-tests: $*" >&2
	exit 1
}

command -v perf >/dev/null || fail "perf is not installed"
san=
case $build in *san*) san=SANITIZE=1 ;; esac
make -C "$root" --no-print-directory -s $san "$build/tests/perf/symbols_check" ||
	fail "cannot build $check"
case $check in /*) ;; *) check=$root/$check ;; esac

work=$(mktemp -d /tmp/ehelf-symbols.XXXXXX) || fail "mktemp"
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || fail "cd $work"
# a build-ID cache of our own: ~/.debug stays untouched, and no copy of an
# earlier build with the same build-ID (ld's build-ID does not cover
# .symtab) stands in for the files recorded here
cache=$work/buildid-cache
mkdir "$cache" || fail "mkdir $cache"
perf_() {
	perf --buildid-dir "$cache" "$@"
}

# ---- workloads ---------------------------------------------------------------
cat > heavy.cc <<'EOF'
// Template-heavy C++: cc1plus works about a second on it.
#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>
template <int N> struct Fib { static constexpr long v = Fib<N - 1>::v + Fib<N - 2>::v; };
template <> struct Fib<1> { static constexpr long v = 1; };
template <> struct Fib<0> { static constexpr long v = 0; };
template <class K, class V> struct Cache {
	std::map<K, std::vector<V>> m;
	std::unordered_map<K, std::shared_ptr<V>> u;
	void add(const K &k, const V &v) { m[k].push_back(v); u[k] = std::make_shared<V>(v); }
	size_t total() const { size_t n = 0; for (auto &e : m) n += e.second.size(); return n; }
};
using Var = std::variant<int, double, std::string, std::vector<int>>;
int main()
{
	Cache<std::string, Var> c;
	Cache<int, std::string> d;
	std::regex r("([a-z]+)\\.([a-z]+)");
	std::ostringstream os;
	for (int i = 0; i < 50; i++) {
		c.add(std::to_string(i), Var(i));
		d.add(i, std::to_string(Fib<40>::v + i));
		std::smatch m;
		std::string s = "ab.cd" + std::to_string(i);
		if (std::regex_search(s, m, r))
			os << m[1] << std::visit([](auto &&) { return 1; }, Var(i));
	}
	std::set<std::function<int(int)> *> fs;
	std::cout << c.total() + d.total() + os.str().size() + fs.size() << "\n";
}
EOF
cat > work.cc <<'EOF'
// Spends about a second in libstdc++ (streams, strings, locale) and libc,
// through the PLT of an unstripped executable.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
static std::string make(int i)
{
	std::ostringstream os;
	os << "key" << i * 7919 % 1000 << ':' << i / 3.0;
	return os.str();
}
int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 60, sum = 0;
	for (long r = 0; r < rounds; r++) {
		std::map<std::string, int> m;
		std::vector<std::string> v;
		for (int i = 0; i < 4000; i++) {
			std::string s = make(i);
			m[s] += i;
			v.push_back(s);
		}
		std::sort(v.begin(), v.end());
		std::istringstream in(v[r % v.size()] + " 42 3.5");
		std::string w;
		int k;
		double x;
		in >> w >> k >> x;
		sum += (long)m.size() + k + (long)x + (long)w.size();
	}
	std::cout << sum << "\n";
	return 0;
}
EOF
g++ -O2 -o work work.cc || fail "cannot compile the C++ workload"

# 300 functions, each with a label inside that overlaps its tail, of
# varying binding and name length: which of the two perf reports depends
# on the shape of its red-black tree.
awk 'BEGIN {
	x = 7
	print "\t.text"
	for (i = 0; i < 300; i++) {
		x = (x * 1103515245 + 12345) % 2147483648
		print "\t.p2align 4"
		if (x % 3 == 0) print "\t.globl fn_" i
		if (x % 3 == 1) print "\t.weak fn_" i
		print "\t.type fn_" i ", @function"
		print "fn_" i ":\n\tnop"
		lab = "lab_" i "_" substr("xxxxx", 1, int(x / 7) % 6)
		if (int(x / 5) % 10 < 7) print "\t.globl " lab
		print lab ":\n\tmov $1000000, %ecx\n1:\tdec %ecx\n\tjnz 1b\n\tret"
		print "\t.size fn_" i ", .-fn_" i
		if (int(x / 11) % 2) print "\tnop\n\tnop"
	}
	print "\t.globl run_all\n\t.type run_all, @function"
	print "run_all:\n\tpush %rbx\n\tmov $8, %ebx\n2:"
	for (i = 0; i < 300; i++)
		print "\tcall fn_" i
	print "\tdec %ebx\n\tjnz 2b\n\tpop %rbx\n\tret"
	print "\t.size run_all, .-run_all"
	print "\t.section .note.GNU-stack,\"\",@progbits"
}' > overlap.S
printf 'void run_all(void);\nint main(void) { run_all(); return 0; }\n' > overlap.c
gcc -O0 -o overlap overlap.c overlap.S || fail "cannot build the overlap workload"

# Names of every kind perf demangles or not (C++ special names, operators,
# conversions, lambdas (clang's "$_0" too, as in libLLVM), clones, return
# types; legacy Rust; OCaml), and
# labels of each visibility, in a library checked against perf probe -F.
cat > names.txt <<'EOF'
_ZN4core3fmt5write17h0123456789abcdefE
_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h1a2b3c4d5e6f7a8bE
_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h9f8e7d6c5b4a3928E
_ZN5alloc3vec12Vec$LT$T$GT$4push17hfedcba9876543210E.llvm.123456
_ZN3foo3bar17h0000000011111111E
camlStdlib__List__map_123
camlFoo$2a$2abar
camlfoo__notocaml
_ZN3FooC2Ev.cold
_Z3foov.isra.0
_ZN3Foo3barEv.constprop.0.isra.0
_ZNK3Foo3bazEv
_ZNKR3Foo3quxEv
_ZNO3Foo4quuxEv
_ZN3FooaSEOS_
_ZN3FooixEm
_ZN3FoodlEPv
_ZN3FoonaEm
_ZN3FooptEv
_ZN3FooleERKS_
_ZN3FoossERKS_
_ZN3FoocvPFvvEEv
_ZN3FoocvSt6vectorIiSaIiEEEv
_ZN3FooD0Ev
_ZN3BarIiEC2IcEET_
_ZN12_GLOBAL__N_13BazclEi
_ZZN3Foo3barEvE1x
_ZZ4mainENKUlvE_clEv
_ZZ4mainENKUlT_E_clIiEEDaS_
_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc
_Z1fIiEPFivEv
_Z1gIiEPA3_iv
_ZTI3Foo
_ZGVZ4mainE1x
_ZTv0_n24_N3Foo3barEv
_ZThn8_NK3Foo3bazEv
_ZTH1x
_GLOBAL__sub_I_main.cc
_Z5transIiEDTplfp_fp0_ET_S0_
_ZNSt8functionIFvvEEC2IZ4mainEUlvE_vvEEOT_
_ZGRN4grpc6Status2OKE_
_Zfoo
_ZZN12_GLOBAL__N_14SROA28propagateStoredValuesToLoadsERN4llvm10AllocaInstERNS_12AllocaSlicesEENK3$_0clEv
_ZN4llvm12function_refIFbRKNS_5APIntEEE11callback_fnIZL11simplifyRemNS_11Instruction9BinaryOpsEPNS_5ValueESA_RKNS_13SimplifyQueryEjE3$_1EEblS3_
_Z3foov$x
EOF
{
	echo '	.text'
	while read -r n; do
		printf '\t.globl "%s"\n\t.type "%s", @function\n' "$n" "$n"
		printf '"%s":\n\tret\n\t.size "%s", 1\n' "$n" "$n"
	done < names.txt
	for v in hidden internal protected; do
		printf '\t.%s lab_%s\nlab_%s:\n\tret\n' $v $v $v
	done
	printf 'lab_local:\n\tret\n\t.data\ndata_label:\n\t.quad 1\n'
	printf '\t.section .note.GNU-stack,"",@progbits\n'
} > names.S
gcc -shared -fPIC -o libnames.so names.S || fail "cannot build the names library"

record() {	# NAME COMMAND...
	name=$1
	shift
	perf_ record -q -e cpu-clock --call-graph dwarf -o "$name.data" -- "$@" \
		> "$name.out" 2>&1 || fail "perf record $name failed: $(tail -3 "$name.out")"
	perf_ script -i "$name.data" -F ip,sym,symoff,dso --no-inline \
		--show-mmap-events > "$name.script" 2> "$name.err" ||
		fail "perf script $name failed"
	perf_ buildid-list -i "$name.data" > "$name.ids" 2>/dev/null ||
		fail "perf buildid-list $name failed"
}

record sqlite sqlite3 :memory: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL
	SELECT x + 1 FROM c WHERE x < 1500000) SELECT count(*), sum(x * x % 7),
	max(length(printf('%d-%x', x, x))) FROM c;"
record python /usr/bin/python3 -c '
import json, re, collections
d = collections.Counter()
for i in range(120000):
    s = json.dumps({"k": i, "v": [i, str(i) * 3]})
    d[re.sub(r"[0-9]", "d", s)[:12]] += len(json.loads(s)["v"][1])
print(len(d))'
record gxx g++ -O2 -c heavy.cc -o heavy.o
record cxx ./work 60
record overlap ./overlap

# ---- every frame -------------------------------------------------------------
status=0
for name in sqlite python gxx cxx overlap; do
	echo "== $name"
	"$check" frames "$name.script" "$name.ids" "$cache" || status=1
done

# ---- every symbol's name, aliases kept, against perf probe -F ---------------
dsos=$(cat ./*.ids | awk '$2 ~ /^\// { print $2 }' | sort -u)
for dso in $dsos /usr/lib/x86_64-linux-gnu/libc.so.6 \
	   /usr/lib/gcc/x86_64-linux-gnu/12/cc1plus "$work/libnames.so"; do
	[ -f "$dso" ] ||
		{ echo "$dso: not found (recorded, or named here)" >&2; status=1; continue; }
	perf_ probe -F --filter '*' -x "$dso" > probe.txt 2>/dev/null ||
		{ echo "perf probe -F $dso failed" >&2; status=1; continue; }
	"$check" names "$dso" probe.txt || status=1
done

if [ $status -eq 0 ]; then
	echo "symbols tests: every frame and every name matches perf"
else
	echo "symbols tests: FAILED" >&2
fi
exit $status
