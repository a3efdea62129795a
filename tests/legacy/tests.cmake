# Functions removed in MPI-3.0 that the libraries still export (tools/wrapgen/
# legacy.txt): a C program that declares their prototypes itself and a
# Fortran 77 program (mpif.h, implicit interfaces) call each, compare the
# results with the modern calls' and legacy_check.py checks the exact counts
# in profile.json and the trace. Both MPIs export all ten (Open MPI 4.1.4
# without declaring them in mpi.h, MPICH 4.0.2 declaring them); an MPI that
# exports none has them as "removed in MPI-3.0 and not exported" in
# coverage.txt (test legacy/coverage-unexported). 2 ranks: MPICH spins.
# /usr/bin/python3: python3-otf2 is a Debian package.
set(msc_legacy_check "/usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/legacy_check.py $MSC_OUT")
foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} legacy_c SOURCES legacy.c FLAGS -Wall -Wextra ${MSC_WERROR})
  msc_mpi_test(${f} legacy/c NP 2 PROGRAM legacy_c TIMEOUT 60
               ENV MPISCOPE_MODE=profile,trace CHECK "${msc_legacy_check} c 2")
  # Check mode puts its own handler in place of MPI_ERRORS_ARE_FATAL: the
  # program's MPI_Errhandler_get must still see the application's handler.
  msc_mpi_test(${f} legacy/c-check NP 2 PROGRAM legacy_c TIMEOUT 60 ENV MPISCOPE_MODE=check)
  if(MSC_${f}_MPIFC)
    msc_mpi_program(${f} legacy_f LANG Fortran SOURCES legacy.f)
    msc_mpi_test(${f} legacy/f77 NP 2 PROGRAM legacy_f TIMEOUT 60
                 ENV MPISCOPE_MODE=profile,trace CHECK "${msc_legacy_check} f 2")
  endif()
endforeach()
list(GET MSC_FLAVORS 0 msc_legacy_f)
add_test(NAME legacy/coverage-unexported
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/unexported.sh ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR}/gen/${msc_legacy_f} ${CMAKE_CURRENT_BINARY_DIR}/legacy-unexported)
