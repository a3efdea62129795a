/* Late Receiver's cause: which receive a send that waited for its receiver
 * waited for, so that the delay analysis (critpath.c) traces that waiting
 * to the receiver's computation before the late receive, as it traces a
 * Late Sender's to the sender's computation before the send.
 *
 * Design. Matching (waitstate_match.c) scores Late Receiver on the
 * sender's part from the start of the receive alone; the sender's part
 * does not know which call received. The receiver's part does: each
 * matched receive whose call began after the send (exactly the messages
 * whose receive start went to the sender for Late Receiver) asks the
 * sender's part with (send location and call, receive location and call,
 * receive start): 24 bytes, one all-to-all. The sender's part keeps, per
 * send call with Late Receiver waiting, the receive that began last (the
 * one the send waited for, as a Late Sender waits for the send sent last)
 * and hands back (receive location and call, waiting) to be claimed like
 * any other wait: the claims travel to the receiver's part with the
 * others (critpath.c's single all-to-all of claims), which divides the
 * waiting over the receiver's synchronization interval before that
 * receive. With one part there is no exchange.
 */
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#include "critpath_lr.h"

/* Its blocks may live in the spill file (spill.c), like critpath.c's. */
#define free ws_mfree
#define ws_xmalloc ws_bigx_malloc
#define ws_xcalloc ws_bigx_calloc

/* What ws_exchange returns may live in the spill file (spill.c). */
#define free ws_mfree

typedef struct {
    uint32_t sloc, scall, rloc, rcall;
    uint64_t renter;
} lr_ask_t;

static int cmp_ask(const void *a, const void *b)
{
    const lr_ask_t *x = a, *y = b;
    if (x->sloc != y->sloc) return x->sloc < y->sloc ? -1 : 1;
    if (x->scall != y->scall) return x->scall < y->scall ? -1 : 1;
    if (x->renter != y->renter) return x->renter < y->renter ? -1 : 1;
    if (x->rloc != y->rloc) return x->rloc < y->rloc ? -1 : 1;
    return x->rcall < y->rcall ? -1 : x->rcall > y->rcall;
}

ws_lr_wait_t *ws_lr_waits(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, size_t *nout)
{
    int np = ws_alone(net) ? 1 : p->np;
    uint64_t *scnt = ws_xcalloc((size_t)np, sizeof *scnt), *rcnt = ws_xcalloc((size_t)np, sizeof *rcnt);
    /* Asks, grouped by the sender's part. */
    uint64_t nask = 0;
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        if (!p->recv_g[i]) continue;
        for (size_t k = 0; k < l->recvs.n; k++, ws_spill_step()) {
            uint32_t g = p->recv_g[i][k];
            if (g == WS_NONE32) continue;
            ws_sent_t *s = &p->in[g];
            if (s->loc >= c->nlocs || l->calls.v[l->recvs.v[k].call].enter <= s->enter) continue;
            scnt[p->owner[c->locs[s->loc].rank]]++, nask++;
        }
    }
    lr_ask_t *ask = ws_xmalloc((nask ? nask : 1) * sizeof *ask);
    uint64_t *off = ws_xcalloc((size_t)np, sizeof *off);
    for (int q = 1; q < np; q++) off[q] = off[q - 1] + scnt[q - 1];
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        if (!p->recv_g[i]) continue;
        for (size_t k = 0; k < l->recvs.n; k++, ws_spill_step()) {
            uint32_t g = p->recv_g[i][k];
            if (g == WS_NONE32) continue;
            ws_sent_t *s = &p->in[g];
            uint32_t call = l->recvs.v[k].call;
            uint64_t re = l->calls.v[call].enter;
            if (s->loc >= c->nlocs || re <= s->enter) continue;
            ask[off[p->owner[c->locs[s->loc].rank]]++] = (lr_ask_t){s->loc, s->call, (uint32_t)i, call, re};
        }
    }
    free(off);
    uint64_t nin = nask;
    if (np > 1) {
        ask = ws_exchange(net, ask, scnt, sizeof *ask, rcnt);
        nin = 0;
        for (int q = 0; q < np; q++) nin += rcnt[q];
    }
    free(scnt), free(rcnt);
    /* Per send call with Late Receiver waiting: the receive that began last. */
    if (nin > 1) qsort(ask, nin, sizeof *ask, cmp_ask);
    ws_lr_wait_t *out = ws_xmalloc((nin ? nin : 1) * sizeof *out);
    size_t n = 0;
    for (uint64_t a = 0; a < nin; a++, ws_spill_step()) {
        lr_ask_t *x = &ask[a];
        if (a + 1 < nin && ask[a + 1].sloc == x->sloc && ask[a + 1].scall == x->scall) continue;
        if (x->sloc >= c->nlocs || p->owner[c->locs[x->sloc].rank] != p->me ||
            x->scall >= c->locs[x->sloc].calls.n)
            continue;
        uint64_t w = ws_lr(p, x->sloc, x->scall);
        if (w && x->rloc < c->nlocs) out[n++] = (ws_lr_wait_t){x->rloc, x->rcall, w};
    }
    free(ask);
    *nout = n;
    return out;
}
