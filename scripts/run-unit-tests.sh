#!/bin/sh
# Run every unit test binary in BUILD/tests (test_*), each even after one
# has failed, name each one that fails, and print the counts.  Exit status:
# 0 when all passed, 1 when any failed or none was found.
# Usage: scripts/run-unit-tests.sh BUILD
set -u
build=${1:?usage: run-unit-tests.sh BUILD}
pass=0
fail=0
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	if EHELF_BUILD="$build" "$t"; then
		pass=$((pass + 1))
	else
		echo "FAIL: $t" >&2
		fail=$((fail + 1))
	fi
done
echo "unit tests ($build): $pass passed, $fail failed"
if [ $((pass + fail)) -eq 0 ]; then
	echo "no unit test in $build/tests (test_*): none ran" >&2
	exit 1
fi
[ "$fail" -eq 0 ]
