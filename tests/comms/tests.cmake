# Communicators that come into being later: the nonblocking constructors
# (MPI_Comm_idup, MPI_Comm_idup_with_info), whose communicator exists only
# when the request completes. idup.c completes them in every way a program
# can, one while its peer waits for a message; each mode must record the new
# communicators exactly (profile: the matrix and counts, check_comms.py;
# trace: every Enter counted and every message matched per communicator,
# check_trace.py; check: no finding, and with "bug" the two errors made on
# them, expect.py). Open MPI 4 ranks, MPICH 2 (it busy-polls past the cores).
set(comms_profile "${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_comms.py $MSC_OUT")
set(comms_trace "/usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/trace/check_trace.py $MSC_OUT")
set(comms_expect "${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/check/expect.py $MSC_OUT/checks.json")
foreach(f IN LISTS MSC_FLAVORS)
  set(np 2)
  if(f STREQUAL "openmpi")
    set(np 4)
  endif()
  msc_mpi_program(${f} comms_idup SOURCES idup.c)
  msc_mpi_test(${f} comms/idup-profile-trace NP ${np} PROGRAM comms_idup TIMEOUT 120
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
    CHECK "${comms_profile} ${np} 3 c && ${comms_trace}")
  msc_mpi_test(${f} comms/idup-check NP ${np} PROGRAM comms_idup TIMEOUT 120
    ENV MPISCOPE_MODE=check MPISCOPE_QUIET=1
    CHECK "grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
  msc_mpi_test(${f} comms/idup-check-bug NP ${np} PROGRAM comms_idup ARGS bug TIMEOUT 120
    ENV MPISCOPE_MODE=check MPISCOPE_QUIET=1
    CHECK "${comms_expect} ${CMAKE_CURRENT_LIST_DIR}/idup.c")
  if(MSC_${f}_MPIFC)
    foreach(b mpif usempi f08)
      set(flags)
      if(b STREQUAL "usempi")
        set(flags -DMSC_USE_MPI)
      elseif(b STREQUAL "f08")
        set(flags -DMSC_USE_F08)
      endif()
      msc_mpi_program(${f} comms_idup_${b} LANG Fortran SOURCES idup_f.F90 FLAGS ${flags})
      msc_mpi_test(${f} comms/idup-fortran-${b} NP 2 PROGRAM comms_idup_${b} TIMEOUT 120
        ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
        CHECK "${comms_profile} 2 3 fortran && ${comms_trace}")
      msc_mpi_test(${f} comms/idup-fortran-${b}-check NP 2 PROGRAM comms_idup_${b} TIMEOUT 120
        ENV MPISCOPE_MODE=check MPISCOPE_QUIET=1
        CHECK "grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
    endforeach()
  endif()
endforeach()

# MPI-4 sessions (MPICH: Open MPI 4.1 has none): a process that enters MPI
# through MPI_Session_init is profiled without MPI_Init and without any
# collective of the tool's; each process writes its own profile and the last
# joins them (check_sessions.py: the exact sends of each case of
# sessions.c). Trace and check are not run in such a process, and say so.
if("mpich" IN_LIST MSC_FLAVORS)
  msc_mpi_program(mpich comms_sessions SOURCES sessions.c)
  set(sess_check "${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_sessions.py $MSC_OUT")
  foreach(c only two session-first init-first)
    msc_mpi_test(mpich comms/sessions-${c} NP 2 PROGRAM comms_sessions ARGS ${c} TIMEOUT 120
      ENV MPISCOPE_QUIET=1 MSC_KEEP_STDOUT=1
      CHECK "${sess_check} ${c} 2")
  endforeach()
  msc_mpi_test(mpich comms/sessions-only-np3 NP 3 PROGRAM comms_sessions ARGS only TIMEOUT 120
    ENV MPISCOPE_QUIET=1 MSC_KEEP_STDOUT=1
    CHECK "${sess_check} only 3")
  foreach(m trace check)
    msc_mpi_test(mpich comms/sessions-only-${m} NP 2 PROGRAM comms_sessions ARGS only TIMEOUT 120
      ENV MPISCOPE_MODE=profile,${m} MPISCOPE_QUIET=1 MSC_KEEP_STDOUT=1 MSC_KEEP_STDERR=1
      CHECK "${sess_check} only 2 ${m}")
  endforeach()
  # The same from Fortran: `use mpi` reaches the C MPI_Session_init, and
  # MPICH's mpi_f08 PMPI_Session_init directly (wrapped by its linker names).
  if(MSC_mpich_MPIFC)
    foreach(b usempi f08)
      set(flags)
      if(b STREQUAL "f08")
        set(flags -DMSC_USE_F08)
      endif()
      msc_mpi_program(mpich comms_sessions_${b} LANG Fortran SOURCES sessions_f.F90 FLAGS ${flags})
      msc_mpi_test(mpich comms/sessions-only-fortran-${b} NP 2 PROGRAM comms_sessions_${b}
        TIMEOUT 120 ENV MPISCOPE_QUIET=1 MSC_KEEP_STDOUT=1
        CHECK "${sess_check} only 2")
    endforeach()
  endif()
  # Trace alone: nothing can be recorded in a sessions process, and it says so.
  msc_mpi_test(mpich comms/sessions-only-trace-alone NP 2 PROGRAM comms_sessions ARGS only
    TIMEOUT 120 ENV MPISCOPE_MODE=trace MPISCOPE_QUIET=1 MSC_KEEP_STDERR=1
    CHECK "test \"$(grep -c 'not run in it: trace (docs/worlds.md). MPISCOPE_MODE does not ask for the profile, so nothing is recorded' $MSC_OUT/.stderr)\" = 1 && test ! -e $MSC_OUT/profile.json")
  # Begun by MPI_Init, the world model's trace covers the session's
  # communicator too: every message matched.
  msc_mpi_test(mpich comms/sessions-init-first-trace NP 2 PROGRAM comms_sessions
    ARGS init-first TIMEOUT 120
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1 MSC_KEEP_STDOUT=1
    CHECK "${sess_check} init-first 2 && ${comms_trace}")
endif()

# Worlds that MPI_Comm_spawn makes (a tree two levels deep, spawn.c) each
# write into a directory of their own, worlds/<id>: nothing is written over
# (check_spawn.py: every world's exact calls; its own trace archive, valid,
# with the messages across worlds left out; no finding). Open MPI only:
# MPICH 4.0.2's spawn fails natively on this machine (exit 15).
if("openmpi" IN_LIST MSC_FLAVORS)
  msc_mpi_program(openmpi comms_spawn SOURCES spawn.c)
  set(spawn_check "${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_spawn.py $MSC_OUT")
  msc_mpi_test(openmpi comms/spawn-tree-trace NP 2 PROGRAM comms_spawn TIMEOUT 180
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1 MSC_KEEP_STDOUT=1
    CHECK "grep -q 'spawn tree done' $MSC_OUT/.stdout && ${spawn_check} 2 trace")
  msc_mpi_test(openmpi comms/spawn-tree-check NP 2 PROGRAM comms_spawn TIMEOUT 180
    ENV MPISCOPE_MODE=profile,check MPISCOPE_QUIET=1
    CHECK "${spawn_check} 2 check")
endif()

# One world of two programs (mpmd.c): started by the launcher with two
# commands (MPMD, both MPIs), or made by MPI_Comm_spawn_multiple (Open MPI:
# MPICH 4.0.2's spawn fails natively here). Each world's profile lists every
# command line with its ranks (run.commands, profile.txt) and its exact
# calls and matrix cells (check_mpmd.py); traced, every message matched;
# no finding in check mode.
foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} comms_mpmd SOURCES mpmd.c)
  if(TARGET mpiscope)
    foreach(mode trace check)
      add_test(NAME ${f}/comms/mpmd-${mode}
        COMMAND ${CMAKE_CURRENT_LIST_DIR}/mpmd.sh ${f} ${MSC_${f}_MPIRUN}
                ${MSC_TEST_BIN}/${f}/comms_mpmd $<TARGET_FILE:mpiscope> ${mode})
      set_tests_properties(${f}/comms/mpmd-${mode} PROPERTIES TIMEOUT 120
        LABELS "mpi;${f}" ENVIRONMENT "MSC_OUT=${MSC_TEST_OUT}/${f}_comms_mpmd-${mode}")
    endforeach()
  endif()
endforeach()
if("openmpi" IN_LIST MSC_FLAVORS)
  set(mpmd_check "${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_mpmd.py $MSC_OUT ${MSC_TEST_BIN}/openmpi/comms_mpmd")
  msc_mpi_test(openmpi comms/spawn-multiple-trace NP 2 PROGRAM comms_mpmd TIMEOUT 180
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1 MSC_KEEP_STDOUT=1
    CHECK "grep -q 'mpmd done' $MSC_OUT/.stdout && ${mpmd_check} spawn 2 trace")
  msc_mpi_test(openmpi comms/spawn-multiple-check NP 2 PROGRAM comms_mpmd TIMEOUT 180
    ENV MPISCOPE_MODE=profile,check MPISCOPE_QUIET=1
    CHECK "${mpmd_check} spawn 2 check")
endif()

# Two ranks joined by MPI_Comm_join through a loopback socket (join.c):
# the intercommunicator's messages are the world's (check_join.py: exact
# calls, bytes and matrix cells); traced, every message matched; no
# finding in check mode. Open MPI only: MPICH 4.0.2's join fails natively
# here ("Unable to establish a port": its UCX netmod has no ports).
if("openmpi" IN_LIST MSC_FLAVORS)
  msc_mpi_program(openmpi comms_join SOURCES join.c)
  set(join_check "${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_join.py $MSC_OUT 3")
  msc_mpi_test(openmpi comms/join-profile-trace NP 3 PROGRAM comms_join TIMEOUT 120
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1 MSC_KEEP_STDOUT=1
    CHECK "grep -q 'join done: 2' $MSC_OUT/.stdout && ${join_check} && ${comms_trace}")
  msc_mpi_test(openmpi comms/join-check NP 3 PROGRAM comms_join TIMEOUT 120
    ENV MPISCOPE_MODE=profile,check MPISCOPE_QUIET=1
    CHECK "${join_check} check")
endif()

# Partitioned communication (MPI-4: MPICH): each MPI_Start ... MPI_Wait
# cycle is one message of all the partitions (check_partitioned.py); traced
# as a persistent send and receive (every message matched: check_trace.py)
# with an event per partition readied or asked for
# (check_partitioned_trace.py); no finding in check mode.
if("mpich" IN_LIST MSC_FLAVORS)
  msc_mpi_program(mpich comms_partitioned SOURCES partitioned.c)
  set(part_check "${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_partitioned.py $MSC_OUT")
  msc_mpi_test(mpich comms/partitioned-profile-trace NP 2 PROGRAM comms_partitioned TIMEOUT 120
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
    CHECK "${part_check} && ${comms_trace} && /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_partitioned_trace.py $MSC_OUT")
  msc_mpi_test(mpich comms/partitioned-check NP 2 PROGRAM comms_partitioned TIMEOUT 120
    ENV MPISCOPE_MODE=profile,check MPISCOPE_QUIET=1
    CHECK "${part_check} && grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
endif()

# MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4: MPICH): one request for
# a send and a receive; exact counts (check_isendrecv.py), every message
# matched in the trace, no finding in check mode, and with "bug" the type
# mismatch of the receive half found.
if("mpich" IN_LIST MSC_FLAVORS)
  msc_mpi_program(mpich comms_isendrecv SOURCES isendrecv.c)
  set(isr_check "${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_isendrecv.py $MSC_OUT")
  msc_mpi_test(mpich comms/isendrecv-profile-trace NP 2 PROGRAM comms_isendrecv TIMEOUT 120
    ENV MPISCOPE_MODE=profile,trace MPISCOPE_QUIET=1
    CHECK "${isr_check} 2 && ${comms_trace}")
  msc_mpi_test(mpich comms/isendrecv-check NP 2 PROGRAM comms_isendrecv TIMEOUT 120
    ENV MPISCOPE_MODE=profile,check MPISCOPE_QUIET=1
    CHECK "${isr_check} 2 && grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
  msc_mpi_test(mpich comms/isendrecv-check-bug NP 2 PROGRAM comms_isendrecv ARGS bug TIMEOUT 120
    ENV MPISCOPE_MODE=check MPISCOPE_QUIET=1
    CHECK "${comms_expect} ${CMAKE_CURRENT_LIST_DIR}/isendrecv.c bug")
  # Its LOCAL:BUFFER:TYPE_MISMATCH is a local array's: built with ASan, the
  # program's locals live in ASan's own frame, which DWARF does not give as
  # a frame-base offset, so the sanitizer pass cannot see it.
  set_property(TEST mpich/comms/isendrecv-check-bug APPEND PROPERTY LABELS no-sanitizer)
endif()

# Connect/accept between two jobs launched separately (Open MPI, through its
# ompi-server; MPICH's Hydra has no name server across mpiexec runs).
if("openmpi" IN_LIST MSC_FLAVORS)
  msc_mpi_program(openmpi comms_connect SOURCES connect.c)
  add_test(NAME openmpi/comms/connect-accept
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/connect.sh ${CMAKE_BINARY_DIR}/bin/mpiscope
            ${MSC_TEST_BIN}/openmpi/comms_connect ${MSC_TEST_OUT}/openmpi_comms_connect-accept)
  set_tests_properties(openmpi/comms/connect-accept PROPERTIES TIMEOUT 180
    LABELS "mpi;openmpi" PROCESSORS 2)
endif()
