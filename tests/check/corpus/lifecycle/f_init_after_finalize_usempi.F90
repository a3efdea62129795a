! MPI_INIT_THREAD after MPI_FINALIZE, from Fortran (use mpi). MPI-3.1 section
! 8.7: MPI cannot be initialized again once finalized. Erroneous:
! MPI_INIT_THREAD after MPI_FINALIZE. Correct twin: MPI_FINALIZED (allowed).
! TIMEOUT: 20
program f_init_after_finalize_usempi
  use mpi
  implicit none
  integer :: ierr, rank, provided
  logical :: flag
  call MPI_INIT_THREAD(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_FINALIZE(ierr)
#ifdef BUG
  call MPI_INIT_THREAD(MPI_THREAD_SINGLE, provided, ierr) ! EXPECT: LOCAL:CALL:AFTER_FINALIZE
#else
  call MPI_FINALIZED(flag, ierr)
#endif
end program f_init_after_finalize_usempi
