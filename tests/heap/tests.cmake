# Check mode's allocator interposer (src/heap, libmpiscope-heap.so) without
# MPI: one CTest test per case of heap_test.c, run with the library
# preloaded (run.sh). Label unit.
add_executable(heap_test ${CMAKE_CURRENT_LIST_DIR}/heap_test.c)
target_link_libraries(heap_test PRIVATE pthread ${CMAKE_DL_LIBS})
set_target_properties(heap_test PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${MSC_TEST_BIN}/heap)
add_dependencies(heap_test mpiscope_heap)
foreach(c kinds early threads gather reuse fork signal unknown many freed)
  add_test(NAME heap/${c}
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh $<TARGET_FILE:mpiscope_heap> $<TARGET_FILE:heap_test> ${c})
  set_tests_properties(heap/${c} PROPERTIES TIMEOUT 60 LABELS unit)
endforeach()
