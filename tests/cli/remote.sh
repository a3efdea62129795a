#!/usr/bin/env bash
# A rank on "another node" gets the library and the settings although it does
# not inherit the launcher's environment. The launcher is given a second host
# whose launch agent, tests/cli/fake-ssh.sh, starts the launcher's daemon here
# with a cleared environment (env -i PATH=...), as ssh to a real node would.
#   remote.sh <flavor>
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
flavor=$1
prog="$MSC_TEST_BIN/$flavor/cli_probe"
lib="$MSC_LIBDIR/$flavor/libmpiscope.so"
export MSC_PROBE_MARKER=1 MSC_FAKE_SSH_LOG="$MSC_OUT/fake-ssh.log"
res="$MSC_OUT/results"
# A name that is not this machine's and that no resolver knows (RFC 6761).
node=msc-node2.invalid
case $flavor in
  openmpi)
    launch=(mpirun.openmpi --mca plm_rsh_agent "$here/fake-ssh.sh" --host "localhost,$node"
            --map-by node -np 2)
    daemon=orted ;;
  mpich)
    launch=(mpirun.mpich -launcher ssh -launcher-exec "$here/fake-ssh.sh" -hosts "localhost,$node"
            -ppn 1 -n 2)
    daemon=hydra_pmi_proxy ;;
esac

capture "$MSC_CLI" run -o "$res" --callsite-depth 3 -- "${launch[@]}" "$prog"
expect_rc 0 "remote run"
[ -f "$MSC_FAKE_SSH_LOG" ] || fail "the launcher did not use the fake ssh"
expect_in "$(cat "$MSC_FAKE_SSH_LOG" 2>/dev/null)" "host msc-node2" "fake ssh log"
lines=$(printf '%s\n' "$out" | grep '^probe ' | sed 's/$/ /')
[ "$(printf '%s\n' "$lines" | grep -c '^probe ')" = 2 ] || fail "expected 2 probe lines: $out; stderr: $err"
for field in size=2 tool=yes barriers=3 "output=$res" depth=3 "preload=$lib" mpiscope=yes ancestors=clean; do
  [ "$(printf '%s\n' "$lines" | grep -c " $field ")" = 2 ] || fail "not every rank has $field: $lines"
done
remote=$(printf '%s\n' "$lines" | grep ' parent_env=cleared ')
[ "$(printf '%s\n' "$remote" | grep -c '^probe ')" = 1 ] || fail "expected one rank under a daemon with a cleared environment: $lines"
expect_in "$remote" " parent=$daemon " "the remote rank's parent"
local_line=$(printf '%s\n' "$lines" | grep ' parent_env=inherited ')
[ -n "$local_line" ] || fail "expected one rank started locally: $lines"
echo "remote rank: $remote"
finish
