#!/usr/bin/env bash
# Compares the command lines `mpiscope run --dry-run` prints with the ones
# written in dry-run.txt (one case per paragraph):
#   # comment
#   $ <command, run by bash from a fresh directory>
#   <the exact stdout expected, one or more lines>
#   2>~ <text stderr must contain>      (without such lines stderr must be empty)
# Placeholders: @LIB@ the tool libraries' folder, @OMPI@ and @MPICH@ the
# cli_probe test program of each MPI, @TESTBIN@ their folder's parent,
# @FAKE@ tests/cli/fake-bin (also at the end of PATH), @CWD@ the directory.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
cases=${1:-$here/dry-run.txt}
cd "$MSC_OUT" || exit 1
bindir=$(dirname "$MSC_CLI")
export PATH="$bindir:$PATH:$here/fake-bin"

subst() {
  local s=$1
  s=${s//@LIB@/$MSC_LIBDIR}
  s=${s//@OMPI@/$MSC_TEST_BIN/openmpi/cli_probe}
  s=${s//@MPICH@/$MSC_TEST_BIN/mpich/cli_probe}
  s=${s//@TESTBIN@/$MSC_TEST_BIN}
  s=${s//@FAKE@/$here/fake-bin}
  s=${s//@CWD@/$MSC_OUT}
  printf '%s' "$s"
}

ncases=0
run_case() {
  ncases=$((ncases + 1))
  local c e
  c=$(subst "$cmd")
  e=$(subst "$expected")
  local actual rc stderr
  actual=$(eval "$c" 2> "$MSC_OUT/.stderr")
  rc=$?
  stderr=$(cat "$MSC_OUT/.stderr")
  if [ "$rc" != 0 ]; then
    fail "$c: exit code $rc; stderr: $stderr"
    return
  fi
  if [ "$actual" != "${e%$'\n'}" ]; then
    fail "$c"$'\n'"  expected: ${e%$'\n'}"$'\n'"  actual:   $actual"
  fi
  if [ -z "$stderr_needles" ]; then
    [ -z "$stderr" ] || fail "$c: unexpected stderr: $stderr"
  else
    while IFS= read -r needle; do
      [ -n "$needle" ] || continue
      needle=$(subst "$needle")
      expect_in "$stderr" "$needle" "$c (stderr)"
    done <<< "$stderr_needles"
  fi
}

cmd=
expected=
stderr_needles=
while IFS= read -r line || [ -n "$line" ]; do
  case $line in
    '#'*) continue ;;
    '$ '*)
      [ -n "$cmd" ] && run_case
      cmd=${line#\$ } expected= stderr_needles= ;;
    '2>~ '*) stderr_needles+="${line#2>~ }"$'\n' ;;
    '')
      [ -n "$cmd" ] && run_case
      cmd= ;;
    *) expected+="$line"$'\n' ;;
  esac
done < "$cases"
[ -n "$cmd" ] && run_case
echo "$ncases cases"
[ "$ncases" -gt 0 ] || fail "no cases in $cases"
finish
