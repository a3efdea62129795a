#!/bin/sh
# Stands in for ssh to "another node" in the remote-rank tests. It is given
# as the launch agent (Open MPI: --mca plm_rsh_agent, MPICH hydra:
# -launcher-exec), ignores ssh's options and the host name, and starts the
# launcher's daemon (orted, hydra_pmi_proxy) here, with a cleared environment,
# as a remote shell would: nothing of mpirun's environment reaches it.
# Each call is logged to $MSC_FAKE_SSH_LOG.
echo "fake-ssh: $*" >> "${MSC_FAKE_SSH_LOG:-/dev/null}"
while [ $# -gt 0 ]; do
  case $1 in
    -*) shift ;;
    *) break ;;
  esac
done
host=$1
shift
echo "fake-ssh: host $host, running: $*" >> "${MSC_FAKE_SSH_LOG:-/dev/null}"
exec env -i PATH=/usr/bin:/bin sh -c "$*"
