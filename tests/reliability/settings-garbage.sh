#!/usr/bin/env bash
# Settings given garbage (issue 10): one clear message naming the setting,
# no crash, no silent fallback.
#   settings-garbage.sh lib <flavor> <program> <settings_table>
#     every setting of settings.def (listed by <settings_table>; on Open MPI
#     one garbage value per setting, in turn), and an unknown MPISCOPE_*
#     name, set in the environment of a 1-rank run (an MPI singleton) with
#     the tool preloaded: the program's exit code (3) unchanged, and exactly
#     one line on stderr naming the variable.
#   settings-garbage.sh cli <settings_table>
#     the same values given to `mpiscope run` through --set and through the
#     environment, and garbage for every option of `mpiscope run`: exit code
#     2, nothing started, and exactly one line on stderr naming the option
#     and the setting.
# Garbage: empty, negative, huge, non-numeric; an over-long text for free
# text settings (the only garbage they have).
set -uo pipefail
what=$1
shift
work=$MSC_OUT
rm -rf "$work" && mkdir -p "$work"
status=0
fail() { echo "FAIL: $*" >&2; status=1; }
long=$(printf 'x%.0s' $(seq 1 1100))

values_for() { # values_for <type>: the garbage values, one per line
  case $1 in
    string) printf '%s\n' "$long" ;;
    *) printf '%s\n' "" "-1" "99999999999999999999999" "abc" "1x" ;;
  esac
}

one_line() { # one_line <case> <stderr file> <pattern...>: exactly one line has every pattern
  local name=$1 err=$2
  shift 2
  local lines
  lines=$(cat "$err")
  for p in "$@"; do lines=$(grep -F -- "$p" <<< "$lines"); done
  local n
  n=$(grep -c . <<< "$lines")
  if [ "$n" != 1 ]; then
    fail "$name: expected one line on stderr with: $*; got $n. stderr:"
    head -c 2000 "$err" >&2
  fi
}

shown() { [ ${#1} -gt 20 ] && echo "${1:0:12}...(${#1} chars)" || echo "'$1'"; }

case $what in
lib)
  flavor=$1 prog=$2 table=$3
  run_one() { # run_one <case> <NAME> <value>
    # A singleton (the program started alone is one rank): as a job of one
    # rank under mpirun, but ten times faster with Open MPI.
    local err=$work/run.stderr
    env MPISCOPE_OUTPUT="$work/out" "$2=$3" OMPI_ALLOW_RUN_AS_ROOT=1 \
      OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LD_PRELOAD="${MSC_PRELOAD_EXTRA:+$MSC_PRELOAD_EXTRA:}$MSC_LIB" \
      "$prog" exit < /dev/null > /dev/null 2> "$err"
    local rc=$?
    [ "$rc" = 3 ] || { fail "$1: exit code $rc, expected the program's 3"; cat "$err" >&2; }
    one_line "$1" "$err" "$2"
  }
  # Open MPI's singleton start costs about 0.17 s, MPICH's 0.03 s: MPICH
  # runs every garbage value of every setting; Open MPI one value per
  # setting, the next kind of garbage for the next setting, so that every
  # kind meets the parser through Open MPI's start-up as well (the parser
  # is one code for both MPIs; what differs is how its message gets out).
  n=0 k=0
  while read -r name type; do
    i=0
    while IFS= read -r v; do
      i=$((i + 1))
      if [ "$flavor" = openmpi ] && [ "$type" != string ]; then
        [ $(( (i + k) % 5 )) = 0 ] || continue
      fi
      run_one "$name=$(shown "$v")" "$name" "$v"
      n=$((n + 1))
    done < <(values_for "$type")
    k=$((k + 1))
  done < <("$table")
  run_one "unknown name" MPISCOPE_NO_SUCH_SETTING 1
  echo "lib ($flavor): $((n + 1)) runs"
  ;;
cli)
  table=$1
  prog=/bin/true
  cli_one() { # cli_one <case> <patterns separated by ;> <env or -> <mpiscope run arguments...>
    local name=$1 pats=$2 envset=$3
    shift 3
    local err=$work/cli.stderr out=$work/cli.stdout
    if [ "$envset" = - ]; then
      "$MSC_CLI" run "$@" < /dev/null > "$out" 2> "$err"
    else
      env "$envset" "$MSC_CLI" run "$@" < /dev/null > "$out" 2> "$err"
    fi
    local rc=$?
    [ "$rc" = 2 ] || fail "$name: exit code $rc, expected 2"
    [ ! -s "$out" ] || fail "$name: something on stdout (was a command printed or run?)"
    IFS=';' read -r -a p <<< "$pats"
    one_line "$name" "$err" "${p[@]}"
  }
  n=0
  while read -r name type; do
    short=${name#MPISCOPE_}
    while IFS= read -r v; do
      cli_one "--set $short=$(shown "$v")" "--set;$name" - --set "$short=$v" -- "$prog"
      cli_one "env $name=$(shown "$v")" "$name" "$name=$v" -- "$prog"
      n=$((n + 2))
    done < <(values_for "$type")
  done < <("$table")
  cli_one "--set unknown" "--set;NO_SUCH" - --set NO_SUCH=1 -- "$prog"
  cli_one "--set empty" "--set" - --set "" -- "$prog"
  cli_one "--set without =" "--set;abc" - --set abc -- "$prog"
  cli_one "env unknown" "MPISCOPE_NO_SUCH" "MPISCOPE_NO_SUCH=1" -- "$prog"
  # The options with a value: every kind of garbage (-o/--output takes any
  # directory name but the empty one and an over-long one).
  for v in "" "-1" "99999999999999999999999" "abc"; do
    cli_one "--mode $(shown "$v")" "--mode;MPISCOPE_MODE" - --mode "$v" -- "$prog"
    cli_one "--mode=$(shown "$v")" "--mode;MPISCOPE_MODE" - "--mode=$v" -- "$prog"
    cli_one "--callsite-depth $(shown "$v")" "--callsite-depth;MPISCOPE_CALLSITE_DEPTH" - \
      --callsite-depth "$v" -- "$prog"
    cli_one "--mpi $(shown "$v")" "--mpi" - --mpi "$v" -- "$prog"
    n=$((n + 4))
  done
  cli_one "-o ''" "--output" - -o "" -- "$prog"
  cli_one "--output=''" "--output" - --output= -- "$prog"
  cli_one "-o long" "--output;MPISCOPE_OUTPUT" - -o "$long" -- "$prog"
  # Options without a value given one, options missing their value, unknown ones.
  for o in trace check quiet dry-run verbose help; do
    cli_one "--$o=1" "--$o" - "--$o=1" -- "$prog"
  done
  for o in -o --output --mode --mpi --callsite-depth --set; do
    cli_one "$o without its value" "$o" - "$o"
  done
  cli_one "unknown long option" "--bogus" - --bogus -- "$prog"
  cli_one "unknown short option" "-z" - -z -- "$prog"
  cli_one "-q given a value" "-qx" - -qx -- "$prog"
  echo "cli: $((n + 27)) cases"
  ;;
*) echo "usage: settings-garbage.sh lib <flavor> <program> <table> | cli <table>" >&2; exit 2 ;;
esac
exit $status
