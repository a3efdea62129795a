#!/usr/bin/env bash
# Which MPI `mpiscope run` picks, on programs really built with each MPI's
# compiler wrappers (C, C++, Fortran: their DT_NEEDED lists differ), on
# programs that are not MPI ELF files (the launcher decides), and on broken
# ELF files (a message, not a crash).
#   detect.sh <flavor>
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
flavor=$1
other=openmpi
[ "$flavor" = openmpi ] && other=mpich
lib="$MSC_LIBDIR/$flavor/libmpiscope.so"
case $flavor in
  openmpi) launchers="mpirun.openmpi mpiexec.openmpi orterun"; evidence_c=libmpi.so.40
           evidence_f=libmpi_mpifh.so.40 evidence_cxx=libmpi_cxx.so.40 ;;
  mpich) launchers="mpirun.mpich mpiexec.mpich mpiexec.hydra"; evidence_c=libmpich.so.12
         evidence_f=libmpichfort.so.12 evidence_cxx=libmpich.so.12 ;;
esac

# The program decides, alone or under any launcher, even the other MPI's.
for p in cli_probe cli_probe_cxx cli_probe_f; do
  prog="$MSC_TEST_BIN/$flavor/$p"
  if [ ! -x "$prog" ]; then
    echo "note: $prog not built (no compiler wrapper for its language); skipped"
    continue
  fi
  case $p in
    cli_probe) evidence=$evidence_c ;;
    cli_probe_cxx) evidence=$evidence_cxx ;;
    cli_probe_f) evidence=$evidence_f ;;
  esac
  # Which MPI library comes first in DT_NEEDED depends on the link line
  # (sanitizer builds reorder it): ask readelf, an independent reader.
  first=$(readelf -d "$prog" | sed -n 's/.*Shared library: \[\(libmpi[^]]*\)\].*/\1/p' | head -1)
  [ -n "$first" ] && evidence=$first
  capture "$MSC_CLI" run --dry-run --verbose -o /msc/out -- "$prog"
  expect_rc 0 "$p alone"
  expect_in "$out" "LD_PRELOAD=$lib " "$p alone"
  expect_in "$err" "program: '$prog' is linked with $evidence" "$p alone"
  for l in $launchers mpirun.$other; do
    capture "$MSC_CLI" run --dry-run -o /msc/out -- "$l" -np 2 "$prog"
    expect_rc 0 "$p under $l"
    expect_in "$out" "$lib" "$p under $l"
    expect_not_in "$out" "$MSC_LIBDIR/$other/" "$p under $l"
  done
  # the other MPI's launcher: its syntax, our library, and a warning
  capture "$MSC_CLI" run --dry-run -o /msc/out -- "mpirun.$other" -np 2 "$prog"
  expect_in "$err" "warning: '$prog' is linked with $evidence ($flavor), but the launcher" "$p under mpirun.$other"
  # --mpi naming the other MPI is refused (exit 2, the reason), before
  # anything is launched: the other ABI's tool library would crash every rank
  for l in "" "mpirun.$flavor -np 2" "mpirun.$other -np 2"; do
    capture "$MSC_CLI" run --dry-run -o /msc/out --mpi "$other" -- $l "$prog"
    expect_rc 2 "$p --mpi $other under '$l'"
    expect_in "$err" "--mpi $other, but '$prog' is linked with $evidence, so it uses $flavor: the $other tool library cannot be loaded" "$p --mpi $other under '$l'"
    expect_not_in "$out" "LD_PRELOAD" "$p --mpi $other under '$l'"
  done
  # --mpi naming its own MPI is fine
  capture "$MSC_CLI" run --dry-run -o /msc/out --mpi "$flavor" -- "$prog"
  expect_rc 0 "$p --mpi $flavor"
  expect_in "$out" "$lib" "$p --mpi $flavor"
done

# Really run (no --dry-run): refused before the launch, so no rank starts
# (the probe prints a line per rank) and no output directory is made.
refused="$MSC_OUT/refused"
capture "$MSC_CLI" run -o "$refused" --mpi "$other" -- "mpirun.$flavor" -np 2 "$MSC_TEST_BIN/$flavor/cli_probe"
expect_rc 2 "run --mpi $other, not dry"
expect_not_in "$out" "probe rank=" "run --mpi $other, not dry"
expect_in "$err" "drop --mpi or give --mpi $flavor" "run --mpi $other, not dry"
[ ! -e "$refused" ] || fail "run --mpi $other, not dry: $refused was made"

# A program that is not an MPI ELF file (a script): the launcher decides,
# by what it resolves to (mpirun.openmpi -> orterun, mpirun.mpich -> mpiexec.hydra).
script="$here/fake-bin/srun"
for l in $launchers; do
  capture "$MSC_CLI" run --dry-run --verbose -o /msc/out -- "$l" -np 2 "$script"
  expect_rc 0 "script under $l"
  expect_in "$out" "$lib" "script under $l"
  expect_in "$err" "'$script' is not an ELF file" "script under $l"
  expect_in "$err" "the launcher '$(command -v "$l")' is $(readlink -f "$(command -v "$l")")" "script under $l"
done
# /usr/bin/mpirun is whichever MPI the alternatives system chose
real=$(readlink -f "$(command -v mpirun)")
case $real in
  */orterun) chosen=openmpi ;;
  */mpiexec.hydra) chosen=mpich ;;
  *) chosen= ;;
esac
if [ -n "$chosen" ] && [ "$chosen" = "$flavor" ]; then
  capture "$MSC_CLI" run --dry-run -o /msc/out -- mpirun -np 2 "$script"
  expect_rc 0 "script under mpirun ($real)"
  expect_in "$out" "$lib" "script under mpirun ($real)"
fi

# Broken ELF files: one message each, and exit 2 asking for --mpi.
good="$MSC_TEST_BIN/$flavor/cli_probe"
head -c 100 "$good" > "$MSC_OUT/truncated" && chmod +x "$MSC_OUT/truncated"
head -c 3000 "$good" > "$MSC_OUT/halved" && chmod +x "$MSC_OUT/halved"
printf '\177ELF\001\001\001\000' > "$MSC_OUT/elf32" && head -c 200 /dev/zero >> "$MSC_OUT/elf32" && chmod +x "$MSC_OUT/elf32"
for f in truncated halved elf32; do
  capture "$MSC_CLI" run --dry-run -- "$MSC_OUT/$f"
  expect_rc 2 "broken ELF $f"
  expect_in "$err" "cannot tell which MPI" "broken ELF $f"
  expect_in "$err" "--mpi" "broken ELF $f"
done
expect_in "$err" "is a 32-bit ELF file" "broken ELF elf32"
finish
