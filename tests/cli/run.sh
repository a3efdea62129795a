#!/usr/bin/env bash
# Real runs through `mpiscope run` with 2 ranks (or a singleton), checked
# through the lines tests/cli/probe.c prints in each rank.
#   run.sh <flavor> <case>
# Cases:
#   ranks       the library is loaded in both ranks, counted their 3
#               MPI_Barrier calls, got the settings; no ancestor (the
#               launcher, its daemons, mpiscope) has the library or the
#               variables; the output directory existed before MPI_Init and
#               is named in one closing line
#   exit-code   a program exiting 3 makes mpiscope exit 3
#   default-dir without -o: mpiscope-<program>-<YYYYmmdd-HHMMSS>-<pid> here
#   quiet       --quiet: no closing line; MPISCOPE_QUIET=0: the library's too
#   none        --mode none: library loaded, no directory, no closing line
#   preload     the user's LD_PRELOAD (environment or launcher option) reaches
#               the ranks, before ours
#   singleton   no launcher: one rank, the program's parent is mpiscope
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
flavor=$1 what=$2
prog="$MSC_TEST_BIN/$flavor/cli_probe"
lib="$MSC_LIBDIR/$flavor/libmpiscope.so"
case $flavor in
  openmpi) launch=(mpirun.openmpi -np 2) ;;
  mpich) launch=(mpirun.mpich -n 2) ;;
esac
# Visible in the environment of every process started from here; probe.c
# reports whether a rank's parent has it.
export MSC_PROBE_MARKER=1
res="$MSC_OUT/results"

# check_ranks <n> <expected fields...>: $out must have n probe lines, ranks
# 0..n-1, each with every field.
check_ranks() {
  local n=$1
  shift
  local lines
  lines=$(printf '%s\n' "$out" | grep '^probe ')
  [ "$(printf '%s\n' "$lines" | grep -c '^probe ')" = "$n" ] || fail "$what: expected $n probe lines: $out; stderr: $err"
  for r in $(seq 0 $((n - 1))); do
    local line
    line=$(printf '%s\n' "$lines" | grep "^probe rank=$r ")
    [ -n "$line" ] || { fail "$what: no line from rank $r: $out"; continue; }
    for field in "size=$n" "$@"; do
      expect_in "$line " " $field " "$what, rank $r"
    done
  done
}

case $what in
  ranks)
    rm -rf "$res"; capture "$MSC_CLI" run -o "$res" --callsite-depth 2 -- "${launch[@]}" "$prog"
    expect_rc 0 "$what"
    check_ranks 2 tool=yes barriers=3 "output=$res" outdir_before_init=yes depth=2 \
      "preload=$lib" mpiscope=yes ancestors=clean parent_env=inherited
    [ -d "$res" ] || fail "$what: $res was not created"
    [ "$(printf '%s\n' "$err" | grep -c 'results in')" = 1 ] || fail "$what: expected one closing line: $err"
    expect_in "$err" "mpiscope: results in $res" "$what"
    ;;
  exit-code)
    rm -rf "$res"; capture "$MSC_CLI" run -o "$res" -- "${launch[@]}" "$prog" 3
    expect_rc 3 "$what"
    check_ranks 2 tool=yes barriers=3
    expect_in "$err" "mpiscope: results in $res" "$what"
    ;;
  default-dir)
    mkdir -p "$MSC_OUT/cwd" && cd "$MSC_OUT/cwd" || exit 1
    capture "$MSC_CLI" run -- "${launch[@]}" "$prog"
    expect_rc 0 "$what"
    made=$(ls)
    [ "$(printf '%s\n' "$made" | wc -l)" = 1 ] || fail "$what: expected one new directory: $made"
    [[ $made =~ ^mpiscope-cli_probe-[0-9]{8}-[0-9]{6}-[0-9]+$ ]] || fail "$what: bad name '$made'"
    [ -d "$made" ] || fail "$what: $made is not a directory"
    [ "$(stat -c %a "$made")" = "$(printf '%o' $((0777 & ~0$(umask) & 0755)))" ] || fail "$what: mode $(stat -c %a "$made")"
    check_ranks 2 tool=yes "output=$MSC_OUT/cwd/$made" outdir_before_init=yes
    expect_in "$err" "mpiscope: results in $made" "$what"
    ;;
  quiet)
    rm -rf "$res"  # (a directory holding a run's results is refused)
    capture "$MSC_CLI" run --quiet -o "$res" -- "${launch[@]}" "$prog"
    expect_rc 0 "$what --quiet"
    check_ranks 2 tool=yes "output=$res"
    expect_not_in "$err" "results in" "$what --quiet"
    # the user's own MPISCOPE_QUIET=0 reaches the library, which then speaks too
    rm -rf "$res"  # (a directory holding a run's results is refused)
    capture env MPISCOPE_QUIET=0 "$MSC_CLI" run -o "$res" -- "${launch[@]}" "$prog"
    expect_rc 0 "$what MPISCOPE_QUIET=0"
    expect_in "$err" "mpiscope[0]: results in $res" "$what MPISCOPE_QUIET=0"
    expect_in "$err" "mpiscope: results in $res" "$what MPISCOPE_QUIET=0"
    ;;
  none)
    rm -rf "$res"  # (a directory holding a run's results is refused)
    capture "$MSC_CLI" run --mode none -o "$res" -- "${launch[@]}" "$prog"
    expect_rc 0 "$what"
    check_ranks 2 tool=yes ancestors=clean
    [ ! -e "$res" ] || fail "$what: $res was created"
    expect_not_in "$err" "results in" "$what"
    ;;
  preload)
    rm -rf "$res"  # (a directory holding a run's results is refused)
    capture env LD_PRELOAD=libm.so.6 "$MSC_CLI" run -o "$res" -- "${launch[@]}" "$prog"
    expect_rc 0 "$what"
    check_ranks 2 tool=yes barriers=3 "preload=libm.so.6:$lib" ancestors=clean
    # given to the launcher itself, where it would have replaced ours
    case $flavor in
      openmpi) own=(-x LD_PRELOAD=libm.so.6) ;;
      mpich) own=(-genv LD_PRELOAD libm.so.6) ;;
    esac
    rm -rf "$res"; capture "$MSC_CLI" run -o "$res" -- "${launch[0]}" "${own[@]}" "${launch[@]:1}" "$prog"
    expect_rc 0 "$what, launcher option"
    check_ranks 2 tool=yes barriers=3 "preload=libm.so.6:$lib" ancestors=clean
    ;;
  singleton)
    rm -rf "$res"; capture "$MSC_CLI" run -o "$res" -- "$prog"
    expect_rc 0 "$what"
    check_ranks 1 tool=yes barriers=3 "output=$res" outdir_before_init=yes "preload=$lib" \
      parent=mpiscope mpiscope=yes ancestors=clean
    expect_in "$err" "mpiscope: results in $res" "$what"
    rm -rf "$res"; capture "$MSC_CLI" run -o "$res" -- "$prog" 5
    expect_rc 5 "$what, exit code"
    ;;
  *) fail "unknown case $what" ;;
esac
finish
