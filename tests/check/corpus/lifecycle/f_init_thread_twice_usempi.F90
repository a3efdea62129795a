! MPI initialized twice, from Fortran (use mpi): MPI_INIT_THREAD after
! MPI_INIT. MPI-3.1 section 8.7 and 12.4.3: MPI_INIT and MPI_INIT_THREAD
! together may be called at most once per process. Erroneous: MPI_INIT_THREAD
! after MPI_INIT. Correct twin: MPI_QUERY_THREAD asks the level MPI_INIT gave.
! TIMEOUT: 20
program f_init_thread_twice_usempi
  use mpi
  implicit none
  integer :: ierr, rank, provided
  logical :: flag
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
#ifdef BUG
  call MPI_INIT_THREAD(MPI_THREAD_SINGLE, provided, ierr) ! EXPECT: LOCAL:CALL:INIT_TWICE
  call MPI_FINALIZE(ierr)
#else
  call MPI_QUERY_THREAD(provided, ierr)
  call MPI_FINALIZE(ierr)
#endif
end program f_init_thread_twice_usempi
