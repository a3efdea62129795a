#!/usr/bin/env bash
# MPISCOPE_CVARS (src/mpit/cvars.c) on one MPI, 2 ranks:
#   cvars.sh <flavor> <cvarread program>
# Good entries are written before the program runs and read back by it
# (cvarread.c, on every rank); each bad entry gives exactly one stderr line
# naming the variable and the reason; the program still runs and ends with 0.
# Then `mpiscope run --cvar` sets the same variable.
set -uo pipefail
flavor=$1 prog=$2
lib=$MSC_LIBDIR/$flavor/libmpiscope.so
work=$MSC_OUT
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
status=0
fail() { echo "FAIL: $*" >&2; status=1; }
preload="${MSC_PRELOAD_EXTRA:+$MSC_PRELOAD_EXTRA:}$lib"
case $flavor in
  openmpi)
    # An int, an enumeration by item name (warn is 20), then the bad ones.
    good="btl_vader_free_list_num=16,backtrace_base_verbose=warn"
    read_back="btl_vader_free_list_num=16 backtrace_base_verbose=20"
    bad="no_such_variable=1,btl_vader_free_list_max=abc,if_base_verbose=loud,mpi_param_check=0,mpiscope_recording=0"
    ;;
  mpich)
    good="MPIR_CVAR_BCAST_SHORT_MSG_SIZE=4096,MPIR_CVAR_IBARRIER_RECEXCH_KVAL=4"
    read_back="MPIR_CVAR_BCAST_SHORT_MSG_SIZE=4096 MPIR_CVAR_IBARRIER_RECEXCH_KVAL=4"
    bad="no_such_variable=1,MPIR_CVAR_BCAST_MIN_PROCS=abc,mpiscope_recording=loud,mpiscope_mode=none,mpiscope_recording=0"
    ;;
esac
run() { # run <MPISCOPE_CVARS> <args...>
  local cv=$1
  shift
  case $flavor in
    openmpi) "$MSC_MPIRUN" -np 2 -x "LD_PRELOAD=$preload" -x MPISCOPE_OUTPUT="$work/out" \
               -x MPISCOPE_CVARS="$cv" "$prog" "$@" ;;
    mpich) "$MSC_MPIRUN" -np 2 -genv LD_PRELOAD "$preload" -genv MPISCOPE_OUTPUT "$work/out" \
             -genv MPISCOPE_CVARS "$cv" "$prog" "$@" ;;
  esac
}
one_line() { # one_line <file> <pattern...>: exactly one line has every pattern
  local f=$1 lines
  shift
  lines=$(cat "$f")
  for p in "$@"; do lines=$(grep -F -- "$p" <<< "$lines"); done
  [ "$(grep -c . <<< "$lines")" = 1 ] || fail "expected one line with: $*"
}

rm -rf out; run "$good,$bad" $read_back > out.txt 2> err.txt || fail "run exit code $?"
cat out.txt err.txt
one_line err.txt no_such_variable "no control variable has this name"
case $flavor in
  openmpi)
    one_line err.txt btl_vader_free_list_max "'abc' is not an int"
    one_line err.txt if_base_verbose "'loud' is not an item of its enumeration (none (-1), error (0)"
    one_line err.txt mpi_param_check "read-only" SET_NEVER ;;
  mpich)
    one_line err.txt MPIR_CVAR_BCAST_MIN_PROCS "'abc' is not an int"
    one_line err.txt "mpiscope_recording: 'loud' is not an int"
    one_line err.txt mpiscope_mode "constant" SET_NEVER ;;
esac
one_line err.txt "mpiscope_recording: " SET_NOT_NOW
n=$(grep -c MPISCOPE_CVARS err.txt)
want=$(tr ',' '\n' <<< "$bad" | grep -c .)
[ "$n" = "$want" ] || fail "$n messages for $want bad entries"

# mpiscope run --cvar, twice (both reach the ranks).
first=${good%%,*} second=${good#*,}
rm -rf out2
MPISCOPE_CVARS= LD_PRELOAD=${MSC_PRELOAD_EXTRA:-} "$MSC_CLI" run --quiet -o "$work/out2" \
  --cvar "$first" --cvar "$second" -- "$MSC_MPIRUN" -np 2 "$prog" $read_back > out3.txt 2> err3.txt \
  || { fail "mpiscope run --cvar"; cat out3.txt err3.txt; }
grep -q MPISCOPE_CVARS err3.txt && { fail "mpiscope run --cvar: messages"; cat err3.txt; }
"$MSC_CLI" run --cvar nonsense -- /bin/true 2> err4.txt; rc=$?
[ "$rc" = 2 ] && grep -q -- "--cvar" err4.txt || fail "--cvar nonsense: exit code $rc: $(cat err4.txt)"
exit $status
