/* VT.h: the Intel Trace Collector's user API, as mpiscope provides it.
 *
 * Code instrumented for the Intel Trace Collector compiles unchanged against
 * this header and links with -lmpiscope (or runs under `mpiscope run` when it
 * was linked so). The names, arguments and meanings follow the Intel Trace
 * Collector's reference; the numeric values of the constants are mpiscope's
 * own, so a program must be recompiled, not just relinked. docs/vt.md lists
 * what is supported and how each call appears in the trace and the profile.
 *
 * Every function returning int returns VT_OK or a negative VT_ERR_* code; a
 * misuse (unknown handle, invalid communicator or operation id, a call before
 * MPI_Init or VT_initialize) is an error return, never a crash.
 */
#ifndef VT_H
#define VT_H

#ifdef __cplusplus
extern "C" {
#endif

#define VT_VERSION 90000 /* the Intel Trace Collector API level this header follows */

/* Error codes. */
enum _VT_ErrorCode {
    VT_OK = 0,
    VT_ERR_NOLICENSE = -1,
    VT_ERR_NOTIMPLEMENTED = -2,
    VT_ERR_NOTINITIALIZED = -3,
    VT_ERR_BADREQUEST = -4,
    VT_ERR_BADSYMBOLID = -5,
    VT_ERR_BADSCLID = -6,
    VT_ERR_BADSYMBOL = -7,
    VT_ERR_BADSCL = -8,
    VT_ERR_BADFORMAT = -9,
    VT_ERR_BADKIND = -10,
    VT_ERR_NOMEMORY = -11,
    VT_ERR_BADFILE = -12,
    VT_ERR_FLUSH = -13,
    VT_ERR_BADARG = -14,
    VT_ERR_NOTHREADS = -15,
    VT_ERR_BADINDEX = -16,
    VT_ERR_COMM = -17,
    VT_ERR_INVT = -18,
    VT_ERR_IGNORE = -19
};

/* Handles that mean "none". */
#define VT_NOCLASS 0 /* a function (state) without a class */
#define VT_NOSCL 0   /* no source code location */

/* Communicator ids of the communication API (only the predefined ones). */
enum _VT_CommIDs {
    VT_COMM_INVALID = 0, /* invalid id: do not pass */
    VT_COMM_WORLD = 1,   /* global ranks are the same as local ones */
    VT_COMM_SELF = 2     /* only the calling process */
};

/* Operation ids of VT_log_op and VT_log_opevent: each is recorded as the
 * MPI operation of the same name. */
enum _VT_OpTypes {
    VT_OP_INVALID = 0,
    VT_OP_BARRIER,
    VT_OP_IBARRIER,
    VT_OP_BCAST,
    VT_OP_IBCAST,
    VT_OP_GATHER,
    VT_OP_IGATHER,
    VT_OP_GATHERV,
    VT_OP_IGATHERV,
    VT_OP_SCATTER,
    VT_OP_ISCATTER,
    VT_OP_SCATTERV,
    VT_OP_ISCATTERV,
    VT_OP_ALLGATHER,
    VT_OP_IALLGATHER,
    VT_OP_ALLGATHERV,
    VT_OP_IALLGATHERV,
    VT_OP_ALLTOALL,
    VT_OP_IALLTOALL,
    VT_OP_ALLTOALLV,
    VT_OP_IALLTOALLV,
    VT_OP_ALLTOALLW,
    VT_OP_IALLTOALLW,
    VT_OP_NEIGHBOR_ALLGATHER,
    VT_OP_INEIGHBOR_ALLGATHER,
    VT_OP_NEIGHBOR_ALLGATHERV,
    VT_OP_INEIGHBOR_ALLGATHERV,
    VT_OP_NEIGHBOR_ALLTOALL,
    VT_OP_INEIGHBOR_ALLTOALL,
    VT_OP_NEIGHBOR_ALLTOALLV,
    VT_OP_INEIGHBOR_ALLTOALLV,
    VT_OP_NEIGHBOR_ALLTOALLW,
    VT_OP_INEIGHBOR_ALLTOALLW,
    VT_OP_REDUCE,
    VT_OP_REDUCE_LOCAL,
    VT_OP_IREDUCE,
    VT_OP_ALLREDUCE,
    VT_OP_IALLREDUCE,
    VT_OP_REDUCE_SCATTER,
    VT_OP_REDUCE_SCATTER_BLOCK,
    VT_OP_IREDUCE_SCATTER,
    VT_OP_IREDUCE_SCATTER_BLOCK,
    VT_OP_SCAN,
    VT_OP_ISCAN,
    VT_OP_EXSCAN,
    VT_OP_IEXSCAN,
    VT_OP_COUNT /* number of predefined operations (plus VT_OP_INVALID) */
};

/* Counters: the data type, how values are shown, and when a value is valid,
 * or-ed together in VT_countdef's `genre`. */
enum _VT_CountData {
    VT_COUNT_INTEGER = 0,     /* unsigned 64 bits given as two 32-bit words, high first */
    VT_COUNT_FLOAT = 1,       /* double */
    VT_COUNT_INTEGER64 = 2,   /* signed 64 bits */
    VT_COUNT_DATA = 3         /* mask */
};
enum _VT_CountDisplay {
    VT_COUNT_ABSVAL = 0,      /* the value itself */
    VT_COUNT_RATE = 4,        /* a rate */
    VT_COUNT_DISPLAY = 4      /* mask */
};
enum _VT_CountScope {
    VT_COUNT_VALID_BEFORE = 0, /* valid since the previous value */
    VT_COUNT_VALID_POINT = 8,  /* valid at this instant */
    VT_COUNT_VALID_AFTER = 16, /* valid until the next value */
    VT_COUNT_VALID_SAMPLE = 24, /* a sample of a continuous quantity */
    VT_COUNT_VALID = 24        /* mask */
};

/* Counter scopes (VT_countdef's `procOrGroup`). */
enum _VT_Groups {
    VT_ME = -1,            /* the calling thread */
    VT_GROUP_THREAD = -2,  /* every thread */
    VT_GROUP_PROCESS = -3, /* every process */
    VT_GROUP_CLUSTER = -4  /* every node */
};

/* VT_tracestate's states. */
#define VT_TRACE_ON 0
#define VT_TRACE_OFF 1
#define VT_TRACE_OFF_PERMANENT 2

/* --- Start and control -------------------------------------------------- */

/* Starts the API: calls MPI_Init if MPI is not initialized yet (and then
 * VT_finalize calls MPI_Finalize). With MPI initialized, just returns VT_OK. */
int VT_initialize(int *argc, char ***argv);
int VT_init(void);
int VT_finalize(void);
/* The calling process's rank in MPI_COMM_WORLD. */
int VT_getrank(int *rank);
/* Recording off and on again (MPI calls included) for the whole process. */
void VT_traceoff(void);
void VT_traceon(void);
/* VT_TRACE_ON, VT_TRACE_OFF (VT_traceoff or MPI_Pcontrol(0)) or
 * VT_TRACE_OFF_PERMANENT (not recording at all: mode none, before MPI_Init
 * or after MPI_Finalize). */
int VT_tracestate(int *state);
/* Accepted; OTF2 buffers reach the disk when full and at MPI_Finalize. */
int VT_flush(void);
/* Seconds on the tool's clock, for VT_log_msgevent, VT_log_op and
 * VT_log_opevent; VT_timestart is the time at MPI_Init. */
double VT_timestamp(void);
double VT_timestart(void);

/* --- Regions -------------------------------------------------------------- */

int VT_classdef(const char *classname, int *classhandle);
int VT_funcdef(const char *symname, int classhandle, int *statehandle);
int VT_enter(int statehandle, int sclhandle);
int VT_leave(int sclhandle);
int VT_begin(int statehandle);
int VT_end(int statehandle);
/* Source code locations: `VT_scldef(__FILE__, __LINE__, &h)`; VT_thisloc
 * gives the next event of the calling thread that location. */
int VT_scldef(const char *file, int line_nr, int *sclhandle);
int VT_thisloc(int sclhandle);

/* --- Communication events ------------------------------------------------- */

/* Defines communicator `comid` (any id but VT_COMM_INVALID, VT_COMM_WORLD and
 * VT_COMM_SELF, once) of `numprocs` processes, given by their ranks in
 * MPI_COMM_WORLD in the order of their ranks in it. Members call it (the
 * others may); no communication. */
int VT_commdef(int comid, int numprocs, const int *ranks);
int VT_log_sendmsg(int other_rank, int count, int tag, int commid, int sclhandle);
int VT_log_recvmsg(int other_rank, int count, int tag, int commid, int sclhandle);
int VT_log_msgevent(int sender, int receiver, int count, int tag, int commid, double sendts,
                    int sendscl, int recvscl);
int VT_log_op(int opid, int commid, int root, int bsend, int brecv, double startts,
              int sclhandle);
int VT_log_opevent(int opid, int commid, int root, int numprocs, int *bsend, int *brecv,
                   double *startts, int sclhandle);
int VT_begin_unordered(void);
int VT_end_unordered(void);

/* --- Counters, threads, comments ------------------------------------------ */

int VT_countdef(const char *name, int classhandle, int genre, int procOrGroup,
                const void *bounds, const char *unit, int *counterhandle);
int VT_countval(int num, int *handles, void *values);
int VT_registerthread(int thindex);
int VT_registernamed(const char *threadname, int thindex);
int VT_log_comment(const char *comment);

#ifdef __cplusplus
}
#endif

#endif
