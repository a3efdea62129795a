# Reliability: a job that fails for its own reasons fails the same way with
# mpiscope loaded, and each rank that went down says why (rank-N.incomplete).
foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} dies SOURCES dies.c)
  set(lib ${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so)
  foreach(case "exit;none" "segv;1:SEGV" "term;1:TERM" "abort;1:MPI_Abort")
    list(GET case 0 how)
    list(GET case 1 note)
    add_test(NAME ${f}/reliability/${how}
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/same-exit.sh ${f} 2 ${MSC_TEST_BIN}/${f}/dies ${how} ${note})
    set_tests_properties(${f}/reliability/${how} PROPERTIES TIMEOUT 120 LABELS "mpi;${f};reliability"
      ENVIRONMENT "MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${lib};MSC_OUT=${MSC_TEST_OUT}/${f}_reliability_${how}")
  endforeach()
endforeach()

foreach(f IN LISTS MSC_FLAVORS)
  add_test(NAME ${f}/reliability/output-dir
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/output-dir.sh ${f} ${MSC_TEST_BIN}/${f}/dies)
  set_tests_properties(${f}/reliability/output-dir PROPERTIES TIMEOUT 120
    LABELS "mpi;${f};reliability"
    ENVIRONMENT "MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so;MSC_OUT=${MSC_TEST_OUT}/${f}_reliability_output_dir")
endforeach()
