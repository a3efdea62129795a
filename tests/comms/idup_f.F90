! idup_f: MPI_Comm_idup from Fortran, whose new handle is an INTEGER (or
! TYPE(MPI_Comm)) of the program's that MPI fills by the time the request
! completes. Built three ways: mpif.h (default), `use mpi` (-DMSC_USE_MPI)
! and `use mpi_f08` (-DMSC_USE_F08). 3 rounds of: idup of MPI_COMM_WORLD
! completed by MPI_Wait, 10 messages of 16 integers to the next rank on it
! (MPI_Isend, MPI_Recv, MPI_Wait), one MPI_Allreduce, MPI_Comm_free.
! tests/comms/check_comms.py checks the profile's matrix and counts.
program idup_f
#if defined(MSC_USE_F08)
  use mpi_f08
  implicit none
  type(MPI_Comm) :: newcomm
  type(MPI_Request) :: req, sreq
#elif defined(MSC_USE_MPI)
  use mpi
  implicit none
  integer :: newcomm, req, sreq
#else
  implicit none
  include 'mpif.h'
  integer :: newcomm, req, sreq
#endif
  integer, parameter :: rounds = 3, msgs = 10, ints = 16
  integer :: rank, nproc, r, n, round, m, ierr, one, total
  integer :: sbuf(ints), rbuf(ints)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  do round = 1, rounds
    call MPI_Comm_idup(MPI_COMM_WORLD, newcomm, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_Comm_rank(newcomm, r, ierr)
    call MPI_Comm_size(newcomm, n, ierr)
    sbuf = r
    do m = 1, msgs
      call MPI_Isend(sbuf, ints, MPI_INTEGER, mod(r + 1, n), m, newcomm, sreq, ierr)
      call MPI_Recv(rbuf, ints, MPI_INTEGER, mod(r + n - 1, n), m, newcomm, MPI_STATUS_IGNORE, ierr)
      call MPI_Wait(sreq, MPI_STATUS_IGNORE, ierr)
      if (rbuf(ints) /= mod(r + n - 1, n)) stop 'idup_f: wrong data'
    end do
    one = 1
    call MPI_Allreduce(one, total, 1, MPI_INTEGER, MPI_SUM, newcomm, ierr)
    if (total /= n) stop 'idup_f: wrong sum'
    call MPI_Comm_free(newcomm, ierr)
  end do
  call MPI_Finalize(ierr)
end program idup_f
