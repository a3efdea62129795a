# Correctness checks (MPISCOPE_MODE=check): one small erroneous program per
# finding class, each run on both MPIs and checked by expect.py against the
# `expect:` markers in its source (class, rank and line); correct programs
# (clean.c and the demo) must give no finding at all. MPICH runs 2 ranks at
# most (it busy-polls when ranks outnumber the cores).
set(chk_expect ${CMAKE_CURRENT_LIST_DIR}/expect.py)
set(chk_progs neg_count args leaks send_modified coll_mismatch coll_root p2p_type unreceived
    deadlock potential clean pending bounds deadlock_links rma_state deadlock_self zerobuf race deadlock_poll deadlock_places
    deadlock_tail rooted_first free_sync lazy_shadow shared_handles deadlock_mismatch)
foreach(f IN LISTS MSC_FLAVORS)
  foreach(p IN LISTS chk_progs)
    msc_mpi_program(${f} check_${p} SOURCES ${p}.c)
  endforeach()
  set(np 2)
  if(f STREQUAL "openmpi")
    set(np 3)
  endif()
  # One test per "case np" of a program that runs one case per argument
  # (cases.h), checked by expect.py with the case (and, given NP, the ranks).
  macro(chk_case_tests prog with_np)
    foreach(cn IN ITEMS ${ARGN})
      separate_arguments(cn)
      list(GET cn 0 cn_case)
      list(GET cn 1 cn_np)
      set(cn_args ${cn_case})
      if("${with_np}" STREQUAL "NP")
        set(cn_args "${cn_case} ${cn_np}")
      endif()
      msc_mpi_test(${f} check/${prog}_${cn_case}_${cn_np} NP ${cn_np} PROGRAM check_${prog}
        ARGS ${cn_case} TIMEOUT 90 ENV MPISCOPE_MODE=check
        CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/${prog}.c ${cn_args}")
    endforeach()
  endmacro()
  # A deadlock per case of `prog` (check/<name>_<case>: reported and ended,
  # exit 3, with MPISCOPE_CHECK_TIMEOUT=2) and its twin (<case>_ok: ends
  # normally), both checked by expect.py against the case's markers.
  macro(chk_deadlock_tests prog name)
    foreach(dc IN ITEMS ${ARGN})
      foreach(dv IN ITEMS "" _ok)
        set(dc_rc 3)
        if(dv STREQUAL "_ok")
          set(dc_rc 0)
        endif()
        msc_mpi_test(${f} check/${name}_${dc}${dv} NP 2 PROGRAM check_${prog} ARGS ${dc}${dv}
          TIMEOUT 60 EXPECT_RC ${dc_rc} ENV MPISCOPE_MODE=check MPISCOPE_CHECK_TIMEOUT=2
          CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/${prog}.c ${dc}${dv}")
      endforeach()
    endforeach()
  endmacro()
  macro(chk_test name prog)
    msc_mpi_test(${f} check/${name} PROGRAM check_${prog} ${ARGN}
      CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/${prog}.c")
  endmacro()
  chk_test(neg_count neg_count NP 2 TIMEOUT 60 ENV MPISCOPE_MODE=check)
  chk_test(args args NP 2 TIMEOUT 60
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_CLASSES=*,-LOCAL:CALL:FAILED)
  chk_test(leaks leaks NP 2 TIMEOUT 60 ENV MPISCOPE_MODE=check)
  chk_test(send_modified send_modified NP 2 TIMEOUT 60 ENV MPISCOPE_MODE=check)
  chk_test(pending pending NP 2 TIMEOUT 60 ENV MPISCOPE_MODE=check)
  chk_test(coll_mismatch coll_mismatch NP 2 TIMEOUT 60 ENV MPISCOPE_MODE=check)
  chk_test(coll_root coll_root NP 2 TIMEOUT 60
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_CLASSES=*,-LOCAL:CALL:FAILED)
  chk_test(p2p_type p2p_type NP 2 TIMEOUT 60 ENV MPISCOPE_MODE=check)
  chk_test(unreceived unreceived NP 2 TIMEOUT 60 ENV MPISCOPE_MODE=check)
  # Reported and ended by the tool (exit code 3) well within the test's
  # timeout: blocked 2 s, confirmed 1 s later.
  chk_test(deadlock deadlock NP 2 TIMEOUT 60 EXPECT_RC 3
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_TIMEOUT=2)
  # A receive that names the rank itself (on a split with the ranks
  # reversed) while the other rank has gone on to MPI_Comm_free and
  # MPI_Finalize: reported within the timeout, and its twin ends normally.
  chk_test(deadlock_self deadlock_self NP 2 TIMEOUT 60 EXPECT_RC 3
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_TIMEOUT=2)
  msc_mpi_test(${f} check/deadlock_self_ok NP 2 PROGRAM check_deadlock_self ARGS ok TIMEOUT 60
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_TIMEOUT=2
    CHECK "grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
  # Links planted at the watchdog's temporary names are never followed.
  msc_mpi_test(${f} check/deadlock_links NP 2 PROGRAM check_deadlock_links TIMEOUT 60 EXPECT_RC 3
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_TIMEOUT=2
    CHECK "grep -qx victim $MPISCOPE_OUTPUT/victim.0 && grep -qx victim $MPISCOPE_OUTPUT/victim.1 && python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/deadlock_links.c")
  # A cycle of two ranks with the others blocked behind it (3 ranks; 4 on
  # Open MPI, the fourth in a barrier): every blocked rank is a site of the
  # finding and named in its text with what it waits for (the text said
  # "3 ranks" and named 2); the twin ends normally with no finding.
  set(tail_np 3)
  if(f STREQUAL "openmpi")
    set(tail_np 4)
  endif()
  msc_mpi_test(${f} check/deadlock_tail_${tail_np} NP ${tail_np} PROGRAM check_deadlock_tail ARGS tail${tail_np}
    TIMEOUT 60 EXPECT_RC 3 ENV MPISCOPE_MODE=check MPISCOPE_CHECK_TIMEOUT=2
    CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/deadlock_tail.c tail${tail_np} && grep -q '${tail_np} ranks stayed blocked for more than 2s' $MPISCOPE_OUTPUT/checks.txt && grep -q '2 of them wait for each other: rank 0 in MPI_Recv' $MPISCOPE_OUTPUT/checks.txt && grep -q 'Blocked behind the cycle: rank 2 in MPI_Recv at [^ ]*deadlock_tail.c:[0-9]* waits for rank 0' $MPISCOPE_OUTPUT/checks.txt")
  msc_mpi_test(${f} check/deadlock_tail_ok_${tail_np} NP ${tail_np} PROGRAM check_deadlock_tail ARGS ok
    TIMEOUT 60 ENV MPISCOPE_MODE=check MPISCOPE_CHECK_TIMEOUT=2
    CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/deadlock_tail.c ok")
  # A send and the receive meant for it on different communicators or with
  # different tags (deadlock_mismatch.c): the deadlock and its cause, each
  # a finding, the cause's text naming both sides (the communicators as
  # each rank made them); the twins end normally with no finding.
  chk_deadlock_tests(deadlock_mismatch deadlock_mismatch tag irecv ssend)
  msc_mpi_test(${f} check/deadlock_mismatch_comm NP 2 PROGRAM check_deadlock_mismatch ARGS comm
    TIMEOUT 60 EXPECT_RC 3 ENV MPISCOPE_MODE=check MPISCOPE_CHECK_TIMEOUT=2
    CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/deadlock_mismatch.c comm && grep -q 'Rank 0 sent 1 message to rank 1 on MPI_COMM_WORLD (the last with tag 3) that rank 1 has not received, while rank 1 waits for a message from rank 0 on the communicator of MPI_Comm_dup at [^ ]*deadlock_mismatch.c:21: a message is received only on the communicator it was sent on' $MPISCOPE_OUTPUT/checks.txt")
  msc_mpi_test(${f} check/deadlock_mismatch_comm_ok NP 2 PROGRAM check_deadlock_mismatch ARGS comm_ok
    TIMEOUT 60 ENV MPISCOPE_MODE=check MPISCOPE_CHECK_TIMEOUT=2
    CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/deadlock_mismatch.c comm_ok")
  # The objects behind buffers in global and static variables (ELF symbols
  # and DWARF): overrun.c's buffers past their array's end, decltype.c's
  # arrays passed as another kind of number than declared. Built at -O0 and
  # -O2 (the tests' default -O1 lies between); every case of a program in
  # one run ("all"), every twin in another ("all_ok").
  foreach(bp overrun decltype)
    foreach(opt O0 O2)
      msc_mpi_program(${f} check_${bp}_${opt} SOURCES ${bp}.c FLAGS -${opt})
      foreach(bc all all_ok)
        msc_mpi_test(${f} check/${bp}_${opt}_${bc} NP 2 PROGRAM check_${bp}_${opt}
          ARGS ${bc} TIMEOUT 60 ENV MPISCOPE_MODE=check
          CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/${bp}.c ${bc}")
      endforeach()
      # Built with AddressSanitizer, the erroneous program is stopped by
      # the sanitizer when the MPI library copies the bytes past the array
      # (its memcpy is intercepted): the error is the program's, by design.
      if(bp STREQUAL "overrun")
        set_property(TEST ${f}/check/overrun_${opt}_all APPEND PROPERTY LABELS no-sanitizer)
      endif()
    endforeach()
  endforeach()
  # The same for heap blocks (heapbuf.c), from check mode's allocator
  # interposer (libmpiscope-heap.so, which run-mpi.sh preloads in check
  # mode as mpiscope run does). Under the sanitizers their allocator is
  # bound first and ours never called: the erroneous run is theirs to stop.
  foreach(opt O0 O2)
    msc_mpi_program(${f} check_heapbuf_${opt} SOURCES heapbuf.c FLAGS -${opt})
    foreach(bc all all_ok)
      msc_mpi_test(${f} check/heapbuf_${opt}_${bc} NP 2 PROGRAM check_heapbuf_${opt}
        ARGS ${bc} TIMEOUT 60 ENV MPISCOPE_MODE=check
        CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/heapbuf.c ${bc}")
    endforeach()
    set_property(TEST ${f}/check/heapbuf_${opt}_all APPEND PROPERTY LABELS no-sanitizer)
  endforeach()
  # ... and for local variables (stackbuf.c), from the frames' DWARF.
  foreach(opt O0 O2)
    msc_mpi_program(${f} check_stackbuf_${opt} SOURCES stackbuf.c FLAGS -${opt})
    foreach(bc all all_ok)
      set(text "")
      if(bc STREQUAL "all")
        # The variable is named with the function that declares it, also
        # where -O2 inlines that function into its caller.
        set(text " && grep -q 'from byte 0 of the local variable `outer` of deeper_case (160 bytes), ends 4 bytes past' $MPISCOPE_OUTPUT/checks.txt")
      endif()
      msc_mpi_test(${f} check/stackbuf_${opt}_${bc} NP 2 PROGRAM check_stackbuf_${opt}
        ARGS ${bc} TIMEOUT 60 ENV MPISCOPE_MODE=check
        CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/stackbuf.c ${bc}${text}")
    endforeach()
    set_property(TEST ${f}/check/stackbuf_${opt}_all APPEND PROPERTY LABELS no-sanitizer)
  endforeach()
  # One-sided accesses outside the target's window (sizes exchanged at the
  # window's creation) and origin buffers past their object (rmarange.c);
  # MPI may return MPI_ERR_RMA_RANGE itself: the buffer classes only.
  # osc/pt2pt: Open MPI 4.1's default osc cannot create a window here.
  msc_mpi_program(${f} check_rmarange SOURCES rmarange.c FLAGS -O2)
  foreach(bc all all_ok)
    msc_mpi_test(${f} check/rmarange_${bc} NP 2 PROGRAM check_rmarange ARGS ${bc} TIMEOUT 60
      ENV MPISCOPE_MODE=check MPISCOPE_CHECK_CLASSES=LOCAL:BUFFER:* OMPI_MCA_osc=pt2pt
      CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/rmarange.c ${bc}")
  endforeach()
  set_property(TEST ${f}/check/rmarange_all APPEND PROPERTY LABELS no-sanitizer)
  # v-collectives whose blocks run past their heap block (vcoll.c).
  msc_mpi_program(${f} check_vcoll SOURCES vcoll.c FLAGS -O2)
  foreach(bc all all_ok)
    msc_mpi_test(${f} check/vcoll_${bc} NP 2 PROGRAM check_vcoll ARGS ${bc} TIMEOUT 60
      ENV MPISCOPE_MODE=check
      CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/vcoll.c ${bc}")
  endforeach()
  set_property(TEST ${f}/check/vcoll_all APPEND PROPERTY LABELS no-sanitizer)
  # Heap blocks' declared types from the calling frame's pointers
  # (heaptype.c), and structures' layouts against datatypes (structtype.c),
  # -O0: at -O2 the pointers live in registers.
  foreach(prog heaptype structtype)
    msc_mpi_program(${f} check_${prog} SOURCES ${prog}.c FLAGS -O0)
    foreach(bc all all_ok)
      msc_mpi_test(${f} check/${prog}_${bc} NP 2 PROGRAM check_${prog} ARGS ${bc} TIMEOUT 60
        ENV MPISCOPE_MODE=check
        CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/${prog}.c ${bc}")
    endforeach()
    set_property(TEST ${f}/check/${prog}_all APPEND PROPERTY LABELS no-sanitizer)
  endforeach()
  # Buffers in freed heap blocks, MPI-IO buffers and windows over freed or
  # too little memory (freedbuf.c); osc/pt2pt as for rmarange.
  msc_mpi_program(${f} check_freedbuf SOURCES freedbuf.c FLAGS -O2)
  foreach(bc all all_ok)
    msc_mpi_test(${f} check/freedbuf_${bc} NP 2 PROGRAM check_freedbuf ARGS ${bc} TIMEOUT 60
      ENV MPISCOPE_MODE=check OMPI_MCA_osc=pt2pt
      CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/freedbuf.c ${bc}")
  endforeach()
  set_property(TEST ${f}/check/freedbuf_all APPEND PROPERTY LABELS no-sanitizer)
  # ... and Fortran ALLOCATE'd arrays (use mpi), -O2.
  msc_mpi_program(${f} check_heapbuf_f SOURCES heapbuf_f.f90 LANG Fortran FLAGS -O2)
  foreach(bc bad ok)
    msc_mpi_test(${f} check/heapbuf_f_${bc} NP 2 PROGRAM check_heapbuf_f ARGS ${bc} TIMEOUT 60
      ENV MPISCOPE_MODE=check
      CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/heapbuf_f.f90 ${bc}")
  endforeach()
  set_property(TEST ${f}/check/heapbuf_f_bad APPEND PROPERTY LABELS no-sanitizer)
  chk_test(potential potential NP 2 TIMEOUT 60 EXPECT_RC 3
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_TIMEOUT=2 MPISCOPE_CHECK_SYNC_SENDS=1)
  # Without the setting the same program completes (exit 0), and the
  # zero-buffer replay at MPI_Finalize finds the same potential deadlock.
  msc_mpi_test(${f} check/potential_buffered NP 2 PROGRAM check_potential TIMEOUT 60
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_CLASSES=GLOBAL:DEADLOCK:*
    CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/potential.c")
  # ... and with the replay off, nothing is reported.
  msc_mpi_test(${f} check/potential_replay_off NP 2 PROGRAM check_potential TIMEOUT 60
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_CLASSES=GLOBAL:DEADLOCK:* MPISCOPE_CHECK_ZERO_BUFFER_EVENTS=0
    CHECK "grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
  # Potential deadlocks of zerobuf.c, one case per run: each completes
  # (exit 0) and is reported on every rank of its cycle at the call where
  # that rank waits; each safe twin gives no finding. Rings of 2, 3 and 4.
  set(zb_cases "ring 2" "ring 3" "ring 4" "isend_wait 2" "persistent 2" "anysource 2"
      "self 2" "coll_p2p 2" "ring_ok 3" "self_ok 2" "coll_p2p_ok 2" "sendrecv_ok 2"
      "nonblocking_ok 2" "bsend_ok 2" "waitany_ok 2")
  # Ranks that poll (MPI_Test, MPI_Testall, MPI_Iprobe in a loop) for a
  # message never sent while the other waits in a barrier: a deadlock,
  # reported and ended (exit 3); twins whose message comes after 4 s end
  # normally with no finding.
  chk_deadlock_tests(deadlock_poll deadlock_poll test testall iprobe)
  # A deadlock in each place a rank can block (deadlock_places.c), reported
  # and ended; each twin ends normally with no finding.
  chk_deadlock_tests(deadlock_places deadlock_at coll icoll bigsend probe waitany waitall waitsome
    finalize threads inter)
  # Message races of race.c, one case per run (issue 25): each found with
  # the receive and both sends, exit 0; each twin silent.
  set(race_cases "any2 3" "self 2" "irecv 3" "persistent 3" "barrier 3" "anytag_ok 2"
      "ordered_ok 3" "named_ok 3" "tags_ok 3" "barrier_ok 3" "probe 3" "iprobe 3"
      "probe_ordered_ok 3" "probe_named_ok 3")
  chk_case_tests(race "" ${race_cases})
  chk_case_tests(zerobuf NP ${zb_cases})
  # A root's MPI_Bcast, then a rendezvous send received before the other
  # rank's MPI_Bcast: ends natively, so check mode must not hang it (the
  # tool's agreement before a rooted collective made it wait: issue 24); the
  # replay reports the potential deadlock, and the twin is silent.
  chk_case_tests(rooted_first "" "bug 2" "ok 2")
  # MPI_Comm_free's comparison of the logged collectives never waits: a
  # rank that frees a communicator and then sends to one that receives
  # before freeing it ends as natively (it hung under check mode, and
  # crashed Open MPI when a pending agreement's shadow was freed); a
  # mismatch is still found after the communicator is gone.
  chk_case_tests(free_sync "" "free_then_send 2" "rooted_pending 2" "mismatch 2")
  # Shadows of blocking constructors made without waiting (issue 24): the
  # shape of MPICH's comm/comm_create_group_idup ends (it hung on Open MPI
  # with 4 ranks), and the checks still run on a split communicator.
  set(lazy_np 2)
  if(f STREQUAL "openmpi")
    set(lazy_np 4)
  endif()
  chk_case_tests(lazy_shadow "" "create_group_idup ${lazy_np}" "split_checked 2"
    "split_null ${np}")
  # Small sends that share MPI's one pre-completed handle, completed out of
  # order: no false SEND_MODIFIED; one modified before its wait: found; the
  # freed half of a shared-handle pair written by a collective: no finding.
  chk_case_tests(shared_handles "" "out_of_order 2" "modified 2" "reuse 2")
  # MPISCOPE_CHECK_ABORT: the first finding ends the run, and is on file.
  msc_mpi_test(${f} check/abort NP 2 PROGRAM check_neg_count TIMEOUT 60 EXPECT_RC 1
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_ABORT=1
    CHECK "grep -q LOCAL:ARG:NEGATIVE_COUNT $MPISCOPE_OUTPUT/checks.json")
  # The tables' bound: what did not fit is counted in the report's note;
  # the leaks that fit are still listed.
  msc_mpi_test(${f} check/bounds NP 2 PROGRAM check_bounds TIMEOUT 60
    ENV MPISCOPE_MODE=check MPISCOPE_MAX_REQUESTS=64
    CHECK "grep -q LOCAL:LEAK:DATATYPE $MPISCOPE_OUTPUT/checks.json && grep -Eq '.note.: .incomplete: [1-9][0-9]* requests and [1-9][0-9]* other MPI objects did not fit' $MPISCOPE_OUTPUT/checks.json && grep -q 'did not fit' $MPISCOPE_OUTPUT/checks.txt")
  # Arguments the standard says are not significant, MPI_Type_dup of
  # committed types, returns that are not error codes: nothing reported
  # (default classes); with "bug", the erroneous twins are found at their
  # lines.
  msc_mpi_program(${f} check_ignored SOURCES ignored.c)
  msc_mpi_test(${f} check/ignored NP 2 PROGRAM check_ignored TIMEOUT 60
    ENV MPISCOPE_MODE=check
    CHECK "grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
  chk_test(ignored_bug ignored NP 2 ARGS bug TIMEOUT 60
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_CLASSES=*,-LOCAL:CALL:FAILED)
  # Both ranks inside one collective for 4 times the timeout: no deadlock.
  msc_mpi_program(${f} check_coll_progress SOURCES coll_progress.c)
  msc_mpi_test(${f} check/coll_progress NP 2 PROGRAM check_coll_progress TIMEOUT 60
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_TIMEOUT=1
    CHECK "grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
  # Communicators freed from Fortran (mpif.h, use mpi) are not leaks.
  foreach(p leak_mpif leak_usempi)
    msc_mpi_program(${f} check_${p} SOURCES ${p}.f90 LANG Fortran)
    msc_mpi_test(${f} check/${p} NP 2 PROGRAM check_${p} TIMEOUT 60 ENV MPISCOPE_MODE=check
      CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/${p}.f90")
  endforeach()
  # MPI_THREAD_MULTIPLE, 4 threads per rank on their own duplicates of
  # MPI_COMM_WORLD: no hang, right results, no finding (also in the TSan
  # pass: its name holds "threads").
  msc_mpi_program(${f} check_threads SOURCES threads.c)
  msc_mpi_test(${f} check/threads NP 2 PROGRAM check_threads TIMEOUT 180
    ENV MPISCOPE_MODE=check
    CHECK "grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
  # osu_bw's window pattern (window.c): 300 windows of 64 receives, into one
  # buffer (a true PENDING_OVERLAP seen 63 times a window, 18,900 in all:
  # the repeats must cost no symbolization and no hang) and into 64 buffers
  # (nothing).
  msc_mpi_program(${f} check_window SOURCES window.c)
  foreach(how same apart)
    msc_mpi_test(${f} check/window-${how} NP 2 PROGRAM check_window ARGS 300 ${how} TIMEOUT 120
      ENV MPISCOPE_MODE=check
      CHECK "python3 ${CMAKE_CURRENT_LIST_DIR}/window_check.py $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/window.c 300 ${how}")
  endforeach()
  # One-sided epochs and request state used correctly: no finding; with
  # "bug", a conflict of two origins at rank 0's window (Open MPI: ranks 1
  # and 2) and an origin buffer changed before its flush, at their lines.
  # osc/pt2pt: Open MPI 4.1's default osc cannot create a window with
  # btl_vader_single_copy_mechanism=none (run-mpi.sh), natively too.
  msc_mpi_test(${f} check/rma_state NP ${np} PROGRAM check_rma_state TIMEOUT 60
    ENV MPISCOPE_MODE=check OMPI_MCA_osc=pt2pt
    CHECK "grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
  chk_test(rma_state_bug rma_state NP ${np} ARGS bug TIMEOUT 60
    ENV MPISCOPE_MODE=check OMPI_MCA_osc=pt2pt)
  # Batched sidecar records (p2p.c): many tags, wildcards, matched probes,
  # persistent sends, a cancelled receive, a communicator freed before its
  # records arrive, 4 threads on one communicator; every flow alternates
  # datatypes, so a record paired with the wrong message is a finding. No
  # finding when correct; with "bug", one per part at its lines. With the
  # default delay, each record at once (0), and one second (records travel
  # only when a batch is full, of a new kind, at MPI_Comm_free or at
  # MPI_Finalize).
  msc_mpi_program(${f} check_sidecars SOURCES sidecars.c)
  foreach(d default 0 1000000)
    set(env MPISCOPE_MODE=check)
    if(NOT d STREQUAL "default")
      list(APPEND env MPISCOPE_CHECK_SIDECAR_DELAY=${d})
    endif()
    msc_mpi_test(${f} check/sidecars_${d} NP 2 PROGRAM check_sidecars TIMEOUT 120 ENV ${env}
      CHECK "grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json")
    chk_test(sidecars_bug_${d} sidecars NP 2 ARGS bug TIMEOUT 120 ENV ${env})
  endforeach()
  # No false positives.
  chk_test(clean clean NP ${np} TIMEOUT 120 ENV MPISCOPE_MODE=check)
  msc_mpi_test(${f} check/demo NP ${np} PROGRAM ../../examples/${f}/demo ARGS 300 TIMEOUT 120
    ENV MPISCOPE_MODE=check
    CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_SOURCE_DIR}/examples/demo.c")
  # The tool's communicators never make the application fail (objects.c,
  # "Shadows and their budget"): more communicators alive at once than
  # could each have a shadow (over half the MPI's context ids: MPICH 2048,
  # Open MPI 65535; within the fifteen sixteenths left to the application),
  # then far more made and freed than the MPI has ids. The output is the
  # native one (run without the tool too), no finding, the budget said once
  # on stderr.
  if(f STREQUAL "mpich")
    set(live 1900)
    set(cycles 6000)
  else()
    # More than the 16,383 the tool's three shadows per communicator left
    # an application before (issue 24), and past the tool's budget (4,095).
    set(live 20000)
    set(cycles 10000)
  endif()
  msc_mpi_program(${f} check_many_comms SOURCES many_comms.c)
  # Every step sums rank + k over 2 ranks: 2k + 1, so k from 0 to n-1 sum to n*n.
  math(EXPR live_sum "${live} * ${live}")
  math(EXPR cycles_sum "${cycles} * ${cycles}")
  set(many_out ${CMAKE_CURRENT_BINARY_DIR}/check_many_comms_${f}.out)
  file(WRITE ${many_out} "${live} duplicates alive at once: sum ${live_sum}\n"
    "${cycles} splits made and freed: sum ${cycles_sum}\none more duplicate: sum 15\n")
  msc_mpi_test(${f} check/many_comms_native NP 2 PROGRAM check_many_comms ARGS ${live} ${cycles}
    NO_TOOL TIMEOUT 300 ENV MSC_KEEP_STDOUT=1
    CHECK "diff ${many_out} $MPISCOPE_OUTPUT/.stdout")
  msc_mpi_test(${f} check/many_comms NP 2 PROGRAM check_many_comms ARGS ${live} ${cycles}
    TIMEOUT 600 ENV MPISCOPE_MODE=check MSC_KEEP_STDOUT=1 MSC_KEEP_STDERR=1
    CHECK "diff ${many_out} $MPISCOPE_OUTPUT/.stdout && grep -q '\"count\": 0' $MPISCOPE_OUTPUT/checks.json && grep -c MPISCOPE_CHECK_SHADOWS= $MPISCOPE_OUTPUT/.stderr | grep -qx 1")
  # Communicators left without a shadow by a budget of 3 (MPI_COMM_WORLD's,
  # MPI_COMM_SELF's, one more): every use of a shadow is skipped cleanly for
  # them, the checks go on for those with one.
  msc_mpi_program(${f} check_noshadow SOURCES noshadow.c)
  set(noshadow_out ${CMAKE_CURRENT_BINARY_DIR}/check_noshadow.out)
  file(WRITE ${noshadow_out} "b: tags 0 1 ub, sum 3, bcast 2\n"
    "intercommunicator: 11, merged sum 21\npending receive: 42\n")
  msc_mpi_test(${f} check/noshadow NP 2 PROGRAM check_noshadow TIMEOUT 120
    ENV MPISCOPE_MODE=check MPISCOPE_CHECK_SHADOWS=3 OMPI_MCA_osc=pt2pt
        MSC_KEEP_STDOUT=1 MSC_KEEP_STDERR=1
    CHECK "python3 ${chk_expect} $MPISCOPE_OUTPUT/checks.json ${CMAKE_CURRENT_LIST_DIR}/noshadow.c && diff ${noshadow_out} $MPISCOPE_OUTPUT/.stdout && grep -c MPISCOPE_CHECK_SHADOWS=3 $MPISCOPE_OUTPUT/.stderr | grep -qx 1")
endforeach()

# Calls before MPI_Init and after MPI_Finalize: flagged on stderr (both MPIs
# abort at the call before MPI_Init, MPICH also after MPI_Finalize), the
# run's exit code and output unchanged, allowed calls never flagged.
foreach(f IN LISTS MSC_FLAVORS)
  msc_mpi_program(${f} check_outside SOURCES outside.c)
  add_test(NAME ${f}/check/outside
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/outside.sh ${f} ${MSC_TEST_BIN}/${f}/check_outside
            ${CMAKE_CURRENT_LIST_DIR}/outside.c)
  set_tests_properties(${f}/check/outside PROPERTIES TIMEOUT 180 LABELS "mpi;${f};check"
    ENVIRONMENT "MSC_MPIRUN=${MSC_${f}_MPIRUN};MSC_LIB=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so;MSC_OUT=${MSC_TEST_OUT}/${f}_check_outside")
endforeach()

# The corpus (corpus/<category>/*.c and gen.py's families, docs/checks.md,
# corpus/README.md): each
# source built twice at build time, with -DBUG (the erroneous program,
# `EXPECT:` markers on the lines its findings must name) and without (its
# correct twin, which must give no finding and exit 0). corpus.py runs a
# category's programs under the tool with default settings, four at a time,
# and scores them: the test fails when a category's recall is below 0.9 (or
# below the lower value recorded for it in corpus/targets.txt, which lists
# what is missing) or a correct twin has a finding not listed there. One test
# per category and MPI, so ctest -j runs them side by side. Under a sanitizer
# build a quarter of the programs run (the library's code paths at a quarter
# of the time) and only the correct twins and exit codes are judged.
# Fortran sources (*.F90: preprocessed, so -DBUG works the same) are built
# with the flavor's mpifort. The programs are built without the sanitizers
# (only the tool library is instrumented), so a sanitizer tree can take a
# plain tree's with -DMPISCOPE_CORPUS_FROM=<that tree> (scripts/test.sh), and
# -DMPISCOPE_TEST_CORPUS=OFF leaves the corpus out (the TSan pass, which
# runs the threaded tests only).
option(MPISCOPE_TEST_CORPUS "Build and run the check corpus" ON)
set(MPISCOPE_CORPUS_FROM "" CACHE PATH "A build tree whose corpus programs to run instead of building them")
if(NOT MPISCOPE_TEST_CORPUS)
  return()
endif()
# gen.py's families are generated here, at configure time, into the build
# tree (never committed), and again when gen.py changes; it leaves a file
# whose text is unchanged alone, so only changed programs are rebuilt.
set(chk_corpus_gen ${CMAKE_BINARY_DIR}/tests/check/corpus-gen)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${CMAKE_CURRENT_LIST_DIR}/corpus/gen.py)
execute_process(COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/corpus/gen.py ${chk_corpus_gen}
  RESULT_VARIABLE chk_gen_rc OUTPUT_VARIABLE chk_gen_out ERROR_VARIABLE chk_gen_out)
if(NOT chk_gen_rc EQUAL 0)
  message(FATAL_ERROR "tests/check/corpus/gen.py failed: ${chk_gen_out}")
endif()
file(GLOB chk_corpus CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/corpus/*/*.c
     ${CMAKE_CURRENT_LIST_DIR}/corpus/*/*.F90 ${chk_corpus_gen}/*/g_*.c)
set(chk_corpus_cats)
foreach(src IN LISTS chk_corpus)
  get_filename_component(d ${src} DIRECTORY)
  get_filename_component(cat ${d} NAME)
  list(APPEND chk_corpus_cats ${cat})
endforeach()
list(REMOVE_DUPLICATES chk_corpus_cats)
foreach(f IN LISTS MSC_FLAVORS)
  set(bin ${MSC_TEST_BIN}/${f}/corpus)
  if(MPISCOPE_CORPUS_FROM)
    set(bin ${MPISCOPE_CORPUS_FROM}/tests/${f}/corpus)
    set(chk_corpus_build)
  else()
    set(chk_corpus_build ${chk_corpus})
  endif()
  set(outs)
  foreach(src IN LISTS chk_corpus_build)
    # /* ONLY: <flavor> */: built (and run, corpus.py) for that MPI only.
    file(STRINGS ${src} only REGEX "ONLY: *[a-z]+")
    if(only AND NOT only MATCHES "ONLY: *${f}")
      continue()
    endif()
    get_filename_component(name ${src} NAME_WE)
    get_filename_component(d ${src} DIRECTORY)
    get_filename_component(cat ${d} NAME)
    foreach(v bug ok)
      set(out ${bin}/chk_${cat}_${name}_${v})
      set(def)
      if(v STREQUAL "bug")
        set(def -DBUG)
      endif()
      if(src MATCHES "\\.F90$")
        set(compile ${MSC_${f}_MPIFC} -g -O0 ${def} -o ${out} ${src})
      else()
        set(compile ${MSC_${f}_MPICC} -std=gnu17 -g -O0 ${def} -o ${out} ${src} -lpthread)
      endif()
      add_custom_command(OUTPUT ${out}
        COMMAND ${compile}
        DEPENDS ${src}
        COMMENT "Building corpus program ${f}/${cat}/${name} (${v})"
        VERBATIM)
      list(APPEND outs ${out})
    endforeach()
  endforeach()
  if(NOT MPISCOPE_CORPUS_FROM)
    file(MAKE_DIRECTORY ${bin})
    add_custom_target(chk_corpus_${f} ALL DEPENDS ${outs})
  endif()
  set(mode --targets ${CMAKE_CURRENT_LIST_DIR}/corpus/targets.txt)
  if(MPISCOPE_SANITIZE)
    set(mode --sample 4 --no-recall)
  endif()
  # Four programs at a time: a run is mostly the launcher's start-up and
  # waiting (Open MPI's coll and p2p: 42 s of CPU in 136 s with two at a
  # time on 2 cores); four took 65 s instead of 136 (Open MPI) and 75 s
  # instead of 94 (MPICH, whose ranks poll).
  foreach(cat IN LISTS chk_corpus_cats)
    add_test(NAME ${f}/check/corpus/${cat}
      COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/corpus.py --flavor ${f}
              --mpirun ${MSC_${f}_MPIRUN}
              --lib ${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${f}/libmpiscope.so
              --cli ${CMAKE_BINARY_DIR}/bin/mpiscope --bin ${bin}
              --src ${CMAKE_CURRENT_LIST_DIR}/corpus --src ${chk_corpus_gen} --out ${MSC_TEST_OUT}/${f}_corpus
              --category ${cat} --jobs 4 ${mode})
    set_tests_properties(${f}/check/corpus/${cat} PROPERTIES TIMEOUT 900
      LABELS "mpi;${f};check;corpus")
  endforeach()
endforeach()
