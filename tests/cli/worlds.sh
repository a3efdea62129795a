#!/usr/bin/env bash
# `mpiscope run` and `mpiscope report` of a job that spawns worlds
# (tests/comms/spawn.c: the job's world of 2 ranks spawns 2 processes,
# which spawn 1): each world's closing summary, one line with the worlds and
# processes seen, and a report that shows each spawned world under its own
# heading, exit 0; a spawned world that records nothing is named as missing
# and makes the report partial (docs/worlds.md).
#   worlds.sh <spawn program>
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
prog=$1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
capture "$MSC_CLI" run -o "$MSC_OUT/run" -- mpirun.openmpi -np 2 "$prog"
expect_rc 0 "mpiscope run of the spawn tree"
[[ $out == *"spawn tree done"* ]] || fail "the program's output is missing: $out"
[ "$(grep -c '^mpiscope: spawned world [12] of 2, ' <<<"$err")" = 2 ] ||
  fail "no closing summary of each spawned world: $err"
grep -qx "mpiscope: 3 worlds (the job's and 2 spawned), 5 processes" <<<"$err" ||
  fail "no line with the worlds and processes: $err"
capture "$MSC_CLI" report "$MSC_OUT/run"
expect_rc 0 "mpiscope report of the spawn tree"
[ "$(grep -c '^==== spawned world [12] of 2: ' <<<"$out")" = 2 ] ||
  fail "the report does not show both spawned worlds"
[ "$(grep -c '^mpiscope profile of ' <<<"$out")" = 3 ] ||
  fail "the report does not hold 3 profiles"
# A world spawned without mpiscope's recording (spawn.c "lost"): named as
# missing, and the report is partial (exit 3).
capture "$MSC_CLI" run -o "$MSC_OUT/lost" -- mpirun.openmpi -np 2 "$prog" lost
expect_rc 0 "mpiscope run of a job whose spawned world records nothing"
expect_in "$err" "mpiscope: 1 of the 1 worlds MPI_Comm_spawn made left no results" "run counts the missing world"
# The call that made it, as the program wrote it (spawn.c line 51, by the
# root, rank 0, with its command and arguments and the processes asked for).
call="MPI_Comm_spawn(\"$prog mute\", 2 processes) at spawn.c:51 in main by rank 0 of the job's world"
expect_in "$err" "mpiscope:   $call" "run names the spawn call of the missing world"
capture "$MSC_CLI" report "$MSC_OUT/lost"
expect_rc 3 "mpiscope report of a run with a world missing"
expect_in "$out" "PARTIAL RUN: 1 of the 1 worlds MPI_Comm_spawn made left no results" "report counts the missing world"
expect_in "$out" "  missing: the world of $call" "report names the spawn call of the missing world"
capture "$MSC_CLI" report --allow-partial "$MSC_OUT/lost"
expect_rc 0 "mpiscope report --allow-partial of a run with a world missing"
# Two levels: the job's world spawns B (recorded), B spawns C (not): of the
# two spawn calls, B's is named, with B's id; A's is answered by B.
capture "$MSC_CLI" run -o "$MSC_OUT/deep" -- mpirun.openmpi -np 2 "$prog" lost-deep
expect_rc 0 "mpiscope run of a job whose grandchild world records nothing"
expect_in "$err" "mpiscope: 1 of the 2 worlds MPI_Comm_spawn made left no results" "run counts the missing grandchild"
ids=$(ls "$MSC_OUT/deep/worlds")
[ "$(wc -w <<<"$ids")" = 1 ] || fail "expected the results of one spawned world, got: $ids"
call="MPI_Comm_spawn(\"$prog mute-grandchild\", 1 process) at spawn.c:63 in main by rank 0 of spawned world $ids"
expect_in "$err" "mpiscope:   $call" "run names the grandchild's spawn call"
[ "$(grep -c '^mpiscope:   MPI_Comm_spawn' <<<"$err")" = 1 ] || fail "more than one call named: $err"
capture "$MSC_CLI" report "$MSC_OUT/deep"
expect_rc 3 "mpiscope report of a run with the grandchild missing"
expect_in "$out" "  missing: the world of $call" "report names the grandchild's spawn call"
# The spawns as profile.json records them: the job's world's one call.
python3 - "$MSC_OUT/deep/profile.json" "$prog" <<'PY' || fail "profile.json's spawns"
import json, sys
s = json.load(open(sys.argv[1]))["spawns"]
assert len(s) == 1, s
c = s[0]
assert (c["rank"], c["procs"], c["calls"], c["function"]) == (0, 2, 1, "MPI_Comm_spawn"), c
assert c["command"] == sys.argv[2] + " child-lost", c
assert c["frames"][0]["file"].endswith("spawn.c") and c["frames"][0]["line"] == 51, c
PY
finish
