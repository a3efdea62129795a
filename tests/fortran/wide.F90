! More of the Fortran interface through mpif.h or (-DMSC_USE_MPI) `use mpi`,
! on 2 ranks: MPI_Init_thread, character arguments (their hidden lengths must
! reach the library intact), MPI_BOTTOM with absolute addresses, every
! completion call on arrays that mix sends and receives (Fortran indices are
! 1-based, the record's 0-based), persistent requests, probes, a nonblocking
! barrier, and communicators, datatypes and info objects made and freed.
! Results and the exact call counts are checked here; check.py (mode `wide`)
! checks that every receive completed with its own bytes. Calls of the Test*
! functions are counted by the program itself, since how many it takes varies.
program fortran_wide
#ifdef MSC_USE_MPI
  use mpi
#endif
  use msc_check
  implicit none
#ifndef MSC_USE_MPI
  include 'mpif.h'
#endif
  integer, parameter :: ns = 10, nb = 100, rounds = 7
  integer :: rank, other, ierr, k, nlen, idx, outcount, done, round, niprobe, provided
  integer :: comm, sub, info, dtype
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 4), reqs(4), indices(4)
  integer :: small(ns), big(nb), rsmall(ns), rbig(nb)
  integer :: ntest(rounds)
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  character(len=32) :: value
  integer(kind=MPI_ADDRESS_KIND) :: addr

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call expect_true(rank, 'MPI_Init_thread provided', provided >= MPI_THREAD_SINGLE)
  other = 1 - rank

  ! Character arguments.
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  call MPI_Comm_set_name(comm, 'fortran dup', ierr)
  call MPI_Comm_get_name(comm, name, nlen, ierr)
  call expect(rank, 'MPI_Comm_get_name length', nlen, 11)
  call expect_true(rank, 'MPI_Comm_get_name is "fortran dup"', name == 'fortran dup')
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'mpiscope_key', 'a value', ierr)
  call MPI_Info_get(info, 'mpiscope_key', len(value), value, flag, ierr)
  call expect_true(rank, 'MPI_Info_get', flag .and. value == 'a value')
  call MPI_Info_free(info, ierr)
  call expect(rank, 'info after MPI_Info_free', info, MPI_INFO_NULL)
  call MPI_Get_processor_name(pname, nlen, ierr)
  call expect_true(rank, 'MPI_Get_processor_name', nlen > 0 .and. nlen == len_trim(pname))
#ifdef MSC_USE_MPI
  ! A Fortran function (MPICH's mpif.h does not declare it).
  addr = MPI_Aint_add(1000_MPI_ADDRESS_KIND, 24_MPI_ADDRESS_KIND)
  call expect(rank, 'MPI_Aint_add', int(addr), 1024)
#endif

  ! MPI_BOTTOM and a datatype of absolute addresses.
  small = 10 + rank
  call MPI_Get_address(small, addr, ierr)
  call MPI_Type_create_hindexed(1, [ns], [addr], MPI_INTEGER, dtype, ierr)
  call MPI_Type_commit(dtype, ierr)
  call MPI_Sendrecv(MPI_BOTTOM, 1, dtype, other, 5, rsmall, ns, MPI_INTEGER, other, 5, comm, &
                    status, ierr) ! SITE:sendrecv
  call expect(rank, 'MPI_Sendrecv from MPI_BOTTOM', rsmall(ns), 10 + other)
  call MPI_Type_free(dtype, ierr)
  call expect(rank, 'datatype after MPI_Type_free', dtype, MPI_DATATYPE_NULL)

  ! Each round completes [isend big, irecv small, isend small, irecv big] differently.
  do round = 1, rounds
    small = 1000 * round + rank
    big = 2000 * round + rank
    rsmall = -1
    rbig = -1
    call MPI_Isend(big, nb, MPI_INTEGER, other, 200 + round, comm, reqs(1), ierr) ! SITE:isend_big
    call MPI_Irecv(rsmall, ns, MPI_INTEGER, other, 100 + round, comm, reqs(2), ierr) ! SITE:irecv_small
    call MPI_Isend(small, ns, MPI_INTEGER, other, 100 + round, comm, reqs(3), ierr) ! SITE:isend_small
    call MPI_Irecv(rbig, nb, MPI_INTEGER, other, 200 + round, comm, reqs(4), ierr) ! SITE:irecv_big
    ntest(round) = 0
    done = 0
    select case (round)
    case (1)
      do k = 1, 4
        call MPI_Waitany(4, reqs, idx, status, ierr)
        call expect(rank, 'requests done after MPI_Waitany', count(reqs == MPI_REQUEST_NULL), k)
      end do
    case (2)
      do while (done < 4)
        call MPI_Testany(4, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
        ntest(round) = ntest(round) + 1
        if (flag) done = done + 1
      end do
    case (3)
      do while (done < 4)
        call MPI_Waitsome(4, reqs, outcount, indices, statuses, ierr)
        ntest(round) = ntest(round) + 1
        done = done + outcount
      end do
    case (4)
      do while (done < 4)
        call MPI_Testsome(4, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
        ntest(round) = ntest(round) + 1
        done = done + outcount
      end do
    case (5)
      do k = 4, 1, -1
        call MPI_Wait(reqs(k), status, ierr)
      end do
    case (6)
      do k = 1, 4
        flag = .false.
        do while (.not. flag)
          call MPI_Test(reqs(k), flag, MPI_STATUS_IGNORE, ierr)
          ntest(round) = ntest(round) + 1
        end do
      end do
    case (7)
      flag = .false.
      do while (.not. flag)
        call MPI_Testall(4, reqs, flag, statuses, ierr)
        ntest(round) = ntest(round) + 1
      end do
    end select
    call expect(rank, 'small message', rsmall(ns), 1000 * round + other)
    call expect(rank, 'big message', rbig(nb), 2000 * round + other)
    do k = 1, 4
      call expect(rank, 'request after completion', reqs(k), MPI_REQUEST_NULL)
    end do
  end do

  ! Persistent requests.
  call MPI_Recv_init(rsmall, ns, MPI_INTEGER, other, 300, comm, reqs(1), ierr) ! SITE:recv_init
  call MPI_Send_init(small, ns, MPI_INTEGER, other, 300, comm, reqs(2), ierr) ! SITE:send_init
  do k = 1, 4
    small = 3000 + 10 * k + rank
    if (k < 4) then
      call MPI_Startall(2, reqs, ierr)
      call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    else
      call MPI_Start(reqs(1), ierr)
      call MPI_Start(reqs(2), ierr)
      call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
      call MPI_Wait(reqs(1), status, ierr)
    end if
    call expect(rank, 'persistent receive', rsmall(1), 3000 + 10 * k + other)
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)
  call expect(rank, 'request after MPI_Request_free', reqs(1), MPI_REQUEST_NULL)

  ! Probes: rank 0 sends 37 and 11 integers, rank 1 learns the sizes first.
  niprobe = 0
  if (rank == 0) then
    call MPI_Send(big, 37, MPI_INTEGER, 1, 400, comm, ierr)
    call MPI_Send(big, 11, MPI_INTEGER, 1, 401, comm, ierr)
  else
    call MPI_Probe(0, 400, comm, status, ierr)
    call MPI_Get_count(status, MPI_INTEGER, k, ierr)
    call expect(rank, 'count of the probed message', k, 37)
    call MPI_Recv(rbig, k, MPI_INTEGER, 0, 400, comm, MPI_STATUS_IGNORE, ierr) ! SITE:recv_probed
    flag = .false.
    do while (.not. flag)
      call MPI_Iprobe(0, 401, comm, flag, MPI_STATUS_IGNORE, ierr)
      niprobe = niprobe + 1
    end do
    call MPI_Recv(rbig, nb, MPI_INTEGER, 0, 401, comm, MPI_STATUS_IGNORE, ierr) ! SITE:recv_iprobed
  end if

  ! A nonblocking barrier; a communicator split and freed.
  call MPI_Ibarrier(comm, reqs(1), ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  call MPI_Comm_split(comm, rank, 0, sub, ierr)
  call MPI_Comm_size(sub, k, ierr)
  call expect(rank, 'size of the split communicator', k, 1)
  call MPI_Comm_free(sub, ierr)
  call expect(rank, 'communicator after MPI_Comm_free', sub, MPI_COMM_NULL)
  call MPI_Comm_free(comm, ierr)

  call expect_calls(rank, 'MPI_Init_thread', 1)
  call expect_calls(rank, 'MPI_Init', 0)
  call expect_calls(rank, 'MPI_Comm_dup', 1)
  call expect_calls(rank, 'MPI_Comm_set_name', 1)
  call expect_calls(rank, 'MPI_Comm_get_name', 1)
  call expect_calls(rank, 'MPI_Info_create', 1)
  call expect_calls(rank, 'MPI_Info_set', 1)
  call expect_calls(rank, 'MPI_Info_get', 1)
  call expect_calls(rank, 'MPI_Info_free', 1)
  call expect_calls(rank, 'MPI_Get_processor_name', 1)
#if defined(MSC_USE_MPI) && defined(MSC_AINT_ADD_COUNTED)
  call expect_calls(rank, 'MPI_Aint_add', 1)
#endif
  call expect_calls(rank, 'MPI_Get_address', 1)
  call expect_calls(rank, 'MPI_Type_create_hindexed', 1)
  call expect_calls(rank, 'MPI_Type_commit', 1)
  call expect_calls(rank, 'MPI_Sendrecv', 1)
  call expect_calls(rank, 'MPI_Type_free', 1)
  call expect_calls(rank, 'MPI_Isend', 2 * rounds)
  call expect_calls(rank, 'MPI_Irecv', 2 * rounds)
  call expect_calls(rank, 'MPI_Waitany', 4)
  call expect_calls(rank, 'MPI_Testany', ntest(2))
  call expect_calls(rank, 'MPI_Waitsome', ntest(3))
  call expect_calls(rank, 'MPI_Testsome', ntest(4))
  call expect_calls(rank, 'MPI_Wait', 4 + 2 + 1)
  call expect_calls(rank, 'MPI_Test', ntest(6))
  call expect_calls(rank, 'MPI_Testall', ntest(7))
  call expect_calls(rank, 'MPI_Recv_init', 1)
  call expect_calls(rank, 'MPI_Send_init', 1)
  call expect_calls(rank, 'MPI_Startall', 3)
  call expect_calls(rank, 'MPI_Waitall', 3)
  call expect_calls(rank, 'MPI_Start', 2)
  call expect_calls(rank, 'MPI_Request_free', 2)
  call expect_calls(rank, 'MPI_Send', merge(2, 0, rank == 0))
  call expect_calls(rank, 'MPI_Probe', merge(0, 1, rank == 0))
  call expect_calls(rank, 'MPI_Get_count', merge(0, 1, rank == 0))
  call expect_calls(rank, 'MPI_Recv', merge(0, 2, rank == 0))
  call expect_calls(rank, 'MPI_Iprobe', niprobe)
  call expect_calls(rank, 'MPI_Ibarrier', 1)
  call expect_calls(rank, 'MPI_Comm_split', 1)
  call expect_calls(rank, 'MPI_Comm_size', 1)
  call expect_calls(rank, 'MPI_Comm_free', 2)
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'fortran wide: all checks passed'
end program
