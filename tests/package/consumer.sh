#!/usr/bin/env bash
# The installed CMake package builds a program, as a CMake user would:
#   consumer.sh <flavor> <mpicc> <mpirun> <build dir> <source dir> <work dir> <version>
# Installs the build into <work>/staged, moves it to <work>/prefix (the
# package's paths, and the pkg-config file's, must be relative to it),
# configures tests/package/consumer with -DCMAKE_PREFIX_PATH=<work>/prefix,
# builds it with that MPI's mpicc and again with cc (MPI::MPI_C then names
# the MPI library), checks that the tool library comes before the MPI
# library in the program's DT_NEEDED list (else its MPI calls would bypass
# the wrappers), runs each build on 2 ranks without LD_PRELOAD and checks
# the exact call counts in profile.json. Last, find_package with a version
# above <version> (the next minor and the next major) must fail.
set -euo pipefail
flavor=$1 mpicc=$2 mpirun=$3 build=$4 src=$5 work=$6 version=$7
rm -rf "$work" && mkdir -p "$work"
fail() { echo "consumer.sh: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/staged" > "$work/install.log" ||
  { cat "$work/install.log"; fail "cmake --install failed"; }
mv "$work/staged" "$work/prefix"
config=$(find "$work/prefix" -path '*/cmake/mpiscope/mpiscopeConfig.cmake')
[ -n "$config" ] || fail "no mpiscopeConfig.cmake installed under $work/prefix"
[ -f "$(dirname "$config")/mpiscopeConfigVersion.cmake" ] || fail "no mpiscopeConfigVersion.cmake next to $config"
echo "config: ${config#"$work"/}"
if grep -rq "$work/staged" "$(dirname "$config")"; then fail "the package names the install prefix: not relocatable"; fi
# The pkg-config file next to it follows the moved prefix too.
pcdir=$(dirname "$(dirname "$(dirname "$config")")")/pkgconfig
pclib=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir "mpiscope-$flavor") ||
  fail "no mpiscope-$flavor.pc in $pcdir"
pcinc=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=includedir "mpiscope-$flavor")
[ -f "$pclib/libmpiscope.so" ] && [ -f "$pcinc/mpiscope.h" ] ||
  fail "the installed mpiscope-$flavor.pc points to $pclib and $pcinc, not into $work/prefix"
# The VT_ API's headers (docs/vt.md) are installed with mpiscope.h.
[ -f "$pcinc/VT.h" ] && [ -f "$pcinc/VT.inc" ] || fail "VT.h and VT.inc are not installed in $pcinc"

configure() {  # configure <binary dir> <version asked for> [cmake options]
  cmake -S "$src/tests/package/consumer" -B "$1" -DCMAKE_C_COMPILER="$mpicc" \
    -DMPI_C_COMPILER="$mpicc" -DCMAKE_PREFIX_PATH="$work/prefix" -DMSC_MPI="$flavor" \
    -DMSC_WANT_VERSION="$2" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${@:3}"
}
# build_and_run <name> <C compiler>: configures, builds and runs the consumer
# in <work>/<name>, its output in <work>/<name>-out.
build_and_run() {
  local dir=$work/$1 cc=$2
  configure "$dir" "$version" -DCMAKE_C_COMPILER="$cc" > "$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; fail "$1: the consumer project does not configure with find_package(mpiscope $version)"; }
  cmake --build "$dir" > "$dir.build.log" 2>&1 || { cat "$dir.build.log"; fail "$1: the consumer does not build"; }
  local prog=$dir/consumer needed tool_at mpi_at
  needed=$(readelf -d "$prog" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  echo "$1: DT_NEEDED:" $needed
  tool_at=$(echo "$needed" | grep -n '^libmpiscope\.so' | cut -d: -f1 | head -1 || true)
  mpi_at=$(echo "$needed" | grep -n '^libmpi\.so' | cut -d: -f1 | head -1 || true)
  [ -n "$tool_at" ] || fail "$1: the program does not link libmpiscope"
  [ -z "$mpi_at" ] || [ "$tool_at" -lt "$mpi_at" ] || fail "$1: libmpi comes before libmpiscope: MPI calls would bypass the tool"
  case $(readelf -d "$prog" | grep -E 'RPATH|RUNPATH') in
    *"$work/prefix/"*) ;;
    *) fail "$1: the program's run path does not lead to the installed library" ;;
  esac
  MPISCOPE_OUTPUT=$dir-out "$mpirun" -np 2 "$prog"
  /usr/bin/python3 - "$dir-out/profile.json" "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
calls = {f["name"]: f["calls"] for f in doc["functions"]}
# What consumer.c calls, summed over its 2 ranks.
want = {"MPI_Comm_rank": 6, "MPI_Comm_size": 2, "MPI_Allreduce": 8, "MPI_Barrier": 4,
        "MPI_Send": 5, "MPI_Recv": 5}
bad = [f"{n}: {calls.get(n, 0)} calls, expected {w}" for n, w in want.items() if calls.get(n, 0) != w]
extra = sorted(set(calls) - set(want) - {"MPI_Init", "MPI_Finalize"})
if extra:
    bad.append(f"calls the program does not make: {extra}")
for b in bad:
    print(f"consumer.sh: {sys.argv[2]}: profile.json:", b, file=sys.stderr)
print(f"{sys.argv[2]}: profile.json:", calls)
sys.exit(1 if bad else 0)
PY
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
unset LD_PRELOAD
# Compiled by the MPI's mpicc (MPI::MPI_C is then empty: mpicc adds the MPI
# library last), and by cc with MPI::MPI_C carrying the MPI library from
# MPI_C_COMPILER: there the order of target_link_libraries decides.
build_and_run mpicc "$mpicc"
build_and_run cc cc

IFS=. read -r major minor _ <<< "$version"
for too_high in "$major.$((minor + 1))" "$((major + 1)).0"; do
  if configure "$work/cbuild-$too_high" "$too_high" > "$work/configure-$too_high.log" 2>&1; then
    fail "find_package(mpiscope $too_high) succeeded with version $version installed"
  fi
  grep -q "version: $version" "$work/configure-$too_high.log" ||
    { cat "$work/configure-$too_high.log"; fail "find_package(mpiscope $too_high) failed, but not for the version"; }
  echo "find_package(mpiscope $too_high): refused, as it must be"
done
