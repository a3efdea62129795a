#!/bin/sh
# The wait-state analysis under MPI (`mpiscope report --np N`) gives what the
# analysis in one process gives.
#   check_parallel.sh <run dir> <mpiscope> <mpi> <gen_trace>
# - on the run's trace (tests/report/waits.c: every pattern, several
#   communicators): waitstates.json identical but for the "analysis" line,
#   which says 2 processes, and the report text byte-identical;
# - on a synthetic trace of 5 ranks (an uneven split of ranks between the
#   analysis processes): the same, with 2 processes and, on Open MPI, 3;
# - a trace that is not OTF2: exit code 1, a message naming the trace on
#   stderr, no waitstates.json; bad --np and --mpi values: exit code 2.
# MPICH runs at most 2 analysis processes (it busy-polls when they
# outnumber the cores).
set -u
run=$1 cli=$2 mpi=$3 gen=$4
scratch=$(mktemp -d "${TMPDIR:-/tmp}/msc-par.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
fails=0
fail() { echo "check_parallel: FAIL: $*" >&2; fails=$((fails + 1)); }

# compare DIR NP: serial and NP-process analyses of DIR agree.
compare() {
  dir=$1 np=$2
  "$cli" report --reanalyze "$dir" > "$scratch/serial.txt" 2> "$scratch/serial.err" ||
    { fail "$dir: serial report exited $?"; return; }
  cp "$dir/waitstates.json" "$scratch/serial.json"
  "$cli" report --reanalyze --np "$np" --mpi "$mpi" "$dir" > "$scratch/par.txt" 2> "$scratch/par.err" ||
    { fail "$dir: report --np $np exited $?: $(cat "$scratch/par.err")"; return; }
  grep -q "\"analysis\": {\"processes\": $np," "$dir/waitstates.json" ||
    fail "$dir: waitstates.json does not say $np processes: $(grep analysis "$dir/waitstates.json")"
  grep -v '"analysis"' "$scratch/serial.json" > "$scratch/a.json"
  grep -v '"analysis"' "$dir/waitstates.json" > "$scratch/b.json"
  if cmp -s "$scratch/a.json" "$scratch/b.json"; then
    echo "check_parallel: $dir, $np processes: waitstates.json identical ($(wc -c < "$scratch/a.json") bytes)"
  else
    fail "$dir, $np processes: waitstates.json differs"; diff "$scratch/a.json" "$scratch/b.json" | head -20 >&2
  fi
  cmp -s "$scratch/serial.txt" "$scratch/par.txt" || fail "$dir, $np processes: the report text differs"
  grep -q "Late Sender" "$scratch/par.txt" || fail "$dir: no wait-state section in the report"
}

compare "$run" 2

mkdir -p "$scratch/gen"
"$gen" "$scratch/gen/trace" 5 2000 > /dev/null || fail "gen_trace failed"
compare "$scratch/gen" 2
[ "$mpi" = openmpi ] && compare "$scratch/gen" 3
grep -q '"late_sender", "title": "Late Sender", "part_of": null, "time_ns": 4000000,' "$scratch/gen/waitstates.json" ||
  fail "synthetic trace: Late Sender is not 2 receivers x 2000 x 1 us: $(grep '"late_sender"' "$scratch/gen/waitstates.json")"

# Not a trace: one message, exit code 1, nothing saved.
mkdir -p "$scratch/bad/trace"
echo "not an OTF2 anchor" > "$scratch/bad/trace/traces.otf2"
"$cli" report --np 2 --mpi "$mpi" "$scratch/bad" > /dev/null 2> "$scratch/bad.err"
rc=$?
[ $rc = 1 ] || fail "bad trace: exit code $rc, expected 1"
grep -q "mpiscope-analyze: process 0: the OTF2 archive $scratch/bad/trace/traces.otf2 is damaged: its anchor file has no OTF2 header" "$scratch/bad.err" ||
  fail "bad trace: no message naming it: $(cat "$scratch/bad.err")"
[ ! -e "$scratch/bad/waitstates.json" ] || fail "bad trace: waitstates.json written"

for bad in "--np 0" "--np x" "--mpi lam"; do
  # shellcheck disable=SC2086
  "$cli" report $bad "$run" > /dev/null 2>&1
  rc=$?
  [ $rc = 2 ] || fail "report $bad: exit code $rc, expected 2"
done

[ $fails = 0 ] && echo "check_parallel: all checks passed"
exit $((fails != 0))
