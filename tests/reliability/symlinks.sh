#!/usr/bin/env bash
# Files the tool writes (issue 10): only under the output directory, never
# world-writable, never through a symlink planted in the directory, and
# names that cannot collide between runs started in the same second.
#   symlinks.sh <flavor> <program>      (the program is tests/reliability/dies)
# 1. links: every name the tool writes in the output directory (profile.*,
#    checks.*, profile-vt.*, rank-N.incomplete, profile.rankN.*, trace,
#    trace.unreadable, the report) is a symlink to a file or directory
#    outside; a 2-rank job with profile and trace runs under umask 000.
#    The outside file and directory must be unchanged, the job's exit code
#    the program's (3); the tool may say it cannot write.
# 2. inside: trace/ is a real directory holding symlinks under the archive's
#    names (traces.otf2, traces.def, traces/).
# 3. modes: no file or directory the runs created is world-writable.
# 4. same second: two jobs started together without MPISCOPE_OUTPUT (profile
#    and trace, whose modes 3. checks), and two `mpiscope run` without -o,
#    get different directories.
set -uo pipefail
flavor=$1 prog=$2
work=$MSC_OUT
rm -rf "$work" && mkdir -p "$work"
status=0
fail() { echo "FAIL: $*" >&2; status=1; }

mpirun_tool() { # mpirun_tool <stderr file> <program args...>; MPISCOPE_* from the environment
  local err=$1 preload=${MSC_PRELOAD_EXTRA:+$MSC_PRELOAD_EXTRA:}$MSC_LIB
  shift
  case $flavor in
    openmpi)
      local xs=()
      for v in $(env | sed -n 's/^\(MPISCOPE_[A-Z0-9_]*\)=.*/\1/p'); do xs+=(-x "$v"); done
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
        "$MSC_MPIRUN" -np 2 -x LD_PRELOAD="$preload" "${xs[@]}" "$@" > /dev/null 2> "$err" ;;
    mpich)
      "$MSC_MPIRUN" -np 2 -genv LD_PRELOAD "$preload" "$@" > /dev/null 2> "$err" ;;
  esac
}

outside=$work/outside
mkdir -p "$outside/dir"
echo "precious file" > "$outside/file"
echo "precious file in a directory" > "$outside/dir/kept"
fingerprint() { (cd "$outside" && find . -printf '%p %y %s %m\n' | sort && cat file dir/kept); }
before=$(fingerprint)

# 1. Symlinks under every name the tool writes.
names="profile.json profile.txt checks.json checks.txt profile-vt.json profile-vt.txt
       rank-0.incomplete rank-1.incomplete profile.rank0.incomplete.json
       profile.rank0.incomplete.txt profile.rank1.incomplete.json profile.rank1.incomplete.txt
       profile.rank0.flush0.json profile.rank0.flush0.txt trace.unreadable report.html
       waitstates.json"
out=$work/links
mkdir -p "$out"
for n in $names; do ln -s "$outside/file" "$out/$n"; done
ln -s "$outside/dir" "$out/trace"
(umask 000; MPISCOPE_OUTPUT=$out MPISCOPE_MODE=profile,trace mpirun_tool "$work/links.stderr" "$prog" exit)
rc=$?
[ "$rc" = 3 ] || fail "links: exit code $rc, expected the program's 3"
[ "$(fingerprint)" = "$before" ] || fail "links: the file or directory outside changed: $(diff <(echo "$before") <(fingerprint))"
echo "links: exit $rc; stderr: $(tr '\n' '|' < "$work/links.stderr" | cut -c1-400)"

# 2. A real trace/ directory with symlinks under the archive's names.
out=$work/inside
mkdir -p "$out/trace"
for n in traces.otf2 traces.def; do ln -s "$outside/file" "$out/trace/$n"; done
ln -s "$outside/dir" "$out/trace/traces"
(umask 000; MPISCOPE_OUTPUT=$out MPISCOPE_MODE=profile,trace mpirun_tool "$work/inside.stderr" "$prog" exit)
rc=$?
[ "$rc" = 3 ] || fail "inside: exit code $rc, expected the program's 3"
[ "$(fingerprint)" = "$before" ] || fail "inside: the file or directory outside changed: $(diff <(echo "$before") <(fingerprint))"
echo "inside: exit $rc; stderr: $(tr '\n' '|' < "$work/inside.stderr" | cut -c1-400)"

# 4. Two runs in the same second without an output directory (umask 000 too,
#    for the modes below).
same=$work/same
mkdir -p "$same/lib" "$same/cli"
for attempt in 1 2 3; do
  rm -rf "$same/lib"/* "$same/cli"/*
  (cd "$same/lib" && umask 000 && unset MPISCOPE_OUTPUT && export MPISCOPE_MODE=profile,trace &&
   { mpirun_tool "$work/same1.stderr" "$prog" exit & mpirun_tool "$work/same2.stderr" "$prog" exit & wait; })
  (cd "$same/cli" && umask 000 && unset MPISCOPE_OUTPUT &&
   { "$MSC_CLI" run --mpi "$flavor" -- "$MSC_MPIRUN" -np 2 "$prog" exit > /dev/null 2>&1 &
     "$MSC_CLI" run --mpi "$flavor" -- "$MSC_MPIRUN" -np 2 "$prog" exit > /dev/null 2>&1 & wait; })
  # The time stamps of both names must be equal for the check to mean anything.
  lib_stamps=$(ls "$same/lib" | sed 's/^mpiscope-dies-\([0-9]*-[0-9]*\)-.*/\1/' | sort -u | wc -l)
  cli_stamps=$(ls "$same/cli" | sed 's/^mpiscope-dies-\([0-9]*-[0-9]*\)-.*/\1/' | sort -u | wc -l)
  [ "$lib_stamps" = 1 ] && [ "$cli_stamps" = 1 ] && break
done
for d in lib cli; do
  n=$(find "$same/$d" -mindepth 1 -maxdepth 1 -type d -name 'mpiscope-dies-*' | wc -l)
  [ "$n" = 2 ] || fail "same second ($d): $n output directories, expected 2: $(ls "$same/$d")"
  for dir in "$same/$d"/mpiscope-dies-*; do
    [ -f "$dir/profile.json" ] || fail "same second ($d): no profile.json in $dir"
    [ "$d" = cli ] || [ -f "$dir/trace/traces.otf2" ] || fail "same second ($d): no trace in $dir"
  done
  echo "same second ($d): $(ls "$same/$d" | tr '\n' ' ')"
done

# OMPI_ALLOW_RUN_AS_ROOT for the `mpiscope run` jobs above comes from CTest.

# 3. Modes: nothing the tool created is writable by others (the planted
#    links themselves are skipped: a symlink's mode means nothing).
ww=$(find "$work/links" "$work/inside" "$same" \( -type f -o -type d \) -perm -o+w -print)
[ -z "$ww" ] || fail "world-writable files or directories: $ww"

exit $status
