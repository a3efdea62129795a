/* Point-to-point type matching with sidecar records, and messages never
 * received. All traffic goes over the communicator's shadow (the tool's
 * communicator over its group, objects.c; global.c's collectives share it),
 * never over the application's communicator, and none of it blocks: a
 * nonblocking call stays nonblocking, and a blocking one waits for nothing
 * the application's call does not wait for.
 *
 * After a send (at its call, or at MPI_Start of a persistent one) the sender
 * appends a 64-byte record -- the send's type signature, tag, call site,
 * world rank and event number in the zero-buffer replay (replay.c) -- to its outbox for that (shadow, destination). An outbox
 * travels as one message (an MPI_Isend of up to BATCH records on the shadow,
 * tag BATCH_TAG, 0) when it is full, when the record is of a new kind for that
 * destination (a signature and call site not among the last KINDS sent
 * there: the first message of a wrong type goes at once, as it did when
 * every send had its own sidecar), when the oldest record has waited
 * MPISCOPE_CHECK_SIDECAR_DELAY microseconds (looked at as every MPI call of
 * the rank leaves; 0: every record at once), for MPISCOPE_CHECK_SYNC_SENDS'
 * acknowledged sends, before the communicator is freed and at MPI_Finalize.
 * Sent batches live until their MPI_Isend has completed (tested, never
 * waited for), so a receiver that is slow, or the sender itself on MPICH
 * (whose sends to self complete only when received), holds no one up.
 *
 * The receiver keeps one MPI_Irecv from any source posted on each shadow it
 * receives application messages on (posted at the first, re-posted after
 * each batch). A completed receive is a wait on its flow, (shadow, source,
 * tag) from the status; a batch's records go to their flows. In each flow
 * the k-th wait pairs with the k-th record and is judged: MPI's
 * non-overtaking rule orders the messages of one (source, tag, communicator)
 * and the batches of one sender alike, so the pairing is exact -- as long as
 * receives of one source and tag complete in the order they were posted.
 * When a receive completes while an earlier, still pending receive could have
 * matched the same source and tag, the pairing is unknown: that
 * (communicator, source, tag) is no longer judged (records are still
 * consumed, so nothing leaks). Messages taken by MPI_Mprobe/MPI_Improbe
 * consume their record unjudged. The posted batch receives are tested at
 * most every RECV_POLL_DIV-th of the delay while waits are pending (every
 * call with the delay 0), at MPI_Finalize until every wait is paired.
 *
 * MPI_Comm_free: the sender's outboxes of the shadow go at once; a receiver
 * with waits still unpaired on it keeps the shadow (objects.c leaves it to
 * chk_p2p_comm_free) until they are, or until MPI_Finalize, and is then the
 * one that frees it. A communicator without a shadow (over the tool's
 * budget, objects.c) has none of these checks, on all its members alike.
 *
 * MPISCOPE_CHECK_SYNC_SENDS: after a standard-mode MPI_Send the sender waits
 * for the receiver's acknowledgement (on the shadow, tag ack_tag() of the
 * message's: from 1, never a batch's nor MPI_TAG_UB), sent when the receiver has paired
 * the record: MPI_Send then behaves as MPI_Ssend, and a
 * program that only completes thanks to buffering deadlocks visibly. That
 * wait is the setting's purpose, the one place where the checks block.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    int32_t tag;             /* the message's tag */
    uint32_t sev;            /* the send's replay event (CHK_RP_NONE: none) */
    uint32_t spare;
} sidecar_t;

enum {
    BATCH = 32,          /* records per message (2048 bytes: eager in both MPIs) */
    BATCH_TAG = 0,       /* the batches' tag on the shadow (acknowledgements: from 1) */
    KINDS = 4,           /* kinds remembered per outbox (new kinds go at once) */
    RECV_POLL_DIV = 4,   /* receiver: tests every delay / RECV_POLL_DIV */
    OUT_HASH = 256,
    FLOW_HASH = 1024,
};

/* What a receive that completed is judged against. */
typedef struct {
    MPI_Comm comm, ack;   /* the application's communicator; its shadow */
    chk_sig_t rsig;
    msc_fn_t fn;
    void *site;
    bool skip;            /* pairing unknown, or a matched probe: consume only */
    int src, tag;         /* in the application's communicator */
} inctx_t;

typedef struct {
    sidecar_t s;
    inctx_t ctx;
} judged_t;

/* --- the sender's side --------------------------------------------------- */

typedef struct batch {
    struct batch *next; /* free list */
    int n;
    sidecar_t rec[BATCH];
} batch_t;

typedef struct outbox {
    struct outbox *next;  /* hash chain */
    struct outbox *dnext; /* list of outboxes holding records */
    MPI_Comm shadow;
    int dest;
    bool dirty;           /* on the list */
    batch_t *cur;         /* records not sent yet (NULL: none) */
    uint64_t kinds[KINDS];
    unsigned nk;
    MPI_Comm app;         /* the application's communicator of the shadow */
    uint64_t sent;        /* messages sent to dest on it (the deadlock hints) */
    int last_tag;         /* the tag of the last of them */
} outbox_t;

/* Messages received per (communicator, source), for the deadlock report's
 * hints (chk_p2p_tallies): a send that names another communicator or tag
 * than the receive that waits for it is what leaves both blocked. */
typedef struct tally {
    struct tally *next;
    MPI_Comm app;
    int src;
    uint64_t n;
} tally_t;

/* --- the receiver's side ------------------------------------------------- */

typedef struct inbox {
    struct inbox *next;
    MPI_Comm shadow, app, ack; /* ack: the shadow, or MPI_COMM_NULL (none sent) */
    MPI_Request req;      /* the posted batch receive (MPI_REQUEST_NULL: none) */
    bool owned;           /* the application freed the communicator: the shadow is ours */
    bool closing;         /* the receive is not posted again (once its waits are paired) */
    long waits;           /* unpaired waits of its flows */
    sidecar_t buf[BATCH];
} inbox_t;

typedef struct {
    chk_sig_t rsig;
    msc_fn_t fn;
    void *site;
    bool skip;
    bool unknown;         /* pairing unknown: the replay is not told */
    uint32_t ev;          /* the receive's replay event */
} wait_t;

/* A FIFO of fixed-size elements in a growing ring. */
typedef struct {
    void *a;
    int head, n, cap;
} fifo_t;

typedef struct flow {
    struct flow *next;
    inbox_t *box;
    int src, tag;
    fifo_t recs;          /* sidecar_t: records not yet paired */
    fifo_t waits;         /* wait_t: receives not yet paired */
} flow_t;

static pthread_mutex_t sc_lock = PTHREAD_MUTEX_INITIALIZER;
/* The earliest time at which chk_p2p_progress has work: the outboxes'
 * delay (send_due) or the receiver's next test (recv_due). */
static _Atomic uint64_t sc_due = UINT64_MAX;
static uint64_t send_due = UINT64_MAX, recv_due = UINT64_MAX;
static uint64_t delay_ns;          /* MPISCOPE_CHECK_SIDECAR_DELAY */
static outbox_t *outs[OUT_HASH], *dirty;
static batch_t *free_batches;
static batch_t **inflight;         /* sent batches and their requests */
static MPI_Request *inflight_req;
static int ninflight, capinflight;
static inbox_t *boxes;
static flow_t *flows[FLOW_HASH], *free_flows;
static int nflows;                 /* in the hash */
static long nwaits;                /* unpaired waits, every inbox */
static tally_t *tallies[OUT_HASH];

static bool fifo_push(fifo_t *f, const void *e, size_t es)
{
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 4;
        char *a = malloc(es * (size_t)cap);
        if (!a) return false;
        for (int i = 0; i < f->n; i++)
            memcpy(a + es * (size_t)i, (char *)f->a + es * (size_t)((f->head + i) % f->cap), es);
        free(f->a);
        f->a = a, f->head = 0, f->cap = cap;
    }
    memcpy((char *)f->a + es * (size_t)((f->head + f->n) % f->cap), e, es);
    f->n++;
    return true;
}

static void fifo_pop(fifo_t *f, void *e, size_t es)
{
    memcpy(e, (char *)f->a + es * (size_t)f->head, es);
    f->head = (f->head + 1) % f->cap;
    f->n--;
}

static void set_due(void)
{
    atomic_store_explicit(&sc_due, send_due < recv_due ? send_due : recv_due,
                          memory_order_relaxed);
}

/* The receiver's interval between two tests of its batch receives while
 * waits are pending (every call with acknowledged sends). */
static uint64_t poll_ns(void)
{
    return chk_cfg.sync_sends ? 0 : delay_ns / RECV_POLL_DIV;
}

static void delay_init(void)
{
    static bool done;
    if (done) return;
    done = true;
    delay_ns = (uint64_t)msc_g.settings.v[MSC_SET_CHECK_SIDECAR_DELAY].num * 1000u;
}

/* A sent batch's MPI_Isend: kept until it has completed. */
static void inflight_add(batch_t *b, MPI_Request r)
{
    if (ninflight == capinflight) {
        int cap = capinflight ? 2 * capinflight : 16;
        batch_t **a = realloc(inflight, sizeof *a * (size_t)cap);
        if (a) inflight = a;
        MPI_Request *q = realloc(inflight_req, sizeof *q * (size_t)cap);
        if (q) inflight_req = q;
        if (!a || !q) { /* no memory: the batch is leaked rather than reused early */
            PMPI_Request_free(&r);
            return;
        }
        capinflight = cap;
    }
    inflight[ninflight] = b;
    inflight_req[ninflight++] = r;
}

/* Sent batches whose MPI_Isend has completed go back to the free list. */
static void reap_inflight(void)
{
    if (!ninflight) return;
    int outcount = 0, *idx = malloc(sizeof *idx * (size_t)ninflight);
    MPI_Status *st = malloc(sizeof *st * (size_t)ninflight);
    if (!idx || !st) {
        free(idx), free(st);
        return;
    }
    if (PMPI_Testsome(ninflight, inflight_req, &outcount, idx, st) ==
            MPI_SUCCESS &&
        outcount != MPI_UNDEFINED && outcount > 0) {
        for (int i = 0; i < outcount; i++) {
            inflight[idx[i]]->next = free_batches;
            free_batches = inflight[idx[i]];
            inflight[idx[i]] = NULL;
        }
        int k = 0;
        for (int i = 0; i < ninflight; i++)
            if (inflight[i]) inflight[k] = inflight[i], inflight_req[k++] = inflight_req[i];
        ninflight = k;
    }
    free(idx), free(st);
}

static batch_t *batch_new(void)
{
    if (!free_batches) reap_inflight();
    batch_t *b = free_batches;
    if (b) free_batches = b->next;
    else b = malloc(sizeof *b);
    if (b) b->n = 0;
    return b;
}

/* An outbox's records go (under sc_lock). */
static void flush(outbox_t *o)
{
    batch_t *b = o->cur;
    if (!b) return;
    o->cur = NULL;
    MPI_Request r;
    if (PMPI_Isend(b->rec, b->n * (int)sizeof(sidecar_t), MPI_BYTE, o->dest, BATCH_TAG, o->shadow,
                   &r) == MPI_SUCCESS)
        inflight_add(b, r);
    else {
        b->next = free_batches;
        free_batches = b;
    }
}

static void flush_all(void)
{
    for (outbox_t *o = dirty; o; o = o->dnext) {
        flush(o);
        o->dirty = false;
    }
    dirty = NULL;
    send_due = UINT64_MAX;
}

static outbox_t *outbox(MPI_Comm shadow, int dest)
{
    size_t h = ((uintptr_t)shadow * 31u + (unsigned)dest) % OUT_HASH;
    for (outbox_t *o = outs[h]; o; o = o->next)
        if (o->shadow == shadow && o->dest == dest) return o;
    outbox_t *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->shadow = shadow;
    o->dest = dest;
    o->next = outs[h];
    outs[h] = o;
    return o;
}

static void shadows(MPI_Comm comm, MPI_Comm *p2p, MPI_Comm *ack)
{
    const chk_cinfo_t *ci = chk_cinfo(comm);
    *p2p = *ack = ci->shadow;
}

/* The tag of the acknowledgement of a message with tag `tag`: tag + 1,
 * never BATCH_TAG, so neither kind of receive can take the other's message
 * (MPI_TAG_UB's acknowledgement shares tag 1 with tag 0's: two threads
 * waiting for both from one peer at once may be released in either order). */
static int ack_tag(int tag)
{
    static _Atomic int ub;
    int u = atomic_load_explicit(&ub, memory_order_relaxed);
    if (!u) {
        int *v = NULL, flag = 0;
        u = PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag) == MPI_SUCCESS && flag && v
                ? *v
                : 32767;
        atomic_store_explicit(&ub, u, memory_order_relaxed);
    }
    /* Below MPI_TAG_UB, which coll_agree.c's exchanges use. */
    return tag >= 0 && tag < u - 1 ? tag + 1 : BATCH_TAG + 1;
}

static void poll_now(void);

/* MPISCOPE_CHECK_SYNC_SENDS: the receiver's acknowledgement of the record
 * just sent. Records that arrive meanwhile are paired, so that the
 * acknowledgements this rank owes go out (two ranks sending to each other
 * in turn would otherwise wait for each other). */
static void wait_ack(int peer, int tag, MPI_Comm ack)
{
    MPI_Request r;
    if (PMPI_Irecv(NULL, 0, MPI_BYTE, peer, ack_tag(tag), ack, &r) != MPI_SUCCESS) return;
    chk_wd_sync_wait(true);
    for (int flag = 0; !flag;) {
        if (PMPI_Test(&r, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
        if (!flag) poll_now();
    }
    chk_wd_sync_wait(false);
}

/* A kind of record: its signature and call site. */
static uint64_t kind_of(const sidecar_t *s)
{
    uint64_t h = (s->unit ^ (s->reps * 0x9e3779b97f4a7c15ull) ^ (uint64_t)s->bytes) *
                 0xff51afd7ed558ccdull;
    return (h ^ (h >> 29) ^ s->objoff ^ (s->objkey << 1)) * 0xc4ceb9fe1a85ec53ull;
}

static void send_sidecar(MPI_Comm comm, int peer, int tag, chk_sig_t sig, void *site, msc_fn_t fn,
                         bool want_ack, uint64_t now, uint32_t ev)
{
    if (peer == MPI_PROC_NULL || peer < 0) return;
    MPI_Comm p2p, ack;
    shadows(comm, &p2p, &ack);
    if (p2p == MPI_COMM_NULL) return;
    sidecar_t s = {sig.unit, sig.reps, sig.bytes, 0, 0, msc_g.world_rank,
                   (int32_t)fn, want_ack && ack != MPI_COMM_NULL, tag, ev, 0};
    chk_site_key(site, &s.objkey, &s.objoff);
    uint64_t kind = kind_of(&s);
    pthread_mutex_lock(&sc_lock);
    delay_init();
    outbox_t *o = outbox(p2p, peer);
    if (o && !o->cur) o->cur = batch_new();
    if (!o || !o->cur) {
        pthread_mutex_unlock(&sc_lock);
        msc_warn_once("check-sidecar", "check: out of memory for sidecar messages; some "
                                       "point-to-point type checks are skipped");
        return;
    }
    o->cur->rec[o->cur->n++] = s;
    o->app = comm, o->sent++, o->last_tag = tag;
    bool known = false;
    for (unsigned i = 0; i < KINDS && !known; i++) known = o->kinds[i] == kind;
    if (!known) o->kinds[o->nk++ % KINDS] = kind;
    if (!known || s.want_ack || o->cur->n == BATCH || !delay_ns) {
        flush(o);
    } else if (!o->dirty) {
        o->dirty = true;
        o->dnext = dirty;
        dirty = o;
        if (send_due == UINT64_MAX) {
            send_due = now + delay_ns;
            set_due();
        }
    }
    pthread_mutex_unlock(&sc_lock);
    if (s.want_ack) wait_ack(peer, tag, ack);
}

void chk_p2p_send_leave(msc_call_t *c, uint32_t ev)
{
    bool standard = c->fn == MSC_FN_MPI_Send;
    send_sidecar(c->comm, c->peer, c->tag, chk_sig(c->type, c->count), c->site, c->fn,
                 standard && chk_cfg.sync_sends, c->t_leave, ev);
}

void chk_p2p_started(MPI_Request r)
{
    chk_req_t q;
    if (!chk_req_get(r, &q) || q.kind != MSC_KIND_SEND_INIT) return;
    send_sidecar(q.comm, q.peer, q.tag, q.sig, q.site, q.fn, false, msc_now_ns(), q.rp_ev);
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

/* A finding's part for the sender of a message: its rank, its call site
 * (as the sender's object key and offset) and its function. */
static void sender_part(chk_part_t *p, const sidecar_t *s)
{
    p->rank = s->rank;
    p->objkey = s->objkey;
    p->objoff = s->objoff;
    if (s->fn >= 0 && s->fn < MSC_FN_COUNT)
        snprintf(p->call, sizeof p->call, "%s", msc_fn_name[s->fn]);
}

static void judge(const sidecar_t *s, const inctx_t *x)
{
    if (s->want_ack && x->ack != MPI_COMM_NULL)
        PMPI_Send(NULL, 0, MPI_BYTE, x->src, ack_tag(x->tag), x->ack);
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
    sender_part(&f.parts[1], s);
    chk_report_full(&f);
}

/* Pairs made under sc_lock, judged after it is released (judging may
 * report, or send an acknowledgement). */
typedef struct {
    judged_t *d, in[BATCH];
    int n, cap;
} done_t;

static void done_init(done_t *d)
{
    d->d = d->in, d->n = 0, d->cap = BATCH;
}

static void pair(done_t *d, const flow_t *f, const sidecar_t *s, const wait_t *w)
{
    if (d->n == d->cap) {
        judged_t *m = malloc(sizeof *m * (size_t)d->cap * 2);
        if (!m) return; /* no memory: not judged */
        memcpy(m, d->d, sizeof *m * (size_t)d->n);
        if (d->d != d->in) free(d->d);
        d->d = m, d->cap *= 2;
    }
    if (!w->unknown) chk_rp_matched(w->ev, s->rank, s->sev, f->tag);
    judged_t *j = &d->d[d->n++];
    j->s = *s;
    j->ctx = (inctx_t){f->box->app, f->box->ack, w->rsig, w->fn, w->site, w->skip, f->src, f->tag};
}

static size_t flow_hash(const inbox_t *box, int src, int tag)
{
    uint64_t h = ((uintptr_t)box >> 4) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)src * 31u ^
                 (uint64_t)(uint32_t)tag * 0xff51afd7ed558ccdull;
    return (size_t)((h ^ (h >> 32)) % FLOW_HASH);
}

/* The flow (box, src, tag), created if `create`. */
static flow_t *flow(inbox_t *box, int src, int tag, bool create)
{
    size_t h = flow_hash(box, src, tag);
    for (flow_t *f = flows[h]; f; f = f->next)
        if (f->box == box && f->src == src && f->tag == tag) return f;
    if (!create) return NULL;
    flow_t *f = free_flows;
    if (f) {
        free_flows = f->next;
        f->recs.head = f->recs.n = f->waits.head = f->waits.n = 0; /* rings kept */
    } else if ((f = malloc(sizeof *f))) {
        memset(f, 0, sizeof *f);
    } else {
        return NULL;
    }
    f->box = box, f->src = src, f->tag = tag;
    f->next = flows[h];
    flows[h] = f;
    nflows++;
    return f;
}

/* A flow with nothing queued stays in the hash for the next message of its
 * (source, tag), unless the hash holds many (tags that change all the time):
 * then it goes to the free list, with its rings. */
enum { FLOWS_KEPT = 2 * FLOW_HASH };
static void flow_idle(flow_t *f)
{
    if (f->recs.n || f->waits.n || nflows <= FLOWS_KEPT) return;
    for (flow_t **p = &flows[flow_hash(f->box, f->src, f->tag)]; *p; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            break;
        }
    nflows--;
    f->next = free_flows;
    free_flows = f;
}

/* Every flow of a box (its records and waits dropped). */
static void box_forget_flows(inbox_t *box)
{
    for (int h = 0; h < FLOW_HASH; h++)
        for (flow_t **p = &flows[h]; *p;) {
            flow_t *f = *p;
            if (f->box != box) {
                p = &f->next;
                continue;
            }
            nwaits -= f->waits.n;
            *p = f->next;
            nflows--;
            f->recs.n = f->waits.n = 0;
            f->next = free_flows;
            free_flows = f;
        }
    box->waits = 0;
}

static void post(inbox_t *box)
{
    if (box->req != MPI_REQUEST_NULL || (box->closing && !box->waits)) return;
    if (PMPI_Irecv(box->buf, (int)sizeof box->buf, MPI_BYTE, MPI_ANY_SOURCE, BATCH_TAG,
                   box->shadow, &box->req) != MPI_SUCCESS)
        box->req = MPI_REQUEST_NULL;
}

static inbox_t *inbox_find(MPI_Comm shadow)
{
    for (inbox_t *b = boxes; b; b = b->next)
        if (b->shadow == shadow && !b->owned) return b;
    return NULL;
}

static inbox_t *inbox(MPI_Comm shadow, MPI_Comm app, MPI_Comm ack)
{
    inbox_t *b = inbox_find(shadow);
    if (b) return b;
    b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->shadow = shadow, b->app = app, b->ack = ack;
    b->req = MPI_REQUEST_NULL;
    b->next = boxes;
    boxes = b;
    return b;
}

/* A batch of `bytes` from `src` on box's shadow: its records to their flows. */
static void take_batch(inbox_t *box, const sidecar_t *rec, int bytes, int src, done_t *d)
{
    int n = bytes / (int)sizeof(sidecar_t);
    for (int i = 0; i < n; i++) {
        flow_t *f = flow(box, src, rec[i].tag, true);
        if (!f) continue;
        if (f->waits.n) {
            wait_t w;
            fifo_pop(&f->waits, &w, sizeof w);
            box->waits--, nwaits--;
            pair(d, f, &rec[i], &w);
            flow_idle(f);
        } else if (!fifo_push(&f->recs, &rec[i], sizeof rec[i])) {
            flow_idle(f);
        }
    }
}

/* Batches that have arrived on a box's posted receive: taken, the receive
 * posted again. */
static void poll_box(inbox_t *box, done_t *d)
{
    while (box->req != MPI_REQUEST_NULL) {
        int flag = 0, bytes = 0;
        MPI_Status st;
        if (PMPI_Test(&box->req, &flag, &st) != MPI_SUCCESS || !flag) return;
        box->req = MPI_REQUEST_NULL;
        PMPI_Get_count(&st, MPI_BYTE, &bytes);
        take_batch(box, box->buf, bytes, st.MPI_SOURCE, d);
        post(box);
    }
}

/* A box without waits whose communicator the application freed: its
 * receive cancelled, its shadow freed (if owned). */
static void box_close(inbox_t *box, done_t *d)
{
    if (box->req != MPI_REQUEST_NULL) {
        MPI_Status st;
        int cancelled = 0, bytes = 0;
        PMPI_Cancel(&box->req);
        PMPI_Wait(&box->req, &st);
        PMPI_Test_cancelled(&st, &cancelled);
        if (!cancelled && PMPI_Get_count(&st, MPI_BYTE, &bytes) == MPI_SUCCESS)
            take_batch(box, box->buf, bytes, st.MPI_SOURCE, d);
    }
    box_forget_flows(box);
    for (inbox_t **p = &boxes; *p; p = &(*p)->next)
        if (*p == box) {
            *p = box->next;
            break;
        }
    if (box->owned) chk_shadow_free(&box->shadow);
    free(box);
}

/* Tests every posted batch receive (under sc_lock). */
static void poll_all(done_t *d)
{
    for (inbox_t *b = boxes, *next; b; b = next) {
        next = b->next;
        if (b->waits) poll_box(b, d);
        if (b->owned && !b->waits) box_close(b, d);
    }
}

static void judge_all(done_t *d)
{
    for (int i = 0; i < d->n; i++) judge(&d->d[i].s, &d->d[i].ctx);
    if (d->d != d->in) free(d->d);
    done_init(d);
}

/* Due work: the outboxes whose delay has passed go, the batch receives are
 * tested while waits are pending. One load and a comparison when nothing
 * is due. */
void chk_p2p_progress(uint64_t now)
{
    if (MSC_LIKELY(now < atomic_load_explicit(&sc_due, memory_order_relaxed))) return;
    done_t d;
    done_init(&d);
    pthread_mutex_lock(&sc_lock);
    if (now >= send_due) flush_all();
    if (now >= recv_due) {
        poll_all(&d);
        recv_due = nwaits ? now + poll_ns() : UINT64_MAX;
    }
    set_due();
    pthread_mutex_unlock(&sc_lock);
    judge_all(&d);
}

/* Every posted batch receive tested now. */
static void poll_now(void)
{
    done_t d;
    done_init(&d);
    pthread_mutex_lock(&sc_lock);
    poll_all(&d);
    pthread_mutex_unlock(&sc_lock);
    judge_all(&d);
}

/* One more message from `src` on `comm`, under sc_lock. */
static void tally_received(MPI_Comm comm, int src)
{
    size_t h = ((uintptr_t)comm * 31u + (unsigned)src) % OUT_HASH;
    tally_t *t = tallies[h];
    while (t && (t->app != comm || t->src != src)) t = t->next;
    if (!t && (t = calloc(1, sizeof *t))) {
        t->app = comm, t->src = src;
        t->next = tallies[h];
        tallies[h] = t;
    }
    if (t) t->n++;
}

int chk_p2p_tallies(chk_tally_t *out, int max)
{
    /* From the watchdog thread: a rank blocked inside MPI holds no sc_lock,
     * but a busy one may; then there are no hints rather than a wait. */
    int n = 0;
    for (int i = 0; i < 200 && pthread_mutex_trylock(&sc_lock) != 0; i++) {
        if (i == 199) return 0;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    for (int h = 0; h < OUT_HASH; h++) {
        for (outbox_t *o = outs[h]; o && n < max; o = o->next)
            if (o->sent) out[n++] = (chk_tally_t){o->app, o->dest, o->sent, o->last_tag, true};
        for (tally_t *t = tallies[h]; t && n < max; t = t->next)
            out[n++] = (chk_tally_t){t->app, t->src, t->n, MPI_ANY_TAG, false};
    }
    pthread_mutex_unlock(&sc_lock);
    return n;
}

void chk_p2p_recv_done(MPI_Comm comm, MPI_Status *st, chk_sig_t rsig, msc_fn_t fn, void *site,
                       uint64_t post_seq, bool probe, uint32_t ev)
{
    if (!st || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0) return;
    /* Only a completed receive's status says whether it was cancelled; a
     * probe's leaves that bit as it found it (MPICH: whatever the caller's
     * status held before, garbage in an uninitialized one). */
    int cancelled = 0;
    if (!probe) PMPI_Test_cancelled(st, &cancelled);
    if (cancelled) return;
    MPI_Comm p2p, ack;
    shadows(comm, &p2p, &ack);
    if (p2p == MPI_COMM_NULL) return;
    /* Receives completing out of their posting order: pairing unknown. */
    int src = st->MPI_SOURCE, tag = st->MPI_TAG;
    bool skip = is_unordered(comm, src, tag);
    if (!skip && !probe &&
        chk_req_earlier_recv(comm, src, tag, post_seq ? post_seq : UINT64_MAX)) {
        chk_lock();
        if (nunordered < 256 && !was_unordered(comm, src, tag))
            unordered[atomic_fetch_add(&nunordered, 1)] = (unordered_t){comm, src, tag};
        chk_unlock();
        skip = true;
    }
    wait_t w = {rsig, fn, site, skip || probe, skip, ev};
    done_t d;
    done_init(&d);
    pthread_mutex_lock(&sc_lock);
    delay_init();
    inbox_t *box = inbox(p2p, comm, ack);
    flow_t *f = box ? flow(box, src, tag, true) : NULL;
    if (!f) {
        pthread_mutex_unlock(&sc_lock);
        msc_warn_once("check-sidecar", "check: out of memory for sidecar messages; some "
                                       "point-to-point type checks are skipped");
        return;
    }
    post(box);
    tally_received(comm, src);
    if (f->recs.n) {
        sidecar_t s;
        fifo_pop(&f->recs, &s, sizeof s);
        pair(&d, f, &s, &w);
        flow_idle(f);
    } else if (fifo_push(&f->waits, &w, sizeof w)) {
        box->waits++, nwaits++;
        /* No delay (or acknowledged sends): the record may be here already. */
        if (!delay_ns || chk_cfg.sync_sends) poll_box(box, &d);
        if (nwaits && recv_due == UINT64_MAX) {
            recv_due = msc_now_ns() + poll_ns();
            set_due();
        }
    } else {
        flow_idle(f);
    }
    pthread_mutex_unlock(&sc_lock);
    judge_all(&d);
}

bool chk_p2p_comm_free(MPI_Comm p2p)
{
    if (p2p == MPI_COMM_NULL) return false;
    done_t d;
    done_init(&d);
    bool kept = false;
    pthread_mutex_lock(&sc_lock);
    /* Its outboxes go now (MPI completes pending sends of a freed
     * communicator) and are forgotten. */
    for (int h = 0; h < OUT_HASH; h++)
        for (outbox_t **p = &outs[h]; *p;) {
            outbox_t *o = *p;
            if (o->shadow != p2p) {
                p = &o->next;
                continue;
            }
            flush(o);
            if (o->dirty)
                for (outbox_t **q = &dirty; *q; q = &(*q)->dnext)
                    if (*q == o) {
                        *q = o->dnext;
                        break;
                    }
            *p = o->next;
            free(o);
        }
    inbox_t *box = inbox_find(p2p);
    if (box) {
        poll_box(box, &d);
        box->closing = true;
        if (box->waits) {
            kept = box->owned = true; /* freed once its waits are paired (poll_all), or at finalize */
            if (recv_due == UINT64_MAX) recv_due = msc_now_ns();
            set_due();
        } else {
            box_close(box, &d); /* objects.c frees the shadow */
        }
    }
    pthread_mutex_unlock(&sc_lock);
    judge_all(&d);
    return kept;
}

static void report_unreceived(const sidecar_t *s, int tag)
{
    chk_finding_t f;
    memset(&f, 0, sizeof f);
    snprintf(f.cls, sizeof f.cls, "LOCAL:FINALIZE:UNRECEIVED_MESSAGE");
    snprintf(f.text, sizeof f.text,
             "A message of %lld bytes with tag %d, sent by rank %d to rank %d, was never "
             "received: rank %d called MPI_Finalize with it still waiting. Every message "
             "must be received (or its send cancelled) before MPI_Finalize; post the "
             "missing receive, or do not send.",
             (long long)s->bytes, tag, s->rank, msc_g.world_rank, msc_g.world_rank);
    f.nparts = 1;
    sender_part(&f.parts[0], s);
    f.parts[0].site = (void *)(uintptr_t)s->objoff; /* folds repeats of one site */
    chk_report_full(&f);
}

void chk_p2p_unreceived(void)
{
    /* Every record goes before the barrier, so that every batch has been
     * sent once all are past it. */
    pthread_mutex_lock(&sc_lock);
    delay_init();
    flush_all();
    pthread_mutex_unlock(&sc_lock);
    PMPI_Barrier(msc_g.comm);
    /* The waits are paired as their batches arrive: at most 30 s, and no
     * more than 3 s without one paired (every batch was sent before the
     * barrier; a receive whose record never comes -- its source or tag
     * misreported by the MPI -- must not hold MPI_Finalize for 30 s). */
    uint64_t t0 = msc_now_ns(), moved = t0;
    long left = -1;
    for (;;) {
        done_t d;
        done_init(&d);
        pthread_mutex_lock(&sc_lock);
        poll_all(&d);
        long now_left = nwaits;
        pthread_mutex_unlock(&sc_lock);
        judge_all(&d);
        uint64_t t = msc_now_ns();
        if (now_left != left) moved = t, left = now_left;
        if (!left || t - t0 > 30000000000ull || t - moved > 3000000000ull) break;
    }
    if (left > 0)
        msc_warn("check: %ld received message(s) not paired with the sender's record by "
                 "MPI_Finalize: their type signatures are not checked", left);
    /* What else has arrived: the posted receives are cancelled (or
     * completed), then every shadow is emptied by probing. */
    MPI_Comm list[1024], apps[1024];
    int n = chk_comm_shadows(list, apps, 1024);
    pthread_mutex_lock(&sc_lock);
    for (inbox_t *b = boxes; b; b = b->next) {
        if (b->req == MPI_REQUEST_NULL) continue;
        done_t d;
        done_init(&d);
        MPI_Status st;
        int cancelled = 0, bytes = 0;
        PMPI_Cancel(&b->req);
        PMPI_Wait(&b->req, &st);
        PMPI_Test_cancelled(&st, &cancelled);
        if (!cancelled && PMPI_Get_count(&st, MPI_BYTE, &bytes) == MPI_SUCCESS)
            take_batch(b, b->buf, bytes, st.MPI_SOURCE, &d);
        pthread_mutex_unlock(&sc_lock);
        judge_all(&d);
        pthread_mutex_lock(&sc_lock);
    }
    for (inbox_t *b = boxes; b; b = b->next) b->closing = true; /* nothing is posted again */
    pthread_mutex_unlock(&sc_lock);
    static sidecar_t buf[BATCH];
    for (int i = 0; i < n; i++) {
        for (int guard = 0; guard < 1000; guard++) {
            int flag = 0, bytes = 0;
            MPI_Status st;
            if (PMPI_Iprobe(MPI_ANY_SOURCE, BATCH_TAG, list[i], &flag, &st) != MPI_SUCCESS || !flag)
                break;
            PMPI_Recv(buf, (int)sizeof buf, MPI_BYTE, st.MPI_SOURCE, BATCH_TAG, list[i], &st);
            PMPI_Get_count(&st, MPI_BYTE, &bytes);
            done_t d;
            done_init(&d);
            pthread_mutex_lock(&sc_lock);
            inbox_t *box = inbox(list[i], apps[i], MPI_COMM_NULL);
            if (box) box->closing = true;
            if (box) take_batch(box, buf, bytes, st.MPI_SOURCE, &d);
            pthread_mutex_unlock(&sc_lock);
            judge_all(&d);
        }
    }
    /* Records left over are only a hint: the message itself must still be
     * waiting on the application's communicator (a local probe: nothing is
     * sent, matching is not changed). A message that was received, by a path
     * whose record went unconsumed, is no finding. Communicators the
     * application freed are not probed. */
    for (int i = 0; i < n; i++) {
        inbox_t *box = inbox_find(list[i]);
        if (!box || apps[i] == MPI_COMM_NULL) continue;
        for (int h = 0; h < FLOW_HASH; h++)
            for (flow_t *f = flows[h]; f; f = f->next) {
                if (f->box != box) continue;
                for (int k = 0; k < f->recs.n && k < 1000; k++) {
                    const sidecar_t *s = (const sidecar_t *)f->recs.a + (f->recs.head + k) % f->recs.cap;
                    if (s->fn < 0) continue;
                    int pending = 0;
                    MPI_Status ps;
                    if (PMPI_Iprobe(f->src, f->tag, apps[i], &pending, &ps) != MPI_SUCCESS ||
                        !pending)
                        break;
                    report_unreceived(s, f->tag);
                }
            }
    }
    /* Every leftover batch has been taken: the sends are complete. */
    PMPI_Barrier(msc_g.comm);
    t0 = msc_now_ns();
    pthread_mutex_lock(&sc_lock);
    while (ninflight && msc_now_ns() - t0 < 10000000000ull) reap_inflight();
    for (int i = 0; i < ninflight; i++) {
        PMPI_Cancel(&inflight_req[i]);
        PMPI_Request_free(&inflight_req[i]);
    }
    ninflight = 0;
    free(inflight), free(inflight_req);
    inflight = NULL, inflight_req = NULL, capinflight = 0;
    for (batch_t *b; (b = free_batches);) free_batches = b->next, free(b);
    for (int h = 0; h < OUT_HASH; h++)
        for (outbox_t *o; (o = outs[h]);) outs[h] = o->next, free(o->cur), free(o);
    dirty = NULL;
    for (inbox_t *b; (b = boxes);) {
        boxes = b->next;
        box_forget_flows(b);
        if (b->owned) chk_shadow_free(&b->shadow); /* kept after the application freed it */
        free(b);
    }
    for (flow_t *f; (f = free_flows);) free_flows = f->next, free(f->recs.a), free(f->waits.a), free(f);
    nwaits = 0;
    send_due = recv_due = UINT64_MAX;
    set_due();
    pthread_mutex_unlock(&sc_lock);
}
