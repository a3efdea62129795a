# The check module (MPISCOPE_MODE=check): correctness checks of the
# application's MPI use, local and across ranks, with a deadlock watchdog
# thread. Call sites resolve through the profile module's resolver when it
# is built (weak symbols: object and offset otherwise). See docs/checks.md.
list(APPEND MSC_MODULE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/check.c
  ${CMAKE_CURRENT_LIST_DIR}/findings.c
  ${CMAKE_CURRENT_LIST_DIR}/findings_io.c
  ${CMAKE_CURRENT_LIST_DIR}/errhandler.c
  ${CMAKE_CURRENT_LIST_DIR}/objects.c
  ${CMAKE_CURRENT_LIST_DIR}/globals.c
  ${CMAKE_CURRENT_LIST_DIR}/objects_at.c
  ${CMAKE_CURRENT_LIST_DIR}/stackvars.c
  ${CMAKE_CURRENT_LIST_DIR}/layout.c
  ${CMAKE_CURRENT_LIST_DIR}/typemap.c
  ${CMAKE_CURRENT_LIST_DIR}/sig.c
  ${CMAKE_CURRENT_LIST_DIR}/global.c
  ${CMAKE_CURRENT_LIST_DIR}/coll_agree.c
  ${CMAKE_CURRENT_LIST_DIR}/icomm.c
  ${CMAKE_CURRENT_LIST_DIR}/collpairs.c
  ${CMAKE_CURRENT_LIST_DIR}/p2p.c
  ${CMAKE_CURRENT_LIST_DIR}/deadlock.c
  ${CMAKE_CURRENT_LIST_DIR}/outside.c
  ${CMAKE_CURRENT_LIST_DIR}/threadlevel.c
  ${CMAKE_CURRENT_LIST_DIR}/args.c
  ${CMAKE_CURRENT_LIST_DIR}/topo.c
  ${CMAKE_CURRENT_LIST_DIR}/optable.c
  ${CMAKE_CURRENT_LIST_DIR}/reqstate.c
  ${CMAKE_CURRENT_LIST_DIR}/rma.c
  ${CMAKE_CURRENT_LIST_DIR}/rma_epochs.c
  ${CMAKE_CURRENT_LIST_DIR}/replay.c
  ${CMAKE_CURRENT_LIST_DIR}/replay_run.c)
list(APPEND MSC_MODULE_INCLUDES ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_CURRENT_LIST_DIR}/../profile)
# globals.c reads the process's ELF symbol tables and DWARF types.
pkg_check_modules(MSC_LIBELF REQUIRED IMPORTED_TARGET libelf)
pkg_check_modules(MSC_LIBDW REQUIRED IMPORTED_TARGET libdw)
list(APPEND MSC_MODULE_LIBS PkgConfig::MSC_LIBELF PkgConfig::MSC_LIBDW)
