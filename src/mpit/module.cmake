# The MPI_T layer: every MPI_T_/PMPI_T_ function (tool.c over the library's,
# lib.c), the registry of mpiscope's own variables (registry.c) and the
# module that measures them (vars.c). See docs/mpit.md.
list(APPEND MSC_MODULE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/lib.c
  ${CMAKE_CURRENT_LIST_DIR}/libvars.c
  ${CMAKE_CURRENT_LIST_DIR}/registry.c
  ${CMAKE_CURRENT_LIST_DIR}/tool.c
  ${CMAKE_CURRENT_LIST_DIR}/vars.c
  ${CMAKE_CURRENT_LIST_DIR}/cvars.c
  ${CMAKE_CURRENT_LIST_DIR}/pvars.c)
list(APPEND MSC_MODULE_LIBS dl)
