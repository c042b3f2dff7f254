# checks.sh - sourced by the test scripts: one line per check, counted.
#   ok TEXT          print "  ok: TEXT"
#   bad TEXT         print "  FAIL: TEXT" on stderr and count it in $fails
#   check TEXT CMD.. ok when CMD succeeds, else bad
# The script reads $fails at its end and exits non-zero when it is not 0.
fails=0
ok() { echo "  ok: $*"; }
bad() { echo "  FAIL: $*" >&2; fails=$((fails + 1)); }
check() {
	what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
