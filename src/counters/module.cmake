# The counters module: instructions and cycles of each rank's useful
# computation through perf_event_open, with MPISCOPE_COUNTERS=1
# (src/counters/module.c). No library needed.
list(APPEND MSC_MODULE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/module.c
  ${CMAKE_CURRENT_LIST_DIR}/account.c
  ${CMAKE_CURRENT_LIST_DIR}/perf_source.c)
list(APPEND MSC_MODULE_INCLUDES ${CMAKE_CURRENT_LIST_DIR})
