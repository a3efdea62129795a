/* The backward passes: delay (root causes of the wait states) and the
 * critical path, after Scalasca's analyses of the same names, on the
 * matches and waiting times of the wait-state pass.
 *
 * What a call waited for. A call with Late Sender time waited for the
 * send of the message sent last among those it completed; a member of a
 * Barrier or N×N collective with Wait at Barrier/N×N time, and the root of
 * a Reduce/Gather with Early Reduce time, for the member that entered last;
 * a Bcast/Scatter member with Late Broadcast time for the root; a send
 * with Late Receiver time for the receive that began last among its
 * messages' (critpath_lr.c finds it on the receiver's part; the critical
 * path does not follow it).
 *
 * Delay. The waiting is caused by the computation of the location waited
 * for, between its previous communication (a call with a message or
 * collective) and the call the waiter waited for: the synchronization
 * interval. Each waiting time is divided over the computation intervals
 * (the time between two MPI calls) of that synchronization interval in
 * proportion to their lengths, in integer ticks so that any order of the
 * claims gives the same sums. An interval is named by its site: the
 * longest user (VT_) region entered and left in it, else the MPI call that
 * ends it ("computation before MPI_Send @ f.c:12 in main > solve"). A
 * waiter's time beyond what the interval computed (the location waited for
 * was itself waiting) is propagated waiting, counted apart, so that traced
 * and propagated add up to the waiting time exactly. Claims travel to the part
 * of the location waited for in one all-to-all (16 bytes each).
 *
 * Critical path. From the end of the location that left its last MPI call
 * last, backwards: a call that waited continues, from the moment its
 * dependency came, on the location waited for at that call's start; any
 * other call and the computation before it belong to the path. The path's
 * length is the run time of that location, exactly, and it is split into
 * computation and MPI per rank and per site. Critical-path imbalance
 * (Böhme et al.): over the computation sites, what the path spends there
 * beyond the mean per rank. Time decreases strictly at every jump, so the
 * walk ends. With several parts the walk is handed on where it reaches
 * another part's location (one reduction of 3 words per handover).
 *
 * Site names are resolved on each part (the definitions are everywhere)
 * and gathered as text to part 0, which merges them by name.
 */
#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "critpath_lr.h"

/* The passes' blocks may live in the spill file (spill.c). */
#define free ws_mfree
#define realloc ws_mrealloc
#define ws_xmalloc ws_bigx_malloc
#define ws_xcalloc ws_bigx_calloc

#define BEFORE WS_GAP_BEFORE
#define AFTER WS_GAP_AFTER
#define NODE WS_GAP_NODE
#define KIND WS_GAP_KIND

/* The site of the computation before call k of l (k = calls.n: after the
 * last one). */
uint32_t ws_gap_code(const ws_loc_t *l, uint64_t k, uint64_t *region_len)
{
    if (region_len) *region_len = 0;
    size_t lo = 0, hi = l->gaps.n;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (l->gaps.v[m].call < k) lo = m + 1;
        else hi = m;
    }
    if (lo < l->gaps.n && l->gaps.v[lo].call == k) {
        if (region_len) *region_len = ws_region_len(l, &l->gaps.v[lo]);
        return l->gaps.v[lo].node;
    }
    return k < l->calls.n ? l->calls.v[k].site | BEFORE : l->calls.v[k - 1].site | AFTER;
}

static char *gap_name(ws_ctx_t *c, uint32_t code)
{
    char *s = ws_site_string(c, NODE(code), NULL);
    size_t n = strlen(s) + 32;
    char *o = malloc(n);
    if (o) snprintf(o, n, "computation %s %s", (const char *[]){"in", "after", "before"}[KIND(code)], s);
    free(s);
    return o;
}

#define gap_len ws_gap_len

/* Index of the first record of `call` in an array sorted by call. */
#define FIRST_OF_FN(name, T)                                                           \
    static size_t name(const T *v, size_t n, uint64_t call)                            \
    {                                                                                  \
        size_t lo = 0, hi = n;                                                         \
        while (lo < hi) {                                                              \
            size_t m = (lo + hi) / 2;                                                  \
            if (v[m].call < call) lo = m + 1;                                          \
            else hi = m;                                                               \
        }                                                                              \
        return lo;                                                                     \
    }
FIRST_OF_FN(first_msg, ws_msg_t)
FIRST_OF_FN(first_coll, ws_coll_t)

typedef struct {
    uint32_t loc, call; /* waited for: that call, from its enter */
    uint64_t t;         /* when it was entered */
    uint64_t w;         /* waiting time (ticks) */
    int pattern;
} dep_t;

/* What call k of location i waited for; false if it did not wait. rk0
 * and ck0: its first receive and collective record if known, else
 * SIZE_MAX (searched). */
static bool waited_for(ws_ctx_t *c, ws_pass_t *p, size_t i, uint64_t k, dep_t *d, size_t rk0,
                       size_t ck0)
{
    ws_loc_t *l = &c->locs[i];
    ws_call_t *cl = &l->calls.v[k];
    ws_wait_t *w = &p->wt[i][k];
    if (w->ls) {
        bool found = false;
        for (size_t rk = rk0 != SIZE_MAX ? rk0 : first_msg(l->recvs.v, l->recvs.n, k); rk < l->recvs.n && l->recvs.v[rk].call == k; rk++) {
            uint32_t g = p->recv_g[i][rk];
            if (g == WS_NONE32) continue;
            ws_sent_t *s = &p->in[g];
            if (!found || s->enter > d->t)
                *d = (dep_t){s->loc, s->call, s->enter, ws_ls(p, i, (uint32_t)k), WS_LATE_SENDER};
            found = true;
        }
        if (found) return true;
    }
    uint64_t n = p->ninst;
    for (size_t ck = ck0 != SIZE_MAX ? ck0 : first_coll(l->colls.v, l->colls.n, k); ck < l->colls.n && l->colls.v[ck].call == k; ck++) {
        ws_coll_t *co = &l->colls.v[ck];
        uint32_t id = p->memb[i][ck];
        uint64_t last_enter = p->agg[id], root_enter = p->agg[n + 3 * (uint64_t)id + 1];
        bool barrier = co->op == OTF2_COLLECTIVE_OP_BARRIER;
        uint64_t who = WS_NONE64, t = 0;
        int pat = -1;
        if (barrier || ws_is_nxn(co->op)) {
            if (last_enter > cl->enter) who = p->last[id], t = last_enter;
            pat = barrier ? WS_WAIT_BARRIER : WS_WAIT_NXN;
        } else if (ws_is_1ton(co->op)) {
            if (l->rank != co->root && root_enter != WS_NONE64 && root_enter > cl->enter)
                who = p->root[id], t = root_enter;
            pat = WS_LATE_BCAST;
        } else if (ws_is_nto1(co->op)) {
            if (l->rank == co->root && last_enter > cl->enter) who = p->last[id], t = last_enter;
            pat = WS_EARLY_REDUCE;
        }
        if (who == WS_NONE64 || pat < 0) continue;
        *d = (dep_t){(uint32_t)(who >> 32), (uint32_t)who, t,
                     ws_min64(t, ws_leave(l, cl)) - cl->enter, pat};
        return true;
    }
    return false;
}

static bool owns(const ws_ctx_t *c, const ws_pass_t *p, uint32_t loc)
{
    return loc < c->nlocs && p->owner[c->locs[loc].rank] == p->me;
}

/* ---- text gathered to part 0 ------------------------------------------------- */

typedef struct {
    char *s;
    size_t n, cap;
} buf_t;

static void bprintf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(buf_t *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int w = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (w < 0) return;
        if (b->s && b->n + (size_t)w < b->cap) {
            b->n += (size_t)w;
            return;
        }
        size_t cap = (b->cap ? 2 * b->cap : 4096) + (size_t)w;
        char *s = realloc(b->s, cap);
        if (!s) abort();
        b->s = s, b->cap = cap;
    }
}

/* ---- delay ----------------------------------------------------------------------- */

/* 16 bytes: the waiting (below 2^60 ticks, clamped) shares a word with the
 * pattern. */
typedef struct {
    uint32_t loc, call;
    uint64_t w : 60;
    uint64_t pattern : 4;
} claim_t;
#define CLAIM_W_MAX (((uint64_t)1 << 60) - 1)

static int cmp_claim(const void *a, const void *b)
{
    const claim_t *x = a, *y = b;
    if (x->loc != y->loc) return x->loc < y->loc ? -1 : 1;
    if (x->call != y->call) return x->call < y->call ? -1 : 1;
    return (int)x->pattern - (int)y->pattern;
}

/* The same for a sort of claims in the spill file: the sort touches every
 * page of its range, so it counts its comparisons like a pass its records. */
static int cmp_claim_step(const void *a, const void *b)
{
    ws_spill_step();
    return cmp_claim(a, b);
}

/* A cause: (pattern, location's rank, gap code), with its sum and its
 * largest share. */
typedef struct {
    uint32_t pattern, code;
    int32_t rank;
    bool used;
    uint64_t ticks, big, big_start, big_end;
    uint64_t lt, lt_big, lt_start, lt_end; /* long-term: through other ranks' waiting */
} cause_t;

typedef struct {
    cause_t *t;
    size_t cap, n;
} causes_t;

static cause_t *cause_get(causes_t *h, uint32_t pattern, int32_t rank, uint32_t code)
{
    if (h->n * 2 >= h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 256;
        cause_t *t = ws_xcalloc(cap, sizeof *t);
        for (size_t i = 0; i < h->cap; i++) {
            if (!h->t[i].used) continue;
            cause_t *o = &h->t[i];
            size_t k = ws_mix((uint64_t)o->code << 32 ^ (uint64_t)(uint32_t)o->rank << 8 ^ o->pattern) & (cap - 1);
            while (t[k].used) k = (k + 1) & (cap - 1);
            t[k] = *o;
        }
        free(h->t);
        h->t = t, h->cap = cap;
    }
    size_t k = ws_mix((uint64_t)code << 32 ^ (uint64_t)(uint32_t)rank << 8 ^ pattern) & (h->cap - 1);
    while (h->t[k].used) {
        cause_t *x = &h->t[k];
        if (x->pattern == pattern && x->rank == rank && x->code == code) return x;
        k = (k + 1) & (h->cap - 1);
    }
    h->n++;
    h->t[k] = (cause_t){.pattern = pattern, .code = code, .rank = rank, .used = true};
    return &h->t[k];
}

/* One bit per call: whether it communicates (has a message end or a
 * collective), for the synchronization intervals. */
static uint64_t *comm_bits(const ws_loc_t *l)
{
    uint64_t *b = ws_xcalloc(l->calls.n / 64 + 1, sizeof *b);
#define MARK(vec)                                                                      \
    for (size_t k_ = 0; k_ < (vec).n; k_++, ws_spill_step())                           \
        b[(vec).v[k_].call / 64] |= 1ull << ((vec).v[k_].call % 64);
    MARK(l->sends) MARK(l->recvs) MARK(l->colls)
#undef MARK
    return b;
}

/* The claims of c's waiting calls: each to `emit` with the part of the
 * location it names. */
typedef void (*claim_fn)(void *u, int q, const claim_t *cl);
static void each_claim(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, claim_fn emit, void *u)
{
    /* Late Receiver: the receive each waiting send waited for (critpath_lr.c). */
    size_t nlr = 0;
    ws_lr_wait_t *lr = ws_lr_waits(c, p, net, &nlr);
    for (size_t k = 0; k < nlr; k++) {
        claim_t cl = {.loc = lr[k].loc, .call = lr[k].call,
                      .w = lr[k].w < CLAIM_W_MAX ? lr[k].w : CLAIM_W_MAX, .pattern = WS_LATE_RECEIVER};
        emit(u, p->owner[c->locs[lr[k].loc].rank], &cl);
    }
    free(lr);
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        /* Calls with a receive or a collective, each once. */
        size_t rk = 0, ck = 0;
        while (rk < l->recvs.n || ck < l->colls.n) {
            uint32_t k = rk < l->recvs.n ? l->recvs.v[rk].call : UINT32_MAX;
            if (ck < l->colls.n && l->colls.v[ck].call < k) k = l->colls.v[ck].call;
            size_t rk0 = rk, ck0 = ck;
            ws_spill_step();
            while (rk < l->recvs.n && l->recvs.v[rk].call == k) rk++;
            while (ck < l->colls.n && l->colls.v[ck].call == k) ck++;
            dep_t d;
            if (!waited_for(c, p, i, k, &d, rk0, ck0) || !d.w || d.loc >= c->nlocs) continue;
            claim_t cl = {.loc = d.loc, .call = d.call, .w = d.w < CLAIM_W_MAX ? d.w : CLAIM_W_MAX,
                          .pattern = (uint32_t)d.pattern};
            emit(u, p->owner[c->locs[d.loc].rank], &cl);
        }
    }
}

typedef struct {
    ws_ctx_t *c;
    VEC(claim_t) *out;     /* per part, or with one part per location */
} claims_t;

static void claim_push(void *u, int q, const claim_t *cl)
{
    claims_t *x = u;
    PUSH(x->c, x->out[q], *cl, abort());
}
static void claim_push_loc(void *u, int q, const claim_t *cl)
{
    (void)q;
    claims_t *x = u;
    PUSH(x->c, x->out[cl->loc], *cl, abort());
}

/* Groups claims by location: grp[i], gn[i] the claims of location i (the
 * last group also holds those naming no known location). With one part
 * each location's claims are in their own array of cx->out (no copy);
 * otherwise they travel to the parts of their locations (one all-to-all)
 * and are grouped there by a counting sort into *whole. */
static void group_claims(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, claims_t *cx,
                         claim_t **grp, uint64_t *gn, claim_t **whole)
{
    int np = p->np;
    memset(grp, 0, (c->nlocs + 1) * sizeof *grp);
    memset(gn, 0, (c->nlocs + 1) * sizeof *gn);
    *whole = NULL;
    if (np == 1) {
        for (size_t i = 0; i < c->nlocs; i++) grp[i] = cx->out[i].v, gn[i] = cx->out[i].n;
        return;
    }
    uint64_t *scnt = ws_xcalloc((size_t)np, sizeof *scnt), *rcnt = ws_xcalloc((size_t)np, sizeof *rcnt);
    uint64_t nout = 0;
    for (int q = 0; q < np; q++) scnt[q] = cx->out[q].n, nout += cx->out[q].n;
    claim_t *o = ws_xmalloc((nout ? nout : 1) * sizeof *o), *op = o;
    for (int q = 0; q < np; q++) {
        if (cx->out[q].n) ws_big_copy(op, cx->out[q].v, cx->out[q].n * sizeof *op);
        op += cx->out[q].n;
        free(cx->out[q].v);
    }
    free(cx->out);
    cx->out = NULL;
    claim_t *in = ws_exchange(net, o, scnt, sizeof *in, rcnt);
    uint64_t nin = 0;
    for (int q = 0; q < np; q++) nin += rcnt[q];
    free(scnt), free(rcnt);
    if (nin > 1 && c->nlocs) {
        uint64_t *at = ws_xcalloc(c->nlocs + 1, sizeof *at);
        for (uint64_t k = 0; k < nin; k++)
            at[in[k].loc < c->nlocs ? in[k].loc + 1 : c->nlocs]++, ws_spill_step();
        for (size_t i = 1; i <= c->nlocs; i++) at[i] += at[i - 1];
        for (size_t i = 0; i < c->nlocs; i++) gn[i] = at[i + 1] - at[i];
        claim_t *srt = ws_xmalloc(nin * sizeof *srt);
        for (uint64_t k = 0; k < nin; k++) {
            size_t i = in[k].loc < c->nlocs ? in[k].loc : c->nlocs - 1;
            srt[at[i]++] = in[k];
            ws_spill_step();
        }
        free(in);
        in = srt;
        free(at);
        for (size_t i = 0, k = 0; i < c->nlocs; k += gn[i], i++) grp[i] = in + k;
    } else {
        grp[0] = in, gn[0] = nin;
    }
    *whole = in;
}

/* Long-term delay follows the chains one hop per round, at most this many
 * rounds, and stops after the round in which the hops of all rounds
 * exceeded 16 per first-round claim plus 2^20 (counts summed over the
 * parts, so every partition stops at the same round): chains through
 * calls that computed nothing (a ping-pong without work) would otherwise
 * cost the square of their length. What is left stays only propagated. */
enum { LONGTERM_ROUNDS = 1 << 16, LONGTERM_HOPS_PER_CLAIM = 16, LONGTERM_HOPS_MIN = 1 << 20 };

static void delay_pass(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, ws_result_t *r, buf_t *txt)
{
    int np = p->np;
    claims_t cx = {.c = c};
    /* Grouped by location, then by call: each waiter's claims come in its
     * order, so a location's run is often sorted. */
    claim_t **grp = ws_xcalloc(c->nlocs + 1, sizeof *grp);
    uint64_t *gn = ws_xcalloc(c->nlocs + 1, sizeof *gn);
    claim_t *whole = NULL;
    size_t nout = np == 1 ? c->nlocs + 1 : (size_t)np;
    claim_fn push = np == 1 ? claim_push_loc : claim_push;
    cx.out = ws_xcalloc(nout, sizeof *cx.out);
    each_claim(c, p, net, push, &cx);

    causes_t h = {0};
    uint64_t dl[WS_NPATTERNS] = {0}, pr[WS_NPATTERNS] = {0}, lt[WS_NPATTERNS] = {0};
    uint64_t *bits = NULL;
    uint32_t bits_loc = WS_NONE32, gi_loc = WS_NONE32;
    size_t gi = 0, last_cap = 0;
    cause_t *last = NULL;
    uint64_t hops = 0, hop_budget = 0, first_claims = 0;
    for (int round = 0;; round++) {
    if (!round)
        for (size_t q = 0; q < nout; q++) first_claims += cx.out[q].n;
    group_claims(c, p, net, &cx, grp, gn, &whole);
    /* The next round's claims: the propagated part of each group, to what
     * the delayer itself waited for at the start of its interval. */
    claims_t nx = {.c = c};
    nx.out = ws_xcalloc(nout, sizeof *nx.out);
    uint64_t more = 0;
    for (size_t G = 0; G <= c->nlocs; G++) {
    claim_t *in = grp[G];
    uint64_t nin = gn[G];
    for (uint64_t a = 0, b; a < nin; a = b) {
        bool sorted = true;
        for (b = a + 1; b < nin && in[b].loc == in[a].loc; b++, ws_spill_step())
            if (cmp_claim(&in[b - 1], &in[b]) > 0) sorted = false;
        if (!sorted) qsort(in + a, b - a, sizeof *in, cmp_claim_step);
    }
    for (uint64_t a = 0; a < nin;) {
        ws_spill_step();
        claim_t cl = in[a];
        uint64_t b = a;
        while (b < nin && in[b].loc == cl.loc && in[b].call == cl.call && in[b].pattern == cl.pattern)
            b++;
        uint64_t from = a;
        a = b;
        if (!owns(c, p, cl.loc) || cl.pattern >= WS_NPATTERNS) continue;
        ws_loc_t *l = &c->locs[cl.loc];
        if (cl.call >= l->calls.n) continue;
        if (bits_loc != cl.loc) {
            free(bits);
            bits = comm_bits(l);
            bits_loc = cl.loc;
        }
        /* The synchronization interval: gaps before calls (prev, call]. */
        uint64_t first = cl.call;
        while (first > 0 && !(bits[(first - 1) / 64] >> ((first - 1) % 64) & 1)) first--;
        uint64_t total = 0;
        for (uint64_t k = first; k <= cl.call; k++) total += gap_len(l, k);
        /* What the interval computed delayed each waiter directly; waiting
         * beyond it came through the delayer's own waiting (propagated). */
        uint64_t direct = 0, w = 0;
        for (uint64_t q = from; q < b; q++) {
            w += in[q].w;
            direct += in[q].w < total ? in[q].w : total;
        }
        if (!round) pr[cl.pattern] += w - direct;
        /* Long-term: the propagated part goes on to what the delayer waited
         * for in the communication that opened its interval. */
        dep_t d;
        if (w > direct && first > 0 && round + 1 < LONGTERM_ROUNDS &&
            waited_for(c, p, cl.loc, first - 1, &d, SIZE_MAX, SIZE_MAX) && d.w && d.loc < c->nlocs) {
            uint64_t rest = w - direct < d.w ? w - direct : d.w;
            claim_t n = {.loc = d.loc, .call = d.call, .w = rest < CLAIM_W_MAX ? rest : CLAIM_W_MAX,
                         .pattern = cl.pattern};
            push(&nx, p->owner[c->locs[d.loc].rank], &n);
            more++;
        }
        if (!direct) continue;
        /* Shares rounded down; the last interval takes what rounding left. */
        uint64_t klast = cl.call, given = 0;
        while (klast > first && !gap_len(l, klast)) klast--;
        if (gi_loc != cl.loc) gi = 0, gi_loc = cl.loc;
        while (gi > 0 && l->gaps.v[gi - 1].call >= first) gi--; /* calls repeat per pattern */
        for (uint64_t k = first; k <= cl.call; k++) {
            uint64_t g = gap_len(l, k);
            if (!g) continue;
            uint64_t share = k == klast ? direct - given
                                        : (uint64_t)((unsigned __int128)direct * g / total);
            given += share;
            (round ? lt : dl)[cl.pattern] += share;
            while (gi < l->gaps.n && l->gaps.v[gi].call < k) gi++;
            uint32_t code = gi < l->gaps.n && l->gaps.v[gi].call == k ? l->gaps.v[gi].node
                            : l->calls.v[k].site | BEFORE;
            /* Consecutive shares mostly go to the same cause. */
            cause_t *x = last && last->pattern == cl.pattern && last->rank == l->rank &&
                                 last->code == code && last_cap == h.cap
                             ? last
                             : cause_get(&h, cl.pattern, l->rank, code);
            last = x, last_cap = h.cap;
            uint64_t s0 = k ? ws_leave(l, &l->calls.v[k - 1]) : ws_loc_begin(l);
            if (!round) {
                x->ticks += share;
                if (share > x->big || (share == x->big && s0 < x->big_start))
                    x->big = share, x->big_start = s0, x->big_end = l->calls.v[k].enter;
            } else {
                x->lt += share;
                if (share > x->lt_big || (share == x->lt_big && s0 < x->lt_start))
                    x->lt_big = share, x->lt_start = s0, x->lt_end = l->calls.v[k].enter;
            }
        }
    }
    if (np == 1) free(cx.out[G].v); /* this location's claims are done */
    }
    free(cx.out), free(whole);
    cx.out = nx.out;
    uint64_t cnt[2] = {more, round ? 0 : first_claims};
    ws_reduce(net, cnt, 2, WS_SUM);
    if (!round) hop_budget = LONGTERM_HOPS_PER_CLAIM * cnt[1] + LONGTERM_HOPS_MIN;
    hops += cnt[0];
    if (!cnt[0] || hops > hop_budget) break;
    }
    for (size_t q = 0; q < nout; q++) free(cx.out[q].v);
    free(bits);
    free(cx.out), free(grp), free(gn);
    uint64_t v[3 * WS_NPATTERNS];
    memcpy(v, dl, sizeof dl), memcpy(v + WS_NPATTERNS, pr, sizeof pr);
    memcpy(v + 2 * WS_NPATTERNS, lt, sizeof lt);
    ws_reduce(net, v, 3 * WS_NPATTERNS, WS_SUM);
    for (int k = 0; k < WS_NPATTERNS; k++) {
        r->delay_ns[k] = ws_to_ns(c->tick_ns, v[k]);
        r->propagated_ns[k] = ws_to_ns(c->tick_ns, v[WS_NPATTERNS + k]);
        r->longterm_ns[k] = ws_to_ns(c->tick_ns, v[2 * WS_NPATTERNS + k]);
    }
    for (size_t i = 0; i < h.cap; i++) {
        cause_t *x = &h.t[i];
        if (!x->used || (!x->ticks && !x->lt)) continue;
        char *name = gap_name(c, x->code);
        /* The interval: the largest direct share, else the largest long-term one. */
        uint64_t s0 = x->ticks ? x->big_start : x->lt_start, s1 = x->ticks ? x->big_end : x->lt_end;
        bprintf(txt, "D\t%u\t%d\t%llu\t%llu\t%llu\t%llu\t%s\n", x->pattern, x->rank,
                (unsigned long long)ws_to_ns(c->tick_ns, x->ticks),
                (unsigned long long)ws_to_ns(c->tick_ns, x->lt),
                (unsigned long long)ws_to_ns(c->tick_ns, s0 - p->t0),
                (unsigned long long)ws_to_ns(c->tick_ns, s1 - p->t0), name ? name : "?");
        free(name);
    }
    free(h.t);
}

/* ---- critical path ------------------------------------------------------------- */

enum { AT_ENTER = 0, AT_LEAVE = 1, AT_END = 2 /* the end of the location */ };

/* The stretch [a, b) of location loc joins the path (walked backwards, so
 * it ends where the previous one began, or earlier on another location);
 * kept for the timeline only, the latest WS_CP_SEGS of them. */
static void cp_stretch(ws_ctx_t *c, ws_pass_t *p, uint32_t loc, uint64_t a, uint64_t b)
{
    if (!c->opts.timeline || b <= a) return;
    if (p->cp_nseg && p->cp_seg[p->cp_nseg - 1].loc == loc && p->cp_seg[p->cp_nseg - 1].from == b) {
        p->cp_seg[p->cp_nseg - 1].from = a;
        return;
    }
    p->cp_total++;
    if (p->cp_nseg == WS_CP_SEGS) return;
    if (p->cp_nseg == p->cp_capseg) {
        size_t cap = p->cp_capseg ? 2 * p->cp_capseg : 256;
        ws_cpseg_t *v = realloc(p->cp_seg, cap * sizeof *v);
        if (!v) return;
        p->cp_seg = v, p->cp_capseg = cap;
    }
    p->cp_seg[p->cp_nseg++] = (ws_cpseg_t){a, b, loc};
}

static void critical_path(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, ws_result_t *r,
                          buf_t *txt)
{
    size_t nr = (size_t)(c->ranks > 0 ? c->ranks : 1), nn = c->nodes.n;
    /* Where the path ends: the location that ended last. */
    uint64_t end[2] = {0, WS_NONE64};
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        if (owns(c, p, (uint32_t)i) && l->calls.n && ws_loc_end(l) == p->t_end)
            end[1] = ws_min64(end[1], i);
    }
    ws_reduce(net, &end[1], 1, WS_MIN);
    /* Per node: computation before the call / in the region, MPI; totals of
     * computation over all ranks. */
    uint64_t *acc = ws_xcalloc(4 * nn + 1, sizeof *acc);
    uint64_t *cp_gap = acc, *cp_mpi = acc + 3 * nn; /* [KIND * nn + node] */
    uint64_t *tot = p->gap_tot; /* summed by the ideal replay */
    uint64_t *rk = ws_xcalloc(2 * nr + 4, sizeof *rk); /* comp, mpi per rank; hops; end rank;
                                                        * start rank, start (ticks after t0) */
    uint64_t tok[3] = {0, 0, 0}; /* location + 1 (0: done), call, mode */
    if (end[1] != WS_NONE64 && end[1] < c->nlocs) {
        /* Every part starts the same rounds; the owner knows the call count. */
        tok[0] = end[1] + 1, tok[1] = 0, tok[2] = AT_END;
        if (owns(c, p, (uint32_t)end[1])) rk[2 * nr + 1] = (uint64_t)c->locs[end[1]].rank;
    }
    uint64_t steps = 0, limit = 0;
    for (size_t i = 0; i < c->nlocs; i++) limit += 2 * c->locs[i].calls.n + 4;
    while (tok[0]) {
        uint32_t loc = (uint32_t)(tok[0] - 1);
        uint64_t k = tok[1];
        int mode = (int)tok[2];
        bool walker = owns(c, p, loc); /* exactly one part walks each round */
        uint64_t nt[3] = {0, 0, 0};
        if (walker && mode == AT_END) k = c->locs[loc].calls.n, mode = AT_ENTER;
        while (walker) {
            ws_spill_step();
            if (!owns(c, p, loc)) { /* handed on to the part of loc */
                nt[0] = (uint64_t)loc + 1, nt[1] = k, nt[2] = (uint64_t)mode;
                break;
            }
            ws_loc_t *l = &c->locs[loc];
            if (k > l->calls.n || (k == l->calls.n && mode == AT_LEAVE) || ++steps > limit)
                break; /* malformed: the path ends */
            ws_call_t *cl = &l->calls.v[k];
            if (mode == AT_LEAVE) {
                dep_t d;
                /* (the target may be another part's: checked when walked) */
                if (waited_for(c, p, loc, k, &d, SIZE_MAX, SIZE_MAX) && d.t > cl->enter && d.t <= ws_leave(l, cl) &&
                    d.loc < c->nlocs) {
                    rk[nr + (size_t)l->rank] += ws_leave(l, cl) - d.t;
                    cp_mpi[cl->site] += ws_leave(l, cl) - d.t;
                    cp_stretch(c, p, loc, d.t, ws_leave(l, cl));
                    rk[2 * nr]++;
                    loc = d.loc, k = d.call, mode = AT_ENTER;
                    continue;
                }
                rk[nr + (size_t)l->rank] += ws_leave(l, cl) - cl->enter;
                cp_mpi[cl->site] += ws_leave(l, cl) - cl->enter;
                cp_stretch(c, p, loc, cl->enter, ws_leave(l, cl));
                mode = AT_ENTER;
            } else {
                uint64_t g = gap_len(l, k);
                uint32_t code = ws_gap_code(l, k, NULL);
                rk[(size_t)l->rank] += g;
                cp_gap[KIND(code) * nn + NODE(code)] += g;
                cp_stretch(c, p, loc, k ? ws_leave(l, &l->calls.v[k - 1]) : ws_loc_begin(l),
                           k < l->calls.n ? cl->enter : ws_loc_end(l));
                if (k == 0) { /* the start of the path */
                    rk[2 * nr + 2] = (uint64_t)l->rank, rk[2 * nr + 3] = ws_loc_begin(l) - p->t0;
                    break;
                }
                k--, mode = AT_LEAVE;
            }
        }
        ws_reduce(net, nt, 3, WS_MAX);
        memcpy(tok, nt, sizeof tok);
    }
    ws_reduce(net, rk, 2 * nr + 4, WS_SUM);
    r->rank_cp_comp_ns = ws_xcalloc(nr, sizeof *r->rank_cp_comp_ns);
    r->rank_cp_mpi_ns = ws_xcalloc(nr, sizeof *r->rank_cp_mpi_ns);
    for (size_t k = 0; k < nr; k++) {
        r->rank_cp_comp_ns[k] = ws_to_ns(c->tick_ns, rk[k]);
        r->rank_cp_mpi_ns[k] = ws_to_ns(c->tick_ns, rk[nr + k]);
        r->cp_comp_ns += r->rank_cp_comp_ns[k];
        r->cp_mpi_ns += r->rank_cp_mpi_ns[k];
    }
    r->cp_ns = r->cp_comp_ns + r->cp_mpi_ns;
    r->cp_hops = rk[2 * nr];
    r->cp_end_rank = (int)rk[2 * nr + 1];
    r->cp_start_rank = (int)rk[2 * nr + 2];
    r->cp_start_ns = ws_to_ns(c->tick_ns, rk[2 * nr + 3]);
    /* Site lines: C (computation on the path), T (computation, all ranks), M (MPI on the path). */
    for (size_t s = 0; s < nn; s++) {
        for (uint32_t kind = 0; kind < 3; kind++) {
            uint64_t on = cp_gap[kind * nn + s], all = tot[kind * nn + s];
            if (!on && !all) continue;
            char *name = gap_name(c, (uint32_t)s | kind << 30);
            bprintf(txt, "C\t%llu\t%llu\t%s\n", (unsigned long long)ws_to_ns(c->tick_ns, on),
                    (unsigned long long)ws_to_ns(c->tick_ns, all), name ? name : "?");
            free(name);
        }
        if (cp_mpi[s]) {
            char *name = ws_site_string(c, (uint32_t)s, NULL);
            bprintf(txt, "M\t%llu\t0\t%s\n", (unsigned long long)ws_to_ns(c->tick_ns, cp_mpi[s]),
                    name ? name : "?");
            free(name);
        }
    }
    free(acc), free(rk);
}

/* ---- merging on part 0 ------------------------------------------------------------ */

static int cmp_cp(const void *a, const void *b)
{
    const ws_cpsite_t *x = a, *y = b;
    if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    if (x->mpi != y->mpi) return x->mpi ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int cmp_cause(const void *a, const void *b)
{
    const ws_cause_t *x = a, *y = b;
    if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
    if (x->longterm_ns != y->longterm_ns) return x->longterm_ns > y->longterm_ns ? -1 : 1;
    if (x->pattern != y->pattern) return x->pattern - y->pattern;
    if (x->rank != y->rank) return x->rank - y->rank;
    return strcmp(x->name, y->name);
}

static int cmp_cp_key(const void *a, const void *b)
{
    const ws_cpsite_t *x = a, *y = b;
    if (x->mpi != y->mpi) return x->mpi ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int cmp_cause_key(const void *a, const void *b)
{
    const ws_cause_t *x = a, *y = b;
    if (x->pattern != y->pattern) return x->pattern - y->pattern;
    if (x->rank != y->rank) return x->rank - y->rank;
    return strcmp(x->name, y->name);
}

/* Parses the lines of every part (names point into `all`), merges equal
 * names, computes the imbalance and sorts. */
static void merge_text(ws_ctx_t *c, ws_result_t *r, char *all)
{
    VEC(ws_cpsite_t) cs = {0};
    VEC(ws_cause_t) ca = {0};
    for (char *line = all, *nl; line && *line; line = nl) {
        nl = strchr(line, '\n');
        if (nl) *nl++ = '\0';
        char kind = line[0];
        if (kind == 'C' || kind == 'M') {
            unsigned long long on = 0, tot = 0;
            int off = 0;
            if (sscanf(line + 2, "%llu\t%llu\t%n", &on, &tot, &off) < 2 || !off) continue;
            PUSH(c, cs, ((ws_cpsite_t){line + 2 + off, kind == 'M', on, tot}), abort());
        } else if (kind == 'D') {
            unsigned pat = 0;
            int rank = 0, off = 0;
            unsigned long long ns = 0, lt = 0, s0 = 0, s1 = 0;
            if (sscanf(line + 2, "%u\t%d\t%llu\t%llu\t%llu\t%llu\t%n", &pat, &rank, &ns, &lt,
                       &s0, &s1, &off) < 6 || !off)
                continue;
            PUSH(c, ca, ((ws_cause_t){(int)pat, rank, line + 2 + off, ns, s0, s1, lt}), abort());
        }
    }
    size_t n = 0;
    if (cs.n > 1) qsort(cs.v, cs.n, sizeof *cs.v, cmp_cp_key);
    for (size_t k = 0; k < cs.n; k++) {
        if (n && !cmp_cp_key(&cs.v[n - 1], &cs.v[k])) {
            cs.v[n - 1].ns += cs.v[k].ns, cs.v[n - 1].total_ns += cs.v[k].total_ns;
            continue;
        }
        cs.v[n++] = cs.v[k];
    }
    cs.n = n;
    n = 0;
    if (ca.n > 1) qsort(ca.v, ca.n, sizeof *ca.v, cmp_cause_key);
    for (size_t k = 0; k < ca.n; k++) {
        if (n && !cmp_cause_key(&ca.v[n - 1], &ca.v[k])) {
            ws_cause_t *o = &ca.v[n - 1];
            /* The larger interval stays (by length, then the earlier). */
            uint64_t lo = o->end_ns - o->start_ns, ln = ca.v[k].end_ns - ca.v[k].start_ns;
            if (ln > lo || (ln == lo && ca.v[k].start_ns < o->start_ns))
                o->start_ns = ca.v[k].start_ns, o->end_ns = ca.v[k].end_ns;
            o->ns += ca.v[k].ns, o->longterm_ns += ca.v[k].longterm_ns;
            continue;
        }
        ca.v[n++] = ca.v[k];
    }
    ca.n = n;
    r->cp_imbalance_ns = 0;
    for (size_t k = 0; k < cs.n; k++) {
        if (cs.v[k].mpi || !r->ranks) continue;
        /* Integer: ns on the path beyond the mean per rank. */
        uint64_t on = cs.v[k].ns * (uint64_t)r->ranks, all = cs.v[k].total_ns;
        if (on > all) r->cp_imbalance_ns += (on - all + (uint64_t)r->ranks / 2) / (uint64_t)r->ranks;
    }
    if (cs.n > 1) qsort(cs.v, cs.n, sizeof *cs.v, cmp_cp);
    if (ca.n > 1) qsort(ca.v, ca.n, sizeof *ca.v, cmp_cause);
    for (size_t k = 0; k < cs.n; k++) cs.v[k].name = strdup(cs.v[k].name);
    for (size_t k = 0; k < ca.n; k++) ca.v[k].name = strdup(ca.v[k].name);
    r->cp_sites = cs.v, r->ncp_sites = (int)cs.n;
    r->causes = ca.v, r->ncauses = (int)ca.n;
}

void ws_pass_critpath(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, ws_result_t *r)
{
    buf_t txt = {0};
    bprintf(&txt, "%s", "");
    delay_pass(c, p, net, r, &txt);
    critical_path(c, p, net, r, &txt);
    char *all = ws_gather_text(net, txt.s, txt.n);
    free(txt.s);
    if (all) merge_text(c, r, all);
    free(all);
}
