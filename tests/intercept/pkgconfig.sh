#!/usr/bin/env bash
# The build tree's pkg-config file builds a program that uses the tool
# library, as a user of an uninstalled build would:
#   pkgconfig.sh <flavor> <mpicc> <mpirun> <build dir> <source dir> <work dir>
# The program is compiled and linked with only what pkg-config says, then
# run on one rank without LD_PRELOAD; it checks its own counts.
set -euo pipefail
flavor=$1 mpicc=$2 mpirun=$3 build=$4 src=$5 work=$6
rm -rf "$work" && mkdir -p "$work"
export PKG_CONFIG_PATH=$build/pkgconfig
flags=$(pkg-config --cflags --libs "mpiscope-$flavor") || {
  echo "pkgconfig.sh: pkg-config does not know mpiscope-$flavor in $PKG_CONFIG_PATH" >&2; exit 1; }
echo "pkg-config: $flags"
# shellcheck disable=SC2086  # the flags are words
"$mpicc" -o "$work/prog" "$src/tests/intercept/pkgconfig_prog.c" $flags
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export MPISCOPE_OUTPUT=$work/out
unset LD_PRELOAD
"$mpirun" -np 1 "$work/prog"
