/* Private to the analysis engine and the `mpiscope` program: whether a
 * trace is whole (trace_check.c). */
#ifndef MSC_ANALYSIS_TRACE_CHECK_H
#define MSC_ANALYSIS_TRACE_CHECK_H
#include <stddef.h>
#include <stdint.h>

#include "trace_reader.h"

/* NULL if the archive `anchor` is whole; else a malloc'd sentence naming
 * what is not: the archive's own incompleteness and its reason, and each
 * location (rank, thread) whose events cannot be read and why. The number
 * of such locations goes to *bad_locations (may be NULL). */
char *msc_trace_damage(const char *anchor, size_t *bad_locations);

/* Why the events of location i (index in t->loc) cannot be read, or NULL:
 * its event file is missing, unreadable, empty although events were
 * written, or cut short (msc_trace_read skips such locations). */
const char *msc_trace_location_problem(const msc_trace_t *t, size_t i);

/* The most events the event file of location i can hold (every OTF2 event
 * record takes at least two bytes: its type and its length), UINT64_MAX
 * when the file cannot be looked at. */
uint64_t msc_trace_location_max_events(const msc_trace_t *t, size_t i);
#endif
