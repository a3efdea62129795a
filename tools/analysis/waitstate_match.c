/* Phase 2 of the wait-state analysis (see waitstate.c): match the
 * messages and collective instances of the locations a part has read, and
 * give every MPI call its waiting time.
 *
 * Design. One code for one part and for many (the analysis under MPI,
 * mpi/mpiscope_analyze.c): the exchanges go through ws_net_t, and with
 * one part there are none. Each part works on its own locations:
 * 1. Its sends go to the part owning their receiver (32 bytes each), in
 *    the sender's order, so chaining them per channel (communicator,
 *    sender, receiver, tag) in arrival order gives each channel its sends
 *    in order: a part owns whole ranks, and a channel has one sender. Each
 *    receive takes the first unmatched send of its channel (MPI's
 *    non-overtaking rule) and scores Late Sender there.
 * 2. When the receive began after the send, the receiver's part answers
 *    with the start of the receive (16 bytes), and the sender's part scores
 *    Late Receiver. This is Scalasca's replay with the messages batched.
 * 3. A collective instance is the k-th collective on a communicator; its
 *    latest enter, first leave, root's enter and first other member's
 *    enter are reduced over the parts (max and min).
 * 4. Totals per pattern and rank are summed over the parts; the call sites
 *    (nodes and their sums) are gathered to part 0, which renumbers them
 *    into its own, parents first.
 */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waitstate_impl.h"

/* The answer to a send whose receive began later. */
typedef struct {
    uint32_t loc, call;
    uint64_t recv_enter;
} ws_xreply_t;

typedef struct {
    uint32_t comm, tag;
    int32_t src, dst;
    int64_t head, tail; /* send chain (index of the arriving sends) */
} ws_chan_t;

typedef struct {
    ws_chan_t *t;
    size_t cap, n;
} ws_chans_t;

static uint64_t chan_hash(uint32_t comm, int32_t src, int32_t dst, uint32_t tag)
{
    return ws_mix(((uint64_t)comm << 32 | tag) ^ ws_mix((uint64_t)(uint32_t)src << 32 | (uint32_t)dst));
}

static ws_chan_t *chan_get(ws_chans_t *h, uint32_t comm, int32_t src, int32_t dst, uint32_t tag,
                           bool create)
{
    if (create && h->n * 2 >= h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 1024;
        ws_chan_t *t = calloc(cap, sizeof *t);
        if (!t) abort();
        for (size_t i = 0; i < cap; i++) t[i].head = -2;
        for (size_t i = 0; i < h->cap; i++) {
            if (h->t[i].head == -2) continue;
            ws_chan_t *o = &h->t[i];
            size_t k = chan_hash(o->comm, o->src, o->dst, o->tag) & (cap - 1);
            while (t[k].head != -2) k = (k + 1) & (cap - 1);
            t[k] = *o;
        }
        ws_mfree(h->t);
        h->t = t;
        h->cap = cap;
    }
    if (!h->cap) return NULL;
    size_t k = chan_hash(comm, src, dst, tag) & (h->cap - 1);
    while (h->t[k].head != -2) {
        ws_chan_t *x = &h->t[k];
        if (x->comm == comm && x->src == src && x->dst == dst && x->tag == tag) return x;
        k = (k + 1) & (h->cap - 1);
    }
    if (!create) return NULL;
    h->n++;
    h->t[k] = (ws_chan_t){comm, tag, src, dst, -1, -1};
    return &h->t[k];
}

/* ---- call sites and operations --------------------------------------------- */

static int cmp_site(const void *a, const void *b)
{
    const ws_site_t *x = a, *y = b;
    uint64_t tx = 0, ty = 0;
    for (int p = 0; p < WS_NPATTERNS; p++)
        if (p != WS_LATE_SENDER_WO) tx += x->ns[p], ty += y->ns[p];
    if (tx != ty) return tx > ty ? -1 : 1;
    if (x->mpi_ns != y->mpi_ns) return x->mpi_ns > y->mpi_ns ? -1 : 1;
    int s = strcmp(x->name, y->name);
    if (s) return s;
    /* Distinct nodes with the same name: an order that does not depend on
     * node numbering, so the analysis under MPI sorts as this one does. */
    if (x->calls != y->calls) return x->calls > y->calls ? -1 : 1;
    return memcmp(x->ns, y->ns, sizeof x->ns);
}

char *ws_site_string(ws_ctx_t *c, uint32_t node, ws_site_t *s)
{
    ws_node_t *n = &c->nodes.v[node];
    const char *fn = msc_trace_region_name(c->t, n->region);
    char path[1024] = "";
    /* Enclosing regions, outermost first. */
    uint32_t chain[64];
    int depth = 0;
    for (uint32_t p = n->parent; p != UINT32_MAX && depth < 64; p = c->nodes.v[p].parent)
        chain[depth++] = p;
    size_t off = 0;
    for (int i = depth - 1; i >= 0 && off < sizeof path - 1; i--) {
        int w = snprintf(path + off, sizeof path - off, "%s%s", off ? " > " : "",
                         msc_trace_region_name(c->t, c->nodes.v[chain[i]].region));
        if (w > 0) off += (size_t)w;
    }
    const char *file = "";
    uint32_t line = 0;
    if (n->scl != UINT32_MAX && n->scl < c->t->nscl) {
        file = msc_trace_string(c->t, c->t->scl_file[n->scl]);
        line = c->t->scl_line[n->scl];
    }
    if (s) {
        s->function = strdup(fn);
        s->path = strdup(path);
        s->file = strdup(file);
        s->line = line;
    }
    char buf[1400];
    int w = snprintf(buf, sizeof buf, "%s", fn);
    if (*file && w > 0 && (size_t)w < sizeof buf)
        w += line ? snprintf(buf + w, sizeof buf - (size_t)w, " @ %s:%u", file, line)
                  : snprintf(buf + w, sizeof buf - (size_t)w, " @ %s", file); /* no line table */
    if (*path && w > 0 && (size_t)w < sizeof buf)
        snprintf(buf + w, sizeof buf - (size_t)w, " in %s", path);
    return strdup(buf);
}

bool ws_is_nxn(uint32_t op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_ALLGATHER: case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL: case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW: case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
        return true;
    default:
        return false;
    }
}

bool ws_is_1ton(uint32_t op)
{
    return op == OTF2_COLLECTIVE_OP_BCAST || op == OTF2_COLLECTIVE_OP_SCATTER ||
           op == OTF2_COLLECTIVE_OP_SCATTERV;
}

bool ws_is_nto1(uint32_t op)
{
    return op == OTF2_COLLECTIVE_OP_REDUCE || op == OTF2_COLLECTIVE_OP_GATHER ||
           op == OTF2_COLLECTIVE_OP_GATHERV;
}


/* ---- exchanges -------------------------------------------------------------- */

#define alone ws_alone
#define exchange ws_exchange
#define reduce ws_reduce
#define xmalloc ws_bigx_malloc
#define xcalloc ws_bigx_calloc

void *ws_exchange(const ws_net_t *n, void *send, const uint64_t *scount, size_t size,
                  uint64_t *rcount)
{
    if (alone(n)) {
        rcount[0] = scount[0];
        return send;
    }
    void *recv = NULL;
    n->alltoallv(n->u, send, scount, size, &recv, rcount);
    ws_mfree(send);
    return recv;
}

void ws_reduce(const ws_net_t *n, uint64_t *v, size_t len, ws_reduce_t op)
{
    if (!alone(n) && len) n->allreduce(n->u, v, len, op);
}

void *ws_xmalloc(size_t n)
{
    void *p = ws_alloc(n);
    if (!p) {
        fprintf(stderr, "mpiscope: wait states: out of memory (%zu bytes)\n", n);
        abort();
    }
    return p;
}

void *ws_bigx_malloc(size_t n)
{
    void *p = ws_big_alloc(n);
    if (!p) {
        fprintf(stderr, "mpiscope: wait states: out of memory (%zu bytes)\n", n);
        abort();
    }
    return p;
}

void *ws_bigx_calloc(size_t n, size_t size)
{
    void *p = ws_big_calloc(n, size);
    if (!p) {
        fprintf(stderr, "mpiscope: wait states: out of memory (%zu bytes)\n", n * size);
        abort();
    }
    return p;
}

/* Zeroed; small blocks from calloc, whose fresh pages are zero already. */
void *ws_xcalloc(size_t n, size_t size)
{
    if (n * size >= ((size_t)4 << 20)) return memset(ws_xmalloc(n * size), 0, n * size);
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "mpiscope: wait states: out of memory (%zu bytes)\n", n * size);
        abort();
    }
    return p;
}

char *ws_gather_text(const ws_net_t *net, const char *text, size_t len)
{
    if (alone(net)) {
        char *o = ws_xmalloc(len + 1);
        if (len) memcpy(o, text, len);
        o[len] = '\0';
        return o;
    }
    void *all = NULL;
    uint64_t *lens = NULL;
    net->gather(net->u, text ? text : "", len, &all, &lens);
    char *o = NULL;
    if (all) {
        uint64_t total = 0;
        for (int q = 0; q < net->nparts; q++) total += lens[q];
        o = ws_xmalloc(total + 1);
        memcpy(o, all, total);
        o[total] = '\0';
    }
    ws_mfree(all), ws_mfree(lens);
    return o;
}

/* ---- long waits (ws_wait_t) ------------------------------------------------------ */

static uint64_t wl_key(size_t i, uint32_t k, int which)
{
    return ((uint64_t)i << 33 | (uint64_t)k << 1 | (uint64_t)(which != 0)) + 1;
}

uint64_t ws_wait_long(const ws_pass_t *p, size_t i, uint32_t k, int which)
{
    uint64_t key = wl_key(i, k, which);
    for (size_t h = ws_mix(key) & (p->wl_cap - 1); p->wl_cap && p->wl[h].key; h = (h + 1) & (p->wl_cap - 1))
        if (p->wl[h].key == key) return p->wl[h].val;
    return which ? WS_LR_BIG : WS_LS_BIG; /* not reached: every such value has its entry */
}

void ws_wait_long_set(ws_pass_t *p, size_t i, uint32_t k, int which, uint64_t v)
{
    if (2 * (p->wl_n + 1) > p->wl_cap) {
        size_t cap = p->wl_cap ? 2 * p->wl_cap : 64;
        ws_wlong_t *t = xcalloc(cap, sizeof *t);
        for (size_t j = 0; j < p->wl_cap; j++) {
            if (!p->wl[j].key) continue;
            size_t h = ws_mix(p->wl[j].key) & (cap - 1);
            while (t[h].key) h = (h + 1) & (cap - 1);
            t[h] = p->wl[j];
        }
        ws_mfree(p->wl);
        p->wl = t, p->wl_cap = cap;
    }
    uint64_t key = wl_key(i, k, which);
    size_t h = ws_mix(key) & (p->wl_cap - 1);
    while (p->wl[h].key && p->wl[h].key != key) h = (h + 1) & (p->wl_cap - 1);
    if (!p->wl[h].key) p->wl_n++;
    p->wl[h] = (ws_wlong_t){key, v};
    if (which) p->wt[i][k].lr = WS_LR_BIG;
    else p->wt[i][k].ls = WS_LS_BIG;
}

/* owner[r]: the part holding world rank r (ws_part_owns's blocks). */
static int *rank_owners(int ranks, int nparts)
{
    int *owner = xcalloc((size_t)(ranks > 0 ? ranks : 1), sizeof *owner);
    for (int q = 0; q < nparts; q++)
        for (long r = (long)ranks * q / nparts; r < (long)ranks * (q + 1) / nparts; r++)
            owner[r] = q;
    return owner;
}

/* ---- 1 and 2: messages ------------------------------------------------------- */

/* Matches the messages of c's locations; Late Sender and wrong order in
 * wt, Late Receiver in wt of the senders. */
static void match_messages(ws_ctx_t *c, const ws_net_t *net, ws_pass_t *p, ws_result_t *r)
{
    const int *owner = p->owner;
    ws_wait_t **wt = p->wt;
    int np = alone(net) ? 1 : net->nparts;
    uint64_t *scnt = xcalloc((size_t)np, sizeof *scnt), *rcnt = xcalloc((size_t)np, sizeof *rcnt);
    uint64_t *off = xcalloc((size_t)np, sizeof *off);
    /* Sends, grouped by the part of their receiver, each group in order. */
    for (size_t i = 0; i < c->nlocs; i++)
        for (size_t k = 0; k < c->locs[i].sends.n; k++) {
            int32_t dst = c->locs[i].sends.v[k].peer;
            ws_spill_step();
            if (dst >= 0 && dst < c->ranks) scnt[owner[dst]]++;
            else r->unmatched++; /* no location receives for it */
        }
    uint64_t nout = 0;
    for (int q = 0; q < np; q++) off[q] = nout, nout += scnt[q];
    uint64_t *start = xmalloc((size_t)np * sizeof *start);
    memcpy(start, off, (size_t)np * sizeof *start);
    ws_xsend_t *out = xmalloc(nout * sizeof *out);
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        if (l->sends.n) p->send_j[i] = xmalloc(l->sends.n * sizeof **p->send_j);
        for (size_t k = 0; k < l->sends.n; k++) {
            ws_msg_t *m = &l->sends.v[k];
            ws_ct_t *ct = &l->send_ct.v[k];
            ws_spill_step();
            p->send_j[i][k] = WS_NONE32;
            if (m->peer < 0 || m->peer >= c->ranks) continue;
            int q = owner[m->peer];
            p->send_j[i][k] = (uint32_t)(off[q] - start[q]);
            out[off[q]++] = (ws_xsend_t){ct->comm, ct->tag, l->rank, m->peer,
                                         l->calls.v[m->call].enter, (uint32_t)i, m->call};
        }
        ws_mfree(l->send_ct.v); /* the channels travel in `out` */
        l->send_ct.v = NULL, l->send_ct.n = l->send_ct.cap = 0;
    }
    ws_mfree(start);
    ws_xsend_t *in = exchange(net, out, scnt, sizeof *in, rcnt);
    uint64_t nin = 0;
    p->rdispl = xmalloc((size_t)np * sizeof *p->rdispl);
    for (int q = 0; q < np; q++) p->rdispl[q] = nin, nin += rcnt[q];
    p->nin = nin;
    if (nin >= WS_NONE32) {
        fprintf(stderr, "mpiscope: analysis: more than 2^32 messages arrive at one part; "
                        "analyse with more processes (--np)\n");
        abort();
    }
    p->g_loc = xmalloc((nin ? nin : 1) * sizeof *p->g_loc);
    ws_big_fill(p->g_loc, 0xff, (nin ? nin : 1) * sizeof *p->g_loc);

    /* Chained per channel in arrival order. */
    int64_t *next = xmalloc(nin * sizeof *next);
    ws_chans_t ch = {0};
    ws_chan_t *x = NULL; /* the last channel: messages come in runs on one */
    size_t xcap = 0;
    for (uint64_t g = 0; g < nin; g++) {
        ws_xsend_t *s = &in[g];
        ws_spill_step();
        if (!x || xcap != ch.cap || x->comm != s->comm || x->src != s->src || x->dst != s->dst ||
            x->tag != s->tag) {
            x = chan_get(&ch, s->comm, s->src, s->dst, s->tag, true);
            xcap = ch.cap;
        }
        next[g] = -1;
        if (x->tail >= 0) next[x->tail] = (int64_t)g;
        else x->head = (int64_t)g;
        x->tail = (int64_t)g;
    }

    /* Receives take the first unmatched send of their channel. */
    VEC(ws_xreply_t) rep = {0};
    VEC(int) rep_part = {0};
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        if (!l->recvs.n) continue;
        uint64_t *sent_at = xmalloc(l->recvs.n * sizeof *sent_at);
        uint32_t *rg = p->recv_g[i] = xmalloc(l->recvs.n * sizeof *rg);
        x = NULL;
        for (size_t k = 0; k < l->recvs.n; k++) {
            ws_msg_t *m = &l->recvs.v[k];
            ws_ct_t *ct = &l->recv_ct.v[k];
            ws_spill_step();
            sent_at[k] = UINT64_MAX;
            rg[k] = WS_NONE32;
            if (!x || x->comm != ct->comm || x->src != m->peer || x->tag != ct->tag ||
                x->dst != l->rank)
                x = chan_get(&ch, ct->comm, m->peer, l->rank, ct->tag, false);
            if (!x || x->head < 0) {
                r->unmatched++;
                continue;
            }
            int64_t s = x->head;
            x->head = next[s];
            if (x->head < 0) x->tail = -1;
            r->messages++;
            rg[k] = (uint32_t)s;
            p->g_loc[s] = (uint32_t)i;
            ws_xsend_t *sd = &in[s];
            ws_call_t *rc = &l->calls.v[m->call];
            sent_at[k] = sd->enter;
            int rk = c->region_kind[ws_call_region(c, rc)];
            if ((rk == K_RECV || rk == K_SENDRECV || rk == K_WAIT) && sd->enter > rc->enter) {
                ws_wait_max(p, i, m->call, 0, ws_min64(sd->enter, ws_leave(l, rc)) - rc->enter);
            }
            if (rc->enter > sd->enter) {
                PUSH(c, rep, ((ws_xreply_t){sd->loc, sd->call, rc->enter}), abort());
                PUSH(c, rep_part, owner[sd->src], abort());
            }
        }
        /* Wrong order: a message received by a later call had been sent
         * before this receive began. */
        uint64_t min_after = UINT64_MAX, min_cur = UINT64_MAX;
        uint32_t cur_call = UINT32_MAX;
        for (size_t k = l->recvs.n; k-- > 0;) {
            uint32_t call = l->recvs.v[k].call;
            ws_spill_step();
            if (call != cur_call) {
                min_after = ws_min64(min_after, min_cur);
                min_cur = UINT64_MAX;
                cur_call = call;
            }
            min_cur = ws_min64(min_cur, sent_at[k]);
            ws_wait_t *rw = &wt[i][call];
            if (rw->ls && min_after < l->calls.v[call].enter) rw->flags |= F_WRONG_ORDER;
        }
        ws_mfree(sent_at);
        ws_mfree(l->recv_ct.v); /* matched */
        l->recv_ct.v = NULL, l->recv_ct.n = l->recv_ct.cap = 0;
    }
    /* Sends no receive took. */
    for (size_t i = 0; i < ch.cap; i++)
        for (int64_t s = ch.t[i].head; ch.t[i].head != -2 && s >= 0; s = next[s])
            r->unmatched++, ws_spill_step();
    ws_mfree(ch.t);
    ws_mfree(next);
    /* The passes need only where each send was: the records shrink in place
     * (each one moves down, never over one not yet moved). */
    ws_sent_t *kept = (ws_sent_t *)(void *)in;
    for (uint64_t g = 0; g < nin; g++) {
        ws_sent_t k = {in[g].enter, in[g].loc, in[g].call};
        ws_spill_step();
        memcpy(&kept[g], &k, sizeof k);
    }
    ws_sent_t *shrunk = nin ? ws_mrealloc(kept, nin * sizeof *kept) : NULL;
    p->in = shrunk ? shrunk : kept;

    /* The answers go back to the senders' parts: Late Receiver. */
    memset(scnt, 0, (size_t)np * sizeof *scnt);
    for (size_t k = 0; k < rep.n; k++) scnt[rep_part.v[k]]++, ws_spill_step();
    nout = 0;
    for (int q = 0; q < np; q++) off[q] = nout, nout += scnt[q];
    ws_xreply_t *rout = xmalloc(nout * sizeof *rout);
    for (size_t k = 0; k < rep.n; k++) rout[off[rep_part.v[k]]++] = rep.v[k], ws_spill_step();
    ws_mfree(rep.v), ws_mfree(rep_part.v);
    ws_xreply_t *rin = exchange(net, rout, scnt, sizeof *rin, rcnt);
    nin = 0;
    for (int q = 0; q < np; q++) nin += rcnt[q];
    for (uint64_t k = 0; k < nin; k++) {
        ws_xreply_t *a = &rin[k];
        ws_spill_step();
        if (a->loc >= c->nlocs || a->call >= c->locs[a->loc].calls.n) continue;
        ws_call_t *sc = &c->locs[a->loc].calls.v[a->call];
        int sk = c->region_kind[ws_call_region(c, sc)];
        if ((sk == K_SEND || sk == K_SENDRECV) && a->recv_enter > sc->enter) {
            uint64_t w = ws_min64(a->recv_enter, ws_leave(&c->locs[a->loc], sc)) - sc->enter;
            ws_wait_max(p, a->loc, a->call, 1, w);
        }
    }
    ws_mfree(rin);
    ws_mfree(scnt), ws_mfree(rcnt), ws_mfree(off);
}

/* ---- 3: collective instances ------------------------------------------------- */

/* Per instance: latest enter, first leave, the root's enter, the first
 * enter of another member (max: [0, n); min: 3 per instance after them;
 * NONE where no member had one); then how many members recorded it, which
 * member entered last and which is the root (for the replay, the critical
 * path and the delay analysis). */
#define NONE WS_NONE64
static void match_collectives(ws_ctx_t *c, const ws_net_t *net, ws_pass_t *p)
{
    size_t ncomm = c->t->ncomm;
    uint64_t *base = xcalloc(ncomm + 1, sizeof *base);
    uint32_t *seq = xcalloc(ncomm + 1, sizeof *seq);
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        memset(seq, 0, (ncomm + 1) * sizeof *seq);
        for (size_t k = 0; k < l->colls.n; k++) {
            ws_spill_step();
            uint32_t s = ++seq[l->colls.v[k].comm];
            if (s > base[l->colls.v[k].comm]) base[l->colls.v[k].comm] = s;
        }
    }
    /* Instances per communicator: the most any member had. */
    reduce(net, base, ncomm, WS_MAX);
    uint64_t n = 0;
    for (size_t k = 0; k < ncomm; k++) {
        uint64_t m = base[k];
        base[k] = n;
        n += m;
    }
    p->ninst = n;
    p->agg = xmalloc((4 * n + 1) * sizeof *p->agg);
    uint64_t *mx = p->agg, *mn = p->agg + n;
    memset(mx, 0, n * sizeof *mx);
    for (uint64_t i = 0; i < 3 * n; i++) mn[i] = NONE;
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        memset(seq, 0, (ncomm + 1) * sizeof *seq);
        if (l->colls.n) p->memb[i] = xmalloc(l->colls.n * sizeof **p->memb);
        for (size_t k = 0; k < l->colls.n; k++) {
            ws_spill_step();
            ws_coll_t *co = &l->colls.v[k];
            uint64_t id = base[co->comm] + seq[co->comm]++;
            p->memb[i][k] = (uint32_t)id;
            ws_call_t *cl = &l->calls.v[co->call];
            if (cl->enter > mx[id]) mx[id] = cl->enter;
            mn[3 * id] = ws_min64(mn[3 * id], ws_leave(l, cl));
            if (l->rank == co->root)
                mn[3 * id + 1] = ws_min64(mn[3 * id + 1], cl->enter);
            else
                mn[3 * id + 2] = ws_min64(mn[3 * id + 2], cl->enter);
        }
    }
    ws_mfree(seq);
    ws_mfree(base);
    reduce(net, mx, n, WS_MAX);
    reduce(net, mn, 3 * n, WS_MIN);
    /* Members, the latest member and the root, by (location, call): the
     * smallest location among ties, so every split finds the same one. */
    p->members = xcalloc(3 * n + 1, sizeof *p->members);
    p->last = p->members + n, p->root = p->members + 2 * n;
    for (uint64_t i = 0; i < 2 * n; i++) p->last[i] = NONE;
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        for (size_t k = 0; k < l->colls.n; k++) {
            ws_spill_step();
            ws_coll_t *co = &l->colls.v[k];
            uint32_t id = p->memb[i][k];
            uint64_t who = (uint64_t)i << 32 | co->call;
            p->members[id]++;
            if (l->calls.v[co->call].enter == mx[id]) p->last[id] = ws_min64(p->last[id], who);
            if (l->rank == co->root) p->root[id] = ws_min64(p->root[id], who);
        }
    }
    reduce(net, p->members, n, WS_SUM);
    reduce(net, p->last, 2 * n, WS_MIN);
}

/* ---- 4: totals and call sites ----------------------------------------------- */

/* Columns of a node's row: the patterns, then MPI time and calls. */
#define ROW (WS_NPATTERNS + 2)

/* Sums the totals of r over the parts (one reduction). */
static void sum_totals(const ws_net_t *net, ws_result_t *r)
{
    if (alone(net)) return;
    size_t nr = (size_t)r->ranks, n = 5 + 2 * WS_NPATTERNS + nr * (WS_NPATTERNS + 1);
    uint64_t *v = xmalloc(n * sizeof *v), *p = v;
    *p++ = r->messages, *p++ = r->unmatched, *p++ = r->events, *p++ = r->mpi_ns;
    *p++ = r->unreadable;
    memcpy(p, r->ns, sizeof r->ns), p += WS_NPATTERNS;
    memcpy(p, r->instances, sizeof r->instances), p += WS_NPATTERNS;
    memcpy(p, r->rank_ns, nr * WS_NPATTERNS * sizeof *p), p += nr * WS_NPATTERNS;
    memcpy(p, r->rank_mpi_ns, nr * sizeof *p);
    reduce(net, v, n, WS_SUM);
    p = v;
    r->messages = *p++, r->unmatched = *p++, r->events = *p++, r->mpi_ns = *p++;
    r->unreadable = *p++;
    memcpy(r->ns, p, sizeof r->ns), p += WS_NPATTERNS;
    memcpy(r->instances, p, sizeof r->instances), p += WS_NPATTERNS;
    memcpy(r->rank_ns, p, nr * WS_NPATTERNS * sizeof *p), p += nr * WS_NPATTERNS;
    memcpy(r->rank_mpi_ns, p, nr * sizeof *p);
    ws_mfree(v);
}

/* The rows of every part's nodes, in part 0's numbering (its nodes grow by
 * the others'); *nrows is the number of nodes. NULL on the other parts. A
 * part's block: u64 node count, the nodes (padded to 8 bytes), the rows. */
static uint64_t *gather_sites(ws_ctx_t *c, const ws_net_t *net, uint64_t *rows, size_t *nrows)
{
    size_t nn = c->nodes.n;
    *nrows = nn;
    if (alone(net)) return rows;
    size_t nb = (nn * sizeof(ws_node_t) + 7) & ~(size_t)7;
    size_t len = 8 + nb + nn * ROW * sizeof *rows;
    char *blk = xcalloc(1, len);
    uint64_t n64 = nn;
    memcpy(blk, &n64, 8);
    if (nn) memcpy(blk + 8, c->nodes.v, nn * sizeof(ws_node_t));
    if (nn) memcpy(blk + 8 + nb, rows, nn * ROW * sizeof *rows);
    void *all = NULL;
    uint64_t *lens = NULL;
    net->gather(net->u, blk, len, &all, &lens);
    ws_mfree(blk);
    if (!all) {
        ws_mfree(lens), ws_mfree(rows);
        return NULL;
    }
    /* Renumber every other part's nodes into ours; parents come first. */
    const char *p = (const char *)all + lens[0];
    uint32_t **maps = xcalloc((size_t)net->nparts, sizeof *maps);
    for (int q = 1; q < net->nparts; p += lens[q], q++) {
        uint64_t m = 0;
        if (lens[q] >= 8) memcpy(&m, p, 8);
        size_t mb = (m * sizeof(ws_node_t) + 7) & ~(size_t)7;
        if (lens[q] < 8 || m > (lens[q] - 8) / sizeof(ws_node_t) ||
            lens[q] != 8 + mb + m * ROW * sizeof *rows) {
            fprintf(stderr, "mpiscope: wait states: the call sites of part %d are malformed\n", q);
            continue;
        }
        uint32_t *map = maps[q] = xmalloc(m * sizeof *map);
        for (uint64_t i = 0; i < m; i++) {
            ws_node_t nd;
            memcpy(&nd, p + 8 + i * sizeof nd, sizeof nd);
            bool ok = (nd.parent == UINT32_MAX || nd.parent < i) && nd.region < c->t->nregion;
            if (!ok) {
                fprintf(stderr, "mpiscope: wait states: call site %llu of part %d is malformed\n",
                        (unsigned long long)i, q);
                abort();
            }
            map[i] = ws_site_of(c, nd.parent == UINT32_MAX ? UINT32_MAX : map[nd.parent],
                                nd.region, nd.scl);
            if (map[i] == UINT32_MAX) abort(); /* out of memory */
        }
    }
    nn = c->nodes.n;
    uint64_t *sum = xcalloc(nn * ROW, sizeof *sum);
    memcpy(sum, rows, *nrows * ROW * sizeof *rows);
    ws_mfree(rows);
    p = (const char *)all + lens[0];
    for (int q = 1; q < net->nparts; p += lens[q], q++) {
        if (!maps[q]) continue;
        uint64_t m;
        memcpy(&m, p, 8);
        const char *rp = p + 8 + ((m * sizeof(ws_node_t) + 7) & ~(size_t)7);
        for (uint64_t i = 0; i < m; i++)
            for (int k = 0; k < ROW; k++) {
                uint64_t v;
                memcpy(&v, rp + (i * ROW + (uint64_t)k) * sizeof v, sizeof v);
                sum[(size_t)maps[q][i] * ROW + (size_t)k] += v;
            }
        ws_mfree(maps[q]);
    }
    ws_mfree(maps);
    ws_mfree(all), ws_mfree(lens);
    *nrows = nn;
    return sum;
}

/* ---- phase 2 ------------------------------------------------------------------ */

ws_result_t *ws_finish(ws_ctx_t *c, const ws_net_t *net)
{
    double t1 = ws_now_s();
    ws_progress_line(c->progress, "matching messages, locations", c->nlocs, c->nlocs, c->events);
    ws_result_t *r = xcalloc(1, sizeof *r);
    r->processes = alone(net) ? 1 : net->nparts;
    r->ranks = c->ranks;
    r->locations = c->nlocs;
    r->events = c->events;
    r->unreadable = c->unreadable;
    r->read_s = c->read_s;
    ws_pass_t ps = {.np = r->processes, .me = alone(net) ? 0 : net->part};
    ws_pass_t *pp = &ps;
    ps.owner = rank_owners(c->ranks, r->processes);
    ps.recv_g = xcalloc(c->nlocs, sizeof *ps.recv_g);
    ps.send_j = xcalloc(c->nlocs, sizeof *ps.send_j);
    ps.memb = xcalloc(c->nlocs, sizeof *ps.memb);

    /* Phase 2's findings per call: zero pages until written. */
    ws_wait_t **wt = ps.wt = xcalloc(c->nlocs, sizeof *wt);
    for (size_t i = 0; i < c->nlocs; i++) wt[i] = xcalloc(c->locs[i].calls.n, sizeof **wt);
    match_messages(c, net, pp, r);
    match_collectives(c, net, pp);
    r->collectives = ps.ninst;
    const uint64_t *max_enter = ps.agg, *mn = ps.agg + ps.ninst;

    /* Totals per pattern, rank and site. */
    double tick_ns = c->tick_ns;
#define NS(x) ws_to_ns(tick_ns, (x))
    r->rank_ns = xcalloc((size_t)(r->ranks ? r->ranks : 1) * WS_NPATTERNS, sizeof *r->rank_ns);
    r->rank_mpi_ns = xcalloc((size_t)(r->ranks ? r->ranks : 1), sizeof *r->rank_mpi_ns);
    size_t nn = c->nodes.n;
    uint64_t *site_ns = xcalloc(nn * ROW, sizeof *site_ns);
    for (size_t s = 0; s < nn; s++) {
        site_ns[s * ROW + WS_NPATTERNS] = c->nsum.v[s].mpi_ns;
        site_ns[s * ROW + WS_NPATTERNS + 1] = c->nsum.v[s].calls;
    }
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        int rank = l->rank;
        uint64_t *rn = &r->rank_ns[(size_t)rank * WS_NPATTERNS];
        r->mpi_ns += l->mpi_ns;
        r->rank_mpi_ns[rank] += l->mpi_ns;
#define ADD(p, call, ticks)                                                                     \
    do {                                                                                       \
        uint64_t ns_ = NS(ticks);                                                              \
        r->ns[p] += ns_;                                                                       \
        r->instances[p]++;                                                                     \
        rn[p] += ns_;                                                                          \
        site_ns[(size_t)(call)->site * ROW + (p)] += ns_;                                      \
    } while (0)
        /* Only calls with a message end can have a Late Sender or Receiver;
         * each counts once, however many messages it completed. */
        for (size_t k = 0; k < l->recvs.n; k++) {
            ws_spill_step();
            ws_call_t *cl = &l->calls.v[l->recvs.v[k].call];
            ws_wait_t *w = &wt[i][l->recvs.v[k].call];
            if (!w->ls || (w->flags & F_LS_DONE)) continue;
            w->flags |= F_LS_DONE;
            uint64_t ls = ws_ls(pp, i, l->recvs.v[k].call);
            ADD(WS_LATE_SENDER, cl, ls);
            if (w->flags & F_WRONG_ORDER) ADD(WS_LATE_SENDER_WO, cl, ls);
        }
        for (size_t k = 0; k < l->sends.n; k++) {
            ws_spill_step();
            ws_call_t *cl = &l->calls.v[l->sends.v[k].call];
            ws_wait_t *w = &wt[i][l->sends.v[k].call];
            if (!w->lr || (w->flags & F_LR_DONE)) continue;
            w->flags |= F_LR_DONE;
            /* A Sendrecv waits for both ends at once: a Late Sender wins. */
            if (!(w->ls && c->region_kind[ws_call_region(c, cl)] == K_SENDRECV))
                ADD(WS_LATE_RECEIVER, cl, ws_lr(pp, i, l->sends.v[k].call));
        }
        for (size_t k = 0; k < l->colls.n; k++) {
            ws_spill_step();
            ws_coll_t *co = &l->colls.v[k];
            uint32_t id = ps.memb[i][k];
            uint64_t last_enter = max_enter[id], first_leave = mn[3 * (size_t)id],
                     root_enter = mn[3 * (size_t)id + 1], first_other = mn[3 * (size_t)id + 2];
            ws_call_t *cl = &l->calls.v[co->call];
            bool barrier = co->op == OTF2_COLLECTIVE_OP_BARRIER;
            if (barrier || ws_is_nxn(co->op)) {
                if (last_enter > cl->enter)
                    ADD(barrier ? WS_WAIT_BARRIER : WS_WAIT_NXN, cl,
                        ws_min64(last_enter, ws_leave(l, cl)) - cl->enter);
                /* After the first member left; never overlapping the wait. */
                uint64_t from = first_leave;
                if (from < ws_min64(last_enter, ws_leave(l, cl))) from = ws_min64(last_enter, ws_leave(l, cl));
                if (from < cl->enter) from = cl->enter;
                if (ws_leave(l, cl) > from)
                    ADD(barrier ? WS_BARRIER_COMPLETION : WS_NXN_COMPLETION, cl, ws_leave(l, cl) - from);
            } else if (ws_is_1ton(co->op)) {
                if (l->rank != co->root && root_enter != NONE && root_enter > cl->enter)
                    ADD(WS_LATE_BCAST, cl, ws_min64(root_enter, ws_leave(l, cl)) - cl->enter);
            } else if (ws_is_nto1(co->op)) {
                if (l->rank == co->root && first_other != NONE && first_other > cl->enter)
                    ADD(WS_EARLY_REDUCE, cl, ws_min64(first_other, ws_leave(l, cl)) - cl->enter);
            }
        }
#undef ADD
#undef NS
    }
    /* The passes after the wait states, on the same matches. */
    ws_pass_replay(c, pp, net, r);
    ws_pass_critpath(c, pp, net, r);
    if (c->opts.timeline) ws_pass_timeline(c, pp, net, r);
    ws_mfree(ps.agg), ws_mfree(ps.members), ws_mfree(ps.gap_tot);
    for (size_t i = 0; i < c->nlocs; i++)
        ws_mfree(wt[i]), ws_mfree(ps.recv_g[i]), ws_mfree(ps.send_j[i]), ws_mfree(ps.memb[i]);
    ws_mfree(wt), ws_mfree(ps.recv_g), ws_mfree(ps.send_j), ws_mfree(ps.memb);
    ws_mfree(ps.in), ws_mfree(ps.g_loc), ws_mfree(ps.rdispl), ws_mfree(ps.owner), ws_mfree(ps.wl);
    ws_mfree(ps.cp_seg);
    sum_totals(net, r);
    site_ns = gather_sites(c, net, site_ns, &nn);
    /* Sites (part 0): every MPI call path, the ones with waiting time first. */
    r->sites = xcalloc(site_ns ? nn : 0, sizeof *r->sites);
    for (size_t s = 0; site_ns && s < nn; s++) {
        uint64_t *v = &site_ns[s * ROW];
        if (!v[WS_NPATTERNS + 1]) continue;
        ws_site_t *o = &r->sites[r->nsites++];
        memcpy(o->ns, v, sizeof o->ns);
        o->mpi_ns = v[WS_NPATTERNS];
        o->calls = v[WS_NPATTERNS + 1];
        o->name = ws_site_string(c, (uint32_t)s, o);
    }
    ws_mfree(site_ns);
    if (r->nsites > 1) qsort(r->sites, (size_t)r->nsites, sizeof *r->sites, cmp_site);
    r->match_s = ws_now_s() - t1;
    if (c->progress) fprintf(stderr, "\r\033[K");
    ws_ctx_free(c);
    return r;
}
