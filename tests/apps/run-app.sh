#!/usr/bin/env bash
# Runs one packaged MPI application (tests/apps/<app>.sh describes it) in one
# mode, as a user would, and holds the run against the run without mpiscope.
#   run-app.sh <flavor> <app> <mode>
# mode: plain    the application alone (no preload at all): its filtered
#                output and exit code become the reference of the others
#       profile  MPISCOPE_MODE=profile        } each with the call counter
#       trace    MPISCOPE_MODE=profile,trace  } (tests/apps/counter) loaded
#       check    MPISCOPE_MODE=profile,check  } before mpiscope
# Every mode but plain asserts: the same exit code and the same filtered
# output (results and validation lines, no timings) as plain; the profile's
# call counts equal the counter's, per function and per rank (check_app.py
# counts); the application's own cross-check if it has one (app_check).
# trace: the archive is valid and its Enter events equal the counter's
# (check_app.py trace), and otf2-print reads it. check: every finding is
# triaged in tests/apps/findings.txt (docs/apps.md gives the evidence).
# Exit 77 (ctest SKIP_RETURN_CODE) when the application is not installed,
# with the reason on stdout.
# Environment (from tests/apps/tests.cmake): MSC_MPIRUN, MSC_LIB, MSC_COUNTER,
# MSC_APPS_OUT, MSC_COVERAGE, MSC_SOURCE_DIR; MSC_PRELOAD_EXTRA (sanitizer
# runtime) as in tests/run-mpi.sh.
set -uo pipefail
flavor=$1 app=$2 mode=$3
here=$(cd "$(dirname "$0")" && pwd)
base=$MSC_APPS_OUT/$flavor/$app
dir=$base/$mode
app_env=()   # VAR=value pairs the application needs on every rank
# shellcheck source=/dev/null
. "$here/$app.sh"

why=$(app_missing "$flavor")
if [ -n "$why" ]; then
  echo "SKIP: $app on $flavor: $why"
  exit 77
fi

rm -rf "$dir" && mkdir -p "$dir/work" "$dir/out" "$dir/ctr"
cd "$dir/work" || exit 1
app_prepare "$flavor" || { echo "run-app.sh: $app: preparing the input failed" >&2; exit 1; }
app_command "$flavor"   # sets np and cmd=(program args...)

args=(-np "$np")
preload=${MSC_PRELOAD_EXTRA:-}
envs=()
bench=${MSC_BENCH_NO_COUNTER:-0}   # bench/apps/run.sh: time only, no counter, no checks
if [ "$mode" != plain ]; then
  if [ "$bench" = 1 ]; then
    preload="${preload:+$preload:}$MSC_LIB"
  else
    preload="${preload:+$preload:}$MSC_COUNTER:$MSC_LIB"
  fi
  case "$mode" in
    profile) m=profile ;;
    trace) m=profile,trace ;;
    check) m=profile,check ;;
    *) echo "run-app.sh: unknown mode $mode" >&2; exit 2 ;;
  esac
  envs=(MPISCOPE_MODE=$m MPISCOPE_OUTPUT=$dir/out MSC_COUNTER_OUT=$dir/ctr)
fi
[ -n "$preload" ] && envs+=(LD_PRELOAD=$preload)
case "$flavor" in
  openmpi)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
    for e in "${envs[@]}"; do args+=(-x "$e"); done ;;
  mpich)
    for e in "${envs[@]}"; do args+=(-genv "${e%%=*}" "${e#*=}"); done ;;
esac
for e in "${app_env[@]}"; do
  case "$flavor" in openmpi) args+=(-x "$e") ;; mpich) args+=(-genv "${e%%=*}" "${e#*=}") ;; esac
done

start=$(date +%s.%N)
"$MSC_MPIRUN" "${args[@]}" "${cmd[@]}" > "$dir/stdout" 2> "$dir/stderr"
rc=$?
end=$(date +%s.%N)
echo "$rc" > "$dir/rc"
echo "$start $end" | awk '{printf "%.3f\n", $2 - $1}' > "$dir/seconds"
app_output "$flavor" | app_filter > "$dir/filtered"
echo "$app on $flavor, $mode: exit code $rc, $(wc -l < "$dir/filtered") result lines, $(cat "$dir/seconds") s"

if [ "$mode" = plain ]; then
  [ "$rc" = 0 ] || { echo "run-app.sh: $app exits with $rc without mpiscope" >&2; tail -20 "$dir/stderr" >&2; exit 1; }
  [ -s "$dir/filtered" ] || { echo "run-app.sh: $app printed no result line" >&2; exit 1; }
  exit 0
fi

if [ "$bench" = 1 ]; then
  [ "$rc" = "$(cat "$base/plain/rc")" ] || { echo "run-app.sh: exit code $rc" >&2; exit 1; }
  exit 0
fi
ref=$base/plain
[ -f "$ref/rc" ] || { echo "run-app.sh: no reference run in $ref" >&2; exit 1; }
status=0
if [ "$rc" != "$(cat "$ref/rc")" ]; then
  echo "run-app.sh: exit code $rc with mpiscope, $(cat "$ref/rc") without" >&2
  tail -20 "$dir/stderr" >&2
  status=1
fi
if ! diff -u "$ref/filtered" "$dir/filtered" > "$dir/output.diff"; then
  echo "run-app.sh: the application's results differ from the run without mpiscope:" >&2
  head -40 "$dir/output.diff" >&2
  status=1
fi
check=(/usr/bin/python3 "$here/check_app.py")
known=("$here/known-mpiscope-bugs.txt" "$flavor" "$app")
"${check[@]}" counts "$dir/out" "$dir/ctr" "$MSC_COVERAGE" "${known[@]}" || status=1
if declare -F app_check > /dev/null; then
  app_check "$flavor" "$mode" || { echo "run-app.sh: $app's own cross-check failed" >&2; status=1; }
fi
case "$mode" in
  trace)
    "${check[@]}" trace "$dir/out" "$dir/ctr" "$MSC_COVERAGE" "${known[@]}" || status=1
    if ! otf2-print "$dir/out/trace/traces.otf2" > "$dir/otf2-print.txt" 2>&1; then
      echo "run-app.sh: otf2-print cannot read the trace:" >&2
      tail -5 "$dir/otf2-print.txt" >&2
      status=1
    fi
    rm -f "$dir/otf2-print.txt" ;;
  check)
    exact=()   # the application makes only real communicators: leaks equal the unfreed ones
    [ "${app_comms_real:-0}" = 1 ] && exact=(exact)
    "${check[@]}" findings "$dir/out" "$here/findings.txt" "$flavor" "$app" "$dir/ctr" \
      "$MSC_COVERAGE" "${exact[@]}" || status=1 ;;
esac
exit $status
