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
  # Planted behaviour (planted.c): POP's Load Balance of a known imbalance, a
  # pipeline's Serialization, a slow path's Transfer Efficiency, and a late
  # sender traced by the delay analysis to rank 1's computation before a send.
  msc_mpi_program(${f} report_planted SOURCES planted.c)
  foreach(mode imbalance pipeline slowlink latesender latereceiver)
    set(pn ${np})
    set(tu 40)
    if(mode STREQUAL "slowlink" OR mode STREQUAL "latesender" OR mode STREQUAL "latereceiver")
      set(pn 2)
    elseif(mode STREQUAL "pipeline" OR mode STREQUAL "imbalance")
      # On a busy machine a rank that wakes (or whose message came) while
      # others poll in MPI can get its core some ms late: a longer unit keeps
      # that small against T.
      set(tu 100)
    endif()
    msc_mpi_test(${f} report/planted-${mode} NP ${pn} PROGRAM report_planted ARGS ${mode} ${tu} TIMEOUT 120
      ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
      CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_planted.py $MPISCOPE_OUTPUT ${mode} ${pn} ${tu} ${rep_cli}")
  endforeach()
  # The timeline of the HTML page in headless Chromium: rows, critical path,
  # a scripted hover and click, keys, three zoom levels (screenshots kept as
  # test-output/<mpi>_report_timeline/timeline-*.png).
  # The page of a 3.66 M-event trace is checked by report/timeline-exact
  # (with its windows of exact calls), not here.
  set(tl_gen -)
  msc_mpi_test(${f} report/timeline NP ${np} PROGRAM report_planted ARGS pipeline 20 TIMEOUT 240
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
    CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_timeline.py $MPISCOPE_OUTPUT ${rep_cli} ${tl_gen}")
  # Hardware counters asked for (MPISCOPE_COUNTERS=1): on this VM they are
  # unavailable, said once, and marked as not recorded.
  msc_mpi_test(${f} report/counters NP 2 PROGRAM report_planted ARGS imbalance 5 TIMEOUT 120
    ENV MPISCOPE_MODE=profile MPISCOPE_COUNTERS=1 MPISCOPE_QUIET=1 MSC_KEEP_STDERR=1
    CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_counters.py $MPISCOPE_OUTPUT $MPISCOPE_OUTPUT/.stderr 2")
  # The HTML report rendered in headless Chromium: every plot drawn and sized,
  # the screenshot kept as test-output/<mpi>_report_html/report.png.
  msc_mpi_test(${f} report/html NP ${np} PROGRAM report_waits ARGS 20 TIMEOUT 180
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
    CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_html.py $MPISCOPE_OUTPUT ${rep_cli}")
  # Chrome trace-event JSON: slices nest, flows match, the program's calls and messages.
  msc_mpi_test(${f} report/export-chrome NP ${np} PROGRAM report_waits ARGS 5 TIMEOUT 120
    ENV MPISCOPE_MODE=trace MPISCOPE_QUIET=1
    CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_export.py $MPISCOPE_OUTPUT ${np} ${rep_cli}")
  # Its selection (--ranks, --from/--to) against otf2-print's events, the call
  # site on each slice, the size estimate and limit (--max-size, --force), bad values.
  msc_mpi_test(${f} report/export-chrome-select NP ${np} PROGRAM report_waits ARGS 5 TIMEOUT 180
    ENV MPISCOPE_MODE=trace MPISCOPE_QUIET=1
    CHECK "${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_export_select.py $MPISCOPE_OUTPUT ${np} ${rep_cli}")
  # Damaged data (issue 15): one rank's event file empty, missing or cut
  # short is named, the report and the export say partial and exit 3; a
  # profile.json of a future schema is refused.
  msc_mpi_test(${f} report/damaged NP 2 PROGRAM report_waits ARGS 5 TIMEOUT 120
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
    CHECK "bash ${CMAKE_CURRENT_LIST_DIR}/damaged.sh $MPISCOPE_OUTPUT ${rep_cli}")
endforeach()
# The analysis split into parts without MPI (threads in place of the
# processes of mpiscope-analyze): 2, 3 and 5 parts give the serial result.
find_package(Threads REQUIRED)
add_executable(report_parts_test ${CMAKE_CURRENT_LIST_DIR}/parts_test.c)
target_link_libraries(report_parts_test PRIVATE msc_analysis Threads::Threads)
add_test(NAME report/parts
  COMMAND sh -c "d=$(mktemp -d) && ${CMAKE_BINARY_DIR}/bin/msc_bench_gen_trace $d/trace 5 9000 >/dev/null && $<TARGET_FILE:report_parts_test> $d/trace/traces.otf2; rc=$?; rm -rf $d; exit $rc")
set_tests_properties(report/parts PROPERTIES TIMEOUT 60 LABELS report)
# The timeline's windows of exact calls on synthetic traces too large to
# carry every call, in headless Chromium (no MPI): zoomed into a window the
# page lists the trace's calls; --from/--to; a 3.66 M-event trace's page
# under 3 MB (screenshots kept in test-output/report_timeline_exact/).
add_test(NAME report/timeline-exact
  COMMAND ${rep_py} ${CMAKE_CURRENT_LIST_DIR}/check_timeline_exact.py ${rep_cli}
          ${CMAKE_BINARY_DIR}/bin/msc_bench_gen_trace ${MSC_TEST_OUT}/report_timeline_exact)
set_tests_properties(report/timeline-exact PROPERTIES TIMEOUT 300 LABELS report)
# The same on the closed-form scenarios (a pipeline, a late sender, and one
# whose calls, regions and waits exceed the compact records' fields), where
# the replay and the critical path cross the parts at every message.
add_test(NAME report/parts-scenarios
  COMMAND sh -c "d=$(mktemp -d) && ${CMAKE_BINARY_DIR}/bin/msc_bench_gen_trace $d/p 5 40 pipeline && ${CMAKE_BINARY_DIR}/bin/msc_bench_gen_trace $d/l 2 40 latesender && ${CMAKE_BINARY_DIR}/bin/msc_bench_gen_trace $d/ll 2 6 latesender-long && ${CMAKE_BINARY_DIR}/bin/msc_bench_gen_trace $d/lr 2 40 latereceiver && $<TARGET_FILE:report_parts_test> $d/p/traces.otf2 && $<TARGET_FILE:report_parts_test> $d/l/traces.otf2 && $<TARGET_FILE:report_parts_test> $d/ll/traces.otf2 && $<TARGET_FILE:report_parts_test> $d/lr/traces.otf2; rc=$?; rm -rf $d; exit $rc")
set_tests_properties(report/parts-scenarios PROPERTIES TIMEOUT 60 LABELS report)
# POP, the replays, the critical path and the delay on synthetic traces whose
# results are known in closed form: exact to the nanosecond (1e-6 for ratios).
add_executable(report_closed_form_test ${CMAKE_CURRENT_LIST_DIR}/closed_form_test.c)
target_link_libraries(report_closed_form_test PRIVATE msc_analysis m)
add_test(NAME report/closed-form
  COMMAND sh -c "d=$(mktemp -d) && $<TARGET_FILE:report_closed_form_test> ${CMAKE_BINARY_DIR}/bin/msc_bench_gen_trace $d; rc=$?; rm -rf $d; exit $rc")
set_tests_properties(report/closed-form PROPERTIES TIMEOUT 60 LABELS report)
# mpiscope diff on two committed profiles (B: receives twice as slow, barriers
# twice as fast, a new function): the output is compared with the expected text.
add_test(NAME report/diff
  COMMAND sh -c "cd ${CMAKE_CURRENT_LIST_DIR} && ${rep_cli} diff data/diff-a.json data/diff-b.json --limit 5 | diff -u data/diff-expected.txt -")
add_test(NAME report/diff-usage
  COMMAND sh -c "${rep_cli} diff only-one; a=$?; ${rep_cli} diff ${CMAKE_CURRENT_LIST_DIR}/data/diff-a.json /nonexistent; b=$?; test $a = 2 && test $b = 1")
set_tests_properties(report/diff report/diff-usage PROPERTIES TIMEOUT 30 LABELS report)
# POP's scaling table of three runs (2, 4, 8 ranks; committed profiles whose
# values are worked out in tests/report/data/scaling.md), with and without
# hardware counters in every run; --html with several runs is a usage error.
add_test(NAME report/scaling
  COMMAND sh -c "cd ${CMAKE_CURRENT_LIST_DIR}/data && ${rep_cli} report scaling-2 scaling-4 scaling-8 | diff -u scaling-expected.txt - && ${rep_cli} report scaling-2 scaling-4 | diff -u scaling-counters-expected.txt - && { ${rep_cli} report --html scaling-2 scaling-4 2>/dev/null; test $? = 2; }")
set_tests_properties(report/scaling PROPERTIES TIMEOUT 30 LABELS report)
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

# The analysis's peak RSS against the trace's size, and the same results
# with and without its spill file (memory_test.c).
# Under a sanitizer only the results are compared (its shadow memory is not
# the analysis's).
add_executable(report_memory_test ${CMAKE_CURRENT_LIST_DIR}/memory_test.c)
set(mem_norss "")
if(MPISCOPE_SANITIZE)
  set(mem_norss norss)
endif()
add_test(NAME report/memory
  COMMAND sh -c "d=$(mktemp -d) && $<TARGET_FILE:report_memory_test> ${CMAKE_BINARY_DIR}/bin/msc_bench_gen_trace ${rep_cli} $d ${mem_norss}; rc=$?; rm -rf $d; exit $rc")
# The same on a real trace (the demo traced: mapping tables, call sites,
# MPI_T metrics, many waiting calls for the delay pass), about 35 MB.
foreach(f IN LISTS MSC_FLAVORS)
  if(f STREQUAL "mpich")
    set(np 2)
    set(iters 90000)
  else()
    set(np 4)
    set(iters 45000)
  endif()
  msc_mpi_test(${f} report/memory-real NP ${np} PROGRAM ../../examples/${f}/demo ARGS ${iters} TIMEOUT 300
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
    CHECK "$<TARGET_FILE:report_memory_test> - ${rep_cli} $MPISCOPE_OUTPUT ${mem_norss}")
endforeach()
