# Helpers for the tests of the `mpiscope` program, sourced by each script.
# Environment (set by tests/cli/tests.cmake):
#   MSC_CLI        the mpiscope program under test
#   MSC_LIBDIR     <build>/<libdir>/mpiscope, where its tool libraries are
#   MSC_TEST_BIN   <build>/tests, with <flavor>/cli_probe* test programs
#   MSC_OUT        a directory for this test, emptied here
#   MSC_VERSION    the project version
# The tests run mpiscope with the environment of a user: no MPISCOPE_* nor
# LD_PRELOAD unless a test sets them.
set -u
for v in $(env | sed -n 's/^\(MPISCOPE_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset LD_PRELOAD
rm -rf "$MSC_OUT" && mkdir -p "$MSC_OUT" || exit 1
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# Runs "$@", capturing stdout in $out, stderr in $err and the code in $rc.
capture() {
  "$@" > "$MSC_OUT/.stdout" 2> "$MSC_OUT/.stderr"
  rc=$?
  out=$(cat "$MSC_OUT/.stdout")
  err=$(cat "$MSC_OUT/.stderr")
}

# expect_rc <code> <what>: checks $rc after capture.
expect_rc() {
  [ "$rc" = "$1" ] || fail "$2: exit code $rc, expected $1; stdout: $out; stderr: $err"
}

# expect_in <text> <needle> <what>
expect_in() {
  case $1 in
    *"$2"*) ;;
    *) fail "$3: '$2' not found in: $1" ;;
  esac
}

# expect_not_in <text> <needle> <what>
expect_not_in() {
  case $1 in
    *"$2"*) fail "$3: '$2' should not be in: $1" ;;
  esac
}

finish() {
  if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
  fi
  echo "all checks passed"
  exit 0
}
