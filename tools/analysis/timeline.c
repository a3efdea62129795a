/* The timeline pass (only when asked: msc_an_opts_t.timeline, which
 * `mpiscope report --html` sets): what the HTML page draws as ranks against time,
 * pre-aggregated so that the page stays small and fast for any trace.
 *
 * Design. Each location's calls are binned into pixel columns at several
 * zoom levels (1024, 4096, 16384, 65536 columns over the whole run; a
 * level is kept while locations × columns stays within 2^21 cells, so a
 * page holds at most a few MB whatever the number of events). A cell holds
 * the state that covers most of it by its longest stretch (binned at the
 * finest level; a coarser cell takes the state of the longest stretch among
 * its 4 finer cells and their waiting summed): 0 nothing (the
 * location had not started or had ended), 1 computation, 2 + k the k-th MPI
 * region (regions numbered in their order in the definitions, the same on
 * every part; only those some location called), 255 an MPI region beyond 252; and one bit: a wait state
 * covers at least an eighth of it (Late Sender, Late Receiver, a collective
 * member before the one it waited for). Exact calls (enter, leave, region,
 * waiting) come along in windows of the run within a budget of 40,000 calls
 * (timeline_windows.c: the whole run when it fits, else the slots with the
 * most waiting; or the window --window asked for), and up to 5,000 messages
 * as lines (a deterministic sample by sender and call when there are more)
 * plus every message that arrives in a window (a sample beyond 40,000 in
 * windows the budget chose), from the matches the wait states made.
 *
 * Every part writes the lines of its own locations; part 0 gathers them as
 * text and sorts them by location, so one process and many give the same
 * result. The text: lines separated by '|', fields by spaces (H span exact
 * stride columns...; W from-ns to-ns how (all, waiting, asked); F code name;
 * C critical-path-stretches drawn; L location rank thread; R location
 * level cells-base64 waitbits-base64; E location first-enter
 * d,duration,code,wait,site,peer,bytes,root,... (d: enter after the
 * previous call's enter, one line per window; timeline_windows.h); S
 * location index text (the call sites E names); P location from-ns
 * to-ns (a stretch of the critical path, computation or MPI, from
 * critpath.c: the latest WS_CP_SEGS); M sender send-ns receiver
 * receive-ns). Memory: 5 bytes per cell of one location while it is binned.
 */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spill.h"
#include "timeline_windows.h"

enum { LEVELS = 4, BASE_COLS = 1024, MAX_CELLS = 1 << 21, MAX_LINES = 5000, MAX_WIN_LINES = 40000 };

typedef struct {
    char *s;
    size_t n, cap;
} tbuf_t;

static void put(tbuf_t *b, const char *p, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->cap ? 2 * b->cap : 1 << 16) + n;
        char *s = realloc(b->s, cap);
        if (!s) abort();
        b->s = s, b->cap = cap;
    }
    memcpy(b->s + b->n, p, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void tput(void *b, const char *p, size_t n) { put(b, p, n); }

static void putf(tbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void putf(tbuf_t *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (w > 0) put(b, tmp, (size_t)w < sizeof tmp ? (size_t)w : sizeof tmp - 1);
}

static void base64(tbuf_t *b, const uint8_t *p, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char out[4];
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        out[0] = t[v >> 18 & 63], out[1] = t[v >> 12 & 63];
        out[2] = i + 1 < n ? t[v >> 6 & 63] : '=';
        out[3] = i + 2 < n ? t[v & 63] : '=';
        put(b, out, 4);
    }
}

/* Adds the stretch [a, b) of state st (and waiting) to the cells of a row
 * of `cols` columns over [t0, t0 + span). */
static void bin(uint8_t *cell, uint32_t *best, uint32_t *wait, int cols, uint64_t t0, uint64_t span,
                uint64_t a, uint64_t b, uint8_t st, bool waiting)
{
    if (b <= a || !span) return;
    double per = (double)span / cols, inv = (double)cols / (double)span;
    int c0 = (int)((double)(a - t0) * inv), c1 = (int)((double)(b - t0 - 1) * inv);
    if (c0 < 0) c0 = 0;
    if (c1 >= cols) c1 = cols - 1;
    for (int c = c0; c <= c1; c++) {
        uint64_t lo = t0 + (uint64_t)(c * per), hi = t0 + (uint64_t)((c + 1) * per);
        uint64_t x = a > lo ? a : lo, y = b < hi ? b : hi;
        if (y <= x) continue;
        uint32_t ov = (uint32_t)(y - x > UINT32_MAX ? UINT32_MAX : y - x);
        if (waiting) {
            wait[c] += ov;
        } else if (ov > best[c]) {
            best[c] = ov;
            cell[c] = st;
        }
    }
}

/* The waiting of call k of location i: [enter, enter + w). */
uint64_t ws_tl_call_wait(ws_ctx_t *c, ws_pass_t *p, size_t i, uint64_t k, size_t *ck)
{
    ws_loc_t *l = &c->locs[i];
    ws_call_t *cl = &l->calls.v[k];
    uint64_t ls = ws_ls(p, i, (uint32_t)k), lr = ws_lr(p, i, (uint32_t)k);
    uint64_t w = ls > lr ? ls : lr;
    for (; *ck < l->colls.n && l->colls.v[*ck].call < k; (*ck)++) {
    }
    for (size_t j = *ck; j < l->colls.n && l->colls.v[j].call == k; j++) {
        ws_coll_t *co = &l->colls.v[j];
        uint32_t id = p->memb[i][j];
        uint64_t dep = 0;
        if (co->op == OTF2_COLLECTIVE_OP_BARRIER || ws_is_nxn(co->op)) dep = p->agg[id];
        else if (ws_is_1ton(co->op) && co->root != l->rank) dep = p->agg[p->ninst + 3 * (uint64_t)id + 1];
        else if (ws_is_nto1(co->op) && co->root == l->rank) dep = p->agg[id];
        if (dep != WS_NONE64 && dep > cl->enter) {
            uint64_t x = ws_min64(dep, ws_leave(l, cl)) - cl->enter;
            if (x > w) w = x;
        }
    }
    return w;
}

/* A line with its sort key: kind (R, E, S, P, M), then its numbers (messages:
 * receiver, receive time, sender, send time). */
typedef struct {
    unsigned long long k[5];
    const char *s;
} keyed_t;

static void line_key(keyed_t *o, const char *s)
{
    unsigned long long n[4] = {0, 0, 0, 0};
    const char *q = s + 1;
    for (int i = 0; i < 4 && *q == ' '; i++) n[i] = strtoull(q + 1, (char **)&q, 10);
    o->s = s;
    o->k[0] = s[0] == 'R' ? 0 : s[0] == 'E' ? 1 : s[0] == 'S' ? 2 : s[0] == 'P' ? 3 : 4;
    if (s[0] == 'M') o->k[1] = n[2], o->k[2] = n[3], o->k[3] = n[0], o->k[4] = n[1];
    else memcpy(&o->k[1], n, sizeof n);
}

static int cmp_line(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    for (int i = 0; i < 5; i++)
        if (x->k[i] != y->k[i]) return x->k[i] < y->k[i] ? -1 : 1;
    return strcmp(x->s, y->s);
}

void ws_pass_timeline(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, ws_result_t *r)
{
    /* The MPI regions that some location called, numbered in definition
     * order (the same on every part). */
    uint64_t *used = ws_xcalloc(c->t->nregion + 1, sizeof *used);
    for (size_t i = 0; i < c->nlocs; i++)
        for (size_t k = 0; k < c->locs[i].calls.n; k++, ws_spill_step())
            if (ws_call_region(c, &c->locs[i].calls.v[k]) < c->t->nregion) used[ws_call_region(c, &c->locs[i].calls.v[k])] = 1;
    ws_reduce(net, used, c->t->nregion, WS_MAX);
    uint8_t *code = ws_xcalloc(c->t->nregion + 1, 1);
    int nmpi = 0;
    for (size_t k = 0; k < c->t->nregion; k++)
        if (used[k] && msc_trace_region_is_mpi(c->t, (uint32_t)k))
            code[k] = nmpi < 253 ? (uint8_t)(2 + nmpi++) : 255;
    free(used);
    uint64_t tot[2] = {0, 0}; /* calls, matched messages */
    for (size_t i = 0; i < c->nlocs; i++) {
        tot[0] += c->locs[i].calls.n;
        for (size_t k = 0; k < c->locs[i].recvs.n; k++, ws_spill_step())
            tot[1] += p->recv_g[i] && p->recv_g[i][k] != WS_NONE32;
    }
    ws_reduce(net, tot, 2, WS_SUM);
    /* The windows of exact calls (timeline_windows.c): the same on every part. */
    ws_tl_windows_t win;
    ws_tl_choose_windows(c, p, net, &win);
    bool exact = win.n > 0;
    uint64_t stride = tot[1] > MAX_LINES ? (tot[1] + MAX_LINES - 1) / MAX_LINES : 1;
    /* The messages that arrive in the windows: all of them, unless more than
     * 40,000 in windows the budget chose (then a sample, like the others). */
    uint64_t inwin = 0;
    for (size_t i = 0; i < c->nlocs && exact && strcmp(win.why, "asked"); i++) {
        ws_loc_t *l = &c->locs[i];
        if (p->owner[l->rank] != p->me || !p->recv_g[i]) continue;
        for (size_t k = 0; k < l->recvs.n; k++, ws_spill_step())
            inwin += p->recv_g[i][k] != WS_NONE32 &&
                     ws_tl_in_windows(&win, ws_leave(l, &l->calls.v[l->recvs.v[k].call]) - p->t0);
    }
    ws_reduce(net, &inwin, 1, WS_SUM);
    uint64_t wstride = inwin > MAX_WIN_LINES ? (inwin + MAX_WIN_LINES - 1) / MAX_WIN_LINES : 1;
    /* The critical path's stretches: walked (total) and kept (critpath.c). */
    uint64_t cpn[2] = {p->cp_total, p->cp_nseg};
    ws_reduce(net, cpn, 2, WS_SUM);
    uint64_t t0 = p->t0, span = p->t_end - p->t0;
    int cols[LEVELS], nlev = 0;
    for (int k = 0, n = BASE_COLS; k < LEVELS; k++, n *= 4)
        if (!k || (uint64_t)n * c->nlocs <= MAX_CELLS) cols[nlev++] = n;
    int maxc = cols[nlev - 1];
    uint8_t *cell = ws_xmalloc((size_t)maxc), *bits = ws_xmalloc((size_t)maxc / 8 + 1);
    uint32_t *best = ws_xmalloc((size_t)maxc * sizeof *best), *wait = ws_xmalloc((size_t)maxc * sizeof *wait);
    tbuf_t b = {0};
    put(&b, "", 0);
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        if (p->owner[l->rank] != p->me || !l->calls.n) continue;
        /* R <loc> <level> <cells> <wait bits>: the finest level binned from
         * the calls, each coarser one from 4 cells of the next (the state of
         * the longest stretch among them, their waiting summed). */
        int n = cols[nlev - 1];
        memset(cell, 0, (size_t)n), memset(best, 0, (size_t)n * sizeof *best);
        memset(wait, 0, (size_t)n * sizeof *wait);
        size_t ck = 0;
        for (uint64_t k = 0; k <= l->calls.n; k++, ws_spill_step()) {
            uint64_t a = k ? ws_leave(l, &l->calls.v[k - 1]) : ws_loc_begin(l);
            uint64_t e = k < l->calls.n ? l->calls.v[k].enter : ws_loc_end(l);
            bin(cell, best, wait, n, t0, span, a, e, 1, false);
            if (k == l->calls.n) break;
            ws_call_t *cl = &l->calls.v[k];
            bin(cell, best, wait, n, t0, span, cl->enter, ws_leave(l, cl),
                code[ws_call_region(c, cl) < c->t->nregion ? ws_call_region(c, cl) : c->t->nregion], false);
            uint64_t w = ws_tl_call_wait(c, p, i, k, &ck);
            if (w) bin(cell, best, wait, n, t0, span, cl->enter, cl->enter + w, 0, true);
        }
        for (int v = nlev - 1; v >= 0; v--) {
            n = cols[v];
            if (v < nlev - 1) /* from the 4 times finer level in place */
                for (int k = 0; k < n; k++) {
                    int b0 = 4 * k, bb = b0;
                    uint32_t wsum = 0;
                    for (int j = 0; j < 4; j++) {
                        if (best[b0 + j] > best[bb]) bb = b0 + j;
                        wsum = wsum + wait[b0 + j] < wsum ? UINT32_MAX : wsum + wait[b0 + j];
                    }
                    cell[k] = cell[bb], best[k] = best[bb], wait[k] = wsum;
                }
            memset(bits, 0, (size_t)n / 8 + 1);
            double per = (double)span / n;
            for (int k = 0; k < n; k++)
                if (wait[k] && (double)wait[k] * 8 >= per) bits[k / 8] |= (uint8_t)(1u << (k % 8));
            putf(&b, "R %zu %d ", i, v);
            base64(&b, cell, (size_t)n);
            put(&b, " ", 1);
            base64(&b, bits, (size_t)n / 8);
            put(&b, "|", 1);
        }
        if (exact) { /* E <loc> <first enter> enter-delta,duration,code,wait,... per window */
            tbuf_t e = {0};
            ws_tl_put_exact(c, p, i, &win, code, tput, &e);
            if (e.n) put(&b, e.s, e.n);
            free(e.s);
        }
        /* Messages: sender location, send enter, receiver location, receive leave. */
        for (size_t k = 0; k < l->recvs.n; k++, ws_spill_step()) {
            uint32_t g = p->recv_g[i][k];
            if (g == WS_NONE32) continue;
            ws_sent_t *s = &p->in[g];
            ws_call_t *rc = &l->calls.v[l->recvs.v[k].call];
            /* and every message that arrives in a window of exact calls (or
             * a sample of them by wstride) */
            uint64_t mix = ws_mix((uint64_t)s->loc << 32 | s->call);
            if (stride > 1 && mix % stride &&
                !(mix % wstride == 0 && ws_tl_in_windows(&win, ws_leave(l, rc) - t0)))
                continue;
            putf(&b, "M %u %llu %zu %llu|", s->loc,
                 (unsigned long long)ws_to_ns(c->tick_ns, s->enter - t0), i,
                 (unsigned long long)ws_to_ns(c->tick_ns, ws_leave(l, rc) - t0));
        }
    }
    /* P <loc> <from> <to>: the critical path's stretches on this part's
     * locations (ns after the start). */
    for (size_t k = 0; k < p->cp_nseg; k++, ws_spill_step())
        putf(&b, "P %u %llu %llu|", p->cp_seg[k].loc,
             (unsigned long long)ws_to_ns(c->tick_ns, p->cp_seg[k].from - t0),
             (unsigned long long)ws_to_ns(c->tick_ns, p->cp_seg[k].to - t0));
    free(cell), free(bits), free(best), free(wait);
    char *all = ws_gather_text(net, b.s, b.n);
    free(b.s);
    if (all) {
        /* Header line, then the lines sorted by kind and location. */
        size_t nl = 0;
        for (char *q = all; *q; q++) nl += *q == '|';
        keyed_t *lines = ws_xmalloc((nl + 1) * sizeof *lines);
        size_t n = 0;
        for (char *q = all, *e; *q; q = e + 1) {
            e = strchr(q, '|');
            if (!e) break;
            *e = '\0';
            line_key(&lines[n++], q);
        }
        tbuf_t o = {0};
        putf(&o, "H %llu %d %d", (unsigned long long)ws_to_ns(c->tick_ns, span), exact,
             (int)stride);
        for (int v = 0; v < nlev; v++) putf(&o, " %d", cols[v]);
        put(&o, "|", 1);
        /* W <from> <to> <how chosen>: the windows with exact calls (ns after the start). */
        for (size_t k = 0; k < win.n; k++)
            putf(&o, "W %llu %llu %s|", (unsigned long long)ws_to_ns(c->tick_ns, win.v[k].from),
                 (unsigned long long)ws_to_ns(c->tick_ns, win.v[k].to), win.why);
        for (size_t k = 0; k < c->t->nregion; k++)
            if (code[k] >= 2 && code[k] < 255) {
                putf(&o, "F %d ", code[k]);
                /* names without the separators */
                for (const char *nm = msc_trace_region_name(c->t, (uint32_t)k); *nm; nm++)
                    put(&o, *nm == ' ' || *nm == '|' || (unsigned char)*nm < 0x20 ? "_" : nm, 1);
                put(&o, "|", 1);
            }
        /* C <stretches of the critical path> <drawn>: the latest ones are kept. */
        putf(&o, "C %llu %llu|", (unsigned long long)cpn[0], (unsigned long long)cpn[1]);
        for (size_t k = 0; k < c->nlocs; k++)
            putf(&o, "L %zu %d %u|", k, c->locs[k].rank, c->t->loc[k].thread);
        /* By kind, location and level (messages: receiver, its time,
         * sender, send time), whichever part wrote them. */
        qsort(lines, n, sizeof *lines, cmp_line);
        for (size_t k = 0; k < n; k++) {
            put(&o, lines[k].s, strlen(lines[k].s));
            put(&o, "|", 1);
        }
        free(lines);
        r->timeline = o.s;
        r->timeline_len = o.n;
    }
    free(all);
    free(code);
    free(win.v);
}
