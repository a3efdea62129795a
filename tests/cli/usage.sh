#!/usr/bin/env bash
# Usage errors exit 2 with one message that names the bad option or setting
# and what is allowed, and launch nothing: the command of every case is the
# fake mpirun, which would write $MSC_FAKE_LOG if it ran.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
export MSC_FAKE_LOG="$MSC_OUT/launched" MSC_FAKE_MODE="exit 0"
fake="$here/fake-bin/mpirun"
prog="$MSC_TEST_BIN/${MSC_FLAVORS%% *}/cli_probe"

# usage_case "<env assignments or ->" "<needle>;<needle>..." args...
usage_case() {
  local envs=$1 needles=$2
  shift 2
  rm -f "$MSC_FAKE_LOG"
  if [ "$envs" = - ]; then
    capture "$MSC_CLI" "$@"
  else
    capture env $envs "$MSC_CLI" "$@"
  fi
  local what="${envs#-} mpiscope $*"
  expect_rc 2 "$what"
  IFS=';' read -ra list <<< "$needles"
  for n in "${list[@]}"; do expect_in "$err" "$n" "$what"; done
  [ -z "$out" ] || fail "$what: printed on stdout: $out"
  [ ! -e "$MSC_FAKE_LOG" ] || fail "$what: the command was launched"
  [ "$(printf '%s\n' "$err" | wc -l)" -le 1 ] || fail "$what: more than one line: $err"
}

# The program's own options.
usage_case - "unknown option '--bogus';--output DIR;--mode LIST;--dry-run;after '--'" run --bogus -- "$fake" -np 2 "$prog"
usage_case - "unknown option '-x'" run -x -- "$fake" "$prog"
usage_case - "--mode: MPISCOPE_MODE='bogus';profile|trace|check|none" run --mode bogus -- "$fake" "$prog"
usage_case - "--mode: MPISCOPE_MODE='profile,nope';'nope' is not one of profile|trace|check|none" run --mode=profile,nope -- "$fake" "$prog"
usage_case - "--callsite-depth: MPISCOPE_CALLSITE_DEPTH='99' is not a whole number from 0 to 8" run --callsite-depth 99 -- "$fake" "$prog"
usage_case - "--callsite-depth: MPISCOPE_CALLSITE_DEPTH='two'" run --callsite-depth two -- "$fake" "$prog"
usage_case - "--mpi 'lam';openmpi or mpich" run --mpi lam -- "$fake" "$prog"
usage_case - "--set NOPE: no such setting;MPISCOPE_TRACE_BUFFER" run --set NOPE=1 -- "$fake" "$prog"
usage_case - "--set: MPISCOPE_CLOCK='sundial' is not one of auto|tsc|monotonic" run --set clock=sundial -- "$fake" "$prog"
usage_case - "--set: MPISCOPE_TRACE_BUFFER='12Q';suffixes K, M, G, T" run --set MPISCOPE_TRACE_BUFFER=12Q -- "$fake" "$prog"
usage_case - "--set 'BUFFER' is not NAME=VALUE" run --set BUFFER -- "$fake" "$prog"
usage_case - "option -o needs a value: a directory" run -o
usage_case - "option --mode needs a value" run --mode
usage_case - "option --quiet takes no value" run --quiet=yes -- "$fake" "$prog"
usage_case - "--output needs a directory" run -o "" -- "$fake" "$prog"
usage_case - "no command to run" run
usage_case - "no command to run" run --dry-run --
usage_case - "--trace and --check cannot be combined with MPISCOPE_MODE 'none'" run --mode none --trace -- "$fake" "$prog"

# MPISCOPE_* variables of the environment, with the library's parser's words.
usage_case "MPISCOPE_TRACE_BUFFER=12Q" "in the environment: MPISCOPE_TRACE_BUFFER='12Q' is not a size" run -- "$fake" "$prog"
usage_case "MPISCOPE_CALLSITE_DEPTH=-1" "MPISCOPE_CALLSITE_DEPTH='-1' is not a whole number from 0 to 8" run -- "$fake" "$prog"
usage_case "MPISCOPE_MODE=everything" "MPISCOPE_MODE='everything'" run --dry-run -- "$fake" "$prog"
usage_case "MPISCOPE_QUIET=maybe" "MPISCOPE_QUIET='maybe' is not a yes/no value" run -- "$fake" "$prog"
usage_case "MPISCOPE_BOGUS=1" "the environment has MPISCOPE_BOGUS, which is no setting;MPISCOPE_MODE" run -- "$fake" "$prog"
# an option does not excuse a bad variable: the library would see it too
usage_case "MPISCOPE_MODE=bogus" "MPISCOPE_MODE='bogus'" run --mode profile -- "$fake" "$prog"
# every bad variable is reported (one line each), not only the first
rm -f "$MSC_FAKE_LOG"
capture env MPISCOPE_TRACE_BUFFER=1 MPISCOPE_CLOCK=x "$MSC_CLI" run -- "$fake" "$prog"
expect_rc 2 "two bad variables"
expect_in "$err" "MPISCOPE_TRACE_BUFFER='1'" "two bad variables"
expect_in "$err" "MPISCOPE_CLOCK='x'" "two bad variables"
[ ! -e "$MSC_FAKE_LOG" ] || fail "two bad variables: the command was launched"

# The MPI cannot be told: a script, run alone or by a launcher that says nothing.
usage_case - "cannot tell which MPI;is not an ELF file;give --mpi openmpi or --mpi mpich" run -- "$fake"
usage_case - "cannot tell which MPI;is linked with no MPI library;--mpi" run -- /bin/true
PATH="$here/fake-bin:$PATH" usage_case - "cannot tell which MPI;--mpi" run -- srun -n 2 "$fake"

# mpiscope vars, report (analysis under MPI) and run --cvar.
usage_case - "unknown option '--bogus'" vars --bogus
usage_case - "--kind takes a comma-separated list of cvar, pvar, category, enum" vars --kind bogus
usage_case - "--verbosity takes user, tuner, mpidev;not '99'" vars --verbosity 99
usage_case - "--mpi takes openmpi or mpich, not 'lam'" vars --mpi lam
usage_case - "--category needs a value" vars --category
usage_case - "one pattern only; 'b*' is a second one" vars 'a*' 'b*'
usage_case - "--np takes a number from 1 to 100000, not '0'" report --np 0 "$MSC_OUT"
usage_case - "--np takes a number from 1 to 100000, not 'abc'" report --np abc "$MSC_OUT"
usage_case - "--mpi takes openmpi or mpich, not 'zz'" report --np 2 --mpi zz "$MSC_OUT"
usage_case - "--cvar 'noeq' is not NAME=VALUE" run --cvar noeq -- "$fake" "$prog"
usage_case - "option --cvar needs a value: NAME=VALUE" run --cvar

# The program's own command line.
usage_case - "unknown option '--bogus';-h/--help and -V/--version" --bogus
usage_case - "no command is named 'frobnicate';run, report and help" frobnicate
usage_case - "no command is named 'nope'" help nope
capture "$MSC_CLI"
expect_rc 2 "mpiscope without arguments"
expect_in "$err" "usage: mpiscope <command>" "mpiscope without arguments"

# Not found: 127, as a shell says.
capture "$MSC_CLI" run -- /nonexistent/app
expect_rc 127 "missing program"
expect_in "$err" "cannot find the program '/nonexistent/app'" "missing program"
capture "$MSC_CLI" run -- mpirun-not-installed -np 2 "$prog"
expect_rc 127 "missing launcher"
expect_in "$err" "cannot find the launcher 'mpirun-not-installed' in PATH" "missing launcher"
finish
