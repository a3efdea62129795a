! Call sites of a Fortran program in the trace (use mpi; check_sites.py
! fortran): MPI_Barrier 3 times from one line, then once from another; the
! lines are marked with "site:" comments, which the checker finds. The loop
! runs nprocs + 1 times (3 on 2 ranks): a constant count would be unrolled,
! and each copy of the call has its own return address.
program sites
  use mpi
  implicit none
  integer :: ierr, i, nprocs

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  do i = 1, nprocs + 1
    call MPI_Barrier(MPI_COMM_WORLD, ierr) ! site:loop
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr) ! site:last
  call MPI_Finalize(ierr)
end program sites
