# The `mpiscope` program: its options and messages, the command lines it
# builds for each launcher and MPI, MPI detection on real binaries, real runs
# on each MPI (local, singleton, and a rank on a stand-in remote node),
# signals and exit codes, and the installed layout. Label "cli".
#
# The scripts (tests/cli/*.sh) share lib.sh and get their inputs through the
# environment below. Open MPI refuses to run as root without its two
# OMPI_ALLOW_* variables; they are set here, for the tests, while mpiscope
# itself passes the user's environment through untouched.
if(NOT TARGET mpiscope)
  return()
endif()

foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} cli_probe SOURCES probe.c)
  msc_mpi_program(${f} cli_probe_cxx SOURCES probe_cxx.cpp LANG CXX)
  msc_mpi_program(${f} cli_probe_f SOURCES probe_f.f90 LANG Fortran)
endforeach()

string(REPLACE ";" " " msc_cli_flavors "${MSC_FLAVORS}")
set(msc_cli_env
  "MSC_CLI=$<TARGET_FILE:mpiscope>"
  "MSC_LIBDIR=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}"
  "MSC_LIBDIR_REL=${MSC_LIBDIR_REL}"
  "MSC_TEST_BIN=${MSC_TEST_BIN}"
  "MSC_BINARY_DIR=${CMAKE_BINARY_DIR}"
  "MSC_SOURCE_DIR=${CMAKE_SOURCE_DIR}"
  "MSC_CMAKE=${CMAKE_COMMAND}"
  "MSC_VERSION=${PROJECT_VERSION}"
  "MSC_FLAVORS=${msc_cli_flavors}"
  "OMPI_ALLOW_RUN_AS_ROOT=1"
  "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
  "OMPI_MCA_rmaps_base_oversubscribe=1"
  "OMPI_MCA_btl_vader_single_copy_mechanism=none")

# msc_cli_test(<name> <timeout> <script> [args...])
function(msc_cli_test name timeout script)
  string(REPLACE "/" "_" outname "cli_${name}")
  add_test(NAME cli/${name}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/${script} ${ARGN})
  set_tests_properties(cli/${name} PROPERTIES
    TIMEOUT ${timeout}
    LABELS "cli"
    ENVIRONMENT "${msc_cli_env};MSC_OUT=${MSC_TEST_OUT}/${outname}")
endfunction()

msc_cli_test(help 30 help.sh)
msc_cli_test(usage 60 usage.sh)
msc_cli_test(dry-run 60 dry-run.sh)
msc_cli_test(signals 60 signals.sh)
msc_cli_test(install 120 install.sh)
# A job that spawns worlds: every world's summary and report (Open MPI:
# MPICH 4.0.2's spawn fails natively here).
if("openmpi" IN_LIST MSC_FLAVORS)
  msc_cli_test(openmpi/worlds 180 worlds.sh ${MSC_TEST_BIN}/openmpi/comms_spawn)
endif()
foreach(f IN LISTS MSC_FLAVORS)
  msc_cli_test(${f}/detect 60 detect.sh ${f})
  foreach(case ranks exit-code default-dir quiet none preload singleton)
    msc_cli_test(${f}/${case} 90 run.sh ${f} ${case})
  endforeach()
  # -o DIR holding another run's results is refused; what was written (or
  # why nothing was) is said at the end (issue 15).
  msc_cli_test(${f}/outdir 120 outdir.sh ${f} ${MSC_TEST_BIN}/${f}/dies ${MSC_${f}_MPIRUN})
  msc_cli_test(${f}/remote 120 remote.sh ${f})
  # The stand-in remote node starts its daemon with a cleared environment on
  # purpose, which also drops the sanitizer's options: not a sanitizer test.
  set_property(TEST cli/${f}/remote APPEND PROPERTY LABELS no-sanitizer)
endforeach()
