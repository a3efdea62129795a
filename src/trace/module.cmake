# The trace module: OTF2 archives (docs/trace.md).
pkg_check_modules(OTF2 REQUIRED IMPORTED_TARGET otf2)
list(APPEND MSC_MODULE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/trace.c
  ${CMAKE_CURRENT_LIST_DIR}/defs.c
  ${CMAKE_CURRENT_LIST_DIR}/defset.c
  ${CMAKE_CURRENT_LIST_DIR}/unify.c
  ${CMAKE_CURRENT_LIST_DIR}/sync.c
  ${CMAKE_CURRENT_LIST_DIR}/emergency.c
  ${CMAKE_CURRENT_LIST_DIR}/segments.c
  ${CMAKE_CURRENT_LIST_DIR}/parts.c)
list(APPEND MSC_MODULE_INCLUDES ${OTF2_INCLUDE_DIRS})
list(APPEND MSC_MODULE_LIBS PkgConfig::OTF2)
# MPI call sites resolve at finalize with the profile's resolver
# (src/profile/callsite.c), which a build without the profile lacks.
if(NOT "profile" IN_LIST msc_modules)
  pkg_check_modules(MSC_LIBDW REQUIRED IMPORTED_TARGET libdw)
  pkg_check_modules(MSC_LIBUNWIND REQUIRED IMPORTED_TARGET libunwind)
  list(APPEND MSC_MODULE_SOURCES ${CMAKE_SOURCE_DIR}/src/profile/callsite.c)
  list(APPEND MSC_MODULE_LIBS PkgConfig::MSC_LIBDW PkgConfig::MSC_LIBUNWIND)
endif()
