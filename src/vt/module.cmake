# The VT_ API (Intel Trace Collector compatible, include/VT.h and VT.inc):
# user regions, messages, collective operations, counters and comments into
# the trace (src/trace/trace.h), and user-region times into a profile file.
list(APPEND MSC_MODULE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/vt.c
  ${CMAKE_CURRENT_LIST_DIR}/fortran.c
  ${CMAKE_CURRENT_LIST_DIR}/profile.c)
list(APPEND MSC_MODULE_LIBS m)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/../../include/VT.h
              ${CMAKE_CURRENT_LIST_DIR}/../../include/VT.inc
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
