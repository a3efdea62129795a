! The VT_ API from Fortran (VT.inc, upper-case names with a trailing ierr):
! the same groups and the same values as vt_api.c, for check_vt.py.
program vt_api_f
  use mpi
  implicit none
  include 'VT.inc'
  character(len=32) :: group
  character(len=4096) :: dir
  integer :: ierr, rank, nprocs, bad, h
  double precision :: t0, t0b
  bad = 0
  call get_command_argument(1, group)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_environment_variable('MPISCOPE_OUTPUT', dir)
  open(unit=10, file=trim(dir)//'/vt.'//achar(48 + rank), status='replace')
  write(10, '(A,1X,A)') 'group', trim(group)
  call VTFUNCDEF('anchor', VT_NOCLASS, h, ierr)
  t0 = VTTIMESTAMP()
  call VTENTER(h, VT_NOSCL, ierr)
  t0b = VTTIMESTAMP()
  call VTLEAVE(VT_NOSCL, ierr)
  write(10, '(A,1X,F20.9)') 't0', t0
  write(10, '(A,1X,F20.9)') 't0b', t0b
  select case (trim(group))
  case ('control')
    call control()
  case ('regions')
    call regions()
  case ('comm')
    call comm()
  case ('unordered')
    call unordered()
  case ('counters')
    call counters()
  case ('misuse')
    call misuse()
  end select
  close(10)
  call MPI_Finalize(ierr)
  if (bad /= 0) stop 1

contains

  subroutine expect(rc, want, what)
    integer, intent(in) :: rc, want
    character(len=*), intent(in) :: what
    if (rc /= want) then
      print *, 'rank', rank, what, ' returned', rc, ' expected', want
      bad = 1
    end if
  end subroutine

  subroutine pause_ms(ms)
    integer, intent(in) :: ms
    double precision :: s
    s = VTTIMESTAMP()
    do while (VTTIMESTAMP() - s < ms * 1d-3)
    end do
  end subroutine

  subroutine control()
    integer :: st, r
    call VTGETRANK(r, ierr)
    call expect(ierr, VT_OK, 'VTGETRANK')
    if (r /= rank) bad = 1
    call VTTRACESTATE(st, ierr)
    write(10, '(A,1X,I3)') 'state_on', st
    call VTFLUSH(ierr)
    call expect(ierr, VT_OK, 'VTFLUSH')
    call VTTRACEOFF()
    call VTTRACESTATE(st, ierr)
    write(10, '(A,1X,I3)') 'state_off', st
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call VTTRACEON()
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call VTTRACESTATE(st, ierr)
    write(10, '(A,1X,I3)') 'state_again', st
  end subroutine

  subroutine regions()
    integer :: cls, fo, fi, fp, l1, l2, i
    call VTCLASSDEF('Solver', cls, ierr)
    call VTFUNCDEF('outer', cls, fo, ierr)
    call VTFUNCDEF('inner', cls, fi, ierr)
    call VTFUNCDEF('plain', VT_NOCLASS, fp, ierr)
    call VTSCLDEF('solver.c', 42, l1, ierr)
    call VTSCLDEF('solver.c', 77, l2, ierr)
    do i = 1, 3
      call VTENTER(fo, l1, ierr)
      call expect(ierr, VT_OK, 'VTENTER')
      call VTTHISLOC(l2, ierr)
      call VTENTER(fi, VT_NOSCL, ierr)
      call pause_ms(2)
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      call VTLEAVE(VT_NOSCL, ierr)
      call VTLEAVE(VT_NOSCL, ierr)
    end do
    call VTBEGIN(fp, ierr)
    call VTEND(fp, ierr)
    call expect(ierr, VT_OK, 'VTEND')
  end subroutine

  subroutine comm()
    integer :: loc, nxt, prv
    integer, allocatable :: bs(:), br(:)
    double precision, allocatable :: st(:)
    double precision :: ts
    integer :: i, me10, prv10
    integer, allocatable :: rev(:)
    call VTSCLDEF('comm.c', 10, loc, ierr)
    nxt = mod(rank + 1, nprocs)
    prv = mod(rank + nprocs - 1, nprocs)
    call VTLOGSENDMSG(nxt, 100 + rank, 7, VT_COMM_WORLD, loc, ierr)
    call expect(ierr, VT_OK, 'VTLOGSENDMSG')
    ! VTCOMMDEF: communicator 10 = every rank in reverse order, 11 = rank 0.
    allocate(rev(nprocs))
    do i = 1, nprocs
      rev(i) = nprocs - i
    end do
    call VTCOMMDEF(10, nprocs, rev, ierr)
    call expect(ierr, VT_OK, 'VTCOMMDEF')
    call VTCOMMDEF(10, nprocs, rev, ierr)
    call expect(ierr, VT_ERR_COMM, 'VTCOMMDEF again')
    call VTCOMMDEF(11, 1, (/ 0 /), ierr)
    call expect(ierr, VT_OK, 'VTCOMMDEF 11')
    me10 = nprocs - 1 - rank
    call VTLOGSENDMSG(mod(me10 + 1, nprocs), 30 + rank, 13, 10, VT_NOSCL, ierr)
    call expect(ierr, VT_OK, 'VTLOGSENDMSG on 10')
    prv10 = mod(me10 + nprocs - 1, nprocs)
    call VTLOGRECVMSG(prv10, 30 + rev(prv10 + 1), 13, 10, VT_NOSCL, ierr)
    call expect(ierr, VT_OK, 'VTLOGRECVMSG on 10')
    call VTLOGSENDMSG(0, 1, 14, 11, VT_NOSCL, ierr)
    if (rank == 0) then
      call expect(ierr, VT_OK, 'VTLOGSENDMSG on 11')
    else
      call expect(ierr, VT_ERR_COMM, 'VTLOGSENDMSG on 11, no member')
    end if
    call VTLOGRECVMSG(prv, 100 + prv, 7, VT_COMM_WORLD, VT_NOSCL, ierr)
    call VTLOGSENDMSG(0, 5, 9, VT_COMM_SELF, VT_NOSCL, ierr)
    call VTLOGRECVMSG(0, 5, 9, VT_COMM_SELF, VT_NOSCL, ierr)
    ts = VTTIMESTAMP()
    call pause_ms(3)
    call VTLOGMSGEVENT(rank, rank, 64, 11, VT_COMM_WORLD, ts, loc, VT_NOSCL, ierr)
    write(10, '(A,1X,F20.9)') 'self_sendts', ts
    if (rank == 0 .and. nprocs > 1) then
      ts = VTTIMESTAMP()
      call pause_ms(2)
      call VTLOGMSGEVENT(1, 0, 256, 12, VT_COMM_WORLD, ts, VT_NOSCL, VT_NOSCL, ierr)
      write(10, '(A,1X,F20.9)') 'foreign_sendts', ts
    end if
    ts = VTTIMESTAMP()
    call pause_ms(5)
    call VTLOGOP(VT_OP_BCAST, VT_COMM_WORLD, 0, 1000, 1000, ts, VT_NOSCL, ierr)
    call expect(ierr, VT_OK, 'VTLOGOP')
    write(10, '(A,1X,F20.9)') 'op_startts', ts
    if (rank == 0) then
      allocate(bs(nprocs), br(nprocs), st(nprocs))
      ts = VTTIMESTAMP()
      do i = 1, nprocs
        bs(i) = 8 * i
        br(i) = 16 * i
        st(i) = ts
      end do
      call pause_ms(2)
      call VTLOGOPEVENT(VT_OP_ALLREDUCE, VT_COMM_WORLD, 0, nprocs, bs, br, st, VT_NOSCL, ierr)
      call expect(ierr, VT_OK, 'VTLOGOPEVENT')
    end if
  end subroutine

  subroutine unordered()
    integer :: f
    double precision :: t1, t2, t3
    call VTFUNCDEF('work', VT_NOCLASS, f, ierr)
    t1 = VTTIMESTAMP()
    call VTBEGINUNORDERED(ierr)
    call VTBEGINUNORDERED(ierr)
    call VTENTER(f, VT_NOSCL, ierr)
    call pause_ms(2)
    call VTLEAVE(VT_NOSCL, ierr)
    t2 = VTTIMESTAMP()
    call VTLOGMSGEVENT(rank, rank, 32, 21, VT_COMM_WORLD, t1, VT_NOSCL, VT_NOSCL, ierr)
    call VTENDUNORDERED(ierr)
    call VTLOGMSGEVENT(rank, rank, 48, 22, VT_COMM_WORLD, (t1 + t2) / 2, VT_NOSCL, VT_NOSCL, ierr)
    call VTENDNORDERED(ierr)
    call expect(ierr, VT_OK, 'VTENDNORDERED')
    write(10, '(A,1X,F20.9)') 'u_t1', t1
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t3 = VTTIMESTAMP()
    call VTBEGINUNORDERED(ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call VTLOGMSGEVENT(rank, rank, 80, 23, VT_COMM_WORLD, t3, VT_NOSCL, VT_NOSCL, ierr)
    write(10, '(A,1X,F20.9)') 'u_t3', t3
  end subroutine

  subroutine counters()
    integer :: cls, ci, cf, c64, i
    integer :: words(2), hs(2)
    double precision :: r, bnd(2)
    integer(kind=8) :: b
    double precision :: pair(2)
    call VTCLASSDEF('Counters', cls, ierr)
    call VTCOUNTDEF('iterations', cls, VT_COUNT_INTEGER + VT_COUNT_VALID_POINT, VT_ME, bnd, '#', &
                    ci, ierr)
    call VTCOUNTDEF('residual', cls, VT_COUNT_FLOAT + VT_COUNT_VALID_SAMPLE, VT_ME, bnd, '1', &
                    cf, ierr)
    call VTCOUNTDEF('bytes', VT_NOCLASS, VT_COUNT_INTEGER64, VT_GROUP_PROCESS, bnd, 'B', c64, ierr)
    call expect(ierr, VT_OK, 'VTCOUNTDEF')
    do i = 1, 3
      words(1) = 0
      words(2) = i * 10 + rank
      call VTCOUNTVAL(1, ci, words, ierr)
      r = 1d0 / i
      call VTCOUNTVAL(1, cf, r, ierr)
    end do
    b = -5
    pair(1) = transfer(b, 1d0)
    pair(2) = 0.25d0
    hs(1) = c64
    hs(2) = cf
    call VTCOUNTVAL(2, hs, pair, ierr)
    call expect(ierr, VT_OK, 'VTCOUNTVAL')
    call VTREGISTERTHREAD(-1, ierr)
    call VTREGISTERNAMED('main', -1, ierr)
    call VTLOGCOMMENT('hello from the VT_ API', ierr)
    call expect(ierr, VT_OK, 'VTLOGCOMMENT')
  end subroutine

  subroutine misuse()
    integer :: h2, ib(64)
    double precision :: st(64)
    ib = 0
    st = 0
    call VTFUNCDEF('x', 999, h2, ierr)
    call expect(ierr, VT_ERR_BADSYMBOLID, 'VTFUNCDEF bad class')
    call VTENTER(12345, VT_NOSCL, ierr)
    call expect(ierr, VT_ERR_BADSYMBOLID, 'VTENTER bad handle')
    call VTLEAVE(VT_NOSCL, ierr)
    call expect(ierr, VT_ERR_BADREQUEST, 'VTLEAVE nothing entered')
    call VTLOGSENDMSG(0, 10, 1, VT_COMM_INVALID, VT_NOSCL, ierr)
    call expect(ierr, VT_ERR_COMM, 'VTLOGSENDMSG invalid comm')
    call VTLOGOP(VT_OP_INVALID, VT_COMM_WORLD, 0, 0, 0, VTTIMESTAMP(), VT_NOSCL, ierr)
    call expect(ierr, VT_ERR_BADKIND, 'VTLOGOP invalid op')
    call VTLOGOPEVENT(VT_OP_BARRIER, VT_COMM_WORLD, 0, nprocs + 1, ib, ib, st, VT_NOSCL, ierr)
    call expect(ierr, VT_ERR_BADARG, 'VTLOGOPEVENT numprocs')
    call VTENDUNORDERED(ierr)
    call expect(ierr, VT_ERR_BADREQUEST, 'VTENDUNORDERED unopened')
    call VTCOUNTVAL(1, 31337, st, ierr)
    call expect(ierr, VT_ERR_BADSYMBOLID, 'VTCOUNTVAL bad handle')
    write(10, '(A,1X,I3)') 'misuse_done', 1
  end subroutine
end program
