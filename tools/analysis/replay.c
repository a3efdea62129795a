/* The replay pass: the trace played again on another network, as Dimemas
 * plays it for POP. On the ideal network (no latency, infinite bandwidth)
 * it gives the run time that the application's own dependencies allow,
 * hence Serialization Efficiency (max useful / ideal run time) and Transfer
 * Efficiency (ideal run time / real run time); on a modelled network
 * (latency L, bandwidth B, computation scaled for chosen ranks or regions)
 * it predicts the run time and each rank's end (`mpiscope replay`).
 *
 * Model. Each location replays its MPI calls in order. The computation
 * between two calls keeps its traced length (times the scale factor); an
 * MPI call takes no time of its own and leaves when its dependencies are
 * met:
 *   - a send posts its message when the call is entered (buffered, as an
 *     eager send: standard sends do not wait for the receive);
 *   - a call that completes receives (Recv, Sendrecv, a Wait form) leaves
 *     once each message arrived: post + L + bytes / B;
 *   - Barrier and the N×N collectives leave when the last member entered,
 *     plus ceil(log2 members) × L; a Bcast/Scatter member when the root
 *     entered (the root at once), a Reduce/Gather root when every member
 *     entered (the others at once); other collectives as N×N.
 * Messages match as the wait states matched them (in order per channel),
 * collectives are the same instances.
 *
 * Design. A forward pass over the per-location records that phase 1 read
 * (no new per-event data): every location of a part advances until a
 * dependency is unknown (a message not yet posted, a collective member not
 * yet arrived) and waits in a list of that message or instance; a post or
 * an arrival wakes it. Posts to another part's receivers and collective
 * arrivals are batched and exchanged in rounds (one all-to-all each and a
 * sum of the records sent), until a round sends nothing; with one part the
 * first round does all. Replayed times depend only on the dependencies, not
 * on the order of evaluation, so every split gives the same result. A
 * location still waiting at the end (an inconsistent trace) is counted in
 * `unresolved` and ends where it stopped.
 * Memory: 8 bytes per message arrived at the part (its post time), 8 per
 * location's state and 32 per collective instance.
 */
#include <math.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#include "waitstate_impl.h"

#define UNPOSTED UINT64_MAX

typedef struct {
    double lat_ticks;         /* per message */
    double ticks_per_byte;    /* 0: infinite bandwidth */
    double *rank_factor;      /* [rank], NULL: 1 */
    double *node_factor;      /* [call-site node] of the region rules, NULL: none */
} model_t;

typedef struct {
    uint64_t k, rk, sk, ck;   /* next call, receive, send, collective record */
    uint64_t t;               /* replayed time: leave of the previous call */
    uint64_t cur_enter;       /* replayed enter of call k once entered */
    uint64_t mpi;             /* replayed time in MPI */
    uint32_t next_waiter;     /* list of locations waiting on one instance */
    uint32_t wait_id;         /* the instance whose list holds it, WS_NONE32 */
    size_t gi;                /* gap regions passed (while summing the gaps) */
    uint64_t useful;          /* ticks between calls (while summing the gaps) */
    bool entered, queued, done;
} lstate_t;

typedef struct {
    uint32_t j;               /* index in the block sent to the receiver's part */
    uint32_t pad;
    uint64_t t;
} post_t;

typedef struct {
    uint32_t id, root;        /* instance; 1 if the member is its root */
    uint64_t t;               /* replayed enter */
} arrive_t;

typedef struct {
    ws_ctx_t *c;
    ws_pass_t *p;
    const ws_net_t *net;
    const model_t *m;
    lstate_t *ls;
    uint64_t *post;           /* [g] replayed post time */
    /* instances: arrived members, latest replayed enter, root's enter */
    uint64_t *iarr, *imax, *iroot;
    uint32_t *iwait;          /* first location waiting on the instance */
    uint32_t *queue;
    size_t qh, qt, qcap;
    VEC(post_t) *out_post;    /* per part */
    VEC(arrive_t) out_arr;    /* to every other part */
    bool oom;
    uint64_t *tot;            /* the ideal replay sums each gap per gap code here */
} replay_t;

/* The ideal replay visits every gap once, in order: it sums the
 * computation per location and per gap code (what the critical path's
 * imbalance compares with) on the way. */
static void sum_gap(replay_t *x, const ws_loc_t *l, lstate_t *s, uint64_t k)
{
    uint64_t g = ws_gap_len(l, k);
    s->useful += g;
    while (s->gi < l->gaps.n && l->gaps.v[s->gi].call < k) s->gi++;
    uint32_t code = s->gi < l->gaps.n && l->gaps.v[s->gi].call == k ? l->gaps.v[s->gi].node
                    : k < l->calls.n ? l->calls.v[k].site | WS_GAP_BEFORE
                                     : l->calls.v[k - 1].site | WS_GAP_AFTER;
    x->tot[WS_GAP_KIND(code) * x->c->nodes.n + WS_GAP_NODE(code)] += g;
}

static void enqueue(replay_t *x, uint32_t loc)
{
    lstate_t *s = &x->ls[loc];
    if (s->queued || s->done) return;
    s->queued = true;
    x->queue[x->qt] = loc;
    x->qt = (x->qt + 1) % x->qcap;
}

/* The computation before call k (k = calls.n: after the last), scaled. */
static uint64_t scaled_gap(const replay_t *x, const ws_loc_t *l, uint64_t k)
{
    uint64_t gap = ws_gap_len(l, k);
    if (!x->m->rank_factor && !x->m->node_factor) return gap;
    double f = x->m->rank_factor ? x->m->rank_factor[l->rank] : 1.0;
    if (!x->m->node_factor) return (uint64_t)llround((double)gap * f);
    /* The user region of the gap by its own factor, the rest by the call's. */
    uint64_t in = 0;
    uint32_t code = ws_gap_code(l, k, &in);
    if (in > gap) in = gap;
    double fr = x->m->node_factor[WS_GAP_NODE(code)];
    double fc = x->m->node_factor[l->calls.v[k < l->calls.n ? k : k - 1].site];
    return (uint64_t)llround(f * ((double)in * (WS_GAP_KIND(code) ? fc : fr) + (double)(gap - in) * fc));
}

static void arrive_local(replay_t *x, uint32_t id, bool root, uint64_t t)
{
    x->iarr[id]++;
    if (t > x->imax[id]) x->imax[id] = t;
    if (root) x->iroot[id] = t;
    for (uint32_t w = x->iwait[id]; w != WS_NONE32;) {
        uint32_t nx = x->ls[w].next_waiter;
        x->ls[w].wait_id = WS_NONE32;
        enqueue(x, w);
        w = nx;
    }
    x->iwait[id] = WS_NONE32;
}

static void post_local(replay_t *x, uint64_t g, uint64_t t)
{
    x->post[g] = t;
    if (x->p->g_loc[g] != WS_NONE32) enqueue(x, x->p->g_loc[g]);
}

static uint32_t ceil_log2(uint64_t n)
{
    uint32_t k = 0;
    while (((uint64_t)1 << k) < n && k < 63) k++;
    return k;
}

/* Advances location i as far as its dependencies are known. */
static void advance(replay_t *x, uint32_t i)
{
    ws_ctx_t *c = x->c;
    ws_pass_t *p = x->p;
    ws_loc_t *l = &c->locs[i];
    lstate_t *s = &x->ls[i];
    while (s->k < l->calls.n) {
        uint64_t k = s->k;
        ws_spill_step();
        if (!s->entered) {
            s->cur_enter = s->t + scaled_gap(x, l, k);
            s->entered = true;
            if (x->tot) sum_gap(x, l, s, k);
            for (; s->sk < l->sends.n && l->sends.v[s->sk].call == k; s->sk++) {
                uint32_t j = p->send_j[i][s->sk];
                if (j == WS_NONE32) continue;
                int q = p->owner[l->sends.v[s->sk].peer];
                if (q == p->me) {
                    post_local(x, p->rdispl[q] + j, s->cur_enter);
                } else {
                    PUSH(x, x->out_post[q], ((post_t){j, 0, s->cur_enter}), return);
                }
            }
            for (uint64_t ck = s->ck; ck < l->colls.n && l->colls.v[ck].call == k; ck++) {
                uint32_t id = p->memb[i][ck];
                bool root = l->colls.v[ck].root == l->rank;
                arrive_local(x, id, root, s->cur_enter);
                if (p->np > 1) PUSH(x, x->out_arr, ((arrive_t){id, root, s->cur_enter}), return);
            }
        }
        uint64_t leave = s->cur_enter;
        /* Messages this call completes. */
        for (uint64_t rk = s->rk; rk < l->recvs.n && l->recvs.v[rk].call == k; rk++) {
            uint32_t g = p->recv_g[i][rk];
            if (g == WS_NONE32) continue;
            if (x->post[g] == UNPOSTED) {
                s->rk = rk; /* woken by the post */
                return;
            }
            uint64_t bytes = l->recvs.v[rk].bytes;
            uint64_t a = x->post[g] + (uint64_t)llround(x->m->lat_ticks +
                                                        (double)bytes * x->m->ticks_per_byte);
            if (a > leave) leave = a;
        }
        /* Collectives this call belongs to. */
        for (uint64_t ck = s->ck; ck < l->colls.n && l->colls.v[ck].call == k; ck++) {
            ws_coll_t *co = &l->colls.v[ck];
            uint32_t id = p->memb[i][ck];
            bool root = co->root == l->rank;
            uint64_t step = (uint64_t)llround(x->m->lat_ticks);
            uint64_t dep = 0;
            bool ready;
            if (ws_is_1ton(co->op) && co->root >= 0) {
                ready = root || x->iroot[id] != UNPOSTED;
                if (!root && ready) dep = x->iroot[id] + step * ceil_log2(p->members[id]);
            } else if (ws_is_nto1(co->op) && co->root >= 0) {
                ready = !root || x->iarr[id] >= p->members[id];
                if (root && ready) dep = x->imax[id] + step * ceil_log2(p->members[id]);
            } else {
                ready = x->iarr[id] >= p->members[id];
                if (ready) dep = x->imax[id] + step * ceil_log2(p->members[id]);
            }
            if (!ready) {
                if (s->wait_id != id) { /* woken by a post meanwhile: listed already */
                    s->next_waiter = x->iwait[id];
                    x->iwait[id] = i;
                    s->wait_id = id;
                }
                return;
            }
            if (dep > leave) leave = dep;
        }
        while (s->rk < l->recvs.n && l->recvs.v[s->rk].call == k) s->rk++;
        while (s->ck < l->colls.n && l->colls.v[s->ck].call == k) s->ck++;
        s->mpi += leave - s->cur_enter;
        s->t = leave;
        s->entered = false;
        s->k++;
    }
    if (x->tot && !s->done) sum_gap(x, l, s, l->calls.n);
    s->done = true;
}

/* Replays the part's locations under model m; per rank end and MPI time
 * (ticks from t0, summed over the parts by the caller). */
static void replay(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, const model_t *m,
                   uint64_t *rank_end, uint64_t *rank_mpi, uint64_t *unresolved, uint64_t *tot,
                   uint64_t *rank_useful_ns)
{
    replay_t x = {.c = c, .p = p, .net = net, .m = m, .tot = tot};
    x.ls = ws_bigx_calloc(c->nlocs, sizeof *x.ls);
    x.post = ws_bigx_malloc((p->nin ? p->nin : 1) * sizeof *x.post);
    ws_big_fill(x.post, 0xff, (p->nin ? p->nin : 1) * sizeof *x.post);
    uint64_t n = p->ninst;
    x.iarr = ws_bigx_calloc(3 * n + 1, sizeof *x.iarr);
    x.imax = x.iarr + n, x.iroot = x.iarr + 2 * n;
    for (uint64_t i = 0; i < n; i++) x.iroot[i] = UNPOSTED;
    x.iwait = ws_bigx_malloc((n + 1) * sizeof *x.iwait);
    ws_big_fill(x.iwait, 0xff, (n + 1) * sizeof *x.iwait);
    x.qcap = c->nlocs + 1;
    x.queue = ws_bigx_malloc(x.qcap * sizeof *x.queue);
    x.out_post = ws_bigx_calloc((size_t)p->np, sizeof *x.out_post);
    int np = p->np;
    uint64_t *scnt = ws_bigx_calloc((size_t)np, sizeof *scnt), *rcnt = ws_bigx_calloc((size_t)np, sizeof *rcnt);
    for (size_t i = 0; i < c->nlocs; i++) {
        if (!c->locs[i].calls.n) {
            x.ls[i].done = true;
            continue;
        }
        x.ls[i].t = ws_loc_begin(&c->locs[i]);
        x.ls[i].wait_id = WS_NONE32;
        enqueue(&x, (uint32_t)i);
    }
    for (;;) {
        while (x.qh != x.qt) {
            uint32_t i = x.queue[x.qh];
            x.qh = (x.qh + 1) % x.qcap;
            x.ls[i].queued = false;
            advance(&x, i);
            if (x.oom) {
                fprintf(stderr, "mpiscope: replay: out of memory\n");
                abort();
            }
        }
        if (ws_alone(net)) break;
        /* A round: posts to their receivers' parts, arrivals to every part. */
        uint64_t sent = 0, nout = 0;
        for (int q = 0; q < np; q++) scnt[q] = x.out_post[q].n, nout += scnt[q];
        post_t *out = ws_bigx_malloc((nout ? nout : 1) * sizeof *out), *o = out;
        for (int q = 0; q < np; q++) {
            if (x.out_post[q].n) ws_big_copy(o, x.out_post[q].v, x.out_post[q].n * sizeof *o);
            o += x.out_post[q].n;
            sent += x.out_post[q].n;
            x.out_post[q].n = 0;
        }
        post_t *in = ws_exchange(net, out, scnt, sizeof *in, rcnt);
        post_t *ip = in;
        for (int q = 0; q < np; q++)
            for (uint64_t k = 0; k < rcnt[q]; k++, ip++)
                if (ws_spill_step(), p->rdispl[q] + ip->j < p->nin) post_local(&x, p->rdispl[q] + ip->j, ip->t);
        ws_mfree(in);
        size_t na = x.out_arr.n;
        arrive_t *aout = ws_bigx_malloc((na * (size_t)np + 1) * sizeof *aout);
        for (int q = 0; q < np; q++) {
            scnt[q] = q == p->me ? 0 : na;
            if (q != p->me && na) ws_big_copy(aout + (size_t)q * na, x.out_arr.v, na * sizeof *aout);
        }
        /* The records for part q sit at q * na: pack them. */
        size_t w = 0;
        for (int q = 0; q < np; q++)
            if (q != p->me) memmove(aout + w, aout + (size_t)q * na, na * sizeof *aout), w += na;
        sent += na;
        x.out_arr.n = 0;
        arrive_t *ain = ws_exchange(net, aout, scnt, sizeof *ain, rcnt);
        uint64_t nin = 0;
        for (int q = 0; q < np; q++) nin += rcnt[q];
        for (uint64_t k = 0; k < nin; k++)
            if (ain[k].id < n) arrive_local(&x, ain[k].id, ain[k].root, ain[k].t);
        ws_mfree(ain);
        uint64_t more = sent;
        ws_reduce(net, &more, 1, WS_SUM);
        if (!more) break;
    }
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        if (!l->calls.n) continue;
        if (!x.ls[i].done) (*unresolved)++;
        if (rank_useful_ns) rank_useful_ns[l->rank] += ws_to_ns(c->tick_ns, x.ls[i].useful);
        uint64_t end = x.ls[i].done ? x.ls[i].t + scaled_gap(&x, l, l->calls.n)
                                    : x.ls[i].entered ? x.ls[i].cur_enter : x.ls[i].t;
        end -= p->t0;
        if (end > rank_end[l->rank]) rank_end[l->rank] = end;
        rank_mpi[l->rank] += x.ls[i].mpi;
    }
    for (int q = 0; q < np; q++) ws_mfree(x.out_post[q].v);
    ws_mfree(x.out_post), ws_mfree(x.out_arr.v);
    ws_mfree(scnt), ws_mfree(rcnt);
    ws_mfree(x.ls), ws_mfree(x.post), ws_mfree(x.iarr), ws_mfree(x.iwait), ws_mfree(x.queue);
}

/* The factor of each call-site node from the region rules: a node whose
 * path (itself or an enclosing region) is a rule's region. */
static double *node_factors(ws_ctx_t *c)
{
    const msc_an_opts_t *o = &c->opts;
    bool any = false;
    for (size_t k = 0; k < o->nscale; k++) any |= o->scale[k].region != NULL;
    if (!any || !c->nodes.n) return NULL;
    double *f = ws_bigx_malloc(c->nodes.n * sizeof *f);
    /* Parents come before their children. */
    for (size_t i = 0; i < c->nodes.n; i++) {
        ws_node_t *n = &c->nodes.v[i];
        f[i] = n->parent != UINT32_MAX ? f[n->parent] : 1.0;
        const char *name = msc_trace_region_name(c->t, n->region);
        for (size_t k = 0; k < o->nscale; k++)
            if (o->scale[k].region && !strcmp(o->scale[k].region, name)) f[i] *= o->scale[k].factor;
    }
    return f;
}

void ws_pass_replay(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, ws_result_t *r)
{
    size_t nr = (size_t)(c->ranks > 0 ? c->ranks : 1);
    /* The run's span and each rank's computation. */
    uint64_t span[2] = {WS_NONE64, 0};
    r->rank_useful_ns = ws_bigx_calloc(nr, sizeof *r->rank_useful_ns);
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        if (!l->calls.n) continue;
        span[0] = ws_min64(span[0], ws_loc_begin(l));
        if (ws_loc_end(l) > span[1]) span[1] = ws_loc_end(l);
    }
    ws_reduce(net, &span[0], 1, WS_MIN);
    ws_reduce(net, &span[1], 1, WS_MAX);
    p->t0 = span[0] == WS_NONE64 ? 0 : span[0];
    p->t_end = span[1] > p->t0 ? span[1] : p->t0;
    r->runtime_ns = ws_to_ns(c->tick_ns, p->t_end - p->t0);

    uint64_t *v = ws_bigx_calloc(2 * nr + 1, sizeof *v);
    uint64_t unresolved = 0;
    model_t ideal = {0};
    p->gap_tot = ws_bigx_calloc(3 * c->nodes.n + 1, sizeof *p->gap_tot);
    replay(c, p, net, &ideal, v, v + nr, &unresolved, p->gap_tot, r->rank_useful_ns);
    ws_reduce(net, r->rank_useful_ns, nr, WS_SUM);
    v[2 * nr] = unresolved;
    /* Ends are maxima, MPI times sums; a rank lives on one part, so a sum
     * does for both. */
    ws_reduce(net, v, 2 * nr + 1, WS_SUM);
    r->rank_ideal_end_ns = ws_bigx_calloc(nr, sizeof *r->rank_ideal_end_ns);
    uint64_t ideal_end = 0;
    for (size_t k = 0; k < nr; k++) {
        r->rank_ideal_end_ns[k] = ws_to_ns(c->tick_ns, v[k]);
        if (v[k] > ideal_end) ideal_end = v[k];
    }
    r->ideal_ns = ws_to_ns(c->tick_ns, ideal_end);
    r->unresolved = v[2 * nr];

    if (c->opts.whatif) {
        double tick_s = c->tick_ns * 1e-9;
        model_t wm = {.lat_ticks = c->opts.latency_s / tick_s,
                      .ticks_per_byte = c->opts.bandwidth_Bps > 0
                                            ? 1.0 / (c->opts.bandwidth_Bps * tick_s) : 0};
        bool ranks = false;
        for (size_t k = 0; k < c->opts.nscale; k++) ranks |= !c->opts.scale[k].region;
        if (ranks) {
            wm.rank_factor = ws_bigx_malloc(nr * sizeof *wm.rank_factor);
            for (size_t k = 0; k < nr; k++) wm.rank_factor[k] = 1.0;
            for (size_t s = 0; s < c->opts.nscale; s++) {
                const msc_an_scale_t *sc = &c->opts.scale[s];
                if (sc->region) continue;
                for (size_t k = 0; k < nr; k++)
                    if ((int64_t)k >= sc->rank_lo && (int64_t)k <= sc->rank_hi)
                        wm.rank_factor[k] *= sc->factor;
            }
        }
        wm.node_factor = node_factors(c);
        memset(v, 0, (2 * nr + 1) * sizeof *v);
        unresolved = 0;
        replay(c, p, net, &wm, v, v + nr, &unresolved, NULL, NULL);
        v[2 * nr] = unresolved;
        ws_reduce(net, v, 2 * nr + 1, WS_SUM);
        r->whatif = true;
        r->latency_s = c->opts.latency_s, r->bandwidth_Bps = c->opts.bandwidth_Bps;
        r->rank_whatif_end_ns = ws_bigx_calloc(nr, sizeof *r->rank_whatif_end_ns);
        r->rank_whatif_mpi_ns = ws_bigx_calloc(nr, sizeof *r->rank_whatif_mpi_ns);
        uint64_t end = 0;
        for (size_t k = 0; k < nr; k++) {
            r->rank_whatif_end_ns[k] = ws_to_ns(c->tick_ns, v[k]);
            r->rank_whatif_mpi_ns[k] = ws_to_ns(c->tick_ns, v[nr + k]);
            if (v[k] > end) end = v[k];
        }
        r->whatif_ns = ws_to_ns(c->tick_ns, end);
        r->unresolved += v[2 * nr];
        ws_mfree(wm.rank_factor), ws_mfree(wm.node_factor);
    }
    ws_mfree(v);
}
