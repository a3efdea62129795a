#!/usr/bin/env bash
# Installs the Debian packages mpiscope needs to build and test: both MPI
# libraries (Open MPI and MPICH side by side), OTF2 with its tools, the call-site
# resolvers, compilers for the Fortran and C++ tests, clang for the
# sanitizer and fuzz builds, Chromium (headless, for the HTML report's
# test) and Pillow (its screenshots decoded), the packaged MPI applications of tests/apps and Slurm with munge
# for tests/slurm (about 130 MB to download, a minute to install). As root it installs them; otherwise it prints the exact apt-get
# line to run.
set -euo pipefail

packages=(
  build-essential cmake pkg-config python3
  gfortran g++ clang libclang-rt-14-dev
  libopenmpi-dev openmpi-bin
  mpich libmpich-dev
  libopen-trace-format2-dev otf2-tools python3-otf2
  libunwind-dev libdw-dev libelf-dev
  python3-jsonschema python3-venv
  chromium python3-pil
  # packaged MPI applications for tests/apps (docs/apps.md)
  lammps hpcc python3-mpi4py quantum-espresso netpipe-openmpi netpipe-mpich2
  libhdf5-openmpi-dev libhdf5-mpich-dev
  # a Slurm cluster of namespace nodes for tests/slurm (docs/slurm.md): the
  # daemons, srun/sbatch/salloc, the mpi plugins (pmix_v4, pmi2) and munge.
  # The tests start their own munged and daemons with a private key and
  # configuration; the packages' own services are not used.
  slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge
)

if [ "$(id -u)" -ne 0 ]; then
  echo "mpiscope needs these Debian packages; run as root:" >&2
  echo "  apt-get update && apt-get install -y --no-install-recommends ${packages[*]}" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
