# Report: wait states measured on programs with known delays, the HTML
# report rendered in headless Chromium, the Chrome trace export and the
# profile comparison; all through the `mpiscope` program, on both MPIs.
# MPICH runs 2 ranks (it busy-polls when ranks outnumber the cores), Open MPI 4.
set(rep_cli ${CMAKE_BINARY_DIR}/bin/mpiscope)
set(rep_py /usr/bin/python3)
foreach(f IN LISTS MSC_FLAVORS)
  if(f STREQUAL "mpich")
    set(np 2)
  else()
    set(np 4)
  endif()
  msc_mpi_program(${f} report_waits SOURCES waits.c)
  # Every pattern's waiting time against the program's sleeps (200 ms).
  msc_mpi_test(${f} report/waitstates NP ${np} PROGRAM report_waits ARGS 200 TIMEOUT 120
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
    CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_waits.py $MPISCOPE_OUTPUT ${np} 200 ${rep_cli}")
endforeach()
