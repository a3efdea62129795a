/* Private to mpiscope. The inline helpers of the generated Fortran wrappers
 * (wrappers_fortran.c, written by tools/wrapgen/fortran.py).
 *
 * A Fortran wrapper never does the library's Fortran work itself: it calls
 * the library's own Fortran profiling twin (pmpi_send_, pmpi_send_f08_,
 * MPICH's pmpir_send_f08ts_) with exactly the arguments it received, so the
 * MPI library keeps every Fortran rule (MPI_IN_PLACE, MPI_BOTTOM, status
 * sentinels, hidden character lengths, an absent f08 ierror). What the
 * wrapper adds is the call record, in C terms, as the modules expect it
 * (src/core/call.h): integers dereferenced, handles converted with the
 * PMPI_*_f2c functions, the binding's Fortran MPI_IN_PLACE/MPI_BOTTOM turned
 * into C's, indices made 0-based, and statuses converted after the call. When
 * the caller passed the Fortran MPI_STATUS(ES)_IGNORE, the wrapper passes
 * storage of its own instead, so that modules can read the status. Each
 * binding (mpif.h and `use mpi`; `use mpi_f08`; `use mpi_f08` with assumed-
 * rank buffers, "_f08ts") is one constant msc_fbind_t that the generated file
 * defines from where the library keeps its sentinels.
 */
#ifndef MSC_INTERCEPT_FORTRAN_H
#define MSC_INTERCEPT_FORTRAN_H

#include <limits.h>
#include <stddef.h>

#include "lifecycle.h"
#include "wrap.h"

/* INTEGERs in the MPI_Fint-sized kind, seen through the record's int fields. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is not an int");

/* Integers in a Fortran status. Open MPI 4.1's mpi.h lacks MPI_F_STATUS_SIZE:
 * its Fortran status is the C status read as integers (mpif-config.h:
 * MPI_STATUS_SIZE=6 for the 24-byte MPI_Status). Both MPIs give the f08
 * TYPE(MPI_Status) the same layout as the mpif.h status array. */
#ifdef MPI_F_STATUS_SIZE
#define MSC_F_STATUS_SIZE MPI_F_STATUS_SIZE
#else
#define MSC_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif
_Static_assert(MSC_F_STATUS_SIZE * sizeof(MPI_Fint) <= sizeof(MPI_Status),
               "a Fortran status does not fit the scratch space of a C status");

typedef struct {
    msc_lang_t lang;               /* MSC_LANG_F77 or MSC_LANG_F08 */
    int desc;                      /* choice buffers arrive as array descriptors */
    const void *bottom, *in_place; /* addresses of this binding's MPI_BOTTOM, MPI_IN_PLACE */
    const void *status_ignore, *statuses_ignore;
} msc_fbind_t;

static inline int msc_f_int(const void *p)
{
    return *(const MPI_Fint *)p;
}

/* INTEGER(KIND=MPI_COUNT_KIND), the count of the _large (MPI_X_c) forms. */
static inline MPI_Count msc_f_count(const void *p)
{
    return *(const MPI_Count *)p;
}

static inline MPI_Comm msc_f_comm(const void *p)
{
    return PMPI_Comm_f2c(*(const MPI_Fint *)p);
}

static inline MPI_Datatype msc_f_type(const void *p)
{
    return PMPI_Type_f2c(*(const MPI_Fint *)p);
}

static inline MPI_Op msc_f_op(const void *p)
{
    return PMPI_Op_f2c(*(const MPI_Fint *)p);
}

static inline MPI_Request msc_f_request(const void *p)
{
    return PMPI_Request_f2c(*(const MPI_Fint *)p);
}

/* The buffer address a choice argument stands for, in C terms. An assumed-
 * rank (TYPE(*), DIMENSION(..)) dummy of a Fortran procedure arrives as the
 * compiler's array descriptor, whose first member is the base address in
 * gfortran's layout as in ISO_Fortran_binding.h's CFI_cdesc_t. */
static inline const void *msc_f_buf(const msc_fbind_t *b, const void *arg)
{
    const void *buf = b->desc ? *(const void *const *)arg : arg;
    if (buf == b->in_place) return MPI_IN_PLACE;
    if (buf == b->bottom) return MPI_BOTTOM;
    return buf;
}

/* The Fortran status the library is to fill: the caller's, or `own` in
 * place of MPI_STATUS_IGNORE. */
static inline void *msc_f_status_in(const msc_fbind_t *b, void *status, MPI_Fint *own)
{
    return status == b->status_ignore ? own : status;
}

static inline void msc_f_status_out(const void *fstatus, MPI_Status *status)
{
    PMPI_Status_f2c((const MPI_Fint *)fstatus, status);
}

/* Before a call on an array of `n` Fortran requests (completion, Startall):
 * reqs_in gets the C handles as they are now. The room for what the call
 * returns is carved from the thread's scratch arrays, sized for 3n entries:
 *   scratch_req[0, n)       reqs_in
 *   scratch_req[n, 2n)      requests: the handles after the call
 *   scratch_status[0, n)    statuses: the C statuses after the call
 *   scratch_status[n, 2n)   Fortran statuses of our own, passed to the library
 *                           when the caller gave MPI_STATUSES_IGNORE
 *   scratch_status[2n, 3n)  indices, 0-based (Waitsome, Testsome)
 * `statuses` is NULL for functions without a status array. If memory runs
 * out, the record's arrays stay NULL and modules do without. */
static inline void msc_f_requests_in(msc_call_t *c, const msc_fbind_t *b, int n, const void *reqs,
                                     void **statuses)
{
    msc_thread_t *t = c->thread;
    c->nreq = n;
    c->requests = c->reqs_in = NULL;
    c->statuses = NULL;
    c->indices = NULL;
    if (n <= 0 || n > INT_MAX / 3 || !msc_thread_scratch(t, 3 * n)) return;
    const MPI_Fint *f = reqs;
    for (int i = 0; i < n; i++) t->scratch_req[i] = PMPI_Request_f2c(f[i]);
    c->reqs_in = t->scratch_req;
    c->requests = t->scratch_req + n;
    if (!statuses) return;
    c->statuses = t->scratch_status;
    if (*statuses == b->statuses_ignore) *statuses = t->scratch_status + n;
}

/* The base of the indices that a completion call returned: 1 as the
 * standard says, except where the library returns 0-based ones (MPICH 4.0's
 * mpi_f08 Waitany, Testany, Waitsome and Testsome: pmodels/mpich#6270, fixed
 * in 4.1). A request that the call completed has changed (a non-persistent
 * one is now MPI_REQUEST_NULL), so the base is the one under which all `k`
 * indices name changed requests; if that tells nothing (persistent requests,
 * no copies of the handles), the standard's. */
static inline int msc_f_index_base(const msc_call_t *c, const MPI_Fint *index, int k)
{
    if (!c->reqs_in) return 1;
    for (int base = 1; base >= 0; base--) {
        int all = 1;
        for (int i = 0; i < k && all; i++) {
            int j = index[i] - base;
            all = j >= 0 && j < c->nreq && c->reqs_in[j] != c->requests[j];
        }
        if (all) return base;
    }
    return 1;
}

/* A 0-based index into the call's requests, or MPI_UNDEFINED: the record
 * never holds one outside [0, nreq). */
static inline int msc_f_index(const msc_call_t *c, const void *index)
{
    MPI_Fint i = *(const MPI_Fint *)index;
    if (i == MPI_UNDEFINED) return MPI_UNDEFINED;
    int j = i - msc_f_index_base(c, &i, 1);
    return j >= 0 && j < c->nreq ? j : MPI_UNDEFINED;
}

/* After the call: the handles, the statuses and (Waitsome, Testsome) the
 * 0-based indices in C. `outcount` says how many statuses and indices there
 * are; without it there are n statuses. The record's outcount counts only
 * indices within the call's requests. */
static inline void msc_f_requests_out(msc_call_t *c, const void *reqs, const void *statuses,
                                      const void *outcount, const void *indices)
{
    if (!c->reqs_in) return;
    int n = c->nreq, k = n;
    const MPI_Fint *f = reqs;
    for (int i = 0; i < n; i++) c->requests[i] = PMPI_Request_f2c(f[i]);
    if (outcount) {
        k = msc_f_int(outcount);
        if (k == MPI_UNDEFINED) return;
        if (k < 0) k = 0;
        if (k > n) k = n;
    }
    if (indices) {
        const MPI_Fint *fi = indices;
        int *ci = (int *)(c->thread->scratch_status + 2 * n);
        int base = msc_f_index_base(c, fi, k), m = 0;
        for (int i = 0; i < k; i++) {
            int j = fi[i] - base;
            if (j < 0 || j >= n) continue;
            if (statuses && c->statuses)
                msc_f_status_out((const MPI_Fint *)statuses + (size_t)i * MSC_F_STATUS_SIZE,
                                 &c->statuses[m]);
            ci[m++] = j;
        }
        c->indices = ci;
        *c->outcount = m;
        return;
    }
    if (statuses && c->statuses)
        for (int i = 0; i < k; i++)
            msc_f_status_out((const MPI_Fint *)statuses + (size_t)i * MSC_F_STATUS_SIZE,
                             &c->statuses[i]);
}

/* After the Fortran MPI_Init*'s twin returned `rc`. MPICH's mpif.h twins
 * call the C MPI_Init*, whose hand-written wrapper has then started the tool
 * already; it is started here only if nothing has. `provided` is NULL for
 * MPI_Init. */
static inline void msc_f_init_end(msc_fn_t fn, MPI_Fint rc, const void *provided)
{
    if (atomic_load(&msc_g.phase) != MSC_PHASE_BEFORE_INIT) return;
    int level = MPI_THREAD_SINGLE;
    if (rc == MPI_SUCCESS) {
        if (provided)
            level = msc_f_int(provided);
        else
            PMPI_Query_thread(&level);
    }
    msc_lifecycle_init_end(fn, rc, level);
}

/* MPI_INIT* or MPI_FINALIZE from Fortran in the wrong phase (told to the
 * check of calls outside MPI by msc_lifecycle_misplaced): the twin runs with
 * this thread busy, so that a twin calling the C function (MPICH's mpif.h
 * binding) is not reported again from inside the library, and the gate is
 * restored as it was (after MPI_Finalize it stays open: later calls are
 * still looked at). */
static inline unsigned msc_f_misplaced_begin(void)
{
    unsigned g = atomic_load_explicit(&msc_tls.gate, memory_order_relaxed);
    atomic_store_explicit(&msc_tls.gate, g | MSC_GATE_BUSY, memory_order_relaxed);
    return g;
}

static inline void msc_f_misplaced_end(unsigned g)
{
    atomic_store_explicit(&msc_tls.gate, g, memory_order_relaxed);
}

/* MPI_Pcontrol from Fortran: the level takes effect here, and the thread is
 * busy while the twin runs, so that a twin calling the C MPI_Pcontrol (MPICH)
 * does not apply it twice. Returns whether the thread was outside any
 * wrapper (inside one, MPI_Pcontrol is the library's or a module's and is
 * ignored, as in C). */
static inline int msc_f_pcontrol_begin(const void *level)
{
    if (atomic_load_explicit(&msc_tls.gate, memory_order_relaxed) & MSC_GATE_BUSY) return 0;
    msc_thread_attach();
    msc_lifecycle_pcontrol(msc_f_int(level));
    atomic_fetch_or_explicit(&msc_tls.gate, MSC_GATE_BUSY, memory_order_relaxed);
    return 1;
}

static inline void msc_f_pcontrol_end(int outside)
{
    if (outside)
        msc_gate_release();
}

#endif
