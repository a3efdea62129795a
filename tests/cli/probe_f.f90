! Test program for `mpiscope run` MPI detection: a Fortran program, linked
! with the MPI's Fortran library (libmpi_mpifh, libmpichfort) as well.
program probe_f
  implicit none
  include 'mpif.h'
  integer :: ierr
  call MPI_Init(ierr)
  call MPI_Finalize(ierr)
end program probe_f
