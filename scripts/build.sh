#!/usr/bin/env bash
# Builds everything into build/ (or $1): both tool libraries, the `mpiscope`
# program, the examples and the tests. Installs missing Debian packages first
# when run as root. Warnings are errors here (MPISCOPE_WERROR, the project's
# development and CI builds). Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ $# -gt 0 ] && shift
scripts/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPISCOPE_WERROR=ON "$@" > "$build.configure.log" 2>&1 \
  || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)"
