! A call after MPI_Finalize, from Fortran (use mpi_f08): MPI_Finalize again.
! MPI-3.1 section 8.7. Erroneous: MPI_Finalize twice. Correct twin:
! MPI_Finalized tells it was done.
! TIMEOUT: 20
program f_finalize_twice_f08
  use mpi_f08
  implicit none
  integer :: rank
  logical :: flag
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Finalize()
#ifdef BUG
  call MPI_Finalize() ! EXPECT: LOCAL:CALL:AFTER_FINALIZE
#else
  call MPI_Finalized(flag)
  if (.not. flag) call MPI_Finalize()
#endif
end program f_finalize_twice_f08
