#!/usr/bin/env bash
# `mpiscope run -o DIR` and what it says at the end (issue 15):
# - a DIR that holds another run's results is refused before launching
#   (exit 2, one line naming what it holds), and those results are untouched;
# - "results in DIR" names what was written; a program that never
#   initializes MPI with the tool (not an MPI program) and a program that
#   cannot be started each get "nothing was written to DIR" and why, and the
#   directory the run made is not left behind empty.
# (These fail with the mpiscope of before issue 15: it printed "results in".)
#   outdir.sh <flavor> <MPI program: dies> <mpirun>
set -uo pipefail
flavor=$1 prog=$2 MSC_MPIRUN=$3
cli=$MSC_CLI
work=$MSC_OUT
rm -rf "$work" && mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
status=0
bad() { echo "outdir: $*" >&2; status=1; }
run() { "$cli" run "$@" > "$work/out" 2> "$work/err"; echo $? > "$work/rc"; }

run --trace -o "$work/a" -- "$MSC_MPIRUN" -np 2 "$prog" exit calls
[ "$(cat "$work/rc")" = 3 ] || bad "first run: exit $(cat "$work/rc"), expected the program's 3"
grep -q "^mpiscope: results in $work/a (.*profile.json" "$work/err" \
  || bad "first run does not say what it wrote: $(tail -1 "$work/err")"
sum=$(cd "$work/a" && find . -type f | sort | xargs md5sum)
run -o "$work/a" -- "$MSC_MPIRUN" -np 2 "$prog" exit calls
cat "$work/err"
[ "$(cat "$work/rc")" = 2 ] || bad "second run into the same directory: exit $(cat "$work/rc"), expected 2"
[ "$(wc -l < "$work/err")" = 1 ] || bad "second run: expected one line"
grep -q "the output directory '$work/a' holds another run's results (.*profile.json" "$work/err" \
  || bad "second run does not name what the directory holds"
[ "$sum" = "$(cd "$work/a" && find . -type f | sort | xargs md5sum)" ] \
  || bad "the first run's results changed"

# (Not /bin/true: MPICH's mpiexec itself exits 141, SIGPIPE, about once in 30
# runs of `mpirun.mpich -np 2 /bin/true`, without the tool; 0 of 40 with a
# program that lives 0.2 s.)
run -o "$work/b" -- "$MSC_MPIRUN" -np 2 /bin/sleep 0.2
cat "$work/err"
[ "$(cat "$work/rc")" = 0 ] || bad "non-MPI program: exit $(cat "$work/rc"), expected 0"
grep -q "results in" "$work/err" && bad "non-MPI program: says 'results in'"
grep -q "^mpiscope: nothing was written to $work/b: no process of the command initialized MPI" \
  "$work/err" || bad "non-MPI program: does not say that nothing was written and why"
[ -e "$work/b" ] && bad "the empty directory $work/b was left behind"

# (A missing program given directly is refused before launching; under the
# launcher, the launcher fails to start it.)
run -o "$work/c" -- "$MSC_MPIRUN" -np 2 "$work/no-such-program"
grep -q "results in" "$work/err" && bad "missing program: says 'results in'"
grep -q "^mpiscope: nothing was written to $work/c: " "$work/err" \
  || bad "missing program: does not say that nothing was written: $(tail -2 "$work/err")"
# A job that dies (rank 1 by SIGTERM, rank 0 then stopped by the launcher)
# under --check: what each rank left (issue 24), never "nothing was written".
# (SIGTERM, not SIGSEGV: under the sanitizer passes UBSan ends a program that
# stores through NULL itself, before the signal.)
run --check -o "$work/d" -- "$MSC_MPIRUN" -np 2 "$prog" term calls
cat "$work/err"
grep -q "nothing was written" "$work/err" && bad "dead job: says 'nothing was written'"
grep -q "^mpiscope: the command ended with exit code $(cat "$work/rc"); what each rank left in $work/d:" \
  "$work/err" || bad "dead job: no account of what the ranks left"
grep -q "^  rank 1: stopped by signal 15 (TERM); 0 findings written; a partial profile" "$work/err" \
  || bad "dead job: rank 1's line is missing"
# (Rank 0 is stopped by the launcher: SIGTERM under Open MPI, which leaves a
# partial profile; Hydra's SIGKILL leaves nothing but its findings file.)
grep -q "^  rank 0: " "$work/err" || bad "dead job: rank 0's line is missing"
grep -q "mpiscope report $work/d\` assembles" "$work/err" || bad "dead job: does not say how to read it"

# A deadlock check mode reports and ends: the finding is on file, and said.
run --check --set MPISCOPE_CHECK_TIMEOUT=2 -o "$work/e" -- "$MSC_MPIRUN" -np 2 "$(dirname "$prog")/check_deadlock"
cat "$work/err"
[ "$(cat "$work/rc")" = 3 ] || bad "deadlock: exit $(cat "$work/rc"), expected 3"
grep -q "^  rank [01]: 1 finding written" "$work/err" || bad "deadlock: the finding's rank is not named"
grep -q "^mpiscope: results in $work/e (.*checks.json" "$work/err" || bad "deadlock: checks.json not named"

[ $status = 0 ] && echo "outdir ($flavor): reuse refused, what was written (or why nothing was) said"
exit $status
