# Fortran interception, on both MPIs, 2 ranks. Two programs, each through
# mpif.h, `use mpi` (-DMSC_USE_MPI) and `use mpi_f08`:
#   basic  point-to-point, MPI_Waitall, collectives with MPI_IN_PLACE,
#          MPI_STATUS(ES)_IGNORE, a region that MPI_Pcontrol(0)/(1) leaves out;
#   wide   character arguments, MPI_BOTTOM, every completion call, persistent
#          requests, probes, handles made and freed, MPI_Count forms (MPICH).
# Each program checks its results and the exact call counts the tool recorded
# (check.f90) and stops with a message otherwise; check.py then checks the
# profile: bytes, statuses, MPI_IN_PLACE, completions and Fortran call sites.
set(msc_fortran_check "${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check.py")
foreach(f IN LISTS MSC_FLAVORS)
  if(NOT MSC_${f}_MPIFC)
    continue()
  endif()
  # MPICH has the MPI_Count forms, and a C MPI_Aint_add (Open MPI's is a
  # macro, so the tool has no function to count its Fortran calls under).
  set(mpich_defs)
  if(f STREQUAL "mpich")
    set(mpich_defs -DMSC_LARGE -DMSC_AINT_ADD_COUNTED)
  endif()
  foreach(prog basic wide)
    foreach(b mpif usempi f08)
      if(prog STREQUAL "basic")
        set(src mpif.F90)
        if(b STREQUAL "f08")
          set(src f08.f90)
        endif()
      else()
        set(src wide.F90)
        if(b STREQUAL "f08")
          set(src wide_f08.F90)
        endif()
      endif()
      set(flags ${mpich_defs})
      if(b STREQUAL "usempi")
        list(APPEND flags -DMSC_USE_MPI)
      endif()
      set(name fortran_${prog}_${b})
      msc_mpi_program(${f} ${name} LANG Fortran SOURCES check.f90 ${src} FLAGS ${flags})
      msc_mpi_test(${f} fortran/${prog}-${b} NP 2 PROGRAM ${name} TIMEOUT 60
        ENV MPISCOPE_QUIET=1
        CHECK "${msc_fortran_check} ${prog} $MPISCOPE_OUTPUT ${CMAKE_CURRENT_LIST_DIR}/${src}")
      # The same correct program under --check: no finding. (The record's
      # indices of a Fortran MPI_Waitsome/Testsome are filled after the call;
      # the pointer checks took them for a NULL array.)
      msc_mpi_test(${f} fortran/${prog}-${b}-check NP 2 PROGRAM ${name} TIMEOUT 60
        ENV MPISCOPE_QUIET=1 MPISCOPE_MODE=check
        CHECK "grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
    endforeach()
  endforeach()
endforeach()
