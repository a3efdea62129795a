! MPI initialized twice, from Fortran (use mpi_f08, ierror omitted). MPI-3.1
! section 8.7: MPI_Init may be called at most once per process. Erroneous:
! MPI_Init a second time. Correct twin: MPI_Initialized first.
! TIMEOUT: 20
program f_init_twice_f08
  use mpi_f08
  implicit none
  integer :: rank
  logical :: flag
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
#ifdef BUG
  call MPI_Init() ! EXPECT: LOCAL:CALL:INIT_TWICE
  call MPI_Finalize()
#else
  call MPI_Initialized(flag)
  if (.not. flag) call MPI_Init()
  call MPI_Finalize()
#endif
end program f_init_twice_f08
