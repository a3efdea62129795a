# The MPI_T layer (src/mpit, docs/mpit.md): conformance to section 14.3 of
# the standard with mpiscope loaded, mpiscope's own variables, and several
# sessions read from several threads. Both MPIs; MPICH with 2 ranks at most.
foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} mpit_conformance SOURCES conformance.c)
  msc_mpi_program(${f} mpit_ownvars SOURCES ownvars.c)
  msc_mpi_program(${f} mpit_threads SOURCES threads.c)
  msc_mpi_test(${f} mpit/conformance NP 2 PROGRAM mpit_conformance TIMEOUT 120)
  msc_mpi_test(${f} mpit/ownvars NP 2 PROGRAM mpit_ownvars TIMEOUT 120)
  msc_mpi_test(${f} mpit/threads NP 1 PROGRAM mpit_threads TIMEOUT 120)
endforeach()
# Communicators of other sizes (4 ranks; Open MPI only, see above).
if("openmpi" IN_LIST MSC_FLAVORS)
  msc_mpi_test(openmpi mpit/ownvars-4 NP 4 PROGRAM mpit_ownvars TIMEOUT 120)
endif()
