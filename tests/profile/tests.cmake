# Profile: exact numbers from programs whose behaviour is known, on both MPIs
# (check.py reads profile.json; see its docstring for what every test checks).
# MPICH runs 2 ranks (it busy-polls when ranks outnumber the cores), Open MPI 4.
add_executable(msc_profile_report ${CMAKE_CURRENT_LIST_DIR}/report_main.c
  ${CMAKE_SOURCE_DIR}/tools/cli/report.c ${CMAKE_SOURCE_DIR}/tools/cli/report-lib.c)
set_target_properties(msc_profile_report PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${MSC_TEST_BIN})
target_link_libraries(msc_profile_report PRIVATE msc_base)
set(msc_profile_check "${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check.py")
foreach(f IN LISTS MSC_FLAVORS)
  if(f STREQUAL "mpich")
    set(np 2)
  else()
    set(np 4)
  endif()
  foreach(t pingpong ring persistent split pcontrol icoll io)
    msc_mpi_program(${f} profile_${t} SOURCES ${t}.c)
    set(ranks ${np})
    if(t STREQUAL "pingpong")
      set(ranks 2)
    endif()
    set(args)
    set(targs)
    if(t STREQUAL "pingpong")
      # Arguments for run.args and run.command (one with a space).
      set(args ARGS alpha "two words")
      set(targs "MSC_TEST_ARGS=alpha|two words")
    endif()
    msc_mpi_test(${f} profile/${t} NP ${ranks} PROGRAM profile_${t} TIMEOUT 60 ${args}
      ENV MPISCOPE_QUIET=1 ${targs}
      CHECK "${msc_profile_check} ${t} $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/${t}.c ${ranks} ${MSC_TEST_BIN}/msc_profile_report")
  endforeach()
  # The merge tree with a rank count that is not a power of two (every
  # subtree shape): per-rank rows in rank order, every rank's records.
  if(f STREQUAL "openmpi")
    msc_mpi_test(${f} profile/ring-7 NP 7 PROGRAM profile_ring TIMEOUT 90
      ENV MPISCOPE_QUIET=1
      CHECK "${msc_profile_check} ring $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/ring.c 7 ${MSC_TEST_BIN}/msc_profile_report")
  endif()
  # Two frames per call site: main, and its caller in the C library.
  msc_mpi_test(${f} profile/pingpong-depth2 NP 2 PROGRAM profile_pingpong TIMEOUT 60
    ENV MPISCOPE_QUIET=1 MPISCOPE_CALLSITE_DEPTH=2
    CHECK "${msc_profile_check} pingpong $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/pingpong.c 2 ${MSC_TEST_BIN}/msc_profile_report")

  # Budgets (issue 10): each one driven past its limit; the run succeeds and
  # profile.json and profile.txt give the exact numbers left out.
  msc_mpi_program(${f} profile_sites SOURCES sites.c)
  msc_mpi_test(${f} profile/bound-sites NP ${np} PROGRAM profile_sites TIMEOUT 60
    ENV MPISCOPE_QUIET=1 MPISCOPE_PROFILE_SITES=16
    CHECK "${msc_profile_check} sites $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/sites.c ${np} ${MSC_TEST_BIN}/msc_profile_report")
  msc_mpi_program(${f} profile_matrix SOURCES matrix.c)
  math(EXPR below "${np} - 1")
  msc_mpi_test(${f} profile/bound-matrix-ranks NP ${np} PROGRAM profile_matrix TIMEOUT 60
    ENV MPISCOPE_QUIET=1 MPISCOPE_PROFILE_MATRIX_RANKS=${below}
    CHECK "${msc_profile_check} matrix-ranks $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/matrix.c ${np} ${MSC_TEST_BIN}/msc_profile_report")
  # The pair budget cannot go below 16, which 2 ranks (4 pairs at most) never
  # reach: this one runs 4 ranks on MPICH too (a short program; it busy-polls).
  msc_mpi_test(${f} profile/bound-matrix-pairs NP 4 PROGRAM profile_matrix TIMEOUT 120
    ENV MPISCOPE_QUIET=1 MPISCOPE_PROFILE_MATRIX_PAIRS=16
    CHECK "${msc_profile_check} matrix-pairs $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/matrix.c 4 ${MSC_TEST_BIN}/msc_profile_report")
  msc_mpi_program(${f} profile_requests SOURCES requests.c)
  msc_mpi_test(${f} profile/bound-requests NP ${np} PROGRAM profile_requests TIMEOUT 60
    ENV MPISCOPE_QUIET=1 MPISCOPE_MAX_REQUESTS=64
    CHECK "${msc_profile_check} requests $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/requests.c ${np} ${MSC_TEST_BIN}/msc_profile_report")
  msc_mpi_program(${f} profile_perrank SOURCES perrank.c)
  msc_mpi_test(${f} profile/per-rank NP ${np} PROGRAM profile_perrank TIMEOUT 60
    ENV MPISCOPE_QUIET=1 MPISCOPE_PROFILE_PER_RANK=1
    CHECK "${msc_profile_check} perrank $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/perrank.c ${np} ${MSC_TEST_BIN}/msc_profile_report")
  # The I/O section's file budget: each rank keeps its first file.
  msc_mpi_test(${f} profile/bound-files NP ${np} PROGRAM profile_io TIMEOUT 60
    ENV MPISCOPE_QUIET=1 MPISCOPE_PROFILE_FILES=1
    CHECK "${msc_profile_check} io $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/io.c ${np} ${MSC_TEST_BIN}/msc_profile_report")
  # Four threads under MPI_THREAD_MULTIPLE, each on its own communicator.
  msc_mpi_program(${f} profile_threads SOURCES threads.c)
  msc_mpi_test(${f} profile/threads NP ${np} PROGRAM profile_threads TIMEOUT 90
    ENV MPISCOPE_QUIET=1
    CHECK "${msc_profile_check} threads $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/threads.c ${np} ${MSC_TEST_BIN}/msc_profile_report")
endforeach()

# The closing summary on stderr: `mpiscope run`, with checks and a trace, and
# the library alone (tests/profile/banner.sh).
if(TARGET mpiscope)
  foreach(f IN LISTS MSC_FLAVORS)
    if(f STREQUAL "mpich")
      set(np 2)
    else()
      set(np 4)
    endif()
    add_test(NAME ${f}/profile/banner COMMAND ${CMAKE_CURRENT_LIST_DIR}/banner.sh ${f} ${np})
    set_tests_properties(${f}/profile/banner PROPERTIES TIMEOUT 120 LABELS "mpi;${f}"
      ENVIRONMENT "MSC_CLI=$<TARGET_FILE:mpiscope>;MSC_TEST_BIN=${MSC_TEST_BIN};MSC_LIBDIR=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL};MSC_OUT=${MSC_TEST_OUT}/${f}_profile_banner")
  endforeach()
endif()

# Sizes beyond 2^31 bytes (large.c: a 2 GiB message as 2049 elements of a
# 1 MiB type, with MPI-4 as MPI_Send_c of an MPI_Count, and a broadcast),
# profile, trace and check in one run: bytes, histogram bin 32, matrix and
# the trace's lengths exact. About 4.3 GB of buffers for the two ranks;
# left out of the sanitizer passes (the same code paths with smaller sizes
# run there, and ASan's shadow of two 2 GiB blocks is not worth the time).
foreach(f IN LISTS MSC_FLAVORS)
  set(mpi4 3)
  if(f STREQUAL "mpich")
    set(mpi4 4)
  endif()
  msc_mpi_program(${f} profile_large SOURCES large.c)
  msc_mpi_test(${f} profile/large NP 2 PROGRAM profile_large TIMEOUT 120
    ENV MPISCOPE_MODE=profile,trace,check MPISCOPE_QUIET=1
    CHECK "/usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_large.py $MPISCOPE_OUTPUT ${mpi4}")
  set_property(TEST ${f}/profile/large APPEND PROPERTY LABELS no-sanitizer)
endforeach()
