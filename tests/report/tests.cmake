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
  # The analysis under MPI (mpiscope report --np 2, also 3 on Open MPI) gives the
  # serial analysis's result, on this trace and on a synthetic one; errors.
  msc_mpi_test(${f} report/parallel NP ${np} PROGRAM report_waits ARGS 20 TIMEOUT 180
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
    CHECK "sh ${CMAKE_CURRENT_LIST_DIR}/check_parallel.sh $MPISCOPE_OUTPUT ${rep_cli} ${f} ${CMAKE_BINARY_DIR}/bin/msc_bench_gen_trace")
  # The HTML report rendered in headless Chromium: every plot drawn and sized,
  # the screenshot kept as test-output/<mpi>_report_html/report.png.
  msc_mpi_test(${f} report/html NP ${np} PROGRAM report_waits ARGS 20 TIMEOUT 180
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
    CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_html.py $MPISCOPE_OUTPUT ${rep_cli}")
  # Chrome trace-event JSON: slices nest, flows match, the program's calls and messages.
  msc_mpi_test(${f} report/export-chrome NP ${np} PROGRAM report_waits ARGS 5 TIMEOUT 120
    ENV MPISCOPE_MODE=trace MPISCOPE_QUIET=1
    CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_export.py $MPISCOPE_OUTPUT ${np} ${rep_cli}")
endforeach()
# The analysis split into parts without MPI (threads in place of the
# processes of mpiscope-analyze): 2, 3 and 5 parts give the serial result.
find_package(Threads REQUIRED)
add_executable(report_parts_test ${CMAKE_CURRENT_LIST_DIR}/parts_test.c)
target_link_libraries(report_parts_test PRIVATE msc_analysis Threads::Threads)
add_test(NAME report/parts
  COMMAND sh -c "d=$(mktemp -d) && ${CMAKE_BINARY_DIR}/bin/msc_bench_gen_trace $d/trace 5 300 >/dev/null && $<TARGET_FILE:report_parts_test> $d/trace/traces.otf2; rc=$?; rm -rf $d; exit $rc")
set_tests_properties(report/parts PROPERTIES TIMEOUT 60 LABELS report)
# mpiscope diff on two committed profiles (B: receives twice as slow, barriers
# twice as fast, a new function): the output is compared with the expected text.
add_test(NAME report/diff
  COMMAND sh -c "cd ${CMAKE_CURRENT_LIST_DIR} && ${rep_cli} diff data/diff-a.json data/diff-b.json --limit 5 | diff -u data/diff-expected.txt -")
add_test(NAME report/diff-usage
  COMMAND sh -c "${rep_cli} diff only-one; a=$?; ${rep_cli} diff ${CMAKE_CURRENT_LIST_DIR}/data/diff-a.json /nonexistent; b=$?; test $a = 2 && test $b = 1")
set_tests_properties(report/diff report/diff-usage PROPERTIES TIMEOUT 30 LABELS report)
if(openmpi IN_LIST MSC_FLAVORS)
  # Without a trace: the profile's plots, no wait-state section.
  msc_mpi_test(openmpi report/html-profile-only NP 3 PROGRAM report_waits ARGS 5 TIMEOUT 180
    ENV MPISCOPE_MODE=profile MPISCOPE_QUIET=1
    CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_html.py $MPISCOPE_OUTPUT ${rep_cli} --no-trace")
endif()

# The HTML page with every section (tests/report/html_page.c: I/O, VT_
# regions, a check finding): check_html.py --full, both MPIs.
foreach(f IN LISTS MSC_FLAVORS)
  if(f STREQUAL "mpich")
    set(np 2)
  else()
    set(np 4)
  endif()
  msc_mpi_program(${f} report_html_page SOURCES html_page.c LINK_MPISCOPE)
  msc_mpi_test(${f} report/html-full NP ${np} PROGRAM report_html_page TIMEOUT 180
    ENV MPISCOPE_MODE=profile,check MPISCOPE_QUIET=1
    CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_html.py $MPISCOPE_OUTPUT ${rep_cli} --no-trace --full")
endforeach()
