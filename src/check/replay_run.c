/* The replays of the recorded events (replay.h), run on rank 0 at
 * MPI_Finalize: potential deadlocks with zero buffering, and message races.
 *
 * One engine runs every rank's events in an order the replayed semantics
 * allow. A rank runs until an event cannot complete, and then waits on the
 * rank (or collective instance) that can release it: it is woken when that
 * one moves, so a replay is linear in the events (a rank runs at most
 * BUDGET events per turn, which keeps the messages in flight few).
 *
 * Zero buffering (potential deadlocks): a blocking standard send completes
 * once its receive has been posted (the receiver has reached that event), a
 * receive once its send has started, a collective once every member has
 * entered it (any collective may synchronize), a completion call once all
 * (or any) of its requests would. Ranks that never reach their end are the
 * potential deadlock; following what each waits for gives its cycles.
 *
 * As the run went (message races): sends never wait; a collective waits only
 * for what its result depends on (MPI_Bcast and MPI_Scatter for the root,
 * MPI_Gather and MPI_Reduce at the root for every member, MPI_Scan for the
 * lower ranks, MPI_Exscan for those below, every other for every member), so
 * the real run is always one such order. Vector clocks ride along: a
 * receive's completion takes in its send's clock, a collective's the clocks
 * its members entered with (all of them that had entered: more order, never
 * less, so a race is only ever missed, not invented). Each send keeps what
 * its sender knew of its destination. A receive posted with MPI_ANY_SOURCE
 * that took rank s's message races with a message of another rank s' taken
 * by a later receive of the same rank on the same communicator with a tag it
 * accepts, when that message's sender did not know of the receive's
 * completion: nothing in the program ordered that send after the receive, so
 * the receive could have taken it (MPI_ANY_TAG with a named source is no
 * race: messages of one source do not overtake). Receives whose match is not
 * known, or a collective the events do not hold, leave the clocks
 * incomplete, and then no race is judged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#include "log.h"
#include "replay.h"

enum { BUDGET = 4096, RACE_SCAN = 256 };
enum { SHAPE_ALL, SHAPE_FROM_ROOT, SHAPE_TO_ROOT, SHAPE_SCAN, SHAPE_EXSCAN };

typedef struct {
    uint64_t key;
    int members, reached, nparts, done;
    int shape;             /* SHAPE_*: what a member's completion depends on, as the run went */
    rp_where_t *parts;     /* every event of this instance, any rank */
    rp_where_t root;       /* the root's event (rank -1: none) */
    int *waiters, nwaiters, capwaiters;
    uint32_t *vc;          /* as the run went: the members' clocks when they entered */
} inst_t;

typedef struct {
    int rank;              /* the blocked rank */
    uint32_t need;         /* it needs the watched rank at this event or beyond */
} waiter_t;

typedef struct {
    int nranks;
    bool actual;           /* as the run went; else zero buffering */
    const rp_ev_t **ev;    /* per rank */
    const uint32_t **refs;
    uint32_t *n, *pc;
    bool *entered;
    rp_where_t **match;    /* per rank and send event: the receive that took it (rank -1: none) */
    inst_t *inst;          /* open addressing, ninst slots */
    uint32_t ninst;
    uint32_t **inst_of;    /* per rank and collective event: its instance slot */
    waiter_t **w;          /* per watched rank */
    int *nw, *capw;
    int *queue, qhead, qn;
    bool *inq;
    /* As the run went: the clocks. */
    uint32_t *vc;          /* nranks x nranks: each rank's clock now */
    uint32_t ***svc;       /* per rank and send event: its clock, until received */
    uint32_t **sknow;      /* per rank and send event: what it knew of its destination */
    uint32_t **rdone;      /* per rank and receive event: its completion (own clock) */
    bool clocks_broken;
} replay_t;

static void enqueue(replay_t *R, int r)
{
    if (R->inq[r]) return;
    R->inq[r] = true;
    R->queue[(R->qhead + R->qn++) % R->nranks] = r;
}

/* Whether rank w.rank has entered its event w.at (posted it), or gone past. */
static bool reached(const replay_t *R, rp_where_t w)
{
    if (w.rank < 0) return true;
    return R->pc[w.rank] > w.at || (R->pc[w.rank] == w.at && R->entered[w.rank]);
}

static int shape(int fn)
{
    const char *n = fn >= 0 && fn < MSC_FN_COUNT ? msc_fn_name[fn] : "";
    if (strncmp(n, "MPI_", 4)) return SHAPE_ALL;
    n += 4;
    if (n[0] == 'I' && n[1] >= 'a' && n[1] <= 'z') n++; /* MPI_Ibcast */
    if (!strncasecmp(n, "bcast", 5) || !strncasecmp(n, "scatter", 7)) return SHAPE_FROM_ROOT;
    if (!strncasecmp(n, "gather", 6)) return SHAPE_TO_ROOT;
    if (!strncasecmp(n, "reduce", 6) && strncasecmp(n, "reduce_", 7)) return SHAPE_TO_ROOT;
    if (!strncasecmp(n, "reduce_c", 8)) return SHAPE_TO_ROOT; /* MPI_Reduce_c */
    if (!strncasecmp(n, "scan", 4)) return SHAPE_SCAN;
    if (!strncasecmp(n, "exscan", 6)) return SHAPE_EXSCAN;
    return SHAPE_ALL;
}

/* Whether collective event `at` of rank r can complete. */
static bool coll_done(const replay_t *R, int r, uint32_t at, const inst_t *in)
{
    if (in->nparts < in->members) return true; /* not every member's events: not known */
    const rp_ev_t *e = &R->ev[r][at];
    int s = R->actual ? in->shape : SHAPE_ALL;
    bool root = e->flags & RP_ROOT;
    switch (s) {
    case SHAPE_FROM_ROOT:
        return root || reached(R, in->root);
    case SHAPE_TO_ROOT:
        return !root || in->reached >= in->members;
    case SHAPE_SCAN:
    case SHAPE_EXSCAN:
        for (int i = 0; i < in->nparts; i++) {
            const rp_where_t p = in->parts[i];
            int rk = R->ev[p.rank][p.at].tag;
            if ((s == SHAPE_SCAN ? rk <= e->tag : rk < e->tag) && !reached(R, p)) return false;
        }
        return true;
    default:
        return in->reached >= in->members;
    }
}

/* Whether posting event `at` of rank r is done; if not, who it waits for. */
static bool post_done(const replay_t *R, int r, uint32_t at, rp_where_t *blocker, int *inst)
{
    const rp_ev_t *e = &R->ev[r][at];
    *inst = -1;
    switch (e->op) {
    case RP_SEND:
        if (R->actual || e->mode == CHK_RP_BUFFERED) return true;
        *blocker = R->match[r][at];
        return reached(R, *blocker);
    case RP_RECV:
        if (e->peer < 0 || e->peer >= R->nranks) return true;
        /* Zero buffering: the send has started; as the run went, it has
         * completed (its clock is known). */
        *blocker = (rp_where_t){e->peer, e->ref + R->actual, 0};
        return R->actual ? R->pc[e->peer] >= blocker->at : reached(R, *blocker);
    case RP_COLL:
        if (coll_done(R, r, at, &R->inst[R->inst_of[r][at]])) return true;
        *inst = (int)R->inst_of[r][at];
        return false;
    default:
        return true;
    }
}

static void watch(replay_t *R, int r, rp_where_t on)
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

static void subscribe(replay_t *R, int r, rp_where_t b, int slot)
{
    if (slot >= 0) watch_inst(R, r, slot);
    else watch(R, r, b);
}

/* Whether rank r's current event completes; if not, it is registered with
 * each rank or collective instance that can release it. */
static bool step_done(replay_t *R, int r)
{
    uint32_t at = R->pc[r];
    const rp_ev_t *e = &R->ev[r][at];
    rp_where_t b = {-1, 0, 0};
    int slot;
    if (e->op == RP_WAIT) {
        if (e->peer <= 0) return true;
        const uint32_t *posts = R->refs[r] + e->ref;
        bool any = e->mode, all_done = true, any_done = false;
        for (int i = 0; i < e->peer; i++) {
            /* Not a posting event before it: not known, done. */
            bool d = posts[i] >= at || post_done(R, r, posts[i], &b, &slot);
            any_done |= d, all_done &= d;
        }
        if (any ? any_done : all_done) return true;
        for (int i = 0; i < e->peer; i++)
            if (posts[i] < at && !post_done(R, r, posts[i], &b, &slot)) subscribe(R, r, b, slot);
        return false;
    }
    if ((e->op == RP_SEND || e->op == RP_RECV) && e->mode != CHK_RP_BLOCK) return true;
    if (post_done(R, r, at, &b, &slot)) return true;
    subscribe(R, r, b, slot);
    return false;
}

/* --- clocks, as the run went ------------------------------------------- */

static uint32_t *clock_of(replay_t *R, int r)
{
    return R->vc + (size_t)r * (size_t)R->nranks;
}

static void merge(replay_t *R, uint32_t *into, const uint32_t *from)
{
    for (int i = 0; i < R->nranks; i++)
        if (from[i] > into[i]) into[i] = from[i];
}

static void clock_enter(replay_t *R, int r, uint32_t at)
{
    uint32_t *c = clock_of(R, r);
    c[r] = at + 1;
    const rp_ev_t *e = &R->ev[r][at];
    if (e->op != RP_COLL) return;
    inst_t *in = &R->inst[R->inst_of[r][at]];
    if (!in->vc && !(in->vc = calloc((size_t)R->nranks, sizeof *in->vc))) {
        R->clocks_broken = true;
        return;
    }
    merge(R, in->vc, c);
}

/* A receive's completion at rank r's event `now`. */
static void clock_recv(replay_t *R, int r, uint32_t k, uint32_t now)
{
    const rp_ev_t *e = &R->ev[r][k];
    if (R->rdone[r][k]) return;
    R->rdone[r][k] = now + 1;
    if (e->peer < 0 || e->peer >= R->nranks || e->ref >= R->n[e->peer]) {
        R->clocks_broken = true; /* taken from a send not known */
        return;
    }
    uint32_t *m = R->svc[e->peer][e->ref];
    if (!m) {
        R->clocks_broken = true;
        return;
    }
    merge(R, clock_of(R, r), m);
    free(m);
    R->svc[e->peer][e->ref] = NULL;
}

static void clock_coll(replay_t *R, int r, uint32_t k)
{
    inst_t *in = &R->inst[R->inst_of[r][k]];
    if (in->vc) merge(R, clock_of(R, r), in->vc);
    if (++in->done == in->nparts) {
        free(in->vc);
        in->vc = NULL;
    }
}

static void clock_complete(replay_t *R, int r, uint32_t at)
{
    const rp_ev_t *e = &R->ev[r][at];
    uint32_t *c = clock_of(R, r);
    switch (e->op) {
    case RP_SEND: {
        rp_where_t to = R->match[r][at];
        R->sknow[r][at] = to.rank >= 0 ? c[to.rank] : 0;
        uint32_t *m = malloc(sizeof *m * (size_t)R->nranks);
        if (m) memcpy(m, c, sizeof *m * (size_t)R->nranks);
        else R->clocks_broken = true;
        R->svc[r][at] = m;
        break;
    }
    case RP_RECV:
        if (e->mode == CHK_RP_BLOCK) clock_recv(R, r, at, at);
        break;
    case RP_COLL:
        if (e->mode == CHK_RP_BLOCK) clock_coll(R, r, at);
        break;
    case RP_WAIT: {
        if (e->peer <= 0) break;
        const uint32_t *posts = R->refs[r] + e->ref;
        for (int i = 0; i < e->peer; i++) {
            rp_where_t b;
            int slot;
            uint32_t k = posts[i];
            if (k >= at || !post_done(R, r, k, &b, &slot)) continue;
            if (R->ev[r][k].op == RP_RECV) clock_recv(R, r, k, at);
            else if (R->ev[r][k].op == RP_COLL && !R->rdone[r][k]) {
                R->rdone[r][k] = at + 1;
                clock_coll(R, r, k);
            }
        }
        break;
    }
    default:
        break;
    }
}

static void run(replay_t *R, int r)
{
    int steps = 0;
    while (R->pc[r] < R->n[r]) {
        uint32_t at = R->pc[r];
        const rp_ev_t *e = &R->ev[r][at];
        if (!R->entered[r]) {
            R->entered[r] = true;
            if (R->actual) clock_enter(R, r, at);
            if (e->op == RP_COLL) {
                inst_t *in = &R->inst[R->inst_of[r][at]];
                /* Zero buffering waits for all; as the run went, a member
                 * may wait for this one (the root, a lower rank). */
                if (++in->reached == in->members || R->actual)
                    for (int i = 0; i < in->nwaiters; i++) enqueue(R, in->waiters[i]);
                if (R->actual) in->nwaiters = 0;
            }
        }
        if (!step_done(R, r)) break;
        if (R->actual) clock_complete(R, r, at);
        R->pc[r]++;
        R->entered[r] = false;
        if (++steps == BUDGET && R->pc[r] < R->n[r]) {
            enqueue(R, r);
            break;
        }
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

static void replay(replay_t *R, bool actual)
{
    R->actual = actual;
    for (int r = 0; r < R->nranks; r++) {
        R->pc[r] = 0, R->entered[r] = false, R->nw[r] = 0, R->inq[r] = false;
    }
    for (uint32_t s = 0; s < R->ninst; s++) R->inst[s].reached = 0, R->inst[s].nwaiters = 0;
    R->qhead = R->qn = 0;
    for (int r = 0; r < R->nranks; r++) enqueue(R, r);
    while (R->qn) {
        int r = R->queue[R->qhead];
        R->qhead = (R->qhead + 1) % R->nranks, R->qn--;
        R->inq[r] = false;
        run(R, r);
    }
}

/* --- potential deadlocks ------------------------------------------------ */

/* The stuck ranks rank r waits for (its current event), into `t`. */
static int blockers(const replay_t *R, int r, int *t, int max)
{
    int n = 0;
    uint32_t at = R->pc[r];
    const rp_ev_t *e = &R->ev[r][at];
    uint32_t one = at;
    const uint32_t *posts = &one;
    int np = 1;
    if (e->op == RP_WAIT) {
        if (e->peer <= 0) return 0;
        posts = R->refs[r] + e->ref, np = e->peer;
    }
    for (int i = 0; i < np && n < max; i++) {
        rp_where_t b;
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

static const char *call_name(const rp_ev_t *e)
{
    return e->fn >= 0 && e->fn < MSC_FN_COUNT ? msc_fn_name[e->fn] : "an MPI call";
}

/* What rank r waits for, in words, toward rank q. */
static void describe(const replay_t *R, int r, int q, char *out, size_t len)
{
    const rp_ev_t *e = &R->ev[r][R->pc[r]];
    const char *what = "for rank %d";
    if (e->op == RP_SEND) what = "for rank %d to post the receive of its message";
    else if (e->op == RP_RECV) what = "for rank %d to start the send of the message it receives";
    else if (e->op == RP_COLL) what = "for rank %d to enter the same collective";
    else if (e->op == RP_WAIT) what = "for rank %d (the operations it completes need it)";
    char tail[96];
    snprintf(tail, sizeof tail, what, q);
    snprintf(out, len, "rank %d in %s waits %s", r, call_name(e), tail);
}

static void find_cycles(replay_t *R, rp_verdict_t *v)
{
    int n = R->nranks;
    int *mark = calloc((size_t)n, sizeof *mark); /* 0 new, else the walk that saw it */
    int *order = calloc((size_t)n, sizeof *order);
    int *t = malloc(sizeof *t * (size_t)n);
    if (!mark || !order || !t) goto out;
    int walk = 0;
    for (int s = 0; s < n && v->ncycles < RP_CYCLES_MAX; s++) {
        if (R->pc[s] >= R->n[s] || mark[s]) continue;
        walk++;
        int r = s, len = 0;
        while (r >= 0 && !mark[r]) {
            mark[r] = walk;
            order[len++] = r;
            int nt = blockers(R, r, t, n), next = -1;
            for (int i = 0; i < nt && next < 0; i++)
                if (!mark[t[i]] || mark[t[i]] == walk) next = t[i];
            r = next;
        }
        if (r < 0 || mark[r] != walk) continue;
        int from = 0;
        while (order[from] != r) from++;
        int k = len - from, c = v->ncycles++;
        v->len[c] = k < RP_CYCLE_RANKS ? k : RP_CYCLE_RANKS;
        char *p = v->text[c];
        size_t room = CHK_TEXT;
        int w = snprintf(p, room,
                         "With zero buffering (MPI may complete a standard-mode send only once its "
                         "receive is posted, MPI-3.1 section 3.5) and synchronizing collectives, "
                         "this program deadlocks: ");
        for (int i = 0; i < k && w > 0 && (size_t)w < room; i++) {
            int a = order[from + i], b = order[from + (i + 1) % k];
            if (i < RP_CYCLE_RANKS) v->at[c][i] = (rp_where_t){a, R->pc[a], R->ev[a][R->pc[a]].fn};
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

/* --- message races ------------------------------------------------------ */

static void find_races(replay_t *R, rp_verdict_t *v)
{
    for (int r = 0; r < R->nranks; r++) {
        const rp_ev_t *ev = R->ev[r];
        for (uint32_t i = 0; i < R->n[r]; i++) {
            const rp_ev_t *e = &ev[i];
            if (e->op != RP_RECV || !(e->flags & RP_ANY_SOURCE) || e->peer < 0 || !R->rdone[r][i])
                continue;
            uint32_t done = R->rdone[r][i];
            int scanned = 0;
            for (uint32_t j = i + 1; j < R->n[r] && scanned < RACE_SCAN; j++) {
                const rp_ev_t *o = &ev[j];
                if (o->op != RP_RECV || o->key != e->key) continue;
                scanned++;
                if (o->peer < 0 || o->peer == e->peer || o->ref >= R->n[o->peer]) continue;
                if (!(e->flags & RP_ANY_TAG) && o->tag != e->ptag) continue;
                if (R->sknow[o->peer][o->ref] >= done) continue; /* sent after it knew */
                /* One finding per receive call; its other races are counted. */
                int c = 0;
                while (c < v->nraces && !(v->race[c][0].rank == r &&
                                          R->ev[r][v->race[c][0].at].site == e->site))
                    c++;
                if (c < v->nraces) {
                    v->race_count[c]++;
                    break;
                }
                if (v->nraces == RP_RACES_MAX) break;
                v->nraces++;
                v->race_count[c] = 1;
                v->race[c][0] = (rp_where_t){r, i, e->fn};
                v->race[c][1] = (rp_where_t){e->peer, e->ref, R->ev[e->peer][e->ref].fn};
                v->race[c][2] = (rp_where_t){o->peer, o->ref, R->ev[o->peer][o->ref].fn};
                /* A probe from MPI_ANY_SOURCE stands for the receive that
                 * took the message it found (check.c, probe_found). */
                bool probe = e->fn == MSC_FN_MPI_Probe || e->fn == MSC_FN_MPI_Iprobe;
                snprintf(v->race_text[c], CHK_TEXT,
                         "A %s from MPI_ANY_SOURCE on rank %d (%s) %s the message rank %d "
                         "sent (%s, tag %d)%s; the message rank %d sent (%s, tag %d), taken later on "
                         "the same communicator, could have been %s instead: nothing in the "
                         "program orders that send after this %s, so which of the two "
                         "arrives first decides, and it can differ from run to run (a message "
                         "race). If the order matters, name the source or use distinct tags; if "
                         "the program handles the messages in any order, this is a warning only.",
                         probe ? "probe" : "receive", r, call_name(e), probe ? "found" : "took",
                         e->peer, call_name(&R->ev[e->peer][e->ref]), e->tag,
                         probe ? ", which the receive from its source then took" : "", o->peer,
                         call_name(&R->ev[o->peer][o->ref]), o->tag, probe ? "found" : "taken",
                         probe ? "probe" : "receive");
                break;
            }
        }
    }
}

/* --- setting up --------------------------------------------------------- */

static uint32_t inst_slot(replay_t *R, uint64_t key)
{
    uint32_t i = (uint32_t)(key % R->ninst);
    while (R->inst[i].nparts && R->inst[i].key != key) i = (i + 1) % R->ninst;
    return i;
}

static bool setup(replay_t *R, const rp_header_t *h, const char *blob, int nranks)
{
    size_t P = (size_t)nranks;
    R->nranks = nranks;
    R->ev = calloc(P, sizeof *R->ev);
    R->refs = calloc(P, sizeof *R->refs);
    R->n = calloc(P, sizeof *R->n);
    R->pc = calloc(P, sizeof *R->pc);
    R->entered = calloc(P, sizeof *R->entered);
    R->match = calloc(P, sizeof *R->match);
    R->inst_of = calloc(P, sizeof *R->inst_of);
    R->w = calloc(P, sizeof *R->w);
    R->nw = calloc(P, sizeof *R->nw);
    R->capw = calloc(P, sizeof *R->capw);
    R->queue = calloc(P, sizeof *R->queue);
    R->inq = calloc(P, sizeof *R->inq);
    R->svc = calloc(P, sizeof *R->svc);
    R->sknow = calloc(P, sizeof *R->sknow);
    R->rdone = calloc(P, sizeof *R->rdone);
    R->vc = calloc(P * P, sizeof *R->vc);
    if (!R->ev || !R->refs || !R->n || !R->pc || !R->entered || !R->match || !R->inst_of ||
        !R->w || !R->nw || !R->capw || !R->queue || !R->inq || !R->svc || !R->sknow ||
        !R->rdone || !R->vc)
        return false;
    uint64_t ncoll = 0;
    size_t off = 0;
    for (int r = 0; r < nranks; r++) {
        size_t n = h[r].nev;
        R->n[r] = h[r].nev;
        R->ev[r] = (const rp_ev_t *)(blob + off);
        off += sizeof(rp_ev_t) * n;
        R->refs[r] = (const uint32_t *)(blob + off);
        off += sizeof(uint32_t) * h[r].nrefs;
        R->match[r] = malloc(sizeof **R->match * (n + 1));
        R->inst_of[r] = malloc(sizeof **R->inst_of * (n + 1));
        R->svc[r] = calloc(n + 1, sizeof **R->svc);
        R->sknow[r] = calloc(n + 1, sizeof **R->sknow);
        R->rdone[r] = calloc(n + 1, sizeof **R->rdone);
        if (!R->match[r] || !R->inst_of[r] || !R->svc[r] || !R->sknow[r] || !R->rdone[r])
            return false;
        for (size_t i = 0; i < n; i++) {
            R->match[r][i] = (rp_where_t){-1, 0, 0};
            ncoll += R->ev[r][i].op == RP_COLL;
        }
    }
    /* Which receive took each send; the collective instances. */
    for (int r = 0; r < nranks; r++)
        for (uint32_t i = 0; i < R->n[r]; i++) {
            const rp_ev_t *e = &R->ev[r][i];
            if (e->op != RP_RECV || e->peer < 0 || e->peer >= nranks) continue;
            if (e->ref < R->n[e->peer] && R->ev[e->peer][e->ref].op == RP_SEND)
                R->match[e->peer][e->ref] = (rp_where_t){r, i, 0};
        }
    R->ninst = (uint32_t)(2 * ncoll + 1);
    if (!(R->inst = calloc(R->ninst, sizeof *R->inst))) return false;
    for (int pass = 0; pass < 2; pass++) {
        for (int r = 0; r < nranks; r++)
            for (uint32_t i = 0; i < R->n[r]; i++) {
                const rp_ev_t *e = &R->ev[r][i];
                if (e->op != RP_COLL) continue;
                if (pass == 0) {
                    uint32_t s = inst_slot(R, e->key);
                    inst_t *in = &R->inst[s];
                    if (!in->nparts) {
                        in->key = e->key, in->members = e->peer, in->root.rank = -1;
                        in->shape = shape(e->fn);
                    }
                    in->nparts++;
                    R->inst_of[r][i] = s;
                } else {
                    inst_t *in = &R->inst[R->inst_of[r][i]];
                    in->parts[in->nparts++] = (rp_where_t){r, i, 0};
                    if (e->flags & RP_ROOT) in->root = (rp_where_t){r, i, 0};
                }
            }
        for (uint32_t s = 0; pass == 0 && s < R->ninst; s++)
            if (R->inst[s].nparts) {
                R->inst[s].parts = malloc(sizeof(rp_where_t) * (size_t)R->inst[s].nparts);
                if (!R->inst[s].parts) return false;
                R->inst[s].nparts = 0;
            }
    }
    return true;
}

static void teardown(replay_t *R)
{
    for (int r = 0; r < R->nranks; r++) {
        if (R->match) free(R->match[r]);
        if (R->inst_of) free(R->inst_of[r]);
        if (R->w) free(R->w[r]);
        for (uint32_t i = 0; R->svc && R->svc[r] && i < R->n[r]; i++) free(R->svc[r][i]);
        if (R->svc) free(R->svc[r]);
        if (R->sknow) free(R->sknow[r]);
        if (R->rdone) free(R->rdone[r]);
    }
    for (uint32_t s = 0; R->inst && s < R->ninst; s++)
        free(R->inst[s].parts), free(R->inst[s].waiters), free(R->inst[s].vc);
    free(R->inst), free(R->ev), free(R->refs), free(R->n), free(R->pc), free(R->entered);
    free(R->match), free(R->inst_of), free(R->w), free(R->nw), free(R->capw), free(R->queue);
    free(R->inq), free(R->svc), free(R->sknow), free(R->rdone), free(R->vc);
}

void chk_rp_analyze(const rp_header_t *h, const char *blob, int nranks, rp_verdict_t *v)
{
    replay_t R;
    memset(&R, 0, sizeof R);
    if (!setup(&R, h, blob, nranks)) {
        msc_warn_once("check-replay", "check: out of memory for the replay of the run; potential "
                                      "deadlocks and message races were not looked for");
        teardown(&R);
        return;
    }
    replay(&R, false);
    find_cycles(&R, v);
    bool unordered = false;
    for (int r = 0; r < nranks; r++) unordered |= h[r].unordered != 0;
    if (!unordered) {
        replay(&R, true);
        bool finished = true;
        for (int r = 0; r < nranks; r++) finished &= R.pc[r] >= R.n[r];
        if (finished && !R.clocks_broken) find_races(&R, v);
    }
    teardown(&R);
}
