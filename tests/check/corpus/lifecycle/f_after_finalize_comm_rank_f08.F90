! A call after MPI_Finalize, from Fortran (use mpi_f08): MPI_Comm_rank.
! MPI-3.1 section 8.7. Erroneous: MPI_Comm_rank after MPI_Finalize. Correct
! twin: MPI_Finalized (allowed).
! TIMEOUT: 20
program f_after_finalize_comm_rank_f08
  use mpi_f08
  implicit none
  integer :: rank
  logical :: flag
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Finalize()
#ifdef BUG
  call MPI_Comm_rank(MPI_COMM_WORLD, rank) ! EXPECT: LOCAL:CALL:AFTER_FINALIZE
#else
  call MPI_Finalized(flag)
#endif
end program f_after_finalize_comm_rank_f08
