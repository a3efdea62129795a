/* Late Receiver's cause for the delay analysis (critpath_lr.c). */
#ifndef MSC_CRITPATH_LR_H
#define MSC_CRITPATH_LR_H

#include "waitstate_impl.h"

/* A Late Receiver wait, on the part of its receiver: the receive call the
 * send waited for, and the waiting. */
typedef struct {
    uint32_t loc, call; /* the receive */
    uint64_t w;         /* ticks */
} ws_lr_wait_t;

/* Every Late Receiver wait of the run, each on the part of the location
 * that received (one all-to-all, receivers' parts to senders', 24 bytes per
 * message received after it was sent; none with one part). *n: how many
 * here; malloc'd. */
ws_lr_wait_t *ws_lr_waits(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, size_t *n);

#endif
