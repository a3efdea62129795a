# The profile module: per-function and per-call-site statistics, message
# sizes and the communication matrix (src/profile/profile.c), merged at
# MPI_Finalize. Call sites resolve through elfutils libdw; deeper stacks are
# captured with libunwind.
pkg_check_modules(MSC_LIBDW REQUIRED IMPORTED_TARGET libdw)
pkg_check_modules(MSC_LIBUNWIND REQUIRED IMPORTED_TARGET libunwind)
list(APPEND MSC_MODULE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/profile.c
  ${CMAKE_CURRENT_LIST_DIR}/merge.c
  ${CMAKE_CURRENT_LIST_DIR}/join.c
  ${CMAKE_CURRENT_LIST_DIR}/pwrite.c
  ${CMAKE_CURRENT_LIST_DIR}/runinfo.c
  ${CMAKE_CURRENT_LIST_DIR}/banner.c
  ${CMAKE_CURRENT_LIST_DIR}/io.c
  ${CMAKE_CURRENT_LIST_DIR}/callsite.c
  ${CMAKE_CURRENT_LIST_DIR}/pjson.c
  ${CMAKE_CURRENT_LIST_DIR}/render.c
  ${CMAKE_CURRENT_LIST_DIR}/pop.c)
list(APPEND MSC_MODULE_INCLUDES ${CMAKE_CURRENT_LIST_DIR})
list(APPEND MSC_MODULE_LIBS PkgConfig::MSC_LIBDW PkgConfig::MSC_LIBUNWIND)
