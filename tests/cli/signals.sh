#!/usr/bin/env bash
# SIGTERM and SIGINT sent to mpiscope reach the launcher, and mpiscope exits
# with the launcher's code (128+N if it died of signal N). The launcher is
# tests/cli/fake-bin/mpirun, which also records the environment it was given:
# LD_PRELOAD and MPISCOPE_* must be on its command line, not in there.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
set -m # background jobs keep SIGINT (a non-interactive shell would ignore it)
flavor=${MSC_FLAVORS%% *}
prog="$MSC_TEST_BIN/$flavor/cli_probe"
lib="$MSC_LIBDIR/$flavor/libmpiscope.so"
fake="$here/fake-bin/mpirun"
export MSC_FAKE_LOG="$MSC_OUT/launcher.log"

for sig in TERM INT; do
  rm -f "$MSC_FAKE_LOG"
  "$MSC_CLI" run -o "$MSC_OUT/results" -- "$fake" -np 2 "$prog" > "$MSC_OUT/stdout" 2> "$MSC_OUT/stderr" &
  pid=$!
  for _ in $(seq 100); do
    grep -q "launcher: ready" "$MSC_FAKE_LOG" 2>/dev/null && break
    sleep 0.1
  done
  grep -q "launcher: ready" "$MSC_FAKE_LOG" 2>/dev/null || fail "SIG$sig: the fake launcher did not start"
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
  expected=42
  [ "$sig" = INT ] && expected=43
  [ "$rc" = "$expected" ] || fail "SIG$sig: mpiscope exited $rc, expected the launcher's $expected; stderr: $(cat "$MSC_OUT/stderr")"
  grep -q "launcher: got SIG$sig" "$MSC_FAKE_LOG" || fail "SIG$sig: the launcher did not get it"
done

log=$(cat "$MSC_FAKE_LOG")
expect_in "$log" "args: -x LD_PRELOAD=$lib -x MPISCOPE_OUTPUT=$MSC_OUT/results -x MPISCOPE_QUIET=1 -np 2 $prog" "launcher arguments"
expect_not_in "$log" "env: LD_PRELOAD=" "launcher environment"
expect_not_in "$log" "env: MPISCOPE_" "launcher environment"

export MSC_FAKE_MODE=kill
capture "$MSC_CLI" run -o "$MSC_OUT/results" -- "$fake" -np 2 "$prog"
expect_rc 137 "launcher killed by SIGKILL"
export MSC_FAKE_MODE="exit 7"
capture "$MSC_CLI" run -o "$MSC_OUT/results" -- "$fake" -np 2 "$prog"
expect_rc 7 "launcher exiting 7"
finish
