# Interception: what the C wrappers see, for each MPI. Every program is a
# table of cases (harness.h); msc_intercept_case registers one case as the
# test <flavor>/intercept/<program>/<case>[<suffix>] under mpirun with the tool preloaded.
# MPICH busy-polls, so its jobs keep to the 2 cores of the test machine.

# msc_intercept_case(<flavor> <program> <case> NP <n> [SUFFIX <s>] [more msc_mpi_test args])
function(msc_intercept_case flavor program case)
  cmake_parse_arguments(A "" "NP;SUFFIX" "" ${ARGN})
  set(name intercept/${program}/${case}${A_SUFFIX})
  msc_mpi_test(${flavor} ${name} NP ${A_NP} PROGRAM ${program} ARGS ${case} TIMEOUT 60
               ${A_UNPARSED_ARGUMENTS})
  set_property(TEST ${flavor}/${name} APPEND PROPERTY LABELS intercept)
endfunction()

# GCC 12 misreads the access attributes of MPICH's prototypes when given
# MPI_STATUSES_IGNORE (a null pointer constant): -Wno-stringop-overflow.
set(msc_cflags -Wall -Wextra ${MSC_WERROR} -Wno-stringop-overflow)

foreach(f IN LISTS MSC_FLAVORS)
  if(f STREQUAL "mpich")
    set(nps 1 2)         # no oversubscription: MPICH's ranks spin
    set(np_more 2)
  else()
    set(nps 1 2 3 4)
    set(np_more 4)
  endif()

  # Exact counts of known programs.
  msc_mpi_program(${f} counts SOURCES counts.c second_tu.c FLAGS ${msc_cflags})
  foreach(np IN LISTS nps)
    msc_intercept_case(${f} counts p2p_blocking NP ${np} SUFFIX -${np})
  endforeach()
  msc_intercept_case(${f} counts p2p_nonblocking NP 2)
  msc_intercept_case(${f} counts collectives NP 1 SUFFIX -1)
  msc_intercept_case(${f} counts collectives NP 2 SUFFIX -2)
  if(f STREQUAL "openmpi")
    msc_intercept_case(${f} counts p2p_nonblocking NP 4 SUFFIX -4)
    msc_intercept_case(${f} counts collectives NP 3 SUFFIX -3)
  endif()
  msc_intercept_case(${f} counts communicators NP ${np_more})
  msc_intercept_case(${f} counts persistent NP 2)
  msc_intercept_case(${f} counts second_tu NP 2)
  msc_intercept_case(${f} counts tool_traffic NP 2)
  if(f STREQUAL "mpich")
    msc_intercept_case(${f} counts large_count NP 2)
  endif()

  # Calls made by the application's callbacks inside MPI calls are recorded.
  msc_mpi_program(${f} reentrancy SOURCES reentrancy.c FLAGS ${msc_cflags})
  msc_intercept_case(${f} reentrancy user_op NP 2)
  msc_intercept_case(${f} reentrancy attr_callbacks NP 2)
  msc_intercept_case(${f} reentrancy delete_frees NP 2)
  # The same calls in profile.json, the trace (nested) and check mode (no leak).
  foreach(c delete_frees user_op)
    msc_intercept_case(${f} reentrancy ${c} NP 2 SUFFIX -modes
      ENV MPISCOPE_MODE=profile,trace,check
      CHECK "/usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_nested.py $MSC_OUT ${c} 2")
  endforeach()
  # Check mode's own communicators (shadows of every communicator the
  # application gets) run none of the application's attribute callbacks:
  # exactly one copy and two deletes, as without the tool.
  msc_intercept_case(${f} reentrancy attr_callbacks NP 2 SUFFIX -check ENV MPISCOPE_MODE=check
    CHECK "grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
  msc_intercept_case(${f} reentrancy errhandler NP 1)
  msc_intercept_case(${f} reentrancy grequest NP 1)

  # Recording off and on.
  msc_mpi_program(${f} pcontrol SOURCES pcontrol.c FLAGS ${msc_cflags})
  msc_intercept_case(${f} pcontrol off_on NP 2)
  msc_intercept_case(${f} pcontrol unknown_level NP 2)
  msc_intercept_case(${f} pcontrol mode_none NP 2 ENV MPISCOPE_MODE=none)
  msc_intercept_case(${f} pcontrol threads NP 1)

  # MPI_THREAD_MULTIPLE.
  msc_mpi_program(${f} threads SOURCES threads.c FLAGS ${msc_cflags})
  msc_intercept_case(${f} threads multiple NP 2)
  msc_intercept_case(${f} threads pcontrol_race NP 1)

  # What the application gets back is what it gets without the tool.
  msc_mpi_program(${f} errors SOURCES errors.c FLAGS ${msc_cflags})
  foreach(c error_codes truncate completion_errors statuses)
    msc_intercept_case(${f} errors ${c} NP 2)
  endforeach()
  # The same computation without and with the tool: identical results.
  set(ref ${MSC_TEST_OUT}/${f}_intercept_errors_results-reference/results.txt)
  msc_intercept_case(${f} errors results NP 2 SUFFIX -reference NO_TOOL)
  msc_intercept_case(${f} errors results NP 2 CHECK "cmp ${ref} \$MPISCOPE_OUTPUT/results.txt")
  set_tests_properties(${f}/intercept/errors/results-reference PROPERTIES
                       FIXTURES_SETUP ${f}_results)
  set_tests_properties(${f}/intercept/errors/results PROPERTIES FIXTURES_REQUIRED ${f}_results)

  # C++ bindings, seen through the C layer (mpicxx as users call it: with
  # the C++ bindings, neither OMPI_SKIP_MPICXX nor MPICH_SKIP_MPICXX).
  if(MSC_${f}_MPICXX)
    msc_mpi_program(${f} cxx SOURCES cxx.cpp LANG CXX FLAGS -Wall ${MSC_WERROR} -Wno-cast-function-type
                    -Wno-deprecated-declarations)
    msc_intercept_case(${f} cxx bindings NP 2)
  endif()

  # The same program linked with -lmpiscope, the tool not preloaded.
  msc_mpi_program(${f} counts_linked SOURCES counts.c second_tu.c FLAGS ${msc_cflags}
                  LINK_MPISCOPE)
  msc_intercept_case(${f} counts_linked linked NP 2 NO_TOOL)
  foreach(c collectives persistent)
    msc_intercept_case(${f} counts_linked ${c} NP 2 SUFFIX -linked NO_TOOL)
  endforeach()

  # The build tree's pkg-config file compiles and links a program.
  add_test(NAME ${f}/intercept/pkgconfig
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/pkgconfig.sh ${f} ${MSC_${f}_MPICC} ${MSC_${f}_MPIRUN}
            ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${MSC_TEST_OUT}/${f}_intercept_pkgconfig)
  set_tests_properties(${f}/intercept/pkgconfig PROPERTIES TIMEOUT 60
                       LABELS "mpi;${f};intercept")

  # Every PMPI_ function of the MPI library is in the coverage report.
  add_test(NAME ${f}/intercept/coverage
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/coverage.sh ${CMAKE_BINARY_DIR}/gen/${f}/coverage.txt
            $<TARGET_FILE:mpiscope_${f}> ${MSC_${f}_LIBFILES})
  set_tests_properties(${f}/intercept/coverage PROPERTIES TIMEOUT 30 LABELS "${f};intercept")
endforeach()

# The application's main finds nothing of the tool's on its stack: the
# library's constructors clear what they left (src/core/stack_scrub.c).
foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} main_frame SOURCES main_frame.c
    FLAGS -Wall ${MSC_WERROR} -Wno-uninitialized -Wno-maybe-uninitialized)
  foreach(m profile trace check)
    msc_mpi_test(${f} intercept/main_frame/${m} NP 2 PROGRAM main_frame
      ENV MPISCOPE_MODE=${m} MSC_KEEP_STDOUT=1
      CHECK "test $(grep -c 'libmpiscope loaded. 0 words' $MSC_OUT/.stdout) = 2")
    set_property(TEST ${f}/intercept/main_frame/${m} APPEND PROPERTY LABELS intercept)
  endforeach()
endforeach()
