! Trace test program in Fortran (use mpi), 2 ranks: the one-sided and MPI-IO
! calls of a Fortran program must carry the same records as C's (on Open MPI
! Fortran calls never reach the C MPI_ wrappers). A fence epoch with a put
! of 4 and a get of 2 integers, a lock epoch with an Rput of 3 integers
! completed by Wait after a Win_flush, then a file (named from Fortran, so
! blank-padded) with write_at and read_at of 10 integers, an iwrite_at of 5
! completed by Wait and a write_all of 2. check_trace.py --fortran compares
! every RMA and I/O record, in order, with these calls.
program rma_io
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, other, win, fh, req, i
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  integer(kind=MPI_OFFSET_KIND) :: off
  integer, volatile :: mem(16)   ! (written by the other rank: never kept in registers)
  integer :: buf(16), res(16)
  integer :: st(MPI_STATUS_SIZE)
  character(len=4096) :: dir

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs /= 2) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  other = 1 - rank
  mem = 0
  do i = 1, 16
    buf(i) = rank * 100 + i
  end do

  winsize = 16 * 4
  call MPI_Win_create(mem, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(buf, 4, MPI_INTEGER, other, disp, 4, MPI_INTEGER, win, ierr)
  disp = 8
  call MPI_Get(res, 2, MPI_INTEGER, other, disp, 2, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_lock(MPI_LOCK_SHARED, other, 0, win, ierr)
  disp = 12
  call MPI_Rput(buf, 3, MPI_INTEGER, other, disp, 3, MPI_INTEGER, win, req, ierr)
  call MPI_Win_flush(other, win, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Win_unlock(other, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (mem(1) /= other * 100 + 1 .or. mem(13) /= other * 100 + 1) then
    print *, 'rma_io: wrong window contents', mem
    call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  end if
  call MPI_Win_free(win, ierr)

  call get_environment_variable('MPISCOPE_OUTPUT', dir)
  call MPI_File_open(MPI_COMM_WORLD, trim(dir) // '/fortran.dat', &
                     ior(MPI_MODE_CREATE, MPI_MODE_RDWR), MPI_INFO_NULL, fh, ierr)
  off = rank * 40
  call MPI_File_write_at(fh, off, buf, 10, MPI_INTEGER, st, ierr)
  call MPI_File_read_at(fh, off, res, 10, MPI_INTEGER, st, ierr)
  call MPI_File_iwrite_at(fh, off, buf, 5, MPI_INTEGER, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_File_write_all(fh, buf, 2, MPI_INTEGER, st, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
end program rma_io
