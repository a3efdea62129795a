#!/usr/bin/env bash
# mpiscope --help, --version, help <command>: exit 0 and say what they should.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

for args in "--help" "-h" "help" "help help"; do
  capture "$MSC_CLI" $args
  expect_rc 0 "mpiscope $args"
  expect_in "$out" "usage: mpiscope <command>" "mpiscope $args"
  expect_in "$out" "mpiscope run -- mpirun -np 4 ./app" "mpiscope $args"
done

for args in "help run" "run --help" "run -h" "run --mode trace --help"; do
  capture "$MSC_CLI" $args
  expect_rc 0 "mpiscope $args"
  expect_in "$out" "usage: mpiscope run [options] --" "mpiscope $args"
  for opt in --output --mode --trace --check --mpi --callsite-depth --set --quiet --dry-run; do
    expect_in "$out" "$opt" "mpiscope $args"
  done
  # the settings table, from settings.def
  expect_in "$out" "MPISCOPE_TRACE_BUFFER" "mpiscope $args"
  expect_in "$out" "MPISCOPE_CALLSITE_DEPTH" "mpiscope $args"
done

capture "$MSC_CLI" help report
expect_rc 0 "mpiscope help report"
expect_in "$out" "usage: mpiscope report" "mpiscope help report"

for args in "--version" "-V"; do
  capture "$MSC_CLI" $args
  expect_rc 0 "mpiscope $args"
  first=$(printf '%s\n' "$out" | head -n 1)
  [ "$first" = "mpiscope $MSC_VERSION" ] || fail "mpiscope $args: first line '$first', expected 'mpiscope $MSC_VERSION'"
  for f in $MSC_FLAVORS; do
    expect_in "$out" "$f  " "mpiscope $args"
    expect_in "$out" "$MSC_LIBDIR/$f/libmpiscope.so" "mpiscope $args"
  done
  expect_not_in "$out" "not built" "mpiscope $args"
done
finish
