/* Potential deadlocks: the run replayed with zero buffering, at MPI_Finalize.
 *
 * MPI may complete a standard-mode send before its receive is posted
 * (buffering) or only once it is (MPI-3.1 section 3.5); a program that
 * completes only thanks to buffering is unsafe, and deadlocks on an MPI, a
 * message size or a network that buffers less. The run itself cannot show
 * it. So every rank records, in the order it makes them, the calls that can
 * wait for another rank, as events: a send (blocking, posted by a
 * nonblocking call, or buffered: MPI_Bsend/MPI_Ibsend never wait), a receive
 * (blocking or posted), a collective (blocking or posted; its communicator's
 * members' key and the instance number global.c gives every member alike)
 * and a completion (MPI_Wait* and a Test* that completed: the posting
 * events of its requests; all of them, or any for the -any/-some forms).
 * p2p.c's sidecar records carry the sender's event number, so a receive
 * learns which send it matched -- wildcards fixed as they matched -- when
 * the record is paired with it.
 *
 * At MPI_Finalize rank 0 gathers every rank's events (on msc_g.comm) and
 * replays them: a rank runs until an event cannot complete; a blocking
 * standard send completes when its receive has been posted (the receiver
 * has reached that event), a receive when its send has been started, a
 * collective when every member has entered it (the standard allows any
 * collective to synchronize, and some MPI does: such a cycle is one a
 * conforming MPI can produce), a completion when all (or any) of its
 * requests would. Blocked ranks wait on the rank (or collective instance)
 * that can release them and are woken when it moves, so the replay is
 * linear in the events. Ranks that never reach their end are the potential
 * deadlock: rank 0 follows what each waits for to a cycle and names it, and
 * each rank of the cycle reports its own call and line under one group
 * (GLOBAL:DEADLOCK:POTENTIAL, a warning: the program completed, its exit
 * code stays).
 *
 * What is not known is taken to complete, so an unknown never turns into a
 * finding: a send whose receive is unknown (no sidecar: a communicator over
 * the tool's budget, a receive whose pairing became unknown, a message never
 * received), a receive without a matched record, requests the tables did
 * not hold, intercommunicator and persistent collectives, probes, RMA and
 * I/O. Two communicators with the same members share their instance
 * numbers' key, which can only make a collective complete sooner. The
 * replay is skipped, whole, when a rank recorded from two threads (one
 * order per rank is its model), exceeded MPISCOPE_CHECK_ZERO_BUFFER_EVENTS,
 * or is connected to another world (spawned, connected or joined: its ranks
 * are numbered in another MPI_COMM_WORLD).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "log.h"

enum { OP_SEND = 1, OP_RECV, OP_COLL, OP_WAIT };
enum { REFS_MAX = 64, CYCLES_MAX = 8, CYCLE_RANKS = 16 };

typedef struct {
    uint8_t op, mode;  /* chk_rp_mode_t; OP_WAIT: 1 for any, 0 for all */
    uint16_t spare;
    int32_t fn;
    int32_t peer;      /* RECV: the matched sender's world rank (-1: unknown); COLL: members;
                        * WAIT: refs (-1: unknown, completes) */
    uint32_t ref;      /* RECV: the sender's event; WAIT: first of its refs */
    uint64_t key;      /* COLL: the communicator's members' key and the instance */
} ev_t;

static pthread_mutex_t rp_lock = PTHREAD_MUTEX_INITIALIZER;
static ev_t *evs;
static void **sites;
static uint32_t nev, capev;
static uint32_t *refs;
static uint32_t nrefs, caprefs;
static const char *skipped; /* why this rank's events cannot be replayed, or NULL */
static _Atomic int owner_taken;
static CHK_TLS int owner_mine; /* 1: this thread records; -1: another does */

static uint32_t limit(void)
{
    return (uint32_t)msc_g.settings.v[MSC_SET_CHECK_ZERO_BUFFER_EVENTS].num;
}

void chk_rp_disable(const char *why)
{
    pthread_mutex_lock(&rp_lock);
    if (!skipped) skipped = why;
    pthread_mutex_unlock(&rp_lock);
}

/* One more event of this thread, under rp_lock; NULL when not recorded. */
static ev_t *append(msc_fn_t fn, void *site, uint32_t *at)
{
    if (!owner_mine) {
        int no = 0;
        owner_mine = atomic_compare_exchange_strong(&owner_taken, &no, 1) ? 1 : -1;
    }
    if (owner_mine < 0) {
        if (!skipped) skipped = "MPI calls from more than one thread";
        return NULL;
    }
    if (skipped || !limit()) return NULL;
    if (nev == capev) {
        if (nev >= limit()) {
            skipped = "more calls than MPISCOPE_CHECK_ZERO_BUFFER_EVENTS";
            return NULL;
        }
        uint32_t cap = capev ? 2 * capev : 1024;
        if (cap > limit()) cap = limit();
        ev_t *e = realloc(evs, sizeof *e * cap);
        if (e) evs = e;
        void **s = e ? realloc(sites, sizeof *s * cap) : NULL;
        if (s) sites = s;
        if (!e || !s) {
            skipped = "out of memory";
            return NULL;
        }
        capev = cap;
    }
    ev_t *e = &evs[nev];
    memset(e, 0, sizeof *e);
    e->fn = (int32_t)fn;
    e->peer = -1;
    e->ref = CHK_RP_NONE;
    sites[nev] = site;
    *at = nev++;
    return e;
}

uint32_t chk_rp_send(msc_fn_t fn, void *site, chk_rp_mode_t mode)
{
    uint32_t at = CHK_RP_NONE;
    pthread_mutex_lock(&rp_lock);
    ev_t *e = append(fn, site, &at);
    if (e) e->op = OP_SEND, e->mode = (uint8_t)mode;
    pthread_mutex_unlock(&rp_lock);
    return at;
}

uint32_t chk_rp_recv(msc_fn_t fn, void *site, chk_rp_mode_t mode)
{
    uint32_t at = CHK_RP_NONE;
    pthread_mutex_lock(&rp_lock);
    ev_t *e = append(fn, site, &at);
    if (e) e->op = OP_RECV, e->mode = (uint8_t)mode;
    pthread_mutex_unlock(&rp_lock);
    return at;
}

uint32_t chk_rp_coll(msc_fn_t fn, void *site, uint64_t comm_key, uint64_t instance, int members,
                     chk_rp_mode_t mode)
{
    uint32_t at = CHK_RP_NONE;
    pthread_mutex_lock(&rp_lock);
    ev_t *e = append(fn, site, &at);
    if (e) {
        e->op = OP_COLL, e->mode = (uint8_t)mode, e->peer = members;
        uint64_t h = (comm_key ^ (instance * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
        e->key = h ^ (h >> 31);
    }
    pthread_mutex_unlock(&rp_lock);
    return at;
}

void chk_rp_wait(msc_fn_t fn, void *site, const uint32_t *posts, int n, bool any)
{
    uint32_t at;
    pthread_mutex_lock(&rp_lock);
    ev_t *e = append(fn, site, &at);
    if (e) {
        e->op = OP_WAIT, e->mode = any;
        e->ref = nrefs;
        e->peer = n;
        for (int i = 0; i < n && e->peer >= 0; i++)
            if (posts[i] == CHK_RP_NONE) e->peer = -1; /* a request not known: completes */
        if (e->peer > 0 && nrefs + (uint32_t)n > caprefs) {
            uint32_t cap = caprefs ? 2 * caprefs : 1024;
            while (cap < nrefs + (uint32_t)n) cap *= 2;
            uint32_t *r = realloc(refs, sizeof *r * cap);
            if (r) refs = r, caprefs = cap;
            else skipped = "out of memory";
        }
        if (e->peer > 0 && !skipped) {
            memcpy(refs + nrefs, posts, sizeof *posts * (size_t)n);
            nrefs += (uint32_t)n;
        }
    }
    pthread_mutex_unlock(&rp_lock);
}

void chk_rp_matched(uint32_t recv_ev, int sender, uint32_t send_ev)
{
    if (recv_ev == CHK_RP_NONE || send_ev == CHK_RP_NONE || sender < 0) return;
    pthread_mutex_lock(&rp_lock);
    if (recv_ev < nev && evs[recv_ev].op == OP_RECV) {
        evs[recv_ev].peer = sender;
        evs[recv_ev].ref = send_ev;
    }
    pthread_mutex_unlock(&rp_lock);
}

/* --- the replay (rank 0) ------------------------------------------------ */

typedef struct {
    int rank;
    uint32_t at;
} where_t;

typedef struct {
    uint64_t key;
    int members, reached, nparts;
    where_t *parts;        /* every event of this instance, any rank */
    int *waiters, nwaiters, capwaiters;
} inst_t;

typedef struct {
    int rank;              /* the blocked rank */
    uint32_t need;         /* it needs the watched rank at this event or beyond */
} waiter_t;

typedef struct {
    int nranks;
    const ev_t **ev;       /* per rank */
    const uint32_t **refs;
    uint32_t *n;
    uint32_t *pc;
    bool *entered;
    where_t **match;       /* per rank and send event: the receive that took it (rank -1: none) */
    inst_t *inst;          /* open addressing, ninst slots */
    uint32_t ninst;
    uint32_t **inst_of;    /* per rank and collective event: its instance slot */
    waiter_t **w;          /* per watched rank */
    int *nw, *capw;
    int *queue, qhead, qn;
    bool *inq;
} replay_t;

static void enqueue(replay_t *R, int r)
{
    if (R->inq[r]) return;
    R->inq[r] = true;
    R->queue[(R->qhead + R->qn++) % R->nranks] = r;
}

static bool reached(const replay_t *R, where_t w)
{
    return w.rank < 0 || R->pc[w.rank] >= w.at;
}

/* Whether posting event `at` of rank r is done; if not, who it waits for. */
static bool post_done(const replay_t *R, int r, uint32_t at, where_t *blocker, int *inst)
{
    const ev_t *e = &R->ev[r][at];
    *inst = -1;
    switch (e->op) {
    case OP_SEND:
        if (e->mode == CHK_RP_BUFFERED) return true;
        *blocker = R->match[r][at];
        return reached(R, *blocker);
    case OP_RECV:
        if (e->peer < 0 || e->peer >= R->nranks) return true;
        *blocker = (where_t){e->peer, e->ref};
        return reached(R, *blocker);
    case OP_COLL: {
        const inst_t *in = &R->inst[R->inst_of[r][at]];
        if (in->nparts < in->members || in->reached >= in->members) return true;
        *inst = (int)R->inst_of[r][at];
        return false;
    }
    default:
        return true;
    }
}

static void watch(replay_t *R, int r, where_t on)
{
    int q = on.rank;
    if (R->nw[q] == R->capw[q]) {
        int cap = R->capw[q] ? 2 * R->capw[q] : 4;
        waiter_t *m = realloc(R->w[q], sizeof *m * (size_t)cap);
        if (!m) return; /* not woken by q: may stay blocked, reported as such */
        R->w[q] = m, R->capw[q] = cap;
    }
    R->w[q][R->nw[q]++] = (waiter_t){r, on.at};
}

static void watch_inst(replay_t *R, int r, int slot)
{
    inst_t *in = &R->inst[slot];
    if (in->nwaiters == in->capwaiters) {
        int cap = in->capwaiters ? 2 * in->capwaiters : 4;
        int *m = realloc(in->waiters, sizeof *m * (size_t)cap);
        if (!m) return;
        in->waiters = m, in->capwaiters = cap;
    }
    in->waiters[in->nwaiters++] = r;
}

/* Whether rank r's current event completes; if not and `subscribe`, it is
 * registered with each rank or collective instance that can release it. */
static bool step_done(replay_t *R, int r, bool subscribe)
{
    uint32_t at = R->pc[r];
    const ev_t *e = &R->ev[r][at];
    where_t b;
    int slot;
    if (e->op == OP_WAIT) {
        if (e->peer <= 0) return true;
        const uint32_t *posts = R->refs[r] + e->ref;
        bool any = e->mode, all_done = true, any_done = false;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < e->peer; i++) {
                /* Not a posting event before it: not known, done. */
                bool d = posts[i] >= at || post_done(R, r, posts[i], &b, &slot);
                if (pass == 0) {
                    any_done |= d, all_done &= d;
                } else if (!d) {
                    if (slot >= 0) watch_inst(R, r, slot);
                    else watch(R, r, b);
                }
            }
            bool done = any ? any_done : all_done;
            if (done || !subscribe) return done;
        }
        return false;
    }
    if ((e->op == OP_SEND || e->op == OP_RECV) && e->mode != CHK_RP_BLOCK) return true;
    if (post_done(R, r, at, &b, &slot)) return true;
    if (subscribe) {
        if (slot >= 0) watch_inst(R, r, slot);
        else watch(R, r, b);
    }
    return false;
}

static void run(replay_t *R, int r)
{
    while (R->pc[r] < R->n[r]) {
        uint32_t at = R->pc[r];
        const ev_t *e = &R->ev[r][at];
        if (!R->entered[r]) {
            R->entered[r] = true;
            if (e->op == OP_COLL) {
                inst_t *in = &R->inst[R->inst_of[r][at]];
                if (++in->reached == in->members)
                    for (int i = 0; i < in->nwaiters; i++) enqueue(R, in->waiters[i]);
            }
        }
        if (!step_done(R, r, true)) break;
        R->pc[r]++;
        R->entered[r] = false;
    }
    /* Those waiting for r to get where it is now. */
    int k = 0;
    for (int i = 0; i < R->nw[r]; i++) {
        if (R->pc[r] >= R->w[r][i].need)
            enqueue(R, R->w[r][i].rank);
        else
            R->w[r][k++] = R->w[r][i];
    }
    R->nw[r] = k;
}

static uint32_t inst_slot(replay_t *R, uint64_t key)
{
    uint32_t i = (uint32_t)(key % R->ninst);
    while (R->inst[i].nparts && R->inst[i].key != key) i = (i + 1) % R->ninst;
    return i;
}

/* The stuck ranks rank r waits for (its current event), into `t`. */
static int blockers(const replay_t *R, int r, int *t, int max)
{
    int n = 0;
    uint32_t at = R->pc[r];
    const ev_t *e = &R->ev[r][at];
    uint32_t one = at;
    const uint32_t *posts = &one;
    int np = 1;
    if (e->op == OP_WAIT) {
        if (e->peer <= 0) return 0;
        posts = R->refs[r] + e->ref, np = e->peer;
    }
    for (int i = 0; i < np && n < max; i++) {
        where_t b;
        int slot;
        if (posts[i] > at || post_done(R, r, posts[i], &b, &slot)) continue;
        if (slot < 0) {
            if (b.rank >= 0 && R->pc[b.rank] < R->n[b.rank]) t[n++] = b.rank;
            continue;
        }
        const inst_t *in = &R->inst[slot];
        for (int j = 0; j < in->nparts && n < max; j++)
            if (!reached(R, in->parts[j]) && in->parts[j].rank != r) t[n++] = in->parts[j].rank;
    }
    return n;
}

/* What rank r waits for, in words, toward rank q. */
static void describe(const replay_t *R, int r, int q, char *out, size_t len)
{
    const ev_t *e = &R->ev[r][R->pc[r]];
    const char *call = e->fn >= 0 && e->fn < MSC_FN_COUNT ? msc_fn_name[e->fn] : "an MPI call";
    const char *what = "for rank %d";
    if (e->op == OP_SEND) what = "for rank %d to post the receive of its message";
    else if (e->op == OP_RECV) what = "for rank %d to start the send of the message it receives";
    else if (e->op == OP_COLL) what = "for rank %d to enter the same collective";
    else if (e->op == OP_WAIT) what = "for rank %d (the operations it completes need it)";
    char tail[96];
    snprintf(tail, sizeof tail, what, q);
    snprintf(out, len, "rank %d in %s waits %s", r, call, tail);
}

/* The result rank 0 sends every rank: cycles of (rank, event). */
typedef struct {
    int ncycles;
    int len[CYCLES_MAX];
    where_t at[CYCLES_MAX][CYCLE_RANKS];
    char text[CYCLES_MAX][CHK_TEXT];
} verdict_t;

static void find_cycles(replay_t *R, verdict_t *v)
{
    int n = R->nranks;
    int *mark = calloc((size_t)n, sizeof *mark); /* 0 new, walk id + 1 */
    int *order = calloc((size_t)n, sizeof *order);
    int *t = malloc(sizeof *t * (size_t)n);
    if (!mark || !order || !t) goto out;
    int walk = 0;
    for (int s = 0; s < n && v->ncycles < CYCLES_MAX; s++) {
        if (R->pc[s] >= R->n[s] || mark[s]) continue;
        walk++;
        int r = s, len = 0;
        while (r >= 0 && !mark[r]) {
            mark[r] = walk;
            order[len++] = r;
            int nt = blockers(R, r, t, n), next = -1;
            for (int i = 0; i < nt && next < 0; i++)
                if (!mark[t[i]] || mark[t[i]] == walk) next = t[i];
            if (next < 0) {
                r = -1;
                break;
            }
            if (mark[next] == walk) {
                r = next;
                break;
            }
            r = next;
        }
        if (r < 0 || mark[r] != walk) continue;
        int from = 0;
        while (order[from] != r) from++;
        int k = len - from;
        verdict_t *V = v;
        int c = V->ncycles++;
        V->len[c] = k < CYCLE_RANKS ? k : CYCLE_RANKS;
        char *p = V->text[c];
        size_t room = CHK_TEXT;
        int w = snprintf(p, room,
                         "With zero buffering (MPI may complete a standard-mode send only once its "
                         "receive is posted, MPI-3.1 section 3.5) and synchronizing collectives, "
                         "this program deadlocks: ");
        for (int i = 0; i < k && w > 0 && (size_t)w < room; i++) {
            int a = order[from + i], b = order[from + (i + 1) % k];
            if (i < CYCLE_RANKS) V->at[c][i] = (where_t){a, R->pc[a]};
            char d[256];
            describe(R, a, b, d, sizeof d);
            w += snprintf(p + w, room - (size_t)w, "%s%s", i ? "; " : "", d);
        }
        if (w > 0 && (size_t)w < room)
            snprintf(p + w, room - (size_t)w,
                     ". It completed here only because MPI buffered messages or let a "
                     "collective return early; a larger message, another MPI or another network "
                     "can hang it. Reorder the calls so that every send meets a posted receive, "
                     "or use MPI_Sendrecv or nonblocking calls (MPI_Isend/MPI_Irecv and "
                     "MPI_Waitall).");
    }
out:
    free(mark), free(order), free(t);
}

typedef struct {
    uint32_t nev, nrefs;
    int32_t skipped;
} header_t;

static void replay(const header_t *h, const char *blob, int nranks, verdict_t *v)
{
    replay_t R;
    memset(&R, 0, sizeof R);
    R.nranks = nranks;
    R.ev = calloc((size_t)nranks, sizeof *R.ev);
    R.refs = calloc((size_t)nranks, sizeof *R.refs);
    R.n = calloc((size_t)nranks, sizeof *R.n);
    R.pc = calloc((size_t)nranks, sizeof *R.pc);
    R.entered = calloc((size_t)nranks, sizeof *R.entered);
    R.match = calloc((size_t)nranks, sizeof *R.match);
    R.inst_of = calloc((size_t)nranks, sizeof *R.inst_of);
    R.w = calloc((size_t)nranks, sizeof *R.w);
    R.nw = calloc((size_t)nranks, sizeof *R.nw);
    R.capw = calloc((size_t)nranks, sizeof *R.capw);
    R.queue = calloc((size_t)nranks, sizeof *R.queue);
    R.inq = calloc((size_t)nranks, sizeof *R.inq);
    uint64_t ncoll = 0;
    bool ok = R.ev && R.refs && R.n && R.pc && R.entered && R.match && R.inst_of && R.w && R.nw &&
              R.capw && R.queue && R.inq;
    size_t off = 0;
    for (int r = 0; ok && r < nranks; r++) {
        R.n[r] = h[r].nev;
        R.ev[r] = (const ev_t *)(blob + off);
        off += sizeof(ev_t) * h[r].nev;
        R.refs[r] = (const uint32_t *)(blob + off);
        off += sizeof(uint32_t) * h[r].nrefs;
        R.match[r] = malloc(sizeof(where_t) * (h[r].nev + 1));
        R.inst_of[r] = malloc(sizeof(uint32_t) * (h[r].nev + 1));
        ok = R.match[r] && R.inst_of[r];
        for (uint32_t i = 0; ok && i < h[r].nev; i++) {
            R.match[r][i] = (where_t){-1, 0};
            ncoll += R.ev[r][i].op == OP_COLL;
        }
    }
    /* Which receive took each send; the collective instances. */
    for (int r = 0; ok && r < nranks; r++)
        for (uint32_t i = 0; i < R.n[r]; i++) {
            const ev_t *e = &R.ev[r][i];
            if (e->op != OP_RECV || e->peer < 0 || e->peer >= nranks) continue;
            if (e->ref < R.n[e->peer] && R.ev[e->peer][e->ref].op == OP_SEND)
                R.match[e->peer][e->ref] = (where_t){r, i};
        }
    R.ninst = (uint32_t)(2 * ncoll + 1);
    R.inst = ok ? calloc(R.ninst, sizeof *R.inst) : NULL;
    ok = ok && R.inst;
    for (int r = 0; ok && r < nranks; r++)
        for (uint32_t i = 0; i < R.n[r]; i++)
            if (R.ev[r][i].op == OP_COLL) {
                uint32_t s = inst_slot(&R, R.ev[r][i].key);
                inst_t *in = &R.inst[s];
                if (!in->nparts) in->key = R.ev[r][i].key, in->members = R.ev[r][i].peer;
                in->nparts++;
                R.inst_of[r][i] = s;
            }
    for (uint32_t s = 0; ok && s < R.ninst; s++)
        if (R.inst[s].nparts) {
            R.inst[s].parts = malloc(sizeof(where_t) * (size_t)R.inst[s].nparts);
            ok = R.inst[s].parts != NULL;
            R.inst[s].nparts = 0;
        }
    for (int r = 0; ok && r < nranks; r++)
        for (uint32_t i = 0; i < R.n[r]; i++)
            if (R.ev[r][i].op == OP_COLL) {
                inst_t *in = &R.inst[R.inst_of[r][i]];
                in->parts[in->nparts++] = (where_t){r, i};
            }
    if (ok) {
        for (int r = 0; r < nranks; r++) enqueue(&R, r);
        while (R.qn) {
            int r = R.queue[R.qhead];
            R.qhead = (R.qhead + 1) % nranks, R.qn--;
            R.inq[r] = false;
            run(&R, r);
        }
        find_cycles(&R, v);
    } else {
        msc_warn_once("check-replay", "check: out of memory for the zero-buffer replay; "
                                      "potential deadlocks were not looked for");
    }
    for (int r = 0; r < nranks; r++) {
        if (R.match) free(R.match[r]);
        if (R.inst_of) free(R.inst_of[r]);
        if (R.w) free(R.w[r]);
    }
    for (uint32_t s = 0; R.inst && s < R.ninst; s++) free(R.inst[s].parts), free(R.inst[s].waiters);
    free(R.inst), free(R.ev), free(R.refs), free(R.n), free(R.pc), free(R.entered), free(R.match);
    free(R.inst_of), free(R.w), free(R.nw), free(R.capw), free(R.queue), free(R.inq);
}

void chk_rp_finalize(void)
{
    MPI_Comm parent = MPI_COMM_NULL;
    PMPI_Comm_get_parent(&parent);
    int me = msc_g.world_rank, size = msc_g.world_size;
    pthread_mutex_lock(&rp_lock);
    if (parent != MPI_COMM_NULL && !skipped) skipped = "a spawned world";
    header_t mine = {nev, nrefs, skipped != NULL || !limit()};
    size_t bytes = sizeof(ev_t) * nev + sizeof(uint32_t) * nrefs;
    if (bytes > (size_t)0x7fffffff && !skipped) skipped = "more than 2 GiB of events";
    char *out = skipped ? NULL : malloc(bytes + 1);
    if (out) {
        memcpy(out, evs, sizeof(ev_t) * nev);
        memcpy(out + sizeof(ev_t) * nev, refs, sizeof(uint32_t) * nrefs);
    } else if (!skipped) {
        skipped = "out of memory";
    }
    mine.skipped = skipped != NULL || !limit();
    const char *why = skipped;
    pthread_mutex_unlock(&rp_lock);

    header_t *h = me == 0 ? calloc((size_t)size, sizeof *h) : NULL;
    int *counts = me == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    int *displs = me == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    verdict_t *v = calloc(1, sizeof *v);
    /* Every rank able to take part, or none: one agreement first. */
    int skip = mine.skipped || !v || (me == 0 && !(h && counts && displs)), any_skip = 1;
    if (PMPI_Allreduce(&skip, &any_skip, 1, MPI_INT, MPI_MAX, msc_g.comm) != MPI_SUCCESS)
        any_skip = 1;
    /* Limits are said; the model's documented bounds (threads, other
     * worlds) are not news at every run. */
    if (any_skip && why && limit() &&
        (!strncmp(why, "more than", 9) || !strncmp(why, "more calls", 10) ||
         !strcmp(why, "out of memory")))
        msc_warn("check: potential deadlocks (the zero-buffer replay) were not looked for: %s "
                 "on rank %d",
                 why, me);
    int nc = 0;
    if (!any_skip) {
        PMPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, h, (int)sizeof mine, MPI_BYTE, 0,
                    msc_g.comm);
        long long total = 0;
        for (int r = 0; me == 0 && r < size; r++) {
            long long b =
                (long long)sizeof(ev_t) * h[r].nev + (long long)sizeof(uint32_t) * h[r].nrefs;
            displs[r] = total + b > 0x7fffffff ? 0 : (int)total;
            counts[r] = total + b > 0x7fffffff ? 0 : (int)b;
            total += b;
        }
        char *blob = me == 0 && total <= 0x7fffffff ? malloc((size_t)total + 1) : NULL;
        int go = me != 0 || blob;
        PMPI_Bcast(&go, 1, MPI_INT, 0, msc_g.comm);
        if (go) {
            PMPI_Gatherv(out, (int)bytes, MPI_BYTE, blob, counts, displs, MPI_BYTE, 0, msc_g.comm);
            if (me == 0) replay(h, blob, size, v);
        } else if (me == 0) {
            msc_warn("check: potential deadlocks (the zero-buffer replay) were not looked for: "
                     "%lld bytes of events do not fit in memory on rank 0",
                     total);
        }
        free(blob);
        nc = v->ncycles;
        PMPI_Bcast(&nc, 1, MPI_INT, 0, msc_g.comm);
        if (nc) PMPI_Bcast(v, (int)sizeof *v, MPI_BYTE, 0, msc_g.comm);
    }
    for (int c = 0; c < nc; c++)
        for (int i = 0; i < v->len[c]; i++) {
            if (v->at[c][i].rank != me || v->at[c][i].at >= nev) continue;
            chk_finding_t f;
            memset(&f, 0, sizeof f);
            snprintf(f.cls, sizeof f.cls, "GLOBAL:DEADLOCK:POTENTIAL");
            snprintf(f.group, sizeof f.group, "zerobuf:%d:%d", c, v->at[c][0].rank);
            memcpy(f.text, v->text[c], sizeof f.text);
            f.nparts = 1;
            f.parts[0].rank = me;
            f.parts[0].site = sites[v->at[c][i].at];
            int fn = evs[v->at[c][i].at].fn;
            snprintf(f.parts[0].call, sizeof f.parts[0].call, "%s",
                     fn >= 0 && fn < MSC_FN_COUNT ? msc_fn_name[fn] : "");
            chk_report_full(&f);
        }
    free(v), free(h), free(counts), free(displs), free(out);
    pthread_mutex_lock(&rp_lock);
    free(evs), free(sites), free(refs);
    evs = NULL, sites = NULL, refs = NULL;
    nev = capev = nrefs = caprefs = 0;
    skipped = "finalized";
    pthread_mutex_unlock(&rp_lock);
}
