/* Private to mpiscope. One intercepted MPI call, as the modules see it.
 *
 * A generated wrapper fills the record with the roles that the function's
 * entry in tools/wrapgen/functions.txt names (which parameter is the peer,
 * the count, the datatype, the request, ...). Which fields are meaningful
 * depends on the kind: the table below is the contract between the generator
 * and the modules. Fields of other kinds are left unset, so a module reads
 * only what the call's kind defines.
 *
 *   kind          fields set
 *   SEND, BSEND.. comm peer tag buf count type
 *   RECV          comm peer tag buf count type status
 *   ISEND, IRECV  as SEND/RECV, and request (output: the new request)
 *   SEND_INIT,
 *   RECV_INIT     as ISEND/IRECV (persistent)
 *   SENDRECV      comm peer tag buf count type rpeer rtag rbuf rcount rtype status
 *   ISENDRECV     as SENDRECV without status, and request: the send (peer, tag,
 *                 buf, count, type) is posted with the receive; the request
 *                 table holds the receive (kind IRECV: peer rpeer, tag rtag),
 *                 whose completion comes back in done[] like an MPI_Irecv's
 *   PROBE         comm peer tag status (and flag for Iprobe)
 *   WAIT, TEST    request, req_in (the handle before the call), status, flag for TEST
 *   WAITALL ..    nreq requests reqs_in statuses (flag, index, outcount, indices)
 *                 and, for every completion kind, done/ndone: the operations that
 *                 completed, with what was known when they were posted
 *                 (src/core/requests.h), their status and bytes
 *   START         request or (nreq, requests)
 *   PREADY        req_in, and part (MPI_Pready), part and part_hi (MPI_Pready_range)
 *                 or nparts and partlist (MPI_Pready_list): partitions marked ready
 *   PARRIVED      req_in part flag: a partition asked for
 *   COLL          comm root op buf count type rbuf rcount rtype (v-forms: counts rcounts
 *                 displs rdispls)
 *   ICOLL         as COLL, and request
 *   COLL_INIT     as ICOLL: a persistent collective (MPI_*_init); each
 *                 MPI_Start of its request posts one instance
 *   COMM          comm, newcomm (communicator constructors and destructors)
 *   ICOMM         comm newcomm request: a nonblocking constructor (MPI_Comm_idup,
 *                 MPI_Comm_idup_with_info). The new communicator does not exist
 *                 until the request completes: modules must not read *newcomm in
 *                 this call; the completion hands it over (msc_done_t.newcomm)
 *   ABORT         comm (MPI_Abort: the modules' emergency hooks have run)
 *   HANDLE_NEW    obj obj_class: the address of the new handle (valid after the call)
 *   HANDLE_FREE   obj obj_class: the handle to free (read it before the call)
 *   TYPE_COMMIT   obj obj_class (MSC_OBJ_DATATYPE)
 *   RMA_PUT, RMA_ACC  win peer (target rank) buf count type (op for RMA_ACC),
 *                 tdisp ttype and tcount (not for the single-element atomics)
 *   RMA_GET       win peer rbuf rcount rtype tdisp tcount ttype
 *   RMA_FENCE     win tag (the assert argument)
 *   RMA_PSCW      win (Win_post/start/complete/wait, by fn)
 *   RMA_LOCK, RMA_UNLOCK win, and peer for Win_lock/Win_unlock (not the _all forms)
 *   RMA_RPUT, RMA_RGET, RMA_RACC  as RMA_PUT, RMA_GET, RMA_ACC, and request (posted
 *                 to the request table like ISEND; completions come back in done[])
 *   RMA_SYNC      win, and peer for Win_flush/Win_flush_local (Win_flush*, Win_sync)
 *   IO_WRITE      file buf count type status (offset for the _at forms)
 *   IO_READ       file rbuf rcount rtype status (offset for the _at forms)
 *   IO_IWRITE, IO_IREAD  as IO_WRITE/IO_READ with request instead of status
 *                 (posted to the request table; completions come back in done[])
 *   IO_END        file status, and buf (writes) or rbuf (reads): the end of a split
 *                 collective (MPI_File_*_end); the status says what was done
 *   Window creation and freeing are HANDLE_NEW/HANDLE_FREE with obj_class
 *   MSC_OBJ_WIN, MPI_File_open/close the same with MSC_OBJ_FILE.
 *   MPI_File_open's buf is the file name; from Fortran it is blank-padded and
 *   not terminated, and count is its length.
 *   OTHER         nothing beyond the common fields
 * Status pointers are never MPI_STATUS(ES)_IGNORE in the record: the wrapper
 * substitutes the thread's own storage so that modules can always read them.
 * Every binding fills C handles: a Fortran wrapper converts handles with the
 * PMPI_*_f2c functions, and for posting kinds makes `request` point to the C
 * handle of the new request after the call.
 * Posting kinds (ISEND, IRECV, *_INIT, IMRECV, ICOLL, COLL_INIT, ICOMM) get req_id, the id the
 * request table gave the new request, before the leave hooks run.
 */
#ifndef MSC_CORE_CALL_H
#define MSC_CORE_CALL_H

#include <mpi.h>
#include <stdint.h>

#include "msc_functions.h"
#include "requests.h"

typedef enum {
    MSC_LANG_C = 0,  /* C and C++ (which reaches the C layer) */
    MSC_LANG_F77,    /* mpif.h and `use mpi` */
    MSC_LANG_F08,    /* `use mpi_f08` */
} msc_lang_t;

struct msc_thread;

/* Classes of MPI handles (role obj). */
typedef enum {
    MSC_OBJ_COMM = 0, MSC_OBJ_GROUP, MSC_OBJ_DATATYPE, MSC_OBJ_OP, MSC_OBJ_WIN, MSC_OBJ_FILE,
    MSC_OBJ_INFO, MSC_OBJ_ERRHANDLER, MSC_OBJ_COUNT
} msc_obj_class_t;

typedef struct msc_call {
    msc_fn_t fn;              /* function id (generated) */
    msc_kind_t kind;          /* what the call does; selects the fields below */
    msc_lang_t lang;          /* binding the application called */
    void *site;               /* return address into the caller */
    struct msc_thread *thread;
    uint64_t t_enter;         /* ns, before the PMPI call */
    uint64_t t_leave;         /* ns, after it */
    int rc;                   /* what PMPI returned (MPI_SUCCESS for non-int functions) */
    int opened;               /* the gate was open during the PMPI call (msc_call_open):
                               * calls of the application's callbacks are recorded
                               * inside this one */

    MPI_Comm comm;
    int peer, tag;            /* destination or source, and tag */
    int rpeer, rtag;          /* receive side of SENDRECV */
    int root;
    MPI_Op op;
    const void *buf;          /* send buffer (or the only buffer) */
    void *rbuf;               /* receive buffer */
    MPI_Count count, rcount;  /* elements */
    MPI_Datatype type, rtype;
    const void *counts, *rcounts; /* v-collectives: int[] or, for _c functions, MPI_Count[] */
    int counts_are_mpi_count;
    const void *displs, *rdispls; /* v-collectives: int[] or, for _c functions, MPI_Aint[] */
    int displs_are_aint;
    const MPI_Datatype *types, *rtypes; /* w-collectives: a datatype per peer (C only) */
    MPI_Status *status;
    MPI_Request *request;
    MPI_Request req_in;
    int nreq;
    MPI_Request *requests;
    MPI_Request *reqs_in;
    MPI_Status *statuses;
    int *flag, *index, *outcount, *indices;
    MPI_Comm *newcomm;
    const void *newcomm_f;    /* Fortran bindings (lang != C), COMM and ICOMM: the
                               * application's own handle of newcomm (an INTEGER) */
    void *obj;                /* HANDLE_NEW/HANDLE_FREE/TYPE_COMMIT: address of the handle */
    msc_obj_class_t obj_class;
    MPI_Win win;              /* RMA kinds: the window */
    MPI_Aint tdisp;           /* RMA communication: target displacement, count, datatype */
    MPI_Count tcount;
    MPI_Datatype ttype;
    MPI_File file;            /* IO kinds: the file */
    MPI_Offset offset;        /* IO kinds, _at forms: bytes or etypes, as MPI takes it */
    MPI_Group group;          /* role group: a group handle the call reads */
    void *out;                /* role out: an OUT argument the standard requires (not NULL) */
    /* Role args (C bindings only; nargs 0 in the others): the call's first
     * nargs arguments in order, each cast to an integer (handles, ints and
     * pointers alike), for checks of arguments no other role names. Set
     * only for functions with the role: read nothing for the others. */
    intptr_t arg[10];
    int nargs;
    /* Partitioned communication (MPI-4.0 section 4), set only by functions
     * with these roles: parts, the partitions of MPI_Psend_init and
     * MPI_Precv_init (count is already all of them); part, the partition
     * of MPI_Pready and MPI_Parrived or the first of MPI_Pready_range,
     * part_hi its last; nparts and partlist, MPI_Pready_list's. A Fortran
     * INTEGER array is read as int (MPI_Fint is int in both MPIs here). */
    int parts, part, part_hi, nparts;
    const int *partlist;
    uint64_t req_id;          /* posting kinds: id of the new request (0: none) */
    msc_done_t *done;         /* completion kinds: what completed (thread scratch) */
    int ndone;
} msc_call_t;

#endif
