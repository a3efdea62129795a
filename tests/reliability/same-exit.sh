#!/usr/bin/env bash
# Runs a program twice under mpirun, without and with the tool, and checks
# that the job ends with the same exit code and the same standard output, and
# that the rank-<N>.incomplete notes are those expected.
#   same-exit.sh <flavor> <np> <program> <args> <expected notes: "rank:text" ...>
# <args> is one word or several separated by spaces ("segv calls").
# A note "1:SEGV" means rank-1.incomplete must contain SEGV; "none" means no
# note may exist. Uses MSC_MPIRUN, MSC_LIB and MSC_OUT like run-mpi.sh.
set -uo pipefail
flavor=$1 np=$2 prog=$3 arg=$4
shift 4
read -ra args <<< "$arg"
here=$(cd "$(dirname "$0")/.." && pwd)
base_out=$MSC_OUT
mkdir -p "$(dirname "$base_out")"
# The launchers' own failure banners name process ids, and Hydra's names the
# exit code of whichever rank it reaped first (the one that failed, or one it
# then killed with SIGKILL): reaping order, not the application's behaviour.
# The launcher's own exit code is compared below, exactly.
native() {
  MSC_OUT=$base_out/without MSC_LIB= MSC_EXPECT_RC=any "$here/run-mpi.sh" "$flavor" "$np" "$prog" "${args[@]}" > "$base_out.without.stdout" 2>/dev/null
  rc_without=$(cat "$base_out/without/.rc" 2>/dev/null)
  sed -i -e 's/PID [0-9]*/PID <pid>/g' -e 's/^=   EXIT CODE: [0-9]*/=   EXIT CODE: <code>/' \
    "$base_out.without.stdout"
}
native
MSC_OUT=$base_out/with MSC_EXPECT_RC=any "$here/run-mpi.sh" "$flavor" "$np" "$prog" "${args[@]}" > "$base_out.with.stdout" 2>/dev/null
rc_with=$(cat "$base_out/with/.rc" 2>/dev/null)
sed -i -e 's/PID [0-9]*/PID <pid>/g' -e 's/^=   EXIT CODE: [0-9]*/=   EXIT CODE: <code>/' \
  "$base_out.with.stdout"
# The native run is the reference, and it can end two ways itself: with
# MPICH, a rank that returns without MPI_Finalize while the other is still
# in it is once in a while killed by Hydra (SIGKILL, exit 9) instead of
# ending with 0 (seen once in a CI-like run under AddressSanitizer's load;
# 0 in six runs by hand). A differing reference is taken again, once.
if [ -z "$rc_without" ] || [ "$rc_without" != "$rc_with" ] ||
   ! cmp -s "$base_out.without.stdout" "$base_out.with.stdout"; then
  echo "same-exit.sh: the native run ended with '$rc_without'; running it again" >&2
  native
fi
status=0
if [ -z "$rc_without" ] || [ "$rc_without" != "$rc_with" ]; then
  echo "exit code without the tool: '$rc_without', with it: '$rc_with'" >&2
  status=1
fi
if ! cmp -s "$base_out.without.stdout" "$base_out.with.stdout"; then
  echo "standard output differs with the tool:" >&2
  diff "$base_out.without.stdout" "$base_out.with.stdout" >&2
  status=1
fi
for want in "$@"; do
  if [ "$want" = none ]; then
    if ls "$base_out"/with/rank-*.incomplete > /dev/null 2>&1; then
      echo "unexpected notes: $(cat "$base_out"/with/rank-*.incomplete)" >&2
      status=1
    fi
    continue
  fi
  rank=${want%%:*} text=${want#*:}
  if ! grep -q "$text" "$base_out/with/rank-$rank.incomplete" 2>/dev/null; then
    echo "rank-$rank.incomplete should say '$text'; it says '$(cat "$base_out/with/rank-$rank.incomplete" 2>&1)'" >&2
    status=1
  fi
done
[ $status = 0 ] && echo "same exit code ($rc_with) and output with and without mpiscope; notes as expected"
exit $status
