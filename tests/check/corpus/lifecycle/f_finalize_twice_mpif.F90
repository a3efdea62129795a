! A call after MPI_FINALIZE, from Fortran (mpif.h): MPI_FINALIZE again.
! MPI-3.1 section 8.7: once MPI_FINALIZE returns, no MPI routine may be called
! except MPI_GET_VERSION, MPI_GET_LIBRARY_VERSION, MPI_INITIALIZED,
! MPI_FINALIZED and the MPI_T_ functions. Erroneous: MPI_FINALIZE twice.
! Correct twin: MPI_FINALIZED tells it was done.
! TIMEOUT: 20
program f_finalize_twice_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, provided
  logical :: flag
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_FINALIZE(ierr)
#ifdef BUG
  call MPI_FINALIZE(ierr) ! EXPECT: LOCAL:CALL:AFTER_FINALIZE
#else
  call MPI_FINALIZED(flag, ierr)
  if (.not. flag) call MPI_FINALIZE(ierr)
#endif
end program f_finalize_twice_mpif
