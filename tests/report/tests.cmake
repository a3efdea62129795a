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
  # The HTML report rendered in headless Chromium: every plot drawn and sized,
  # the screenshot kept as test-output/<mpi>_report_html/report.png.
  msc_mpi_test(${f} report/html NP ${np} PROGRAM report_waits ARGS 20 TIMEOUT 180
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
    CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_html.py $MPISCOPE_OUTPUT ${rep_cli}")
endforeach()
if(openmpi IN_LIST MSC_FLAVORS)
  # Without a trace: the profile's plots, no wait-state section.
  msc_mpi_test(openmpi report/html-profile-only NP 3 PROGRAM report_waits ARGS 5 TIMEOUT 180
    ENV MPISCOPE_MODE=profile MPISCOPE_QUIET=1
    CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_html.py $MPISCOPE_OUTPUT ${rep_cli} --no-trace")
endif()
