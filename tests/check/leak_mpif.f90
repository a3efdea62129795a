! A communicator freed from Fortran (mpif.h) is not a leak; one never freed
! is, found at the line that made it (2 ranks).
program leak_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, a, b
  call MPI_Init(ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, a, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, b, ierr) ! expect: LOCAL:LEAK:COMM rank=0, LOCAL:LEAK:COMM rank=1
  call MPI_Barrier(a, ierr)
  call MPI_Comm_free(a, ierr)
  call MPI_Finalize(ierr)
end program leak_mpif
