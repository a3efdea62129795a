/* The VT_ API (include/VT.h): the Intel Trace Collector's user calls, fed
 * into the OTF2 trace (src/trace/trace.h) and into a per-region profile.
 *
 * Handles are small positive integers: index + 1 into process-wide tables
 * (classes, functions, source locations, counters) that only grow; an entry
 * is filled before the count that publishes it is raised, so readers take no
 * lock. Each thread keeps its own stack of entered functions, its pending
 * VT_thisloc location and its unordered depth (vt_tls). Times given to the
 * user are seconds on the tool's clock since an origin fixed when the library
 * loads, so VT_timestamp() converts back to the nanoseconds of every other
 * trace event exactly (below a nanosecond for runs shorter than a day).
 *
 * Every call checks its arguments and returns an error code; nothing here
 * may crash on a bad handle. When the trace module is off (another
 * MPISCOPE_MODE) the trace calls do nothing and the codes are the same.
 */
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/clock.h"
#include "../core/log.h"
#include "../core/runtime.h"
#include "../core/state.h"
#include "../trace/trace.h"
#include "VT.h"
#include "impl.h"
#include "msc_functions.h"

#define VT_API __attribute__((visibility("default")))

enum { MAX_CLASSES = 1024, MAX_FUNCS = 16384, MAX_SCLS = 16384, MAX_COUNTERS = 1024 };

typedef struct {
    char name[128];
    uint32_t trc;       /* trace metric, UINT32_MAX: none */
    int genre;          /* VT_COUNT_* bits */
} vt_counter_t;

typedef struct {
    char file[256];
    int line;
    uint32_t trc;       /* trace source code location */
} vt_scl_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char classes[MAX_CLASSES][64];
static _Atomic int nclasses;
vt_func_t vt_funcs[MAX_FUNCS];
_Atomic int vt_nfuncs;
static vt_scl_t scls[MAX_SCLS];
static _Atomic int nscls;
static vt_counter_t counters[MAX_COUNTERS];
static _Atomic int ncounters;
static uint64_t origin;              /* ns: VT_timestamp() 0.0 */
static _Atomic bool mpi_by_vt;       /* VT_initialize called MPI_Init */
static _Atomic bool traced_off;      /* VT_traceoff in effect */

_Thread_local vt_tls_t vt_tls;

MSC_CONSTRUCTOR static void vt_origin(void)
{
    origin = msc_clock_monotonic_ns();
}

/* A table is full (or the nesting too deep): the call is refused with
 * VT_ERR_NOMEMORY, counted, and said once per table on stderr. */
static _Atomic unsigned long long refused[5];

static int full(const char *what, int bound, const char *call)
{
    static const char *const names[5] = {"classes", "functions", "source locations", "counters",
                                         "nesting levels"};
    int i = 0;
    while (i < 4 && strcmp(names[i], what) != 0) i++;
    if (atomic_fetch_add(&refused[i], 1) == 0)
        msc_warn("vt: %s refused: the bound of %d %s is reached; this and later calls past it "
                 "return VT_ERR_NOMEMORY and are not recorded",
                 call, bound, what);
    return VT_ERR_NOMEMORY;
}

static bool ready(void)
{
    return atomic_load_explicit(&msc_g.phase, memory_order_acquire) == MSC_PHASE_RUNNING;
}

static uint64_t ns_of(double s)
{
    return origin + (uint64_t)llround(s * 1e9);
}

static bool valid_ts(double s)
{
    return isfinite(s) && s >= 0 && s < 1e7;
}

/* The location for the next event: the one given, else VT_thisloc's. */
static uint32_t scl_ref(int scl)
{
    if (scl == VT_NOSCL) {
        scl = vt_tls.thisloc;
        vt_tls.thisloc = VT_NOSCL;
    }
    return scl > 0 && scl <= atomic_load(&nscls) ? scls[scl - 1].trc : UINT32_MAX;
}

static bool scl_ok(int scl)
{
    return scl == VT_NOSCL || (scl > 0 && scl <= atomic_load(&nscls));
}

/* Communicators defined with VT_commdef: their members' world ranks in
 * order, this process's rank among them (-1: not a member) and the value
 * that stands for them in the trace's calls, which no MPI communicator
 * has (an odd number below 2^16, a kind of handle neither MPI hands out). */
enum { MAX_VTCOMMS = 256 };
static struct {
    int id, n, me;
    int *ranks;
    MPI_Comm handle;
} vtcomms[MAX_VTCOMMS];
static _Atomic int nvtcomms;
static pthread_mutex_t vtcomms_lock = PTHREAD_MUTEX_INITIALIZER;

static int vtcomm_find(int commid)
{
    int n = atomic_load_explicit(&nvtcomms, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (vtcomms[i].id == commid) return i;
    return -1;
}

VT_API int VT_commdef(int comid, int numprocs, const int *ranks)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (comid == VT_COMM_INVALID || comid == VT_COMM_WORLD || comid == VT_COMM_SELF)
        return VT_ERR_COMM;
    if (numprocs < 1 || numprocs > msc_g.world_size || !ranks) return VT_ERR_BADARG;
    int me = -1;
    for (int i = 0; i < numprocs; i++) {
        if (ranks[i] < 0 || ranks[i] >= msc_g.world_size) return VT_ERR_BADARG;
        for (int j = 0; j < i; j++)
            if (ranks[j] == ranks[i]) return VT_ERR_BADARG;
        if (ranks[i] == msc_g.world_rank) me = i;
    }
    pthread_mutex_lock(&vtcomms_lock);
    int k = atomic_load(&nvtcomms), rc = VT_OK;
    int *copy = NULL;
    if (vtcomm_find(comid) >= 0) rc = VT_ERR_COMM; /* defined already */
    else if (k == MAX_VTCOMMS || !(copy = malloc((size_t)numprocs * sizeof *copy)))
        rc = VT_ERR_NOMEMORY;
    if (rc == VT_OK) {
        memcpy(copy, ranks, (size_t)numprocs * sizeof *copy);
        uintptr_t v = ((uintptr_t)(k + 1) << 4) | 1;
        MPI_Comm h;
        memset(&h, 0, sizeof h);
        memcpy(&h, &v, sizeof h < sizeof v ? sizeof h : sizeof v);
        vtcomms[k].id = comid, vtcomms[k].n = numprocs, vtcomms[k].me = me;
        vtcomms[k].ranks = copy, vtcomms[k].handle = h;
        if (me >= 0) msc_trace_comm_def(h, numprocs, copy, me);
        atomic_store_explicit(&nvtcomms, k + 1, memory_order_release);
    }
    pthread_mutex_unlock(&vtcomms_lock);
    return rc;
}

/* VT communicator id -> MPI communicator, its size and this process's rank
 * (false for an unknown id, or a VT_commdef communicator this process is
 * not a member of). */
static bool comm_of(int commid, MPI_Comm *comm, int *size, int *me)
{
    if (commid == VT_COMM_WORLD) {
        *comm = MPI_COMM_WORLD, *size = msc_g.world_size, *me = msc_g.world_rank;
        return true;
    }
    if (commid == VT_COMM_SELF) {
        *comm = MPI_COMM_SELF, *size = 1, *me = 0;
        return true;
    }
    int i = vtcomm_find(commid);
    if (i < 0 || vtcomms[i].me < 0) return false;
    *comm = vtcomms[i].handle, *size = vtcomms[i].n, *me = vtcomms[i].me;
    return true;
}

/* A VT_commdef communicator: records of its other members cannot be
 * delivered to them (they map communicators by their own references). */
static bool defined_comm(int commid)
{
    return commid != VT_COMM_WORLD && commid != VT_COMM_SELF;
}

/* --- Start and control ---------------------------------------------------- */

VT_API int VT_initialize(int *argc, char ***argv)
{
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (fin) return VT_ERR_NOTINITIALIZED;
    if (!init) {
        if (MPI_Init(argc, argv) != MPI_SUCCESS) return VT_ERR_COMM;
        atomic_store(&mpi_by_vt, true);
    }
    return VT_OK;
}

VT_API int VT_init(void)
{
    return VT_initialize(NULL, NULL);
}

VT_API int VT_finalize(void)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (atomic_exchange(&mpi_by_vt, false)) return MPI_Finalize() == MPI_SUCCESS ? VT_OK : VT_ERR_COMM;
    return VT_OK;
}

VT_API int VT_getrank(int *rank)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (!rank) return VT_ERR_BADARG;
    *rank = msc_g.world_rank;
    return VT_OK;
}

static void set_level(int level)
{
    if (!ready()) return;
    /* As MPI_Pcontrol does it, with the thread's gate busy. */
    unsigned g = atomic_fetch_or(&msc_tls.gate, MSC_GATE_BUSY);
    if (!(g & MSC_GATE_BUSY)) {
        msc_runtime_pcontrol(level);
        msc_gate_release();
    }
}

VT_API void VT_traceoff(void)
{
    atomic_store(&traced_off, true);
    set_level(0);
}

VT_API void VT_traceon(void)
{
    atomic_store(&traced_off, false);
    set_level(1);
}

VT_API int VT_tracestate(int *state)
{
    if (!state) return VT_ERR_BADARG;
    if (!ready() || msc_g.settings.v[MSC_SET_MODE].num == 0) {
        *state = VT_TRACE_OFF_PERMANENT;
        return ready() ? VT_OK : VT_ERR_NOTINITIALIZED;
    }
    *state = msc_recording_on() ? VT_TRACE_ON : VT_TRACE_OFF;
    return VT_OK;
}

/* What MPI_Pcontrol(2) does: the trace's and the profile's data so far to disk. */
VT_API int VT_flush(void)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    msc_runtime_pcontrol(2);
    return VT_OK;
}

VT_API double VT_timestamp(void)
{
    return (double)(msc_now_ns() - origin) * 1e-9;
}

VT_API double VT_timestart(void)
{
    uint64_t t = msc_g.t_init_end ? msc_g.t_init_end : origin;
    return (double)(t - origin) * 1e-9;
}

/* --- Regions -------------------------------------------------------------- */

VT_API int VT_classdef(const char *classname, int *classhandle)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (!classname || !classhandle) return VT_ERR_BADARG;
    pthread_mutex_lock(&lock);
    int n = atomic_load(&nclasses), h = 0;
    for (int i = 0; i < n && !h; i++)
        if (strncmp(classes[i], classname, sizeof classes[i] - 1) == 0) h = i + 1;
    if (!h && n < MAX_CLASSES) {
        snprintf(classes[n], sizeof classes[n], "%s", classname);
        atomic_store(&nclasses, n + 1);
        h = n + 1;
    }
    pthread_mutex_unlock(&lock);
    if (!h) return full("classes", MAX_CLASSES, "VT_classdef");
    *classhandle = h;
    return VT_OK;
}

VT_API int VT_funcdef(const char *symname, int classhandle, int *statehandle)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (!symname || !statehandle) return VT_ERR_BADARG;
    if (classhandle != VT_NOCLASS && (classhandle < 1 || classhandle > atomic_load(&nclasses)))
        return VT_ERR_BADSYMBOLID;
    pthread_mutex_lock(&lock);
    int n = atomic_load(&vt_nfuncs), h = 0;
    for (int i = 0; i < n && !h; i++)
        if (vt_funcs[i].cls == classhandle && strncmp(vt_funcs[i].name, symname,
                                                      sizeof vt_funcs[i].name - 1) == 0)
            h = i + 1;
    if (!h && n < MAX_FUNCS) {
        vt_func_t *f = &vt_funcs[n];
        snprintf(f->name, sizeof f->name, "%s", symname);
        f->cls = classhandle;
        snprintf(f->cls_name, sizeof f->cls_name, "%s",
                 classhandle ? classes[classhandle - 1] : "");
        f->trc = msc_trace_region_def_in(f->name, f->cls_name, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_USER);
        atomic_store(&vt_nfuncs, n + 1);
        h = n + 1;
    }
    pthread_mutex_unlock(&lock);
    msc_hooks_refresh(); /* the first region wants the profile split (vt/profile.c) */
    if (!h) return full("functions", MAX_FUNCS, "VT_funcdef");
    *statehandle = h;
    return VT_OK;
}

VT_API int VT_enter(int statehandle, int sclhandle)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (statehandle < 1 || statehandle > atomic_load(&vt_nfuncs)) return VT_ERR_BADSYMBOLID;
    if (!scl_ok(sclhandle)) return VT_ERR_BADSCLID;
    if (vt_tls.depth >= VT_MAX_DEPTH) {
        /* Not recorded; the matching VT_leave/VT_end is absorbed, so the
         * regions that were recorded stay properly nested. */
        vt_tls.overflow++;
        return full("nesting levels", VT_MAX_DEPTH, "VT_enter");
    }
    uint64_t t = msc_now_ns();
    uint32_t scl = scl_ref(sclhandle);
    vt_func_t *f = &vt_funcs[statehandle - 1];
    msc_trace_region_scl(f->trc, scl);
    msc_trace_enter_scl(f->trc, t, scl);
    vt_tls.stack[vt_tls.depth] = statehandle;
    vt_tls.t_enter[vt_tls.depth++] = t;
    return VT_OK;
}

VT_API int VT_leave(int sclhandle)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (!scl_ok(sclhandle)) return VT_ERR_BADSCLID;
    if (vt_tls.overflow > 0) {
        vt_tls.overflow--;
        return VT_OK;
    }
    if (vt_tls.depth <= 0) return VT_ERR_BADREQUEST;
    uint64_t t = msc_now_ns();
    int h = vt_tls.stack[--vt_tls.depth];
    msc_trace_leave_scl(vt_funcs[h - 1].trc, t, scl_ref(sclhandle));
    vt_prof_region(h, t - vt_tls.t_enter[vt_tls.depth]);
    return VT_OK;
}

VT_API int VT_begin(int statehandle)
{
    return VT_enter(statehandle, VT_NOSCL);
}

VT_API int VT_end(int statehandle)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (statehandle < 1 || statehandle > atomic_load(&vt_nfuncs)) return VT_ERR_BADSYMBOLID;
    if (vt_tls.overflow == 0 &&
        (vt_tls.depth <= 0 || vt_tls.stack[vt_tls.depth - 1] != statehandle))
        return VT_ERR_BADREQUEST;
    return VT_leave(VT_NOSCL);
}

VT_API int VT_scldef(const char *file, int line_nr, int *sclhandle)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (!file || !sclhandle || line_nr < 0) return VT_ERR_BADARG;
    pthread_mutex_lock(&lock);
    int n = atomic_load(&nscls), h = 0;
    for (int i = 0; i < n && !h; i++)
        if (scls[i].line == line_nr && strncmp(scls[i].file, file, sizeof scls[i].file - 1) == 0)
            h = i + 1;
    if (!h && n < MAX_SCLS) {
        snprintf(scls[n].file, sizeof scls[n].file, "%s", file);
        scls[n].line = line_nr;
        scls[n].trc = msc_trace_scl_def(scls[n].file, line_nr);
        atomic_store(&nscls, n + 1);
        h = n + 1;
    }
    pthread_mutex_unlock(&lock);
    if (!h) return full("source locations", MAX_SCLS, "VT_scldef");
    *sclhandle = h;
    return VT_OK;
}

VT_API int VT_thisloc(int sclhandle)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (!scl_ok(sclhandle)) return VT_ERR_BADSCLID;
    vt_tls.thisloc = sclhandle;
    return VT_OK;
}

/* --- Communication events ------------------------------------------------- */

static int check_msg(int count, int tag, int commid, MPI_Comm *comm, int *size, int *me)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (!comm_of(commid, comm, size, me)) return VT_ERR_COMM;
    if (count < 0 || tag < 0) return VT_ERR_BADARG;
    return VT_OK;
}

VT_API int VT_log_sendmsg(int other_rank, int count, int tag, int commid, int sclhandle)
{
    MPI_Comm comm;
    int size, me, rc = check_msg(count, tag, commid, &comm, &size, &me);
    if (rc) return rc;
    if (other_rank < 0 || other_rank >= size) return VT_ERR_BADARG;
    if (!scl_ok(sclhandle)) return VT_ERR_BADSCLID;
    msc_trace_send(comm, other_rank, tag, (uint64_t)count, msc_now_ns(), scl_ref(sclhandle));
    return VT_OK;
}

VT_API int VT_log_recvmsg(int other_rank, int count, int tag, int commid, int sclhandle)
{
    MPI_Comm comm;
    int size, me, rc = check_msg(count, tag, commid, &comm, &size, &me);
    if (rc) return rc;
    if (other_rank < 0 || other_rank >= size) return VT_ERR_BADARG;
    if (!scl_ok(sclhandle)) return VT_ERR_BADSCLID;
    msc_trace_recv(comm, other_rank, tag, (uint64_t)count, msc_now_ns(), scl_ref(sclhandle));
    return VT_OK;
}

VT_API int VT_log_msgevent(int sender, int receiver, int count, int tag, int commid,
                           double sendts, int sendscl, int recvscl)
{
    MPI_Comm comm;
    int size, me, rc = check_msg(count, tag, commid, &comm, &size, &me);
    if (rc) return rc;
    if (sender < 0 || sender >= size || receiver < 0 || receiver >= size) return VT_ERR_BADARG;
    if (!scl_ok(sendscl) || !scl_ok(recvscl)) return VT_ERR_BADSCLID;
    if (!valid_ts(sendts)) return VT_ERR_BADARG;
    if (defined_comm(commid) && (sender != me || receiver != me)) return VT_ERR_COMM;
    uint64_t ts = ns_of(sendts), tr = msc_now_ns();
    if (ts > tr) ts = tr; /* a send cannot start after its receive ended */
    uint32_t ss = sendscl == VT_NOSCL ? UINT32_MAX : scls[sendscl - 1].trc;
    uint32_t rs = recvscl == VT_NOSCL ? UINT32_MAX : scls[recvscl - 1].trc;
    int wsend = commid == VT_COMM_SELF ? msc_g.world_rank : sender;
    int wrecv = commid == VT_COMM_SELF ? msc_g.world_rank : receiver;
    if (sender == me) msc_trace_send(comm, receiver, tag, (uint64_t)count, ts, ss);
    else msc_trace_send_for(wsend, comm, receiver, tag, (uint64_t)count, ts, ss);
    if (receiver == me) msc_trace_recv(comm, sender, tag, (uint64_t)count, tr, rs);
    else msc_trace_recv_for(wrecv, comm, sender, tag, (uint64_t)count, tr, rs);
    return VT_OK;
}

/* VT_OP_* -> the MPI operation it stands for. */
static const struct {
    const char *mpi;      /* function name, its region */
    OTF2_CollectiveOp op;
    bool rooted;
} ops[VT_OP_COUNT] = {
    [VT_OP_BARRIER] = {"MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, 0},
    [VT_OP_IBARRIER] = {"MPI_Ibarrier", OTF2_COLLECTIVE_OP_BARRIER, 0},
    [VT_OP_BCAST] = {"MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 1},
    [VT_OP_IBCAST] = {"MPI_Ibcast", OTF2_COLLECTIVE_OP_BCAST, 1},
    [VT_OP_GATHER] = {"MPI_Gather", OTF2_COLLECTIVE_OP_GATHER, 1},
    [VT_OP_IGATHER] = {"MPI_Igather", OTF2_COLLECTIVE_OP_GATHER, 1},
    [VT_OP_GATHERV] = {"MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV, 1},
    [VT_OP_IGATHERV] = {"MPI_Igatherv", OTF2_COLLECTIVE_OP_GATHERV, 1},
    [VT_OP_SCATTER] = {"MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER, 1},
    [VT_OP_ISCATTER] = {"MPI_Iscatter", OTF2_COLLECTIVE_OP_SCATTER, 1},
    [VT_OP_SCATTERV] = {"MPI_Scatterv", OTF2_COLLECTIVE_OP_SCATTERV, 1},
    [VT_OP_ISCATTERV] = {"MPI_Iscatterv", OTF2_COLLECTIVE_OP_SCATTERV, 1},
    [VT_OP_ALLGATHER] = {"MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER, 0},
    [VT_OP_IALLGATHER] = {"MPI_Iallgather", OTF2_COLLECTIVE_OP_ALLGATHER, 0},
    [VT_OP_ALLGATHERV] = {"MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, 0},
    [VT_OP_IALLGATHERV] = {"MPI_Iallgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, 0},
    [VT_OP_ALLTOALL] = {"MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL, 0},
    [VT_OP_IALLTOALL] = {"MPI_Ialltoall", OTF2_COLLECTIVE_OP_ALLTOALL, 0},
    [VT_OP_ALLTOALLV] = {"MPI_Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV, 0},
    [VT_OP_IALLTOALLV] = {"MPI_Ialltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV, 0},
    [VT_OP_ALLTOALLW] = {"MPI_Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW, 0},
    [VT_OP_IALLTOALLW] = {"MPI_Ialltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW, 0},
    [VT_OP_NEIGHBOR_ALLGATHER] = {"MPI_Neighbor_allgather", OTF2_COLLECTIVE_OP_ALLGATHER, 0},
    [VT_OP_INEIGHBOR_ALLGATHER] = {"MPI_Ineighbor_allgather", OTF2_COLLECTIVE_OP_ALLGATHER, 0},
    [VT_OP_NEIGHBOR_ALLGATHERV] = {"MPI_Neighbor_allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, 0},
    [VT_OP_INEIGHBOR_ALLGATHERV] = {"MPI_Ineighbor_allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, 0},
    [VT_OP_NEIGHBOR_ALLTOALL] = {"MPI_Neighbor_alltoall", OTF2_COLLECTIVE_OP_ALLTOALL, 0},
    [VT_OP_INEIGHBOR_ALLTOALL] = {"MPI_Ineighbor_alltoall", OTF2_COLLECTIVE_OP_ALLTOALL, 0},
    [VT_OP_NEIGHBOR_ALLTOALLV] = {"MPI_Neighbor_alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV, 0},
    [VT_OP_INEIGHBOR_ALLTOALLV] = {"MPI_Ineighbor_alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV, 0},
    [VT_OP_NEIGHBOR_ALLTOALLW] = {"MPI_Neighbor_alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW, 0},
    [VT_OP_INEIGHBOR_ALLTOALLW] = {"MPI_Ineighbor_alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW, 0},
    [VT_OP_REDUCE] = {"MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE, 1},
    [VT_OP_REDUCE_LOCAL] = {"MPI_Reduce_local", OTF2_COLLECTIVE_OP_REDUCE, 0},
    [VT_OP_IREDUCE] = {"MPI_Ireduce", OTF2_COLLECTIVE_OP_REDUCE, 1},
    [VT_OP_ALLREDUCE] = {"MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, 0},
    [VT_OP_IALLREDUCE] = {"MPI_Iallreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, 0},
    [VT_OP_REDUCE_SCATTER] = {"MPI_Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER, 0},
    [VT_OP_REDUCE_SCATTER_BLOCK] = {"MPI_Reduce_scatter_block",
                                    OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, 0},
    [VT_OP_IREDUCE_SCATTER] = {"MPI_Ireduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER, 0},
    [VT_OP_IREDUCE_SCATTER_BLOCK] = {"MPI_Ireduce_scatter_block",
                                     OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, 0},
    [VT_OP_SCAN] = {"MPI_Scan", OTF2_COLLECTIVE_OP_SCAN, 0},
    [VT_OP_ISCAN] = {"MPI_Iscan", OTF2_COLLECTIVE_OP_SCAN, 0},
    [VT_OP_EXSCAN] = {"MPI_Exscan", OTF2_COLLECTIVE_OP_EXSCAN, 0},
    [VT_OP_IEXSCAN] = {"MPI_Iexscan", OTF2_COLLECTIVE_OP_EXSCAN, 0},
};

/* The region of an operation: the MPI function's, or a region of that name. */
static uint32_t op_region(int opid)
{
    int fn = msc_fn_lookup(ops[opid].mpi);
    if (fn >= 0) return (uint32_t)fn;
    return msc_trace_region_def(ops[opid].mpi, OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_PARADIGM_MPI);
}

/* Bytes of rank `r`: only the sides that move data in that operation. */
static void op_bytes(int opid, int r, int root, int bsend, int brecv, uint64_t *s, uint64_t *rv)
{
    OTF2_CollectiveOp op = ops[opid].op;
    bool is_root = r == root;
    *s = bsend > 0 ? (uint64_t)bsend : 0;
    *rv = brecv > 0 ? (uint64_t)brecv : 0;
    if (op == OTF2_COLLECTIVE_OP_BARRIER) *s = *rv = 0;
    if (!ops[opid].rooted || is_root) {
        if (op == OTF2_COLLECTIVE_OP_BCAST) *rv = 0;
        return;
    }
    if (op == OTF2_COLLECTIVE_OP_BCAST || op == OTF2_COLLECTIVE_OP_SCATTER ||
        op == OTF2_COLLECTIVE_OP_SCATTERV)
        *s = 0;
    else /* gather, reduce: only the root receives */
        *rv = 0;
}

static int check_op(int opid, int commid, int root, MPI_Comm *comm, int *size, int *me)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (opid <= VT_OP_INVALID || opid >= VT_OP_COUNT) return VT_ERR_BADKIND;
    if (!comm_of(commid, comm, size, me)) return VT_ERR_COMM;
    if (root < 0 || root >= *size) return VT_ERR_BADARG;
    return VT_OK;
}

VT_API int VT_log_op(int opid, int commid, int root, int bsend, int brecv, double startts,
                     int sclhandle)
{
    MPI_Comm comm;
    int size, me, rc = check_op(opid, commid, root, &comm, &size, &me);
    if (rc) return rc;
    if (!scl_ok(sclhandle)) return VT_ERR_BADSCLID;
    if (!valid_ts(startts)) return VT_ERR_BADARG;
    uint64_t te = msc_now_ns(), tb = ns_of(startts), s, r;
    if (tb > te) tb = te;
    op_bytes(opid, me, root, bsend, brecv, &s, &r);
    msc_trace_collective(op_region(opid), comm, ops[opid].op, ops[opid].rooted ? root : -1, s, r,
                         tb, te, scl_ref(sclhandle));
    return VT_OK;
}

VT_API int VT_log_opevent(int opid, int commid, int root, int numprocs, int *bsend, int *brecv,
                          double *startts, int sclhandle)
{
    MPI_Comm comm;
    int size, me, rc = check_op(opid, commid, root, &comm, &size, &me);
    if (rc) return rc;
    if (numprocs != size || !bsend || !brecv || !startts) return VT_ERR_BADARG;
    if (!scl_ok(sclhandle)) return VT_ERR_BADSCLID;
    for (int i = 0; i < size; i++)
        if (!valid_ts(startts[i])) return VT_ERR_BADARG;
    if (defined_comm(commid) && size > 1) return VT_ERR_COMM;
    uint64_t te = msc_now_ns();
    uint32_t region = op_region(opid), scl = scl_ref(sclhandle);
    int r0 = ops[opid].rooted ? root : -1;
    for (int i = 0; i < size; i++) {
        uint64_t tb = ns_of(startts[i]), s, r;
        if (tb > te) tb = te;
        op_bytes(opid, i, root, bsend[i], brecv[i], &s, &r);
        if (i == me)
            msc_trace_collective(region, comm, ops[opid].op, r0, s, r, tb, te, scl);
        else
            msc_trace_collective_for(i, region, comm, ops[opid].op, r0, s, r, tb, te, scl);
    }
    return VT_OK;
}

VT_API int VT_begin_unordered(void)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    vt_tls.unordered++;
    msc_trace_unordered(+1);
    return VT_OK;
}

VT_API int VT_end_unordered(void)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (vt_tls.unordered <= 0) return VT_ERR_BADREQUEST;
    vt_tls.unordered--;
    msc_trace_unordered(-1);
    return VT_OK;
}

/* --- Counters, threads, comments ------------------------------------------ */

VT_API int VT_countdef(const char *name, int classhandle, int genre, int procOrGroup,
                       const void *bounds, const char *unit, int *counterhandle)
{
    (void)bounds; /* OTF2 metrics have no bounds */
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (!name || !counterhandle) return VT_ERR_BADARG;
    if (classhandle != VT_NOCLASS && (classhandle < 1 || classhandle > atomic_load(&nclasses)))
        return VT_ERR_BADSYMBOLID;
    if ((genre & ~(VT_COUNT_DATA | VT_COUNT_DISPLAY | VT_COUNT_VALID)) ||
        (genre & VT_COUNT_DATA) == VT_COUNT_DATA)
        return VT_ERR_BADKIND;
    if (procOrGroup != VT_ME && procOrGroup != VT_GROUP_THREAD && procOrGroup != VT_GROUP_PROCESS)
        return VT_ERR_BADARG;
    OTF2_Type type = (genre & VT_COUNT_DATA) == VT_COUNT_FLOAT ? OTF2_TYPE_DOUBLE
                     : (genre & VT_COUNT_DATA) == VT_COUNT_INTEGER64 ? OTF2_TYPE_INT64
                                                                     : OTF2_TYPE_UINT64;
    OTF2_MetricMode mode = (genre & VT_COUNT_VALID) == VT_COUNT_VALID_BEFORE ? OTF2_METRIC_ABSOLUTE_LAST
                           : (genre & VT_COUNT_VALID) == VT_COUNT_VALID_AFTER ? OTF2_METRIC_ABSOLUTE_NEXT
                                                                              : OTF2_METRIC_ABSOLUTE_POINT;
    pthread_mutex_lock(&lock);
    int n = atomic_load(&ncounters), h = 0;
    if (n < MAX_COUNTERS) {
        vt_counter_t *c = &counters[n];
        snprintf(c->name, sizeof c->name, "%s", name);
        c->genre = genre;
        c->trc = msc_trace_metric_def(c->name, unit ? unit : "", type, mode);
        atomic_store(&ncounters, n + 1);
        h = n + 1;
    }
    pthread_mutex_unlock(&lock);
    if (!h) return full("counters", MAX_COUNTERS, "VT_countdef");
    *counterhandle = h;
    return VT_OK;
}

VT_API int VT_countval(int num, int *handles, void *values)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (num < 0 || (num > 0 && (!handles || !values))) return VT_ERR_BADARG;
    int n = atomic_load(&ncounters);
    for (int i = 0; i < num; i++)
        if (handles[i] < 1 || handles[i] > n) return VT_ERR_BADSYMBOLID;
    uint64_t t = msc_now_ns();
    const unsigned char *p = values;
    for (int i = 0; i < num; i++, p += 8) {
        const vt_counter_t *c = &counters[handles[i] - 1];
        OTF2_MetricValue v;
        switch (c->genre & VT_COUNT_DATA) {
        case VT_COUNT_FLOAT: memcpy(&v.floating_point, p, 8); break;
        case VT_COUNT_INTEGER64: memcpy(&v.signed_int, p, 8); break;
        default: { /* two 32-bit words, high first */
            uint32_t w[2];
            memcpy(w, p, 8);
            v.unsigned_int = ((uint64_t)w[0] << 32) | w[1];
            break;
        }
        }
        msc_trace_metric(c->trc, t, v);
    }
    return VT_OK;
}

VT_API int VT_registerthread(int thindex)
{
    (void)thindex; /* locations are numbered in the order threads first record */
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    return msc_thread_attach() ? VT_OK : VT_ERR_NOMEMORY;
}

VT_API int VT_registernamed(const char *threadname, int thindex)
{
    int rc = VT_registerthread(thindex);
    if (rc == VT_OK && threadname && threadname[0]) msc_trace_thread_name(threadname);
    return rc;
}

VT_API int VT_log_comment(const char *comment)
{
    if (!ready()) return VT_ERR_NOTINITIALIZED;
    if (!comment) return VT_ERR_BADARG;
    msc_trace_comment(comment, msc_now_ns());
    return VT_OK;
}
