/* Private to mpiscope. The trace writer's internal API, for modules that add
 * their own definitions and events to the OTF2 archive (VT_ user regions and
 * counters, MPI_T performance variables).
 *
 * Definitions are local to the rank: each *_def function returns a local
 * reference at once (no communication); the references are unified by name
 * across ranks at MPI_Finalize and OTF2 mapping tables translate them, so a
 * caller never needs a global id. Events go to the calling thread's location
 * (created on first use) with a timestamp from msc_now_ns(); they are written
 * only while the trace module is active and recording is on. All functions
 * are safe to call from any thread after MPI_Init and do nothing when the
 * trace is off (mode without "trace", or the archive could not be opened).
 */
#ifndef MSC_TRACE_TRACE_H
#define MSC_TRACE_TRACE_H

#include <otf2/otf2.h>
#include <stdbool.h>
#include <stdint.h>

/* True when the trace module is recording into an archive. */
bool msc_trace_active(void) __attribute__((visibility("hidden")));

/* A region (a user function or phase). Same name, role and paradigm on every
 * rank: one global region. Returns a local reference, or UINT32_MAX if the
 * table is full or the trace is off. */
uint32_t msc_trace_region_def(const char *name, OTF2_RegionRole role, OTF2_Paradigm paradigm)
    __attribute__((visibility("hidden")));

/* Enter and leave a region on the calling thread at time `t_ns`
 * (msc_now_ns()). Regions must nest. */
void msc_trace_enter(uint32_t region, uint64_t t_ns) __attribute__((visibility("hidden")));
void msc_trace_leave(uint32_t region, uint64_t t_ns) __attribute__((visibility("hidden")));

/* A counter with one value: `type` is OTF2_TYPE_INT64, OTF2_TYPE_UINT64 or
 * OTF2_TYPE_DOUBLE; `mode` OTF2_METRIC_ACCUMULATED_START (a running total)
 * or OTF2_METRIC_ABSOLUTE_POINT (a sample). Unified by name across ranks.
 * Returns a local reference or UINT32_MAX. */
uint32_t msc_trace_metric_def(const char *name, const char *unit, OTF2_Type type,
                              OTF2_MetricMode mode) __attribute__((visibility("hidden")));

/* One value of a counter on the calling thread at `t_ns`. */
void msc_trace_metric(uint32_t metric, uint64_t t_ns, OTF2_MetricValue value)
    __attribute__((visibility("hidden")));

#endif
