/* Private to mpiscope. The inline helpers every generated wrapper is made of.
 *
 * A wrapper reads:
 *     if (msc_gate_closed()) return PMPI_X(args);          // off: one TLS load, one test
 *     msc_call_t c;
 *     if (!msc_call_begin(&c, FN, KIND, LANG, site)) return PMPI_X(args);
 *     ... role assignments from functions.txt ...
 *     msc_call_enter(&c);
 *     rc = PMPI_X(args);
 *     msc_call_leave(&c, rc);
 *     return rc;
 * msc_call_begin registers a thread on its first call and marks it busy, so
 * that MPI calls made inside the MPI library or by the modules pass straight
 * through. msc_call_leave clears busy and re-reads the process-wide level
 * (see state.h for why this makes racing MPI_Pcontrol calls safe). A thread
 * is unregistered before MPI_Init (and the finalizing thread again after
 * MPI_Finalize): its calls take the first-call branch of msc_call_begin,
 * which hands them to msc_runtime_outside; the paths of calls made while MPI
 * runs, recorded or not, are unchanged.
 */
#ifndef MSC_INTERCEPT_WRAP_H
#define MSC_INTERCEPT_WRAP_H

#include "../core/call.h"
#include "../core/clock.h"
#include "../core/fatal.h"
#include "../core/runtime.h"
#include "../core/state.h"

#define MSC_CALLER() __builtin_extract_return_addr(__builtin_return_address(0))

static inline int msc_gate_closed(void)
{
    return atomic_load_explicit(&msc_tls.gate, memory_order_relaxed) != 0;
}

static inline int msc_call_begin(msc_call_t *c, msc_fn_t fn, msc_kind_t kind, msc_lang_t lang,
                                 void *site)
{
    msc_thread_t *t = msc_tls.thread;
    if (MSC_UNLIKELY(!t)) {
        /* Before MPI_Init and after MPI_Finalize a thread stays unregistered
         * with its gate open, so that its calls come here (and only here) for
         * the check of calls made outside MPI (runtime.h). */
        int phase = atomic_load_explicit(&msc_g.phase, memory_order_acquire);
        if (phase == MSC_PHASE_BEFORE_INIT || phase == MSC_PHASE_DONE) {
            msc_runtime_outside(fn, site);
            return 0;
        }
        t = msc_thread_attach();
        if (!t || atomic_load_explicit(&msc_tls.gate, memory_order_relaxed)) return 0;
    }
    atomic_store_explicit(&msc_tls.gate, MSC_GATE_BUSY, memory_order_relaxed);
    c->fn = fn;
    c->kind = kind;
    c->lang = lang;
    c->site = site;
    c->thread = t;
    c->ndone = 0;
    c->req_id = 0;
    return 1;
}

static inline void msc_call_enter(msc_call_t *c)
{
    for (int i = 0; i < msc_hooks.n_enter; i++)
        if (atomic_load_explicit(msc_hooks.enter_wanted[i], memory_order_relaxed))
            msc_hooks.enter[i](c);
    c->t_enter = msc_now_ns();
}

static inline void msc_call_leave(msc_call_t *c, int rc)
{
    c->t_leave = msc_now_ns();
    c->rc = rc;
    c->thread->calls[c->fn]++;
    if (msc_kind_has_requests[c->kind]) msc_requests_leave(c);
    for (int i = 0; i < msc_hooks.n_leave; i++)
        if (atomic_load_explicit(msc_hooks.leave_wanted[i], memory_order_relaxed))
            msc_hooks.leave[i](c);
    msc_gate_release();
}

/* Stand-in status when the caller passed MPI_STATUS_IGNORE. */
#define MSC_STATUS(c, status, storage)                                 \
    do {                                                               \
        if ((status) == MPI_STATUS_IGNORE) (status) = &(storage);      \
        (c).status = (status);                                         \
    } while (0)

/* Stand-in status array for MPI_STATUSES_IGNORE and a copy of the request
 * handles as they were before a completion call overwrites them. */
/* `statuses` is NULL for functions without a status array (MPI_Startall). If
 * memory for the copies runs out, reqs_in (and the stand-in statuses) stay
 * NULL and modules do without. */
static inline void msc_requests_in(msc_call_t *c, int n, MPI_Request *reqs, MPI_Status **statuses)
{
    c->nreq = n;
    c->requests = reqs;
    c->reqs_in = NULL;
    c->statuses = NULL;
    if (statuses && *statuses != MPI_STATUSES_IGNORE) c->statuses = *statuses;
    if (n <= 0 || !reqs || !msc_thread_scratch(c->thread, n)) return;
    for (int i = 0; i < n; i++) c->thread->scratch_req[i] = reqs[i];
    c->reqs_in = c->thread->scratch_req;
    if (statuses && *statuses == MPI_STATUSES_IGNORE)
        *statuses = c->statuses = c->thread->scratch_status;
}

#endif
