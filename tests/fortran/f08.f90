! The program of mpif.F90 through `use mpi_f08`: TYPE(MPI_Status) and
! TYPE(MPI_Request) arguments, and ierror given in some calls and left out
! in others (the library then gets no ierror, the tool reads the code anyway).
! Lines marked SITE: are the call sites check.py expects in the profile.
program fortran_f08
  use mpi_f08
  use msc_check
  implicit none
  integer, parameter :: n = 100, nmsg = 10
  integer :: rank, nproc, other, ierr, i, round, got
  integer :: buf(n), rbuf(n), x, gath(2)
  type(MPI_Status) :: status, statuses(2)
  type(MPI_Request) :: reqs(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call expect(rank, 'ranks', nproc, 2)
  other = 1 - rank

  ! Blocking: every other message is received with MPI_STATUS_IGNORE.
  do i = 1, nmsg
    if (rank == 0) then
      buf = i
      call MPI_Send(buf, n, MPI_INTEGER, 1, i, MPI_COMM_WORLD) ! SITE:send
    else if (mod(i, 2) == 0) then
      call MPI_Recv(rbuf, n, MPI_INTEGER, 0, i, MPI_COMM_WORLD, status, ierr) ! SITE:recv
      call expect(rank, 'ierror', ierr, MPI_SUCCESS)
      call expect(rank, 'status%MPI_SOURCE', status%MPI_SOURCE, 0)
      call expect(rank, 'status%MPI_TAG', status%MPI_TAG, i)
      call MPI_Get_count(status, MPI_INTEGER, got)
      call expect(rank, 'MPI_Get_count', got, n)
    else
      rbuf = -1
      call MPI_Recv(rbuf, n, MPI_INTEGER, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ! SITE:recv_ignore
    end if
    if (rank == 1) call expect(rank, 'received data', rbuf(n), i)
  end do

  ! Nonblocking, both ways: statuses ignored in round 1, kept in round 2.
  do round = 1, 2
    rbuf = -1
    call MPI_Irecv(rbuf, n, MPI_INTEGER, other, 100 + round, MPI_COMM_WORLD, reqs(1)) ! SITE:irecv
    buf = 1000 * round + rank
    call MPI_Isend(buf, n, MPI_INTEGER, other, 100 + round, MPI_COMM_WORLD, reqs(2), ierr) ! SITE:isend
    if (round == 1) then
      call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) ! SITE:waitall_ignore
    else
      call MPI_Waitall(2, reqs, statuses, ierr) ! SITE:waitall
      call expect(rank, 'Waitall MPI_SOURCE', statuses(1)%MPI_SOURCE, other)
      call expect(rank, 'Waitall MPI_TAG', statuses(1)%MPI_TAG, 102)
    end if
    call expect(rank, 'Irecv data', rbuf(n), 1000 * round + other)
    call expect(rank, 'request freed', reqs(1)%MPI_VAL, MPI_REQUEST_NULL%MPI_VAL)
  end do

  ! Collectives; MPI_IN_PLACE must reach the library as itself.
  x = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD) ! SITE:allreduce
  call expect(rank, 'MPI_Allreduce in place', x, 3)
  gath = -1
  gath(rank + 1) = 10 * (rank + 1)
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_INTEGER, gath, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr) ! SITE:allgather
  call expect(rank, 'MPI_Allgather in place', gath(1) + 100 * gath(2), 10 + 2000)
  buf = rank
  if (rank == 0) buf = 7
  call MPI_Bcast(buf, n, MPI_INTEGER, 0, MPI_COMM_WORLD) ! SITE:bcast
  call expect(rank, 'MPI_Bcast', buf(n), 7)
  call MPI_Barrier(MPI_COMM_WORLD) ! SITE:barrier

  ! Not recorded: MPI_Pcontrol(0) ... MPI_Pcontrol(1).
  call MPI_Pcontrol(0)
  do i = 1, 3
    call MPI_Barrier(MPI_COMM_WORLD)
  end do
  call MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call expect(rank, 'MPI_Allreduce while not recording', x, 6)
  call MPI_Pcontrol(1)
  call MPI_Barrier(MPI_COMM_WORLD, ierr) ! SITE:barrier2

  call expect_calls(rank, 'MPI_Init', 1)
  call expect_calls(rank, 'MPI_Comm_rank', 1)
  call expect_calls(rank, 'MPI_Comm_size', 1)
  call expect_calls(rank, 'MPI_Send', merge(nmsg, 0, rank == 0))
  call expect_calls(rank, 'MPI_Recv', merge(0, nmsg, rank == 0))
  call expect_calls(rank, 'MPI_Get_count', merge(0, nmsg / 2, rank == 0))
  call expect_calls(rank, 'MPI_Irecv', 2)
  call expect_calls(rank, 'MPI_Isend', 2)
  call expect_calls(rank, 'MPI_Waitall', 2)
  call expect_calls(rank, 'MPI_Allreduce', 1)
  call expect_calls(rank, 'MPI_Allgather', 1)
  call expect_calls(rank, 'MPI_Bcast', 1)
  call expect_calls(rank, 'MPI_Barrier', 2)
  call expect_calls(rank, 'MPI_Finalize', 0)
  call MPI_Finalize()
  call expect_calls(rank, 'MPI_Finalize', 1)
  if (rank == 0) print '(a)', 'fortran: all checks passed'
end program
