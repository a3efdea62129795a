/* Where the HTML timeline carries exact calls: windows of the run chosen
 * within a fixed budget, so that the page stays under a few MB for any
 * trace and the exact calls are there where they matter.
 *
 * Design. The run is cut into 4096 equal slots. One sweep over each
 * location's calls counts, per slot, the calls that overlap it and the
 * waiting (Late Sender, Late Receiver, collective waits: the timeline's wait
 * marks) that falls in it; both are summed over the parts (one reduction of
 * 2 × 4096 words), so every part chooses the same windows. When the whole
 * run has at most 40,000 calls it is one window ("all"). Otherwise the slots
 * are taken by decreasing waiting (ties: the earlier), each if its calls
 * still fit in the 40,000 (a call overlapping several slots counts in each,
 * so the budget is an upper bound), then, if the budget is not spent, the
 * slots without waiting from the start of the run; adjacent chosen slots
 * make one window ("waiting"). A window asked for (`--window A:B`, ns after
 * the start: `mpiscope report --html --from --to`) replaces the choice and
 * has every call that overlaps it, whatever their number ("asked").
 *
 * Each call goes out once per location even if it overlaps two windows
 * (the first one's line has it). Memory: 2 × 4096 words, and a slot order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spill.h"
#include "timeline_windows.h"

static uint64_t slot_of(uint64_t t, uint64_t span)
{
    if (!span) return 0;
    uint64_t s = (uint64_t)((unsigned __int128)t * WS_TL_SLOTS / span);
    return s < WS_TL_SLOTS ? s : WS_TL_SLOTS - 1;
}

static uint64_t slot_lo(uint64_t s, uint64_t span)
{
    return (uint64_t)((unsigned __int128)s * span / WS_TL_SLOTS);
}

typedef struct {
    uint64_t wait;
    uint32_t slot;
} slot_t;

static int cmp_slot(const void *a, const void *b)
{
    const slot_t *x = a, *y = b;
    if (x->wait != y->wait) return x->wait > y->wait ? -1 : 1;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static void add_win(ws_tl_windows_t *w, uint64_t from, uint64_t to)
{
    if (w->n && w->v[w->n - 1].to >= from) {
        if (to > w->v[w->n - 1].to) w->v[w->n - 1].to = to;
        return;
    }
    w->v = realloc(w->v, (w->n + 1) * sizeof *w->v);
    if (!w->v) abort();
    w->v[w->n++] = (ws_tl_win_t){from, to};
}

void ws_tl_choose_windows(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, ws_tl_windows_t *w)
{
    memset(w, 0, sizeof *w);
    uint64_t t0 = p->t0, span = p->t_end - p->t0;
    if (c->opts.window) { /* asked for, in ns: to ticks */
        double per = c->tick_ns > 0 ? c->tick_ns : 1;
        double fa = (double)c->opts.window_from_ns / per, fb = (double)c->opts.window_to_ns / per + 0.999999;
        uint64_t a = fa >= (double)span ? span : (uint64_t)fa;
        uint64_t b = fb >= (double)span ? span : (uint64_t)fb;
        w->why = "asked";
        if (a < b) add_win(w, a, b);
        return;
    }
    uint64_t *v = ws_xcalloc(2 * WS_TL_SLOTS + 1, sizeof *v), *calls = v, *wait = v + WS_TL_SLOTS;
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        if (p->owner[l->rank] != p->me) continue;
        size_t ck = 0;
        for (uint64_t k = 0; k < l->calls.n; k++, ws_spill_step()) {
            ws_call_t *cl = &l->calls.v[k];
            uint64_t a = cl->enter - t0, b = ws_leave(l, cl) - t0;
            for (uint64_t s = slot_of(a, span), e = slot_of(b, span); s <= e; s++) calls[s]++;
            uint64_t wt = ws_tl_call_wait(c, p, i, k, &ck);
            if (!wt) continue;
            for (uint64_t s = slot_of(a, span), e = slot_of(a + wt - 1, span); s <= e; s++) {
                uint64_t lo = slot_lo(s, span), hi = s + 1 < WS_TL_SLOTS ? slot_lo(s + 1, span) : span;
                uint64_t x = a > lo ? a : lo, y = a + wt < hi ? a + wt : hi;
                if (y > x) wait[s] += y - x;
            }
        }
    }
    ws_reduce(net, v, 2 * WS_TL_SLOTS, WS_SUM);
    uint64_t ncalls = 0;
    for (size_t i = 0; i < c->nlocs; i++) ncalls += p->owner[c->locs[i].rank] == p->me ? c->locs[i].calls.n : 0;
    ws_reduce(net, &ncalls, 1, WS_SUM);
    if (ncalls <= WS_TL_EXACT_BUDGET) {
        w->why = "all";
        if (ncalls) add_win(w, 0, span);
        free(v);
        return;
    }
    w->why = "waiting";
    slot_t *order = ws_xmalloc(WS_TL_SLOTS * sizeof *order);
    for (uint32_t s = 0; s < WS_TL_SLOTS; s++) order[s] = (slot_t){wait[s], s};
    qsort(order, WS_TL_SLOTS, sizeof *order, cmp_slot);
    uint8_t *take = ws_xcalloc(WS_TL_SLOTS, 1);
    uint64_t used = 0;
    for (int s = 0; s < WS_TL_SLOTS; s++) {
        uint32_t q = order[s].slot;
        if (calls[q] && used + calls[q] <= WS_TL_EXACT_BUDGET) take[q] = 1, used += calls[q];
    }
    for (uint32_t s = 0; s < WS_TL_SLOTS; s++)
        if (take[s]) add_win(w, slot_lo(s, span), s + 1 < WS_TL_SLOTS ? slot_lo(s + 1, span) : span);
    free(take), free(order), free(v);
}

bool ws_tl_in_windows(const ws_tl_windows_t *w, uint64_t t)
{
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (w->v[m].to < t) lo = m + 1;
        else hi = m;
    }
    return lo < w->n && w->v[lo].from <= t;
}

/* The first record of `call` or later in a table sorted by call. */
static size_t first_msg(const ws_msg_t *v, size_t n, uint64_t call)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (v[m].call < call) lo = m + 1;
        else hi = m;
    }
    return lo;
}

/* The messages of call k (cursors *ms, *mr into sends and receives, k
 * increasing): the first one's other end, the bytes of all. */
static void call_msgs(const ws_loc_t *l, uint64_t k, size_t *ms, size_t *mr, int *peer,
                      uint64_t *bytes)
{
    *peer = -1, *bytes = 0;
    const ws_msg_t *tab[2] = {l->sends.v, l->recvs.v};
    size_t len[2] = {l->sends.n, l->recvs.n}, *cur[2] = {ms, mr};
    for (int t = 0; t < 2; t++) {
        const ws_msg_t *v = tab[t];
        size_t n = len[t];
        if (*cur[t] < n && v[*cur[t]].call < k) *cur[t] = first_msg(v, n, k);
        for (size_t j = *cur[t]; j < n && v[j].call == k; j++) {
            if (*peer < 0) *peer = v[j].peer;
            *bytes += v[j].bytes;
        }
    }
}

/* A collective's root (world rank) at call k, or -1 (cursor *cc). */
static int call_root(const ws_loc_t *l, uint64_t k, size_t *cc)
{
    while (*cc < l->colls.n && l->colls.v[*cc].call < k) (*cc)++;
    return *cc < l->colls.n && l->colls.v[*cc].call == k ? l->colls.v[*cc].root : -1;
}

void ws_tl_put_exact(ws_ctx_t *c, ws_pass_t *p, size_t i, const ws_tl_windows_t *w,
                     const uint8_t *code, void (*put)(void *, const char *, size_t), void *u)
{
    ws_loc_t *l = &c->locs[i];
    uint64_t t0 = p->t0, next = 0; /* the first call not yet written */
    size_t ck = 0, ms = 0, mr = 0, cc = 0;
    char tmp[192];
    /* The site nodes named, each once (a few per location). */
    uint32_t *sites = NULL;
    size_t nsites = 0, capsites = 0;
    for (size_t x = 0; x < w->n; x++) {
        uint64_t a = t0 + w->v[x].from, b = t0 + w->v[x].to;
        /* the first call that leaves at or after a */
        uint64_t lo = next, hi = l->calls.n;
        while (lo < hi) {
            uint64_t m = lo + (hi - lo) / 2;
            if (ws_leave(l, &l->calls.v[m]) < a) lo = m + 1;
            else hi = m;
        }
        uint64_t prev = 0;
        bool open = false;
        for (uint64_t k = lo; k < l->calls.n && l->calls.v[k].enter <= b; k++, ws_spill_step()) {
            ws_call_t *cl = &l->calls.v[k];
            uint64_t e = ws_to_ns(c->tick_ns, cl->enter - t0), f = ws_to_ns(c->tick_ns, ws_leave(l, cl) - t0);
            uint32_t r = ws_call_region(c, cl);
            int n;
            if (!open) {
                n = snprintf(tmp, sizeof tmp, "E %zu %llu ", i, (unsigned long long)e);
                put(u, tmp, (size_t)n);
                prev = e;
            }
            /* The call's site as its index among this location's sites (the
             * same whichever part writes it: node numbers are a part's own). */
            size_t si = 0;
            while (si < nsites && sites[si] != cl->site) si++;
            if (si == nsites) {
                if (nsites == capsites) {
                    capsites = capsites ? 2 * capsites : 16;
                    sites = realloc(sites, capsites * sizeof *sites);
                    if (!sites) abort();
                }
                sites[nsites++] = cl->site;
            }
            int peer;
            uint64_t bytes;
            call_msgs(l, k, &ms, &mr, &peer, &bytes);
            n = snprintf(tmp, sizeof tmp, "%s%llu,%llu,%u,%llu,%zu,%d,%llu,%d", open ? "," : "",
                         (unsigned long long)(e - prev), (unsigned long long)(f - e),
                         code[r < c->t->nregion ? r : c->t->nregion],
                         (unsigned long long)ws_to_ns(c->tick_ns, ws_tl_call_wait(c, p, i, k, &ck)),
                         si, peer, (unsigned long long)bytes, call_root(l, k, &cc));
            put(u, tmp, (size_t)n);
            open = true, prev = e, next = k + 1;
        }
        if (open) put(u, "|", 1);
    }
    /* S <loc> <index> <call site as the reports name it>, without '|'. */
    for (size_t j = 0; j < nsites; j++) {
        char *txt = sites[j] < c->nodes.n ? ws_site_string(c, sites[j], NULL) : NULL;
        int n = snprintf(tmp, sizeof tmp, "S %zu %zu ", i, j);
        put(u, tmp, (size_t)n);
        for (const char *q = txt ? txt : "?"; *q; q++)
            put(u, *q == '|' || (unsigned char)*q < 0x20 ? "_" : q, 1);
        put(u, "|", 1);
        free(txt);
    }
    free(sites);
}
