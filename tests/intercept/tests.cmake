# Interception: exact call counts seen by the C wrappers.
foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} smoke SOURCES smoke.c)
  msc_mpi_test(${f} intercept/smoke NP 2 PROGRAM smoke)
endforeach()
