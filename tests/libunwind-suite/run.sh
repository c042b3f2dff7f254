#!/bin/bash
# run.sh BUILD TREE [MODE...] - libunwind's own test suite (the programs and
# scripts its `make check` runs, built in TREE by prepare.sh) against
# libehelf-unwind (BUILD/lib/libehelf-unwind.so), in four modes:
#   a  Debian's libunwind alone (the reference)
#   b  LD_PRELOAD=libehelf-unwind.so, no eh_elfs
#   c  preloaded, with eh_elfs for every module the tests load (EHELF_PATH)
#   d  relinked: the tests' objects linked with -lehelf-unwind instead of
#      libunwind.la / libunwind-x86_64.la
# A test passes in a mode when it exits 0 (run-ptrace-mapper,
# run-ptrace-misc: as their scripts do) within its time limit; where a test
# prints frames with -v, its output normalised for addresses must also be
# the reference's.  Prints a table (test x mode) and "N passed, N failed";
# exits 1 on any failure of a test that passes in mode a.
# The two coredump scripts are left out (they need a core file of a
# crashed child, outside any of the modes).
set -u
build=$(cd "$1" && pwd)
tree=$(cd "$2" && pwd)
shift 2
modes=${*:-a b c d}
tests_dir=$tree/tests
lib=$build/lib/libehelf-unwind.so
work=$build/tests/libunwind-suite
mkdir -p "$work/out" "$work/relinked" "$work/setjmp" "$work/no-cache"
export LC_ALL=C

# the programs and scripts of `make check` (TESTS), but the coredump scripts
all_tests=$(printf 'print-tests:\n\t@echo $(TESTS)\n' |
	    make -s -C "$tests_dir" -f Makefile -f - print-tests |
	    tr ' ' '\n' | grep -v '^run-coredump-unwind')
# tests whose -v output lists frames (compared across modes)
frames="Gtest-bt Ltest-bt Gtest-trace Ltest-trace test-init-remote test-mem
	test-reg-state Ltest-varargs Gtest-resume-sig Ltest-resume-sig
	Gtest-resume-sig-rt Ltest-resume-sig-rt test-proc-info"
is_frames() { case " $(echo $frames) " in *" $1 "*) return 0 ;; esac; return 1; }

# libunwind-setjmp is not in Debian's libunwind8: the tree's, alone
ln -sf "$tree/src/.libs/libunwind-setjmp.so.0" "$work/setjmp/"

# ---- mode c: eh_elfs of every module a test loads -------------------------
prepare_store() {
	local files=$work/files
	rm -rf "$files" "$work/store"
	mkdir -p "$files"
	for p in "$tests_dir"/.libs/* "$tests_dir"/test-static-link "$tests_dir"/mapper \
		 "$tests_dir"/test-ptrace-misc "$work"/relinked/* "$lib"; do
		[ -f "$p" ] && [ -x "$p" ] || continue
		cp "$p" "$files/$(echo "${p#"$build"/}" | tr / _)"   # relinked too
		LD_LIBRARY_PATH=$work/setjmp ldd "$p" 2>/dev/null |
		awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' |
		while read -r l; do cp -n "$(readlink -f "$l")" "$files/"; done
	done
	"$build/bin/ehelf-compile" --extract-vdso "$files/vdso.so"
	"$build/bin/ehelf-batch" --store "$work/store" --json "$files" >"$work/batch.json" ||
		{ echo "run.sh: ehelf-batch failed" >&2; exit 1; }
}

# ---- mode d: relink each program's objects against libehelf-unwind --------
mkvar() { # the values of make variables in the tests' Makefile
	printf 'print-var:\n\t@echo %s\n' "$*" | make -s -C "$tests_dir" -f Makefile -f - print-var
}
relink() {
	local t=$1 v=${1//-/_} objs ldadd cxx=gcc out=$work/relinked/$1
	read -r -a objs <<<"$(mkvar "\$(${v}_OBJECTS)")"
	[ ${#objs[@]} -gt 0 ] || return 1
	ldadd=$(mkvar "\$(${v}_LDADD) \$(${v}_LDFLAGS)")
	[ -n "$(mkvar "\$(${v}_SOURCES)" | tr ' ' '\n' | grep '\.cxx$')" ] && cxx=g++
	local args=()
	for w in $ldadd; do
		case $w in
		*libunwind.la | *libunwind-x86_64.la | *libunwind-generic.la) ;;
		*libunwind-ptrace.la) args+=(-lunwind-ptrace) ;;
		*libunwind-coredump.la) args+=(-lunwind-coredump) ;;
		*libunwind-setjmp.la) args+=("$work/setjmp/libunwind-setjmp.so.0") ;;
		*libunwind-elf64.la) args+=("$tree/src/.libs/libunwind-elf64.a") ;;
		-static) ;; # libehelf-unwind is a shared library
		*) args+=("$w") ;;
		esac
	done
	[ "$out" -nt "$lib" ] && [ "$out" -nt "$tests_dir/${objs[0]}" ] && return 0
	(cd "$tests_dir" && $cxx -o "$out" "${objs[@]}" -L"$build/lib" -lehelf-unwind \
		"${args[@]}" -Wl,-rpath,"$build/lib" -ldl -lpthread) >"$work/out/$t.link" 2>&1
}

# the command line of test T in mode M (the program, its arguments)
command_of() {
	local t=$1 m=$2 dir=$tests_dir/.libs
	[ "$m" = d ] && dir=$work/relinked
	case $t in
	run-ptrace-mapper) echo "$dir/test-ptrace -c -n -t $tests_dir/mapper" ;;
	run-ptrace-misc) echo "$dir/test-ptrace -c -t $tests_dir/test-ptrace-misc" ;;
	run-check-namespace) echo "$tests_dir/run-check-namespace" ;;
	test-static-link) [ "$m" = d ] && echo "$dir/$t" || echo "$tests_dir/$t" ;;
	*) echo "$dir/$t$(is_frames "$t" && echo " -v")" ;;
	esac
}

normalise() { # addresses and stack pointers out, names and offsets kept
	sed -E 's/\b(0x)?[0-9a-f]{6,16}\b/ADDR/g; s/([^+])0x[0-9a-f]+/\1ADDR/g; s/stack still at .*/stack still at ADDR/'
}

run_one() { # T M -> status word
	# no eh_elf from the cache or a server: EHELF_PATH's only
	local t=$1 m=$2 out=$work/out/$1.$2.log
	local env=(env -u EHELF_URLS EHELF_CACHE_PATH="$work/no-cache"
		   LD_LIBRARY_PATH="$work/setjmp")
	case $m in
	b) env+=(LD_PRELOAD="$lib" EHELF_PATH=/nonexistent) ;;
	c) env+=(LD_PRELOAD="$lib" EHELF_PATH="$work/store") ;;
	d) env+=(EHELF_PATH="$work/store")
	   case $t in run-check-namespace) ;; *)
		local p=${t#run-ptrace-*}; [ "$p" = "$t" ] || p=test-ptrace
		relink "$p" || { echo "nolink"; return; } ;; esac ;;
	esac
	# shellcheck disable=SC2046
	(cd "$tests_dir" && timeout -s KILL 20 "${env[@]}" $(command_of "$t" "$m")) \
		>"$out" 2>&1 </dev/null
	local rc=$?
	[ $rc -eq 137 ] && { echo "timeout"; return; }
	[ $rc -ne 0 ] && { echo "rc=$rc"; return; }
	if is_frames "$t" && [ "$m" != a ]; then
		normalise <"$work/out/$t.a.log" >"$out.ref"
		normalise <"$out" >"$out.norm"
		cmp -s "$out.ref" "$out.norm" || { echo "frames"; return; }
	fi
	echo "ok"
}

# relinked programs first: their eh_elfs go into the store too
case " $modes " in *" d "*)
	for t in $all_tests; do
		case $t in run-check-namespace) ;; run-ptrace-*) relink test-ptrace ;;
		*) relink "$t" ;; esac
	done ;;
esac
case " $modes " in *" c "* | *" d "*) prepare_store ;; esac
passed=0 failed=0
printf '%-30s' test; for m in $modes; do printf ' %-8s' "$m"; done; echo
for t in $all_tests; do
	printf '%-30s' "$t"
	ref=""
	for m in $modes; do
		s=$(run_one "$t" "$m")
		[ "$m" = a ] && ref=$s
		printf ' %-8s' "$s"
		[ "$m" = a ] && continue
		if [ "$s" = ok ]; then passed=$((passed + 1))
		elif [ "$ref" = ok ] || [ -z "$ref" ]; then failed=$((failed + 1))
		fi
	done
	echo
done
echo "$passed passed, $failed failed (modes: $modes; outputs in $work/out)"
[ "$failed" -eq 0 ]
