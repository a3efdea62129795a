# VT_ API (include/VT.h, VT.inc): one run per group of calls, the trace read
# back with check_vt.py (/usr/bin/python3 and python3-otf2). The programs
# link -lmpiscope as Intel Trace Collector users link libVT; each group runs
# with the library only linked (NO_TOOL) and preloaded as `mpiscope run`
# does, for C and Fortran, on both MPIs.
set(vt_check "/usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_vt.py $MSC_OUT")
foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} vt_api SOURCES vt_api.c LINK_MPISCOPE)
  # Counter values of any type go through one untyped argument, as in MPI.
  msc_mpi_program(${f} vt_api_f SOURCES vt_api.f90 LANG Fortran LINK_MPISCOPE
                  FLAGS -fallow-argument-mismatch)
  foreach(g control regions comm unordered counters misuse)
    msc_mpi_test(${f} vt/${g} NP 2 PROGRAM vt_api ARGS ${g} NO_TOOL
                 ENV MPISCOPE_MODE=trace CHECK "${vt_check} ${g}" TIMEOUT 120)
    msc_mpi_test(${f} vt/${g}-preload NP 2 PROGRAM vt_api ARGS ${g}
                 ENV MPISCOPE_MODE=trace CHECK "${vt_check} ${g}" TIMEOUT 120)
  endforeach()
  foreach(g control regions comm unordered counters misuse)
    msc_mpi_test(${f} vt/fortran-${g} NP 2 PROGRAM vt_api_f ARGS ${g} NO_TOOL
                 ENV MPISCOPE_MODE=trace CHECK "${vt_check} ${g}" TIMEOUT 120)
    # Preloaded on top, as `mpiscope run` does.
    msc_mpi_test(${f} vt/fortran-${g}-preload NP 2 PROGRAM vt_api_f ARGS ${g}
                 ENV MPISCOPE_MODE=trace CHECK "${vt_check} ${g}" TIMEOUT 120)
  endforeach()
  # Trace and profile: user-region time, and MPI time by enclosing region.
  msc_mpi_test(${f} vt/regions-profile NP 2 PROGRAM vt_api ARGS regions NO_TOOL
               ENV MPISCOPE_MODE=profile,trace
               CHECK "${vt_check} regions --profile && $MSC_BINARY_DIR/bin/mpiscope report --no-waitstates $MPISCOPE_OUTPUT | grep -Eq '^  Solver:inner +6 +[0-9.]+ +6 +[0-9.]+$'"
               TIMEOUT 120)
  # Profile only: the API keeps working without the trace.
  msc_mpi_test(${f} vt/comm-no-trace NP 2 PROGRAM vt_api ARGS comm NO_TOOL
               ENV MPISCOPE_MODE=profile TIMEOUT 120)
  msc_mpi_test(${f} vt/misuse-mode-none NP 2 PROGRAM vt_api ARGS misuse NO_TOOL
               ENV MPISCOPE_MODE=none TIMEOUT 120)
endforeach()

# The API's tables and nesting at their bounds: VT_ERR_NOMEMORY past each,
# no crash, the recorded regions still nested in the trace.
foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} vt_bounds SOURCES vt_bounds.c LINK_MPISCOPE)
  msc_mpi_test(${f} vt/bounds NP 2 PROGRAM vt_bounds NO_TOOL ENV MPISCOPE_MODE=trace
               CHECK "/usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_vt_bounds.py $MSC_OUT" TIMEOUT 180)
endforeach()
