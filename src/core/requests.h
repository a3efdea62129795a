/* Private to mpiscope. The request table: what each pending nonblocking or
 * persistent operation is, so that its completion can be understood.
 *
 * MPI tells a completion call only which request finished; the peer, tag,
 * datatype and size were known when it was posted. The core records them at
 * post time (ISEND, IRECV, *_INIT, IMRECV, ICOLL, COLL_INIT, IO_IREAD, IO_IWRITE, RMA_R*, ICOMM calls) and, in every
 * completion call (Wait/Test and their any/some/all forms), hands the modules
 * the list of operations that completed, with the status and the bytes
 * actually transferred. Persistent requests stay in the table until freed and
 * are marked active by MPI_Start/MPI_Startall. Modules never touch the table.
 *
 * The table is split into stripes, each with its own lock, sharing one fixed
 * pool of entries: requests may be created by one thread and completed by
 * another, and memory is bounded (MPISCOPE_MAX_REQUESTS pending requests,
 * exactly). A request that does not fit is counted as dropped; its
 * completion is then reported as unknown.
 */
#ifndef MSC_CORE_REQUESTS_H
#define MSC_CORE_REQUESTS_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "msc_functions.h"

typedef struct {
    uint64_t id;            /* unique in this process, never 0: names the request in traces */
    msc_fn_t fn;            /* the call that created it */
    msc_kind_t kind;        /* ISEND, IRECV, SEND_INIT, RECV_INIT, IMRECV, ICOLL, COLL_INIT, IO_IREAD, IO_IWRITE,
                             * RMA_RPUT, RMA_RGET, RMA_RACC, ICOMM */
    MPI_Comm comm;
    int peer, tag, root;    /* peer: rank in comm, or MPI_ANY_SOURCE / MPI_PROC_NULL */
    MPI_Count count;        /* elements */
    MPI_Datatype type;
    int64_t bytes;          /* send: message size; receive: buffer capacity */
    void *site;             /* return address of the posting call */
    uint64_t t_post;        /* ns */
    uint32_t comm_tag;      /* the communicator as a module sees it at post time
                             * (msc_requests_comm_tag), for when it is freed
                             * while the request is pending */
    int thread;             /* index of the posting thread (msc_thread_t), or -1 */
    uint8_t persistent;
    uint8_t active;         /* persistent: started and not yet completed */
    int parts;              /* SEND_INIT, RECV_INIT of MPI_Psend_init/MPI_Precv_init: the
                             * partitions (count and bytes are all of them); 0 otherwise */
    /* ICOLL, COLL_INIT: the rest of the call's arguments (count, type and
     * root above), for modules that need them when a persistent collective
     * starts or an operation completes; MPI keeps the v-forms' arrays valid
     * until then. */
    uint8_t counts_are_mpi_count;
    uint8_t send_in_place;  /* the send buffer was MPI_IN_PLACE */
    uint8_t recv_in_place;  /* the receive buffer was MPI_IN_PLACE */
    MPI_Count rcount;
    MPI_Datatype rtype;
    const void *counts, *rcounts;
    MPI_File file;          /* IO_IREAD, IO_IWRITE: the file */
    /* ICOMM: where the application's handle of the new communicator is
     * written (a C MPI_Comm, or a Fortran INTEGER when newcomm_fortran). MPI
     * fills it by the time the request completes; comm above is the parent. */
    const void *newcomm_at;
    uint8_t newcomm_fortran;
} msc_req_info_t;

typedef struct msc_done {
    msc_req_info_t info;    /* info.id == 0: the request was not in the table */
    MPI_Status *status;     /* the completion's status, or NULL (sends from Wait*all...) */
    int64_t bytes;          /* receive, file read or write: bytes done (from the status);
                             * send: info.bytes */
    bool cancelled;         /* MPI_Test_cancelled said so */
    MPI_Comm newcomm;       /* ICOMM: the communicator the completed request made
                             * (MPI_COMM_NULL otherwise, or if unknown) */
    MPI_Status fixed;       /* status points here when the MPI's cannot be read
                             * (msc_isendrecv_status) */
} msc_done_t;

struct msc_call;

/* Sets up the table with room for `capacity` pending requests. */
bool msc_requests_init(int capacity) __attribute__((visibility("hidden")));

/* After a call of a request-related kind: records new requests, marks
 * started ones, removes freed ones, and fills c->done/c->ndone with what
 * completed. Called by the core before the modules' leave hooks. */
void msc_requests_leave(struct msc_call *c) __attribute__((visibility("hidden")));

/* What the table knows of pending request `r`, without changing it (for a
 * test that did not complete, or a request just started). false if unknown. */
bool msc_requests_find(MPI_Request r, msc_req_info_t *out) __attribute__((visibility("hidden")));

/* A module's description of a request's communicator, taken when the
 * request is posted and kept in msc_req_info_t.comm_tag: MPI_Comm_free only
 * marks a communicator for deallocation, so a receive on it may complete
 * after the handle is gone (or reused) and the communicator can no longer be
 * asked anything. `fn` gets MPI_COMM_NULL for MPI_Imrecv. One module (the
 * trace) sets it at its init; 0 in every request otherwise. */
void msc_requests_comm_tag(uint32_t (*fn)(MPI_Comm comm)) __attribute__((visibility("hidden")));

/* Requests that did not fit the table so far, and pending ones now. */
uint64_t msc_requests_dropped(void) __attribute__((visibility("hidden")));
uint64_t msc_requests_pending(void) __attribute__((visibility("hidden")));

/* Size in bytes of `count` elements of `type` (0 for MPI_DATATYPE_NULL).
 * Sizes are remembered per thread until msc_types_forget. */
int64_t msc_type_bytes(MPI_Datatype type, MPI_Count count) __attribute__((visibility("hidden")));

/* Forgets every remembered datatype size: a freed handle may come back
 * naming another type. The core calls it after every recorded
 * MPI_Type_free and whenever recording resumes (frees made while it was off
 * were not seen). */
void msc_types_forget(void) __attribute__((visibility("hidden")));

/* What a completion's status says: cancelled, and bytes transferred (the
 * element count in MPI_BYTE). Both MPIs keep them in fields of the status,
 * read here directly instead of through PMPI_Test_cancelled and
 * PMPI_Get_elements_x (a library call each per completed operation); other
 * MPIs take the portable path. */
static inline bool msc_status_cancelled(MPI_Status *st)
{
#if defined(OPEN_MPI)
    return st->_cancelled != 0;
#elif defined(MPICH)
    return (st->count_hi_and_cancelled & 1) != 0;
#else
    int flag = 0;
    return PMPI_Test_cancelled(st, &flag) == MPI_SUCCESS && flag;
#endif
}

/* The status of a completed MPI_Isendrecv(_replace) as the modules should
 * read it. MPICH 4.0.2 runs the call between two real peers as a schedule
 * whose request's status it does not fill with the receive's (the
 * application sees zeros, a status given through the tool some internal
 * operation's values: tag 14, 4 bytes), so there `out` is made from what
 * was posted: the source and tag named (the status's for a wildcard) and
 * the receive's capacity `bytes` as its size; the MPI's status is left as
 * it is. Returns the status to read: `in`, or `out` once made. */
static inline MPI_Status *msc_isendrecv_status(MPI_Status *in, MPI_Status *out, int peer,
                                               int tag, int64_t bytes)
{
#if defined(MPICH)
    if (!in || bytes < 0) return in;
    *out = *in;
    if (peer >= 0) out->MPI_SOURCE = peer;
    if (tag >= 0) out->MPI_TAG = tag;
    PMPI_Status_set_elements_x(out, MPI_BYTE, (MPI_Count)bytes);
    return out;
#else
    (void)out, (void)peer, (void)tag, (void)bytes;
    return in;
#endif
}

static inline int64_t msc_status_bytes(MPI_Status *st)
{
#if defined(OPEN_MPI)
    return st->_ucount > (size_t)INT64_MAX ? 0 : (int64_t)st->_ucount;
#elif defined(MPICH)
    return (int64_t)((uint64_t)(unsigned)st->count_lo |
                     ((uint64_t)(unsigned)(st->count_hi_and_cancelled >> 1) << 32));
#else
    MPI_Count n = 0;
    return PMPI_Get_elements_x(st, MPI_BYTE, &n) == MPI_SUCCESS && n > 0 ? (int64_t)n : 0;
#endif
}

#endif
