# Trace: OTF2 archives read back with the OTF2 reader (check_trace.py, with
# /usr/bin/python3 and python3-otf2): exact Enter counts per rank, message
# matching, request completion, monotonic time, nesting, unified communicators.
set(trc_check "/usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_trace.py $MSC_OUT")
foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} trace_mixed SOURCES mixed.c)
  msc_mpi_test(${f} trace/mixed NP 2 PROGRAM trace_mixed ENV MPISCOPE_MODE=trace
               CHECK "${trc_check}" TIMEOUT 120)
  # Clock correction: rank r's clock is r * 50 ms behind; after the offsets
  # measured at init and finalize no receive may end before its send begins.
  msc_mpi_test(${f} trace/skew NP 2 PROGRAM trace_mixed ARGS 50
               ENV MPISCOPE_MODE=trace MPISCOPE_TEST_CLOCK_SKEW=50000
               CHECK "${trc_check}" TIMEOUT 120)
  # Bounded memory: a 512 KiB buffer and 30000 ping-pongs force flushes to
  # disk, which show as BufferFlush events; nothing is lost.
  msc_mpi_test(${f} trace/flush NP 2 PROGRAM trace_mixed ARGS 30000
               ENV MPISCOPE_MODE=trace MPISCOPE_TRACE_BUFFER=512K
               CHECK "${trc_check} --flushes" TIMEOUT 180)
  # The demo: a halo exchange whose two small Isends per step complete inline,
  # so the MPI hands out one shared completed request for both (Open MPI's
  # ompi_request_empty): each must still get its own MpiIsendComplete.
  msc_mpi_program(${f} trace_demo SOURCES ../../examples/demo.c)
  msc_mpi_test(${f} trace/demo NP 2 PROGRAM trace_demo ARGS 50 ENV MPISCOPE_MODE=profile,trace
               CHECK "${trc_check}" TIMEOUT 120)
  # Shared request handles (issue 15): 100 small Isends per Waitall, whose
  # handles the MPI shares, and the same from 4 threads per rank; every
  # operation completes exactly once on the location that posted it.
  msc_mpi_program(${f} trace_requests SOURCES requests.c)
  msc_mpi_test(${f} trace/requests-shared NP 2 PROGRAM trace_requests ARGS shared 20
               ENV MPISCOPE_MODE=trace CHECK "${trc_check}" TIMEOUT 120)
  msc_mpi_test(${f} trace/requests-threads NP 2 PROGRAM trace_requests ARGS threads 40
               ENV MPISCOPE_MODE=trace CHECK "${trc_check}" TIMEOUT 120)
  # A communicator freed while a receive and a send on it are pending
  # (MPICH's comm/cmfree2): both complete on the freed communicator.
  msc_mpi_program(${f} trace_commfree SOURCES commfree.c)
  msc_mpi_test(${f} trace/comm-freed-pending NP 2 PROGRAM trace_commfree
               ENV MPISCOPE_MODE=profile,trace CHECK "${trc_check}" TIMEOUT 120)
  # One-sided communication: RMA records per rank exactly as rma.c made them.
  msc_mpi_program(${f} trace_rma SOURCES rma.c)
  # (Open MPI: osc pt2pt, since run-mpi.sh turns off the single-copy mechanism osc rdma needs.)
  msc_mpi_test(${f} trace/rma NP 2 PROGRAM trace_rma ENV MPISCOPE_MODE=trace OMPI_MCA_osc=pt2pt
               CHECK "${trc_check} --rma" TIMEOUT 120)
  # The same records from Fortran (use mpi): RMA and MPI-IO, preloaded.
  msc_mpi_program(${f} trace_rma_io_f SOURCES rma_io.f90 LANG Fortran)
  msc_mpi_test(${f} trace/fortran-rma-io NP 2 PROGRAM trace_rma_io_f ENV MPISCOPE_MODE=trace
               OMPI_MCA_osc=pt2pt CHECK "${trc_check} --fortran" TIMEOUT 120)
  # MPI-IO: I/O records per rank exactly as io.c made them.
  msc_mpi_program(${f} trace_io SOURCES io.c)
  msc_mpi_test(${f} trace/io NP 2 PROGRAM trace_io ENV MPISCOPE_MODE=trace
               CHECK "${trc_check} --io" TIMEOUT 120)
  # The same with the profile, which now sees file requests complete in Wait.
  msc_mpi_test(${f} trace/io-with-profile NP 2 PROGRAM trace_io ENV MPISCOPE_MODE=profile,trace
               CHECK "${trc_check} --io" TIMEOUT 120)
  # Flush on request: what MPI_Pcontrol(2) or VT_flush leaves on disk at that
  # moment is exactly the trace up to the call (copies read back).
  msc_mpi_program(${f} trace_flush_now SOURCES flush_now.c)
  msc_mpi_test(${f} trace/pcontrol-flush NP 2 PROGRAM trace_flush_now ARGS pcontrol
               ENV MPISCOPE_MODE=trace
               CHECK "/usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_flush.py $MSC_OUT pcontrol"
               TIMEOUT 120)
  # A second thread flushes its own location at its next MPI call.
  msc_mpi_test(${f} trace/thread-flush NP 2 PROGRAM trace_flush_now ARGS thread
               ENV MPISCOPE_MODE=trace
               CHECK "/usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_flush.py $MSC_OUT thread"
               TIMEOUT 120)
  # A thread whose first MPI call is MPI_Pcontrol(2): the run ends normally and
  # its later call is traced (2 MPI_Comm_rank per rank).
  msc_mpi_test(${f} trace/first-call-pcontrol NP 2 PROGRAM trace_flush_now ARGS first-pcontrol
               ENV MPISCOPE_MODE=profile,trace
               CHECK "test $(otf2-print $MPISCOPE_OUTPUT/trace/traces.otf2 | grep -c '^ENTER .*MPI_Comm_rank') -eq 4"
               TIMEOUT 120)
  msc_mpi_program(${f} trace_flush_now_vt SOURCES flush_now.c FLAGS -DUSE_VT LINK_MPISCOPE)
  msc_mpi_test(${f} trace/vt-flush NP 2 PROGRAM trace_flush_now_vt ARGS vt NO_TOOL
               ENV MPISCOPE_MODE=trace
               CHECK "/usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_flush.py $MSC_OUT vt"
               TIMEOUT 120)
  # Trace together with the profile.
  msc_mpi_test(${f} trace/with-profile NP 2 PROGRAM trace_mixed
               ENV MPISCOPE_MODE=profile,trace CHECK "${trc_check}" TIMEOUT 120)
  # Call sites: each MPI call's Enter is at the file and line of the call
  # (marked in the source), the attribute only where the site changes, and
  # again after a flush; from C (also in an unordered period) and Fortran.
  set(sites_check "/usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_sites.py $MSC_OUT")
  msc_mpi_program(${f} trace_sites SOURCES sites.c)
  msc_mpi_test(${f} trace/sites NP 2 PROGRAM trace_sites ENV MPISCOPE_MODE=trace
               CHECK "${sites_check} ${CMAKE_CURRENT_LIST_DIR}/sites.c c" TIMEOUT 120)
  msc_mpi_program(${f} trace_sites_vt SOURCES sites.c FLAGS -DUSE_VT LINK_MPISCOPE)
  msc_mpi_test(${f} trace/sites-unordered NP 2 PROGRAM trace_sites_vt NO_TOOL
               ENV MPISCOPE_MODE=trace
               CHECK "${sites_check} ${CMAKE_CURRENT_LIST_DIR}/sites.c c" TIMEOUT 120)
  msc_mpi_program(${f} trace_sites_f SOURCES sites.f90 LANG Fortran)
  msc_mpi_test(${f} trace/sites-fortran NP 2 PROGRAM trace_sites_f ENV MPISCOPE_MODE=trace
               CHECK "${sites_check} ${CMAKE_CURRENT_LIST_DIR}/sites.f90 fortran" TIMEOUT 120)
endforeach()
if(openmpi IN_LIST MSC_FLAVORS)
  # Eight ranks (oversubscribed), and an odd count with a rank left without partner.
  msc_mpi_test(openmpi trace/mixed-8 NP 8 PROGRAM trace_mixed ENV MPISCOPE_MODE=trace
               CHECK "${trc_check}" TIMEOUT 240)
  msc_mpi_test(openmpi trace/mixed-3 NP 3 PROGRAM trace_mixed ENV MPISCOPE_MODE=trace
               CHECK "${trc_check}" TIMEOUT 120)
  msc_mpi_test(openmpi trace/skew-4 NP 4 PROGRAM trace_mixed ARGS 50
               ENV MPISCOPE_MODE=trace MPISCOPE_TEST_CLOCK_SKEW=50000
               CHECK "${trc_check}" TIMEOUT 180)
endif()
