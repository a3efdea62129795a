! The program of wide.F90 through `use mpi_f08`, with handles of their own
! types, ierror left out of most calls, and (-DMSC_LARGE: MPICH) the MPI_Count
! forms, which the library exports as *_f08ts_large_ and the tool counts as
! MPI_Send_c and so on.
program fortran_wide_f08
  use mpi_f08
  use msc_check
  implicit none
  integer, parameter :: ns = 10, nb = 100, rounds = 7
  integer :: rank, other, ierr, k, nlen, idx, outcount, done, round, niprobe, provided
  type(MPI_Comm) :: comm, sub
  type(MPI_Info) :: info
  type(MPI_Datatype) :: dtype
  type(MPI_Status) :: status, statuses(4)
  type(MPI_Request) :: reqs(4)
  integer :: indices(4)
  integer :: small(ns), big(nb), rsmall(ns), rbig(nb)
  integer :: ntest(rounds)
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  character(len=32) :: value
  integer(kind=MPI_ADDRESS_KIND) :: addr
#ifdef MSC_LARGE
  integer(kind=MPI_COUNT_KIND) :: ncount
#endif

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call expect_true(rank, 'MPI_Init_thread provided', provided >= MPI_THREAD_SINGLE)
  other = 1 - rank

  ! Character arguments.
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)
  call MPI_Comm_set_name(comm, 'fortran dup')
  call MPI_Comm_get_name(comm, name, nlen, ierr)
  call expect(rank, 'MPI_Comm_get_name length', nlen, 11)
  call expect_true(rank, 'MPI_Comm_get_name is "fortran dup"', name == 'fortran dup')
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'mpiscope_key', 'a value', ierr)
  call MPI_Info_get(info, 'mpiscope_key', len(value), value, flag)
  call expect_true(rank, 'MPI_Info_get', flag .and. value == 'a value')
  call MPI_Info_free(info)
  call expect(rank, 'info after MPI_Info_free', info%MPI_VAL, MPI_INFO_NULL%MPI_VAL)
  call MPI_Get_processor_name(pname, nlen)
  call expect_true(rank, 'MPI_Get_processor_name', nlen > 0 .and. nlen == len_trim(pname))
  ! A Fortran function.
  addr = MPI_Aint_add(1000_MPI_ADDRESS_KIND, 24_MPI_ADDRESS_KIND)
  call expect(rank, 'MPI_Aint_add', int(addr), 1024)

  ! MPI_BOTTOM and a datatype of absolute addresses.
  small = 10 + rank
  call MPI_Get_address(small, addr)
  call MPI_Type_create_hindexed(1, [ns], [addr], MPI_INTEGER, dtype)
  call MPI_Type_commit(dtype)
  call MPI_Sendrecv(MPI_BOTTOM, 1, dtype, other, 5, rsmall, ns, MPI_INTEGER, other, 5, comm, &
                    status) ! SITE:sendrecv
  call expect(rank, 'MPI_Sendrecv from MPI_BOTTOM', rsmall(ns), 10 + other)
  call MPI_Type_free(dtype)
  call expect(rank, 'datatype after MPI_Type_free', dtype%MPI_VAL, MPI_DATATYPE_NULL%MPI_VAL)

  ! Each round completes [isend big, irecv small, isend small, irecv big] differently.
  do round = 1, rounds
    small = 1000 * round + rank
    big = 2000 * round + rank
    rsmall = -1
    rbig = -1
    call MPI_Isend(big, nb, MPI_INTEGER, other, 200 + round, comm, reqs(1)) ! SITE:isend_big
    call MPI_Irecv(rsmall, ns, MPI_INTEGER, other, 100 + round, comm, reqs(2)) ! SITE:irecv_small
    call MPI_Isend(small, ns, MPI_INTEGER, other, 100 + round, comm, reqs(3)) ! SITE:isend_small
    call MPI_Irecv(rbig, nb, MPI_INTEGER, other, 200 + round, comm, reqs(4)) ! SITE:irecv_big
    ntest(round) = 0
    done = 0
    select case (round)
    case (1)
      do k = 1, 4
        ! Not reqs(idx): MPICH 4.0's mpi_f08 returns a 0-based idx (pmodels/mpich#6270).
        call MPI_Waitany(4, reqs, idx, status)
        call expect(rank, 'requests done after MPI_Waitany', &
                    count(reqs%MPI_VAL == MPI_REQUEST_NULL%MPI_VAL), k)
      end do
    case (2)
      do while (done < 4)
        call MPI_Testany(4, reqs, idx, flag, MPI_STATUS_IGNORE)
        ntest(round) = ntest(round) + 1
        if (flag) done = done + 1
      end do
    case (3)
      do while (done < 4)
        call MPI_Waitsome(4, reqs, outcount, indices, statuses)
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
        call MPI_Wait(reqs(k), status)
      end do
    case (6)
      do k = 1, 4
        flag = .false.
        do while (.not. flag)
          call MPI_Test(reqs(k), flag, MPI_STATUS_IGNORE)
          ntest(round) = ntest(round) + 1
        end do
      end do
    case (7)
      flag = .false.
      do while (.not. flag)
        call MPI_Testall(4, reqs, flag, statuses)
        ntest(round) = ntest(round) + 1
      end do
    end select
    call expect(rank, 'small message', rsmall(ns), 1000 * round + other)
    call expect(rank, 'big message', rbig(nb), 2000 * round + other)
    do k = 1, 4
      call expect(rank, 'request after completion', reqs(k)%MPI_VAL, MPI_REQUEST_NULL%MPI_VAL)
    end do
  end do

  ! Persistent requests.
  call MPI_Recv_init(rsmall, ns, MPI_INTEGER, other, 300, comm, reqs(1)) ! SITE:recv_init
  call MPI_Send_init(small, ns, MPI_INTEGER, other, 300, comm, reqs(2)) ! SITE:send_init
  do k = 1, 4
    small = 3000 + 10 * k + rank
    if (k < 4) then
      call MPI_Startall(2, reqs)
      call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    else
      call MPI_Start(reqs(1))
      call MPI_Start(reqs(2))
      call MPI_Wait(reqs(2), MPI_STATUS_IGNORE)
      call MPI_Wait(reqs(1), status)
    end if
    call expect(rank, 'persistent receive', rsmall(1), 3000 + 10 * k + other)
  end do
  call MPI_Request_free(reqs(1))
  call MPI_Request_free(reqs(2))
  call expect(rank, 'request after MPI_Request_free', reqs(1)%MPI_VAL, MPI_REQUEST_NULL%MPI_VAL)

  ! Probes: rank 0 sends 37 and 11 integers, rank 1 learns the sizes first.
  niprobe = 0
  if (rank == 0) then
    call MPI_Send(big, 37, MPI_INTEGER, 1, 400, comm)
    call MPI_Send(big, 11, MPI_INTEGER, 1, 401, comm)
  else
    call MPI_Probe(0, 400, comm, status)
    call MPI_Get_count(status, MPI_INTEGER, k)
    call expect(rank, 'count of the probed message', k, 37)
    call MPI_Recv(rbig, k, MPI_INTEGER, 0, 400, comm, MPI_STATUS_IGNORE) ! SITE:recv_probed
    flag = .false.
    do while (.not. flag)
      call MPI_Iprobe(0, 401, comm, flag, MPI_STATUS_IGNORE)
      niprobe = niprobe + 1
    end do
    call MPI_Recv(rbig, nb, MPI_INTEGER, 0, 401, comm, MPI_STATUS_IGNORE) ! SITE:recv_iprobed
  end if
#ifdef MSC_LARGE
  ! The MPI_Count forms.
  if (rank == 0) then
    call MPI_Send(big, 5_MPI_COUNT_KIND, MPI_INTEGER, 1, 500, comm)
  else
    call MPI_Recv(rbig, 5_MPI_COUNT_KIND, MPI_INTEGER, 0, 500, comm, status)
    call MPI_Get_count(status, MPI_INTEGER, ncount)
    call expect(rank, 'MPI_Get_count with an MPI_Count', int(ncount), 5)
  end if
#endif

  ! A nonblocking barrier; a communicator split and freed.
  call MPI_Ibarrier(comm, reqs(1))
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call MPI_Comm_split(comm, rank, 0, sub)
  call MPI_Comm_size(sub, k)
  call expect(rank, 'size of the split communicator', k, 1)
  call MPI_Comm_free(sub)
  call expect(rank, 'communicator after MPI_Comm_free', sub%MPI_VAL, MPI_COMM_NULL%MPI_VAL)
  call MPI_Comm_free(comm)

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
#ifdef MSC_AINT_ADD_COUNTED
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
#ifdef MSC_LARGE
  call expect_calls(rank, 'MPI_Send_c', merge(1, 0, rank == 0))
  call expect_calls(rank, 'MPI_Recv_c', merge(0, 1, rank == 0))
  call expect_calls(rank, 'MPI_Get_count_c', merge(0, 1, rank == 0))
#endif
  call expect_calls(rank, 'MPI_Ibarrier', 1)
  call expect_calls(rank, 'MPI_Comm_split', 1)
  call expect_calls(rank, 'MPI_Comm_size', 1)
  call expect_calls(rank, 'MPI_Comm_free', 2)
  call MPI_Finalize()
  if (rank == 0) print '(a)', 'fortran wide: all checks passed'
end program
