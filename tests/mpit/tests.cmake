# The MPI_T layer (src/mpit, docs/mpit.md): conformance to section 14.3 of
# the standard with mpiscope loaded, mpiscope's own variables, and several
# sessions read from several threads. Both MPIs; MPICH with 2 ranks at most.
foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} mpit_conformance SOURCES conformance.c)
  msc_mpi_test(${f} mpit/conformance NP 2 PROGRAM mpit_conformance TIMEOUT 120)
endforeach()
