! Fortran ALLOCATE'd arrays (gfortran allocates them with malloc) passed
! with a count past their end: LOCAL:BUFFER:OVERFLOW from check mode's
! allocator interposer, with no recompilation (issue 26). Argument "bad":
! rank 0 sends 11 elements of an allocatable of 10, rank 1 receives 21
! reals into one of 20 (the sender's side fits); "ok": the counts fit,
! no finding. The receive block is 20 reals and 1 extra element's room
! stays inside glibc's chunk (80 bytes asked, 88 usable). 2 ranks.
program heapbuf_f
  use mpi
  implicit none
  integer :: ierr, rank, n, m
  integer, allocatable :: a(:), ibuf(:)
  real, allocatable :: r(:), other(:)
  character(len=8) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, arg)
  n = 10
  m = 20
  if (arg == 'bad') then
    n = 11
    m = 21
  end if
  allocate(a(10), ibuf(64), r(20), other(64))
  a = 1
  other = 2.0
  if (rank == 0) then
    call MPI_Send(a, n, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr) ! expect(bad): LOCAL:BUFFER:OVERFLOW rank=0
    call MPI_Send(other, m, MPI_REAL, 1, 1, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_Recv(ibuf, 64, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Recv(r, m, MPI_REAL, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! expect(bad): LOCAL:BUFFER:OVERFLOW rank=1
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  deallocate(a, ibuf, r, other)
  call MPI_Finalize(ierr)
end program heapbuf_f
