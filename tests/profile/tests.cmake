# Profile: exact numbers from programs whose behaviour is known, on both MPIs
# (check.py reads profile.json; see its docstring for what every test checks).
# MPICH runs 2 ranks (it busy-polls when ranks outnumber the cores), Open MPI 4.
add_executable(msc_profile_report ${CMAKE_CURRENT_LIST_DIR}/report_main.c
  ${CMAKE_SOURCE_DIR}/tools/cli/report.c ${CMAKE_SOURCE_DIR}/tools/cli/report-lib.c)
set_target_properties(msc_profile_report PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${MSC_TEST_BIN})
set(msc_profile_check "${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check.py")
foreach(f IN LISTS MSC_FLAVORS)
  if(f STREQUAL "mpich")
    set(np 2)
  else()
    set(np 4)
  endif()
  foreach(t pingpong ring persistent split pcontrol)
    msc_mpi_program(${f} profile_${t} SOURCES ${t}.c)
    set(ranks ${np})
    if(t STREQUAL "pingpong")
      set(ranks 2)
    endif()
    msc_mpi_test(${f} profile/${t} NP ${ranks} PROGRAM profile_${t} TIMEOUT 60
      ENV MPISCOPE_QUIET=1
      CHECK "${msc_profile_check} ${t} $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/${t}.c ${ranks} ${MSC_TEST_BIN}/msc_profile_report")
  endforeach()
  # Two frames per call site: main, and its caller in the C library.
  msc_mpi_test(${f} profile/pingpong-depth2 NP 2 PROGRAM profile_pingpong TIMEOUT 60
    ENV MPISCOPE_QUIET=1 MPISCOPE_CALLSITE_DEPTH=2
    CHECK "${msc_profile_check} pingpong $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/pingpong.c 2 ${MSC_TEST_BIN}/msc_profile_report")
endforeach()
