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

#include <mpi.h>
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

/* Writes the calling thread's events so far to disk now (MPI_Pcontrol(2),
 * VT_flush); every other thread does the same at its next traced call. */
void msc_trace_flush(void) __attribute__((visibility("hidden")));

/* --- For the VT_ API (src/vt) ------------------------------------------- */

/* A communicator that exists only for the trace (VT_commdef), defined on
 * its members: `handle` is a value no MPI communicator has, which the other
 * calls then take as their communicator; `world_ranks` are the members in
 * order, `me` this process's rank among them. Unified across ranks by its
 * members like MPI's. */
bool msc_trace_comm_def(MPI_Comm handle, int n, const int *world_ranks, int me)
    __attribute__((visibility("hidden")));

/* Names the calling thread's location (VT_registernamed); the name is the
 * location's name in the archive. */
void msc_trace_thread_name(const char *name) __attribute__((visibility("hidden")));

/* A source code location: file and line, unified by both across ranks
 * (OTF2 SourceCodeLocation definitions). Returns a local reference or
 * UINT32_MAX. Records that take an `scl` carry it as the attribute
 * SOURCE_CODE_LOCATION; UINT32_MAX means none. */
uint32_t msc_trace_scl_def(const char *file, int line) __attribute__((visibility("hidden")));

/* A region that belongs to a group (VT_ class; NULL or "": none). Unified by
 * name, group, role and paradigm; each group becomes an OTF2 group of type
 * REGIONS listing its regions. */
uint32_t msc_trace_region_def_in(const char *name, const char *group, OTF2_RegionRole role,
                                 OTF2_Paradigm paradigm) __attribute__((visibility("hidden")));

/* Gives a region the file and line of `scl` (the first call wins). */
void msc_trace_region_scl(uint32_t region, uint32_t scl) __attribute__((visibility("hidden")));

/* Enter and Leave with a source code location. */
void msc_trace_enter_scl(uint32_t region, uint64_t t_ns, uint32_t scl)
    __attribute__((visibility("hidden")));
void msc_trace_leave_scl(uint32_t region, uint64_t t_ns, uint32_t scl)
    __attribute__((visibility("hidden")));

/* A message end at `t_ns`: MpiSend to (MpiRecv from) rank `peer` of `comm`,
 * `bytes` long. Only MPI_COMM_WORLD and MPI_COMM_SELF are meant here. */
void msc_trace_send(MPI_Comm comm, int peer, int tag, uint64_t bytes, uint64_t t_ns, uint32_t scl)
    __attribute__((visibility("hidden")));
void msc_trace_recv(MPI_Comm comm, int peer, int tag, uint64_t bytes, uint64_t t_ns, uint32_t scl)
    __attribute__((visibility("hidden")));

/* A collective operation as the trace records MPI's: Enter(region) and
 * MpiCollectiveBegin at t_begin, MpiCollectiveEnd (op, comm, root or -1,
 * bytes sent and received by this process) and Leave at t_end. `region` is
 * normally the MPI function's (its function id). */
void msc_trace_collective(uint32_t region, MPI_Comm comm, OTF2_CollectiveOp op, int root,
                          uint64_t sent, uint64_t recvd, uint64_t t_begin, uint64_t t_end,
                          uint32_t scl) __attribute__((visibility("hidden")));

/* The same records for another process (world rank `owner`), for
 * VT_log_msgevent and VT_log_opevent, which log both ends at once. They are
 * sent to the owner at MPI_Finalize, which writes them, sorted by time, on
 * an extra location of its location group ("VT events logged by other
 * ranks"): OTF2 lets each rank write only its own locations. Source code
 * locations are dropped, and only MPI functions' regions are kept. */
void msc_trace_send_for(int owner, MPI_Comm comm, int peer, int tag, uint64_t bytes,
                        uint64_t t_ns, uint32_t scl) __attribute__((visibility("hidden")));
void msc_trace_recv_for(int owner, MPI_Comm comm, int peer, int tag, uint64_t bytes,
                        uint64_t t_ns, uint32_t scl) __attribute__((visibility("hidden")));
void msc_trace_collective_for(int owner, uint32_t region, MPI_Comm comm, OTF2_CollectiveOp op,
                              int root, uint64_t sent, uint64_t recvd, uint64_t t_begin,
                              uint64_t t_end, uint32_t scl) __attribute__((visibility("hidden")));

/* A comment (ParameterString of the parameter "comment") at `t_ns`. */
void msc_trace_comment(const char *text, uint64_t t_ns) __attribute__((visibility("hidden")));

/* Opens (+1) or closes (-1) an unordered period on the calling thread.
 * While one is open, every record of the thread (MPI calls included) is
 * held; when the depth returns to zero, or at finalize, the held records are
 * written sorted by time, equal times in logging order. Returns the new
 * depth, or -1 when the trace is off. */
int msc_trace_unordered(int delta) __attribute__((visibility("hidden")));

#endif
