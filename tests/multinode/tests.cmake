# Multi-node runs on one machine (tests/multinode/nodes.sh: nodes in
# network, UTS and mount namespaces). Skipped (77) where namespaces cannot
# be made. Label multinode; each test makes and removes its own nodes.
set(msc_skew ${MSC_TEST_BIN}/multinode_skew.so)
add_custom_command(OUTPUT ${msc_skew}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${MSC_TEST_BIN}
  COMMAND ${CMAKE_C_COMPILER} -std=gnu17 -shared -fPIC -O1 -o ${msc_skew}
          ${CMAKE_CURRENT_LIST_DIR}/skew.c -ldl
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/skew.c
  COMMENT "Building the clock shim tests/multinode_skew.so"
  VERBATIM)
add_custom_target(multinode_skew ALL DEPENDS ${msc_skew})
foreach(flavor IN LISTS MSC_FLAVORS)
  msc_mpi_program(${flavor} multinode_spread SOURCES spread.c)
  foreach(test profile unshared skew)
    set(t ${flavor}/multinode/${test})
    add_test(NAME ${t} COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh ${flavor} ${test})
    set_tests_properties(${t} PROPERTIES
      TIMEOUT 300
      SKIP_RETURN_CODE 77
      LABELS "multinode;mpi;${flavor}"
      ENVIRONMENT "MSC_MPIRUN=${MSC_${flavor}_MPIRUN};MSC_LIB=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${flavor}/libmpiscope.so;MSC_PROG=${MSC_TEST_BIN}/${flavor}/multinode_spread;MSC_SKEW_LIB=${msc_skew};MSC_OUT=${MSC_TEST_OUT}/${flavor}_multinode_${test};MSC_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
  endforeach()
endforeach()
