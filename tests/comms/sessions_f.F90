! sessions_f: sessions.c's "only" case from Fortran: a process that enters
! MPI through MPI_Session_init (never MPI_Init), 100 sends of one integer
! from rank 0 to rank 1 on a communicator from the mpi://WORLD group, one
! MPI_Allreduce, MPI_Session_finalize; rank 0 prints "sum <S>". Built two
! ways: `use mpi` (default: MPICH's layer calls the C MPI_Session_init) and
! `use mpi_f08` (-DMSC_USE_F08: MPICH's calls PMPI_Session_init directly,
! so mpiscope wraps its linker names). check_sessions.py checks the
! profile as for the C program.
program sessions_f
#if defined(MSC_USE_F08)
  use mpi_f08
  implicit none
  type(MPI_Session) :: session
  type(MPI_Group) :: grp
  type(MPI_Comm) :: comm
#else
  use mpi
  implicit none
  integer :: session, grp, comm
#endif
  integer :: ierr, rank, i, v, total

  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session, ierr)
  call MPI_Group_from_session_pset(session, "mpi://WORLD", grp, ierr)
  call MPI_Comm_create_from_group(grp, "org.mpiscope.only.f", MPI_INFO_NULL, &
                                  MPI_ERRORS_RETURN, comm, ierr)
  call MPI_Group_free(grp, ierr)
  call MPI_Comm_rank(comm, rank, ierr)
  do i = 1, 100
    if (rank == 0) call MPI_Send(i, 1, MPI_INTEGER, 1, 0, comm, ierr)
    if (rank == 1) call MPI_Recv(v, 1, MPI_INTEGER, 0, 0, comm, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  if (rank == 0) print '(a,i0)', 'sum ', total
  call MPI_Comm_free(comm, ierr)
  call MPI_Session_finalize(session, ierr)
end program sessions_f
