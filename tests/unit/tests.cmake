# Unit tests without MPI: the MPI-free core (settings, clock), the trace's
# definition sets (src/trace/defset.c) and its event files after a write
# error (src/trace/segments.c, read back with OTF2), and the analysis's spill
# file (tools/analysis/spill.c), linked against msc_base. Each line of
# list.h becomes its own CTest test, run in its own process: unit/<name>.
add_executable(unit_tests
  ${CMAKE_CURRENT_LIST_DIR}/runner.c
  ${CMAKE_CURRENT_LIST_DIR}/test_settings.c
  ${CMAKE_CURRENT_LIST_DIR}/test_clock.c
  ${CMAKE_CURRENT_LIST_DIR}/test_counters.c
  ${CMAKE_CURRENT_LIST_DIR}/test_defset.c
  ${CMAKE_CURRENT_LIST_DIR}/test_spill.c
  ${CMAKE_CURRENT_LIST_DIR}/test_segments.c
  ${CMAKE_SOURCE_DIR}/tools/analysis/spill.c
  ${CMAKE_SOURCE_DIR}/src/trace/defset.c
  ${CMAKE_SOURCE_DIR}/src/trace/segments.c
  ${CMAKE_SOURCE_DIR}/src/counters/account.c
  ${CMAKE_SOURCE_DIR}/src/counters/perf_source.c)
target_include_directories(unit_tests PRIVATE ${CMAKE_SOURCE_DIR}/src/counters ${CMAKE_SOURCE_DIR}/tools/analysis)
if(NOT TARGET PkgConfig::OTF2)
  pkg_check_modules(OTF2 REQUIRED IMPORTED_TARGET otf2)
endif()
target_link_libraries(unit_tests PRIVATE msc_base PkgConfig::OTF2)
set_target_properties(unit_tests PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${MSC_TEST_BIN}/unit)

file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/list.h msc_unit_lines REGEX "^UNIT_TEST\\(")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/list.h)
foreach(line IN LISTS msc_unit_lines)
  string(REGEX REPLACE "^UNIT_TEST\\(([a-z0-9_]+)\\).*" "\\1" name "${line}")
  add_test(NAME unit/${name} COMMAND unit_tests ${name})
  set_tests_properties(unit/${name} PROPERTIES TIMEOUT 20 LABELS unit)
  # Hundreds of cut files, each read back by a child process: seconds, and
  # more under the sanitizers.
  if(name MATCHES "^segments_")
    set_tests_properties(unit/${name} PROPERTIES TIMEOUT 180)
  endif()
endforeach()
