# Reliability: a job that fails for its own reasons fails the same way with
# mpiscope loaded, and each rank that went down says why (rank-N.incomplete).
foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} dies SOURCES dies.c)
  set(lib ${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so)
  foreach(case "exit;none" "segv;1:SEGV" "term;1:TERM" "abort;1:MPI_Abort")
    list(GET case 0 how)
    list(GET case 1 note)
    add_test(NAME ${f}/reliability/${how}
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/same-exit.sh ${f} 2 ${MSC_TEST_BIN}/${f}/dies ${how} ${note})
    set_tests_properties(${f}/reliability/${how} PROPERTIES TIMEOUT 120 LABELS "mpi;${f};reliability"
      ENVIRONMENT "MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${lib};MSC_OUT=${MSC_TEST_OUT}/${f}_reliability_${how}")
  endforeach()
endforeach()

foreach(f IN LISTS MSC_FLAVORS)
  add_test(NAME ${f}/reliability/output-dir
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/output-dir.sh ${f} ${MSC_TEST_BIN}/${f}/dies)
  set_tests_properties(${f}/reliability/output-dir PROPERTIES TIMEOUT 120
    LABELS "mpi;${f};reliability"
    ENVIRONMENT "MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so;MSC_OUT=${MSC_TEST_OUT}/${f}_reliability_output_dir")
endforeach()

# A rank going down with the profile (and the trace) on: exit code and output
# unchanged, partial results marked incomplete, the report names the ranks.
# nofinalize: the rank returns from main without MPI_Finalize (the core's
# exit handler saves what it recorded).
# Open MPI stops the other ranks with SIGTERM (they save theirs too); MPICH
# kills them with SIGKILL (they are reported missing).
foreach(f IN LISTS MSC_FLAVORS)
  set(lib ${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so)
  foreach(mode profile trace)
    foreach(case "segv;SEGV;1:SEGV" "term;TERM;1:TERM" "abort;MPI_Abort;1:MPI_Abort" "kill;none;"
                 "nofinalize;exit without MPI_Finalize;1:exit without MPI_Finalize")
      list(GET case 0 how)
      list(GET case 1 reason)
      list(LENGTH case n)
      set(notes)
      if(n GREATER 2)
        list(GET case 2 notes)
      endif()
      set(name ${f}/reliability/${mode}-${how})
      add_test(NAME ${name}
        COMMAND ${CMAKE_CURRENT_LIST_DIR}/partial.sh ${f} 2 ${MSC_TEST_BIN}/${f}/dies ${how} ${mode}
                1 ${reason} "${CMAKE_BINARY_DIR}/bin/mpiscope report" ${notes})
      set_tests_properties(${name} PROPERTIES TIMEOUT 120 LABELS "mpi;${f};reliability"
        ENVIRONMENT "MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${lib};MSC_OUT=${MSC_TEST_OUT}/${f}_reliability_${mode}_${how}")
    endforeach()
  endforeach()
endforeach()

# A rank that flushed its trace (MPI_Pcontrol(2)) half way and then dies:
# its partial trace joins the flushed events with the rest (5 sends and 5
# receives, as without the flush).
foreach(f IN LISTS MSC_FLAVORS)
  set(name ${f}/reliability/trace-term-flushed)
  add_test(NAME ${name}
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/partial.sh ${f} 2 ${MSC_TEST_BIN}/${f}/dies term trace
            1 TERM "${CMAKE_BINARY_DIR}/bin/mpiscope report" 1:TERM)
  set_tests_properties(${name} PROPERTIES TIMEOUT 120 LABELS "mpi;${f};reliability"
    ENVIRONMENT "MSC_DIES_CALLS=calls-flush;MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so;MSC_OUT=${MSC_TEST_OUT}/${f}_reliability_trace_term_flushed")
endforeach()

# The emergency write hangs (as it would if the crash held malloc's lock):
# the watchdog gives up after 3 s, the rank goes down as it would have, with
# its note and without a partial profile.
foreach(f IN LISTS MSC_FLAVORS)
  set(name ${f}/reliability/profile-watchdog)
  add_test(NAME ${name}
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/partial.sh ${f} 2 ${MSC_TEST_BIN}/${f}/dies segv profile
            1 none "${CMAKE_BINARY_DIR}/bin/mpiscope report" 1:SEGV)
  set_tests_properties(${name} PROPERTIES TIMEOUT 120 LABELS "mpi;${f};reliability"
    ENVIRONMENT "MSC_TEST_EMERGENCY_HANG=1;MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so;MSC_OUT=${MSC_TEST_OUT}/${f}_reliability_profile_watchdog")
endforeach()

# The output file system fills up (a tmpfs mounted by the test; skipped when
# mounting is not permitted).
foreach(f IN LISTS MSC_FLAVORS)
  foreach(mode profile trace)
    add_test(NAME ${f}/reliability/disk-full-${mode}
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/disk-full.sh ${f} ${MSC_TEST_BIN}/${f}/dies ${mode})
    set_tests_properties(${f}/reliability/disk-full-${mode} PROPERTIES TIMEOUT 120
      LABELS "mpi;${f};reliability"
      ENVIRONMENT "MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so;MSC_OUT=${MSC_TEST_OUT}/${f}_reliability_disk_full_${mode}")
  endforeach()
endforeach()

# Files (issue 10): symlinks planted under every name the tool writes, a
# trace/ holding symlinks, modes under umask 000, and two runs started in
# the same second without an output directory (tests/reliability/symlinks.sh).
if(TARGET mpiscope)
  foreach(f IN LISTS MSC_FLAVORS)
    add_test(NAME ${f}/reliability/symlinks
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/symlinks.sh ${f} ${MSC_TEST_BIN}/${f}/dies)
    set_tests_properties(${f}/reliability/symlinks PROPERTIES TIMEOUT 240
      LABELS "mpi;${f};reliability"
      ENVIRONMENT "MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so;MSC_CLI=$<TARGET_FILE:mpiscope>;MSC_OUT=${MSC_TEST_OUT}/${f}_reliability_symlinks;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
  endforeach()
endif()

# Settings given garbage (issue 10): every setting of settings.def (listed by
# settings_table, linked with the parser) and every `mpiscope run` option
# (tests/reliability/settings-garbage.sh).
add_executable(msc_settings_table ${CMAKE_CURRENT_LIST_DIR}/settings_table.c)
target_link_libraries(msc_settings_table PRIVATE msc_base)
set_target_properties(msc_settings_table PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${MSC_TEST_BIN}/reliability)
if(TARGET mpiscope)
  add_test(NAME reliability/settings-garbage-cli
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/settings-garbage.sh cli $<TARGET_FILE:msc_settings_table>)
  set_tests_properties(reliability/settings-garbage-cli PROPERTIES TIMEOUT 120 LABELS "cli;reliability"
    ENVIRONMENT "MSC_CLI=$<TARGET_FILE:mpiscope>;MSC_OUT=${MSC_TEST_OUT}/reliability_settings_garbage_cli")
endif()
foreach(f IN LISTS MSC_FLAVORS)
  add_test(NAME ${f}/reliability/settings-garbage
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/settings-garbage.sh lib ${f} ${MSC_TEST_BIN}/${f}/dies
            $<TARGET_FILE:msc_settings_table>)
  set_tests_properties(${f}/reliability/settings-garbage PROPERTIES TIMEOUT 600
    LABELS "mpi;${f};reliability"
    ENVIRONMENT "MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so;MSC_OUT=${MSC_TEST_OUT}/${f}_reliability_settings_garbage")
endforeach()

# Issue 15: the disk fills part way through a traced run (a 1 MiB tmpfs, a
# 512 KiB trace buffer): the trace stops cleanly, the profile is written, the
# archive and the report say the trace is partial and why. An output
# directory that cannot be written (a read-only tmpfs): untraced with one
# message when preloaded, refused by `mpiscope run -o`.
if(TARGET mpiscope)
  foreach(f IN LISTS MSC_FLAVORS)
    add_test(NAME ${f}/reliability/disk-fills
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/disk-fills.sh ${f} ${MSC_TEST_BIN}/${f}/trace_mixed
              $<TARGET_FILE:mpiscope>)
    add_test(NAME ${f}/reliability/readonly-dir
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/readonly-dir.sh ${f} ${MSC_TEST_BIN}/${f}/dies
              $<TARGET_FILE:mpiscope>)
    foreach(t disk-fills readonly-dir)
      string(REPLACE "-" "_" u ${t})
      # Two ranks ping-ponging under ASan on a busy 2-core machine take
      # minutes (each round trip waits for the other rank's core).
      set_tests_properties(${f}/reliability/${t} PROPERTIES TIMEOUT 600
        LABELS "mpi;${f};reliability"
        ENVIRONMENT "MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so;MSC_OUT=${MSC_TEST_OUT}/${f}_reliability_${u}")
    endforeach()
  endforeach()
endif()

# The library in some ranks only (an MPMD command whose second program does
# not get LD_PRELOAD): the tool's set-up is bounded (MPISCOPE_SETUP_TIMEOUT),
# says so once and turns recording off; the program runs as without it.
foreach(f IN LISTS MSC_FLAVORS)
  add_test(NAME ${f}/reliability/partial-preload
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/partial-preload.sh ${f} ${MSC_TEST_BIN}/${f}/comms_mpmd)
  set_tests_properties(${f}/reliability/partial-preload PROPERTIES TIMEOUT 120
    LABELS "mpi;${f};reliability"
    ENVIRONMENT "MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so;MSC_OUT=${MSC_TEST_OUT}/${f}_reliability_partial_preload")
endforeach()
