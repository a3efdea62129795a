# Fortran interception, on both MPIs: the same program through mpif.h,
# `use mpi` (mpif.F90 with -DMSC_USE_MPI) and `use mpi_f08` (f08.f90), 2 ranks.
# Each program checks its results and the exact call counts the tool recorded
# (check.f90) and fails with a message; check.py then checks its profile:
# bytes, MPI_IN_PLACE, statuses, the matrix and Fortran call sites.
set(msc_fortran_check "${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check.py")
foreach(f IN LISTS MSC_FLAVORS)
  if(NOT MSC_${f}_MPIFC)
    continue()
  endif()
  foreach(b mpif usempi f08)
    if(b STREQUAL "f08")
      set(src f08.f90)
      set(flags)
    else()
      set(src mpif.F90)
      set(flags)
      if(b STREQUAL "usempi")
        set(flags FLAGS -DMSC_USE_MPI)
      endif()
    endif()
    msc_mpi_program(${f} fortran_${b} LANG Fortran SOURCES check.f90 ${src} ${flags})
    msc_mpi_test(${f} fortran/${b} NP 2 PROGRAM fortran_${b} TIMEOUT 60
      ENV MPISCOPE_QUIET=1
      CHECK "${msc_fortran_check} $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/${src}")
  endforeach()
endforeach()
