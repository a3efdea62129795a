/* Point-to-point type matching with sidecar messages, and messages never
 * received. All traffic goes over the communicator's p2p shadow (a PMPI
 * duplicate, objects.c), never over the application's communicator, and
 * none of it blocks: a nonblocking call stays nonblocking, and a blocking
 * one waits for nothing the application's call does not wait for.
 *
 * After a send (at its call, or at MPI_Start of a persistent one) the sender
 * posts a 64-byte sidecar with MPI_Isend on the shadow, to the same
 * destination with the same tag: the send's type signature, its call site
 * and its world rank. Sidecar buffers live in fixed chunks of 64 slots that
 * never move; a slot is reused once its MPI_Isend has completed (tested,
 * never waited for, when its chunk is full; a new chunk when none is free),
 * so a receiver that is slow, or the sender itself on MPICH (whose sends to
 * self complete only when received), holds no one up.
 *
 * After a receive completes, the receiver posts MPI_Irecv for the sidecar
 * from the status's source and tag, and tests it at once; one not there yet
 * is tested again at this rank's later MPI calls, and waited for at
 * MPI_Finalize, when every sidecar has been sent. MPI's non-overtaking rule
 * orders both streams alike, so the k-th message from a source with a tag
 * pairs with the k-th sidecar -- as long as receives of one source and tag
 * complete in the order they were posted. When a receive completes while an
 * earlier, still pending receive could have matched the same source and tag,
 * the pairing is unknown: that (communicator, source, tag) is no longer
 * judged (sidecars are still consumed, so nothing leaks). Messages taken by
 * MPI_Mprobe/MPI_Improbe have their sidecar consumed unjudged.
 *
 * MPISCOPE_CHECK_SYNC_SENDS: after a standard-mode MPI_Send the sender waits
 * for the receiver's acknowledgement (on the ack shadow), sent when the
 * receiver has taken the sidecar: MPI_Send then behaves as MPI_Ssend, and a
 * program that only completes thanks to buffering deadlocks visibly. That
 * wait is the setting's purpose, the one place where the checks block.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clock.h"
#include "log.h"

typedef struct {
    uint64_t unit, reps;
    int64_t bytes;
    uint64_t objkey, objoff; /* sender's call site (chk_site_key) */
    int32_t rank;            /* sender's world rank */
    int32_t fn;
    int32_t want_ack;
    int32_t pad;
} sidecar_t;

enum { SLOTS = 64 };

/* A pending sidecar receive and what to judge it against. */
typedef struct {
    MPI_Comm comm, ack;   /* the application's communicator; ack shadow */
    chk_sig_t rsig;
    msc_fn_t fn;
    void *site;
    bool skip;            /* pairing unknown, or a matched probe: consume only */
    int src, tag;         /* in the application's communicator */
} inctx_t;

typedef struct {
    sidecar_t buf[SLOTS];
    MPI_Request req[SLOTS];
    inctx_t ctx[SLOTS];   /* receiving chunks only */
    int used;             /* slots with a request */
    int nfree, free[SLOTS]; /* slots without */
} chunk_t;

typedef struct {
    pthread_mutex_t lock;
    chunk_t **c;
    int n, cap, cur;
    _Atomic int pending;  /* requests in flight */
} pool_t;

static pool_t out = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, 0};
static pool_t in = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, 0};

/* A free slot (under the pool's lock): the current chunk's, else a chunk
 * whose requests have completed since (tested, not waited for), else a new
 * chunk. Completed receive slots are copied to `done` for judging. */
typedef struct {
    sidecar_t s;
    inctx_t ctx;
} judged_t;

static int reap(pool_t *p, chunk_t *k, judged_t *done, int *ndone, int maxdone)
{
    if (k->used == 0) return 0;
    int outcount = 0, idx[SLOTS];
    MPI_Status st[SLOTS];
    if (PMPI_Testsome(SLOTS, k->req, &outcount, idx, st) != MPI_SUCCESS ||
        outcount == MPI_UNDEFINED)
        return 0;
    for (int i = 0; i < outcount; i++) {
        if (done && *ndone < maxdone) {
            done[*ndone].s = k->buf[idx[i]];
            done[*ndone].ctx = k->ctx[idx[i]];
            (*ndone)++;
        }
        k->used--;
        k->free[k->nfree++] = idx[i];
    }
    atomic_fetch_sub_explicit(&p->pending, outcount, memory_order_relaxed);
    return outcount;
}

static bool slot(pool_t *p, chunk_t **kk, int *ii, judged_t *done, int *ndone, int maxdone)
{
    for (int tries = 0; tries <= p->n; tries++) {
        if (p->n == 0) break;
        chunk_t *k = p->c[p->cur];
        if (!k->nfree) reap(p, k, done, ndone, maxdone);
        if (k->nfree) {
            *kk = k, *ii = k->free[--k->nfree];
            return true;
        }
        p->cur = (p->cur + 1) % p->n;
    }
    if (p->n == p->cap) {
        int cap = p->cap ? p->cap * 2 : 4;
        chunk_t **m = realloc(p->c, sizeof *m * (size_t)cap);
        if (!m) return false;
        p->c = m, p->cap = cap;
    }
    chunk_t *k = calloc(1, sizeof *k);
    if (!k) return false;
    for (int i = 0; i < SLOTS; i++) k->req[i] = MPI_REQUEST_NULL, k->free[i] = SLOTS - 1 - i;
    k->nfree = SLOTS;
    p->cur = p->n;
    p->c[p->n++] = k;
    *kk = k, *ii = k->free[--k->nfree];
    return true;
}

static void shadows(MPI_Comm comm, MPI_Comm *p2p, MPI_Comm *ack)
{
    const chk_cinfo_t *ci = chk_cinfo(comm);
    *p2p = ci->p2p;
    *ack = ci->ack;
}

static void send_sidecar(MPI_Comm comm, int peer, int tag, chk_sig_t sig, void *site, msc_fn_t fn,
                         bool want_ack)
{
    if (peer == MPI_PROC_NULL || peer < 0) return;
    MPI_Comm p2p, ack;
    shadows(comm, &p2p, &ack);
    if (p2p == MPI_COMM_NULL) return;
    sidecar_t s = {sig.unit, sig.reps, sig.bytes, 0, 0, msc_g.world_rank,
                   (int32_t)fn, want_ack && ack != MPI_COMM_NULL, 0};
    chk_site_key(site, &s.objkey, &s.objoff);
    chunk_t *k;
    int i;
    pthread_mutex_lock(&out.lock);
    if (!slot(&out, &k, &i, NULL, NULL, 0)) {
        pthread_mutex_unlock(&out.lock);
        msc_warn_once("check-sidecar", "check: out of memory for sidecar messages; some "
                                       "point-to-point type checks are skipped");
        return;
    }
    k->buf[i] = s;
    if (PMPI_Isend(&k->buf[i], sizeof s, MPI_BYTE, peer, tag, p2p, &k->req[i]) == MPI_SUCCESS) {
        k->used++;
        atomic_fetch_add_explicit(&out.pending, 1, memory_order_relaxed);
    } else {
        k->req[i] = MPI_REQUEST_NULL;
        k->free[k->nfree++] = i;
    }
    pthread_mutex_unlock(&out.lock);
    if (s.want_ack) {
        chk_wd_sync_wait(true);
        PMPI_Recv(NULL, 0, MPI_BYTE, peer, tag, ack, MPI_STATUS_IGNORE);
        chk_wd_sync_wait(false);
    }
}

void chk_p2p_send_leave(msc_call_t *c)
{
    bool standard = c->fn == MSC_FN_MPI_Send;
    send_sidecar(c->comm, c->peer, c->tag, chk_sig(c->type, c->count), c->site, c->fn,
                 standard && chk_cfg.sync_sends);
}

void chk_p2p_started(MPI_Request r)
{
    chk_req_t q;
    if (!chk_req_get(r, &q) || q.kind != MSC_KIND_SEND_INIT) return;
    send_sidecar(q.comm, q.peer, q.tag, q.sig, q.site, q.fn, false);
}

/* (communicator, source, tag) whose pairing became unknown. */
typedef struct {
    MPI_Comm comm;
    int src, tag;
} unordered_t;
static unordered_t unordered[256];
static _Atomic int nunordered;

static bool is_unordered(MPI_Comm comm, int src, int tag)
{
    if (!atomic_load_explicit(&nunordered, memory_order_relaxed)) return false;
    chk_lock();
    bool found = false;
    for (int i = 0; i < nunordered && !found; i++)
        found = unordered[i].comm == comm && unordered[i].src == src && unordered[i].tag == tag;
    chk_unlock();
    return found;
}

static bool was_unordered(MPI_Comm comm, int src, int tag)
{
    for (int i = 0; i < nunordered; i++)
        if (unordered[i].comm == comm && unordered[i].src == src && unordered[i].tag == tag)
            return true;
    return false;
}

static void judge(const sidecar_t *s, const inctx_t *x)
{
    if (s->want_ack && x->ack != MPI_COMM_NULL)
        PMPI_Send(NULL, 0, MPI_BYTE, x->src, x->tag, x->ack);
    if (x->skip) return;
    chk_sig_t ssig = {s->unit, s->reps, s->bytes};
    if (chk_sig_receivable(ssig, x->rsig)) return;
    if (!chk_fresh("GLOBAL:P2P:TYPE_MISMATCH", x->site)) return;
    chk_finding_t f;
    memset(&f, 0, sizeof f);
    snprintf(f.cls, sizeof f.cls, "GLOBAL:P2P:TYPE_MISMATCH");
    snprintf(f.text, sizeof f.text,
             "The type signature of a message (%lld bytes sent by rank %d with %s) does not match "
             "that of the receive that took it (%s, buffer of %lld bytes). Sender and receiver "
             "must use datatypes with the same sequence of basic types (MPI_INT with MPI_INT, "
             "not MPI_FLOAT); a mismatch reinterprets the bytes and gives wrong values.",
             (long long)s->bytes, s->rank,
             s->fn >= 0 && s->fn < MSC_FN_COUNT ? msc_fn_name[s->fn] : "?", msc_fn_name[x->fn],
             (long long)x->rsig.bytes);
    f.nparts = 2;
    f.parts[0].rank = msc_g.world_rank;
    f.parts[0].site = x->site;
    snprintf(f.parts[0].call, sizeof f.parts[0].call, "%s", msc_fn_name[x->fn]);
    f.parts[1].rank = s->rank;
    f.parts[1].objkey = s->objkey;
    f.parts[1].objoff = s->objoff;
    if (s->fn >= 0 && s->fn < MSC_FN_COUNT)
        snprintf(f.parts[1].call, sizeof f.parts[1].call, "%s", msc_fn_name[s->fn]);
    chk_report_full(&f);
}

enum { DONE_MAX = 2 * SLOTS };

/* Sidecars that have arrived since: judged. Cheap when none is pending. */
void chk_p2p_progress(void)
{
    if (!atomic_load_explicit(&in.pending, memory_order_relaxed)) return;
    judged_t done[DONE_MAX];
    int n = 0;
    pthread_mutex_lock(&in.lock);
    for (int j = 0; j < in.n && n + SLOTS <= DONE_MAX; j++) reap(&in, in.c[j], done, &n, DONE_MAX);
    pthread_mutex_unlock(&in.lock);
    for (int i = 0; i < n; i++) judge(&done[i].s, &done[i].ctx);
}

void chk_p2p_recv_done(MPI_Comm comm, MPI_Status *st, chk_sig_t rsig, msc_fn_t fn, void *site,
                       uint64_t post_seq, bool probe)
{
    if (!st || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0) return;
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    if (cancelled) return;
    MPI_Comm p2p, ack;
    shadows(comm, &p2p, &ack);
    if (p2p == MPI_COMM_NULL) return;
    inctx_t x = {comm, ack, rsig, fn, site, probe, st->MPI_SOURCE, st->MPI_TAG};
    /* Receives completing out of their posting order: pairing unknown. */
    int src = st->MPI_SOURCE;
    bool skip = is_unordered(comm, src, st->MPI_TAG);
    if (!skip && !probe &&
        chk_req_earlier_recv(comm, src, st->MPI_TAG, post_seq ? post_seq : UINT64_MAX)) {
        chk_lock();
        if (nunordered < 256 && !was_unordered(comm, src, st->MPI_TAG))
            unordered[atomic_fetch_add(&nunordered, 1)] = (unordered_t){comm, src, st->MPI_TAG};
        chk_unlock();
        skip = true;
    }
    x.skip = skip || probe;
    chunk_t *k;
    int i, flag = 0;
    judged_t done[SLOTS + 1]; /* one chunk reaped, and this one */
    int n = 0;
    pthread_mutex_lock(&in.lock);
    if (!slot(&in, &k, &i, done, &n, SLOTS)) {
        pthread_mutex_unlock(&in.lock);
        msc_warn_once("check-sidecar", "check: out of memory for sidecar messages; some "
                                       "point-to-point type checks are skipped");
        return;
    }
    k->ctx[i] = x;
    if (PMPI_Irecv(&k->buf[i], sizeof(sidecar_t), MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, p2p,
                   &k->req[i]) != MPI_SUCCESS) {
        k->req[i] = MPI_REQUEST_NULL;
        k->free[k->nfree++] = i;
    } else if (PMPI_Test(&k->req[i], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag) {
        done[n].s = k->buf[i];
        done[n++].ctx = x;
        k->free[k->nfree++] = i;
    } else {
        k->used++;
        atomic_fetch_add_explicit(&in.pending, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&in.lock);
    for (int j = 0; j < n; j++) judge(&done[j].s, &done[j].ctx);
}

/* Waits for every request of a pool for at most `seconds` (the sidecars
 * were all sent before the barrier that precedes this); what is left after
 * that is cancelled. */
static void drain(pool_t *p, bool judging, double seconds)
{
    uint64_t t0 = msc_now_ns();
    for (;;) {
        judged_t done[DONE_MAX];
        int n = 0, left = 0;
        pthread_mutex_lock(&p->lock);
        for (int j = 0; j < p->n; j++) {
            if (n + SLOTS <= DONE_MAX) reap(p, p->c[j], judging ? done : NULL, &n, DONE_MAX);
            left += p->c[j]->used;
        }
        pthread_mutex_unlock(&p->lock);
        for (int i = 0; i < n; i++) judge(&done[i].s, &done[i].ctx);
        if (!left) return;
        if ((double)(msc_now_ns() - t0) > seconds * 1e9) break;
    }
    pthread_mutex_lock(&p->lock);
    for (int j = 0; j < p->n; j++)
        for (int i = 0; i < SLOTS; i++)
            if (p->c[j]->req[i] != MPI_REQUEST_NULL) {
                PMPI_Cancel(&p->c[j]->req[i]);
                PMPI_Request_free(&p->c[j]->req[i]);
                p->c[j]->used--;
                atomic_fetch_sub_explicit(&p->pending, 1, memory_order_relaxed);
            }
    pthread_mutex_unlock(&p->lock);
}

static void pool_free(pool_t *p)
{
    for (int j = 0; j < p->n; j++) free(p->c[j]);
    free(p->c);
    p->c = NULL;
    p->n = p->cap = p->cur = 0;
    atomic_store(&p->pending, 0);
}

void chk_p2p_unreceived(void)
{
    /* Every rank has posted all its sidecars once all are here. */
    PMPI_Barrier(msc_g.comm);
    drain(&in, true, 30);
    MPI_Comm list[1024], apps[1024];
    int n = chk_comm_shadows(list, apps, 1024);
    for (int i = 0; i < n; i++) {
        for (int guard = 0; guard < 1000; guard++) {
            int flag = 0;
            MPI_Status st;
            if (PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, list[i], &flag, &st) != MPI_SUCCESS || !flag)
                break;
            sidecar_t s;
            PMPI_Recv(&s, sizeof s, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, list[i], MPI_STATUS_IGNORE);
            if (s.fn < 0) continue;
            /* A sidecar left over is only a hint: the message itself must
             * still be waiting on the application's communicator (a local
             * probe: nothing is sent, matching is not changed). A message
             * that was received, by a path whose sidecar went unconsumed,
             * is no finding. */
            int pending = 0;
            MPI_Status ps;
            if (apps[i] != MPI_COMM_NULL &&
                (PMPI_Iprobe(st.MPI_SOURCE, st.MPI_TAG, apps[i], &pending, &ps) != MPI_SUCCESS ||
                 !pending))
                continue;
            chk_finding_t f;
            memset(&f, 0, sizeof f);
            snprintf(f.cls, sizeof f.cls, "LOCAL:FINALIZE:UNRECEIVED_MESSAGE");
            snprintf(f.text, sizeof f.text,
                     "A message of %lld bytes with tag %d, sent by rank %d to rank %d, was never "
                     "received: rank %d called MPI_Finalize with it still waiting. Every message "
                     "must be received (or its send cancelled) before MPI_Finalize; post the "
                     "missing receive, or do not send.",
                     (long long)s.bytes, st.MPI_TAG, s.rank, msc_g.world_rank, msc_g.world_rank);
            f.nparts = 1;
            f.parts[0].rank = s.rank;
            f.parts[0].objkey = s.objkey;
            f.parts[0].objoff = s.objoff;
            f.parts[0].site = (void *)(uintptr_t)s.objoff; /* folds repeats of one site */
            if (s.fn < MSC_FN_COUNT)
                snprintf(f.parts[0].call, sizeof f.parts[0].call, "%s", msc_fn_name[s.fn]);
            chk_report_full(&f);
        }
    }
    /* Every leftover sidecar has been taken: the sends are complete. */
    PMPI_Barrier(msc_g.comm);
    drain(&out, false, 10);
    pool_free(&in);
    pool_free(&out);
}
