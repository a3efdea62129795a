/* The windows of exact calls in the HTML timeline (timeline_windows.c),
 * used by the timeline pass (timeline.c). */
#ifndef MSC_TIMELINE_WINDOWS_H
#define MSC_TIMELINE_WINDOWS_H

#include "waitstate_impl.h"

typedef struct {
    uint64_t from, to; /* ticks after the run's start */
} ws_tl_win_t;

typedef struct {
    ws_tl_win_t *v; /* disjoint, in time order */
    size_t n;
    const char *why; /* "all" (the whole run), "waiting" (chosen), "asked" (--window) */
} ws_tl_windows_t;

/* The exact calls' budget of a page (calls over every location). */
enum { WS_TL_EXACT_BUDGET = 40000, WS_TL_SLOTS = 4096 };

/* The waiting of call k of location i (timeline.c); *ck: a cursor into its
 * collectives, k increasing. */
uint64_t ws_tl_call_wait(ws_ctx_t *c, ws_pass_t *p, size_t i, uint64_t k, size_t *ck);
/* Chooses the windows, the same on every part (one reduction). */
void ws_tl_choose_windows(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, ws_tl_windows_t *w);
/* Whether t (ticks after the start) lies in a window. */
bool ws_tl_in_windows(const ws_tl_windows_t *w, uint64_t t);
/* Writes the E lines of location i: each window's calls that overlap it,
 * each once ("E loc first-enter-ns d,dur,code,wait,site,peer,bytes,root,...|",
 * d the enter after the previous call's enter, in ns; site the index of
 * its call site among the location's S lines, peer the world rank of its first message's other end or -1, bytes
 * its messages' bytes sent and received, root a collective's root or -1),
 * then an S line per call site they name ("S loc index text|"). */
void ws_tl_put_exact(ws_ctx_t *c, ws_pass_t *p, size_t i, const ws_tl_windows_t *w,
                     const uint8_t *code, void (*put)(void *, const char *, size_t), void *u);

#endif
