/* Request state (MPI-3.1 sections 3.7.3, 3.9 and 5.12): starting a
 * persistent request that is still active (LOCAL:REQUEST:START_ACTIVE),
 * freeing or cancelling the request of a nonblocking or an active
 * persistent collective (LOCAL:REQUEST:FREE_ACTIVE), and using a request
 * handle after MPI deallocated the request (LOCAL:REQUEST:FREED). Every
 * check runs in the enter hook, before the PMPI call: a freed handle may
 * crash the MPI library.
 *
 * Active or not, and what made a request, come from the core's request
 * table (msc_requests_find), which every posting call fills. A deallocated
 * handle is one that a completion call or MPI_Request_free turned into
 * MPI_REQUEST_NULL: the call's handles before (reqs_in/req_in) and after
 * (requests/request) say exactly which, persistent requests (which stay
 * allocated) included. Those handles go into a direct-mapped table of
 * DEAD slots (one atomic word each, no lock): a collision forgets an older
 * one (a missed finding, never a false one). MPI hands the same handle
 * value out again for a new request (MPICH's handles are indices, Open
 * MPI's are pointers into a free list), so every call that returns a new
 * request clears its slot, and a handle that the core's table knows as
 * pending is never reported (a reuse by a thread whose posting call has
 * not reached its leave hook yet).
 */
#include <string.h>

#include "check.h"

enum { DEAD = 4096 };
static _Atomic uint64_t dead[DEAD];

static uint64_t key(MPI_Request r)
{
    uint64_t k = 0;
    memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
    return k;
}

static size_t slot(uint64_t k)
{
    return (size_t)(((k * 0x9e3779b97f4a7c15ull) >> 40) % DEAD);
}

static void mark_dead(MPI_Request r)
{
    uint64_t k = key(r);
    if (k) atomic_store_explicit(&dead[slot(k)], k, memory_order_relaxed);
}

static void mark_live(MPI_Request r)
{
    uint64_t k = key(r);
    if (!k) return;
    uint64_t expect = k;
    atomic_compare_exchange_strong_explicit(&dead[slot(k)], &expect, 0, memory_order_relaxed,
                                            memory_order_relaxed);
}

static bool is_dead(MPI_Request r)
{
    uint64_t k = key(r);
    if (!k || atomic_load_explicit(&dead[slot(k)], memory_order_relaxed) != k) return false;
    msc_req_info_t info;
    return !msc_requests_find(r, &info);
}

static bool completion_kind(msc_kind_t k)
{
    switch (k) {
    case MSC_KIND_WAIT: case MSC_KIND_TEST: case MSC_KIND_WAITANY: case MSC_KIND_TESTANY:
    case MSC_KIND_WAITALL: case MSC_KIND_TESTALL: case MSC_KIND_WAITSOME:
    case MSC_KIND_TESTSOME:
        return true;
    default:
        return false;
    }
}

static bool single(msc_kind_t k)
{
    return k == MSC_KIND_WAIT || k == MSC_KIND_TEST || k == MSC_KIND_START ||
           k == MSC_KIND_REQUEST_FREE || k == MSC_KIND_CANCEL;
}

static void check_freed(msc_call_t *c, MPI_Request r, int i)
{
    if (r == MPI_REQUEST_NULL || !is_dead(r)) return;
    char which[48] = "";
    if (i >= 0) snprintf(which, sizeof which, " (element %d of the array)", i);
    chk_report("LOCAL:REQUEST:FREED", c->fn, c->site,
               "%s was called with a request handle%s whose request no longer exists: an "
               "earlier completion (MPI_Wait, MPI_Test and their forms) or MPI_Request_free "
               "deallocated it and set the handle passed there to MPI_REQUEST_NULL; this is a "
               "copy of the old value. MPI may by now use the same handle for another "
               "operation. Keep one handle per request and pass that one (an MPI_REQUEST_NULL "
               "handle is allowed and completes at once).",
               msc_fn_name[c->fn], which);
}

static void check_start(msc_call_t *c, MPI_Request r, int i)
{
    msc_req_info_t q;
    if (r == MPI_REQUEST_NULL || !msc_requests_find(r, &q) || !q.persistent || !q.active) return;
    char which[48] = "";
    if (i >= 0) snprintf(which, sizeof which, " (element %d of the array)", i);
    chk_report("LOCAL:REQUEST:START_ACTIVE", c->fn, c->site,
               "%s was called for a persistent request%s (made by %s) that is still active: it "
               "was started and has not completed since. A persistent request may only be "
               "started when it is inactive (MPI-3.1 section 3.9); complete the previous "
               "operation with MPI_Wait or MPI_Test first.",
               msc_fn_name[c->fn], which, msc_fn_name[q.fn]);
}

static void check_free(msc_call_t *c, MPI_Request r)
{
    msc_req_info_t q;
    if (r == MPI_REQUEST_NULL || !msc_requests_find(r, &q)) return;
    bool nbc = q.kind == MSC_KIND_ICOLL;
    bool pcoll = q.kind == MSC_KIND_COLL_INIT && q.active;
    if (!nbc && !pcoll) return;
    chk_report("LOCAL:REQUEST:FREE_ACTIVE", c->fn, c->site,
               "%s was called for the request of %s%s, which has not completed. It is "
               "erroneous to free or cancel the request of a collective operation (MPI-3.1 "
               "section 5.12): every member must complete it with MPI_Wait or MPI_Test, or the "
               "operation may never finish and its buffers stay in use.",
               msc_fn_name[c->fn], pcoll ? "an active persistent collective, " : "",
               msc_fn_name[q.fn]);
}

void chk_reqstate_enter(msc_call_t *c)
{
    bool start = c->kind == MSC_KIND_START || c->kind == MSC_KIND_STARTALL;
    bool free_ = c->kind == MSC_KIND_REQUEST_FREE || c->kind == MSC_KIND_CANCEL;
    if (!start && !free_ && !completion_kind(c->kind)) return;
    if (single(c->kind)) {
        check_freed(c, c->req_in, -1);
        if (start) check_start(c, c->req_in, -1);
        if (free_) check_free(c, c->req_in);
        return;
    }
    if (!c->reqs_in) return;
    for (int i = 0; i < c->nreq; i++) {
        check_freed(c, c->reqs_in[i], i);
        if (start) check_start(c, c->reqs_in[i], i);
    }
}

void chk_reqstate_leave(msc_call_t *c)
{
    if ((msc_fn_roles[c->fn] & MSC_ROLE_REQUEST) && c->request && c->rc == MPI_SUCCESS) {
        /* A new request: its handle is alive again. */
        mark_live(*c->request);
        return;
    }
    bool ok = c->rc == MPI_SUCCESS || c->rc == MPI_ERR_IN_STATUS;
    if (!ok) return;
    if (c->kind == MSC_KIND_REQUEST_FREE ||
        (completion_kind(c->kind) && single(c->kind))) {
        if (c->request && c->req_in != MPI_REQUEST_NULL && *c->request == MPI_REQUEST_NULL)
            mark_dead(c->req_in);
        return;
    }
    if (!completion_kind(c->kind) || !c->reqs_in || !c->requests) return;
    for (int i = 0; i < c->nreq; i++)
        if (c->reqs_in[i] != MPI_REQUEST_NULL && c->requests[i] == MPI_REQUEST_NULL)
            mark_dead(c->reqs_in[i]);
}

/* The hooks of this file and rma.c, for the kinds check.h's masks name;
 * each only for its own kinds (most calls need one or two). */
void chk_state_enter(msc_call_t *c)
{
    uint64_t k = 1ull << c->kind;
    if (k & (CHK_STATE_COMPLETION | CHK_K(START) | CHK_K(STARTALL) | CHK_K(REQUEST_FREE) |
             CHK_K(CANCEL)))
        chk_reqstate_enter(c);
    if (k & CHK_STATE_COMPLETION) chk_rma_req_enter(c);
    if (k & (CHK_STATE_RMA | CHK_K(HANDLE_FREE))) chk_rma_enter(c);
    if (k & (CHK_K(SEND) | CHK_K(ISEND) | CHK_K(RECV) | CHK_K(IRECV) | CHK_K(SENDRECV) |
             CHK_K(ISENDRECV)))
        chk_rma_p2p_enter(c);
}

void chk_state_leave(msc_call_t *c)
{
    uint64_t k = 1ull << c->kind;
    if ((k & (CHK_STATE_COMPLETION | CHK_K(REQUEST_FREE))) ||
        (msc_fn_roles[c->fn] & MSC_ROLE_REQUEST))
        chk_reqstate_leave(c);
    if (k & CHK_STATE_COMPLETION) chk_rma_req_leave(c);
    if (k & (CHK_K(RMA_RPUT) | CHK_K(RMA_RGET) | CHK_K(RMA_RACC) | CHK_K(RMA_FENCE) |
             CHK_K(HANDLE_NEW) | CHK_K(HANDLE_FREE) | CHK_K(OTHER)))
        chk_rma_leave(c);
}
