! MPI initialized twice, from Fortran (mpif.h). MPI-3.1 section 8.7: MPI_INIT
! may be called at most once per process; MPI_INITIALIZED tells whether it
! was. Erroneous: MPI_INIT a second time. Correct twin: the program asks
! MPI_INITIALIZED and does not call it again.
! TIMEOUT: 20
program f_init_twice_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, provided
  logical :: flag
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
#ifdef BUG
  call MPI_INIT(ierr) ! EXPECT: LOCAL:CALL:INIT_TWICE
  call MPI_FINALIZE(ierr)
#else
  call MPI_INITIALIZED(flag, ierr)
  if (.not. flag) call MPI_INIT(ierr)
  call MPI_FINALIZE(ierr)
#endif
end program f_init_twice_mpif
