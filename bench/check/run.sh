#!/usr/bin/env bash
# Check-mode cost (issue 14's targets), both MPIs, 2 ranks:
#   run.sh <build-dir> [openmpi|mpich ...]
# Each pattern of bench_check.c runs without the tool, in profile mode and in
# check mode (default settings, with the allocator interposer preloaded as
# mpiscope run --check does), in the same invocation, one after the other:
#   pingpong   ns per 8-byte message; added by profile and by check
#   allreduce  ns per 2-rank MPI_Allreduce; added by profile and by check
#   window     seconds of 15625 windows of 64 receives (1,000,000 receives):
#              check mode with the receives in one buffer (a PENDING_OVERLAP
#              finding, repeated 984,375 times) against 64 buffers (none)
#   imb, halo  seconds; check mode against profile mode, REPS (5) times with
#              none, profile and check interleaved: per repetition the ratio
#              check/profile, printed each and as median (min, max). IMB_SCALE
#              (2: twice IMB's repetitions, ~0.5 s) and HALO_ITERS (20000
#              iterations, ~0.5 s) set the length of one run.
# Targets: check adds <= 1000 ns per message; the window with the finding is
# <= 1.10x the window without; imb and halo in check mode <= 1.5x profile.
# PATTERNS="imb halo" runs only those.
# Wall-clock numbers on a shared machine are noisy: rerun on an idle one.
set -euo pipefail
PATTERNS=${PATTERNS:-pingpong allreduce window imb halo}
REPS=${REPS:-5} IMB_SCALE=${IMB_SCALE:-2} HALO_ITERS=${HALO_ITERS:-20000}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
b=$(cd "${1:?build dir}" && pwd); shift
mpis=${*:-openmpi mpich}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # <mpi> <mode: none|profile|check> <args...>
  local mpi=$1 mode=$2; shift 2
  local lib=$b/lib/mpiscope/$mpi/libmpiscope.so prog=$b/bench/check/$mpi/bench_check x=()
  # Check mode as mpiscope run makes it: the allocator interposer first.
  [ "$mode" = check ] && lib=$b/lib/mpiscope/libmpiscope-heap.so:$lib
  local o="$out/$mpi-$mode-$RANDOM"
  if [ "$mpi" = openmpi ]; then
    [ "$mode" != none ] && x=(-x LD_PRELOAD="$lib" -x MPISCOPE_MODE="$mode" -x MPISCOPE_OUTPUT="$o"
                              -x MPISCOPE_QUIET=1)
    mpirun.openmpi -np 2 "${x[@]}" "$prog" "$@" 2>/dev/null
  else
    [ "$mode" != none ] && x=(-genv LD_PRELOAD "$lib" -genv MPISCOPE_MODE "$mode"
                              -genv MPISCOPE_OUTPUT "$o" -genv MPISCOPE_QUIET 1)
    mpirun.mpich -np 2 "${x[@]}" "$prog" "$@" 2>/dev/null
  fi | awk '{print $2}'
}
for mpi in $mpis; do
  echo "# $mpi, 2 ranks on $(nproc) cores"
  printf "%-10s %12s %12s %12s %12s %12s\n" test none profile check prof-added check-added
  for t in pingpong allreduce; do
    [[ " $PATTERNS " == *" $t "* ]] || continue
    n=$(run "$mpi" none $t) p=$(run "$mpi" profile $t) c=$(run "$mpi" check $t)
    printf "%-10s %12.1f %12.1f %12.1f %12.1f %12.1f  ns\n" $t "$n" "$p" "$c" \
      "$(echo "$p - $n" | bc -l)" "$(echo "$c - $n" | bc -l)"
  done
  if [[ " $PATTERNS " == *" window "* ]]; then
  w0=$(run "$mpi" check window 15625 0) w1=$(run "$mpi" check window 15625 1)
  wp=$(run "$mpi" profile window 15625 1) wn=$(run "$mpi" none window 15625 1)
  printf "%-10s none %.3f s, profile %.3f s; check: 64 buffers %.3f s, one buffer %.3f s: %.2fx\n" \
    window "$wn" "$wp" "$w0" "$w1" "$(echo "$w1 / $w0" | bc -l)"
  fi
  # imb and halo: REPS repetitions, none/profile/check interleaved in a
  # rotating order (drift on a shared machine hits every mode alike); per
  # repetition the ratio check/profile; the median and the spread.
  for t in imb halo; do
    [[ " $PATTERNS " == *" $t "* ]] || continue
    [ $t = imb ] && a=$IMB_SCALE || a=$HALO_ITERS
    ns=() ps=() cs=() rs=()
    for ((k = 0; k < REPS; k++)); do
      case $((k % 3)) in
        0) order="none profile check" ;; 1) order="profile check none" ;; *) order="check none profile" ;;
      esac
      for m in $order; do
        v=$(run "$mpi" $m $t "$a")
        case $m in none) ns+=("$v") ;; profile) ps+=("$v") ;; check) cs+=("$v") ;; esac
      done
      rs+=("$(echo "${cs[k]} / ${ps[k]}" | bc -l)")
    done
    printf "%-10s median of %d: none %.3f s, profile %.3f s, check %.3f s; check/profile %.2fx (min %.2fx, max %.2fx)\n" \
      $t "$REPS" "$(median "${ns[@]}")" "$(median "${ps[@]}")" "$(median "${cs[@]}")" \
      "$(median "${rs[@]}")" "$(printf '%s\n' "${rs[@]}" | sort -g | head -1)" \
      "$(printf '%s\n' "${rs[@]}" | sort -g | tail -1)"
    printf "%-10s each: %s\n" "" "$(printf '%.2fx ' "${rs[@]}")"
  done
  echo
done
