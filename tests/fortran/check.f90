! Checks shared by the Fortran test programs, free of MPI so that programs
! of every binding can use them. A failed check names the rank and what was
! expected, and stops the program with a non-zero exit code.
!
! Call counts come from the tool's mpiscope_calls (include/mpiscope.h),
! looked up with dlsym(RTLD_DEFAULT, ...) so that the programs work with the
! tool preloaded (tests/run-mpi.sh) as well as linked.
module msc_check
  use, intrinsic :: iso_c_binding, only: c_char, c_long_long, c_null_char, c_ptr, &
    c_null_ptr, c_funptr, c_associated, c_f_procpointer
  implicit none
  private
  public :: expect, expect_true, expect_calls

  interface
    function dlsym(handle, symbol) bind(C, name="dlsym") result(fn)
      import :: c_ptr, c_funptr, c_char
      type(c_ptr), value :: handle
      character(kind=c_char), intent(in) :: symbol(*)
      type(c_funptr) :: fn
    end function
  end interface

  abstract interface
    function calls_fn(name) bind(C) result(n)
      import :: c_char, c_long_long
      character(kind=c_char), intent(in) :: name(*)
      integer(c_long_long) :: n
    end function
  end interface

contains

  ! A value the program computed (a result, a status field).
  subroutine expect(rank, what, got, want)
    integer, intent(in) :: rank, got, want
    character(*), intent(in) :: what
    if (got /= want) then
      write (*, '(a,i0,a,a,a,i0,a,i0)') 'rank ', rank, ': ', what, ': got ', got, &
        ', expected ', want
      error stop 1
    end if
  end subroutine

  subroutine expect_true(rank, what, cond)
    integer, intent(in) :: rank
    character(*), intent(in) :: what
    logical, intent(in) :: cond
    if (.not. cond) then
      write (*, '(a,i0,a,a,a)') 'rank ', rank, ': ', what, ': false'
      error stop 1
    end if
  end subroutine

  ! The number of calls of `name` that the tool recorded in this process.
  subroutine expect_calls(rank, name, want)
    integer, intent(in) :: rank, want
    character(*), intent(in) :: name
    procedure(calls_fn), pointer :: calls
    type(c_funptr) :: fn
    integer(c_long_long) :: got
    fn = dlsym(c_null_ptr, 'mpiscope_calls' // c_null_char)  ! RTLD_DEFAULT is NULL in glibc
    if (.not. c_associated(fn)) then
      write (*, '(a,i0,a)') 'rank ', rank, ': mpiscope_calls not found: is libmpiscope.so loaded?'
      error stop 1
    end if
    call c_f_procpointer(fn, calls)
    got = calls(name // c_null_char)
    if (got /= want) then
      write (*, '(a,i0,a,a,a,i0,a,i0)') 'rank ', rank, ': mpiscope recorded ', name, ' ', &
        got, ' times, expected ', want
      error stop 1
    end if
  end subroutine

end module
